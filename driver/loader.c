/* The driver's userspace side: skeleton lifecycle, filler table, settings, counters. */
#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

/* The skeleton names struct driver_settings: driver.h (via loader.h) comes first. */
#include "loader.h"
#include "links_close.h"
#include "plan.h"
#include "schema.h"
#include "syscall_tps.h"
#include "agent_driver.skel.h"

struct driver {
	struct agent_driver *skel;
	bool paused;
	bool no_bpf_loop;
	struct bpf_link *links[16];	/* one per driver__attach hook */
	int nlinks;
	/* the hooks' programs last attached, kept past a detach for
	 * driver__skipped */
	struct bpf_program *hook_progs[16];
	int nhook_progs;
	/* syscall_tps: sys_exit_eo on each wanted syscall's own tracepoint */
	bool syscall_tps;
	bool no_syscall_tps;		/* driver_config.no_syscall_tps */
	bool verifier_stats;		/* driver_config.verifier_stats */
	uint8_t tp_syscalls[SYSCALL_TABLE_SIZE];
	struct bpf_link *tp_links[SYSCALL_TABLE_SIZE];
	int ntp_links;
	/* sock_tps: compact socket I/O's read, readv, write and writev at the
	 * socket tracepoints, not their syscalls' (socktp_recv, socktp_send) */
	bool sock_tps;
	bool sock_tp_sendfile;	/* sendfile taken at sock_send_length too */
	bool no_sock_tps;		/* driver_config.no_sock_tps */
	/* close's events sent by close_enter, no exit program on close
	 * (driver_load_info.close_at_enter) */
	bool close_at_enter;
	bool no_close_at_enter;		/* driver_config.no_close_at_enter */
	bool no_close_enter;		/* driver_config.no_close_enter */
	struct bpf_link *sock_links[2];
	/* exit-only: close_enter on close's enter tracepoint where the run
	 * may want closes (close_enter.bpf.h); a run without them pays nothing */
	struct bpf_link *close_link;
	bool tls;			/* driver_config.tls */
	bool tcp;			/* driver_config.tcp */
	uint32_t tcp_conns;		/* driver_config.tcp_conns, 0 made TCP_CONNS */
	struct bpf_link **tls_links;	/* the TLS probes, per library file */
	uint32_t ntls_links, tls_cap, tls_files;
	uint32_t go_files;		/* Go programs probed: go_bins' slots used */
	struct bpf_link **samplers;	/* prof_sample on each CPU's cpu-clock */
	int nsamplers;
	uint32_t profile_hz;
	int ncpus;
	bool loaded;
	bool per_thread;
	bool all_syscalls;		/* no driver_config.syscalls */
	uint8_t syscalls[SYSCALL_TABLE_SIZE];
	uint8_t has_filler[PPM_EVENT_MAX];
	struct driver_load_info info;
};

static int silent_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* Library code does not print; the verifier log reaches callers as errors. */
	return 0;
}

/* The syscalls that move data through an fd, and which argument it is: in
 * request mode (sock_families) their events leave the kernel only for a wanted
 * socket. close is not here: at its exit the fd is gone, and the pairing needs
 * every socket's close anyway; nor are the calls that make or end connections. */
static const struct {
	int nr;
	uint8_t how;	/* enum sock_io_fd */
	uint8_t send;	/* 1: it sends (sock_send[]) */
} sock_io_calls[] = {
	{ SYS_read, SOCK_IO_ARG0, 0 },		{ SYS_write, SOCK_IO_ARG0, 1 },
	{ SYS_readv, SOCK_IO_ARG0, 0 },		{ SYS_writev, SOCK_IO_ARG0, 1 },
	{ SYS_pread64, SOCK_IO_ARG0, 0 },	{ SYS_pwrite64, SOCK_IO_ARG0, 1 },
	{ SYS_preadv, SOCK_IO_ARG0, 0 },	{ SYS_pwritev, SOCK_IO_ARG0, 1 },
	{ SYS_preadv2, SOCK_IO_ARG0, 0 },	{ SYS_pwritev2, SOCK_IO_ARG0, 1 },
	{ SYS_recvfrom, SOCK_IO_ARG0_PEEK3, 0 },	{ SYS_sendto, SOCK_IO_ARG0, 1 },
	{ SYS_recvmsg, SOCK_IO_ARG0_PEEK2, 0 },	{ SYS_sendmsg, SOCK_IO_ARG0, 1 },
	{ SYS_recvmmsg, SOCK_IO_ARG0, 0 },	{ SYS_sendmmsg, SOCK_IO_ARG0, 1 },
	/* the fd written to */
	{ SYS_sendfile, SOCK_IO_ARG0, 1 },
	/* fd_in or fd_out: a proxy splices a socket into a pipe, then the pipe
	 * into another socket */
	{ SYS_splice, SOCK_IO_ARG0_OR_2, 0 },
};

/* driver_config.file_closes: what request mode's exit dispatcher does first
 * at these calls' exits (file_fds.bpf.h). */
static const struct {
	int nr;
	uint8_t how;	/* enum fdf_how */
} fdf_calls[] = {
	{ SYS_close, FDF_CLOSE },
	{ SYS_socket, FDF_SOCKET },
};
_Static_assert(SYS_close == 3, "file_fds.bpf.h's FDF_NR_CLOSE");

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

struct driver *driver__open(void)
{
	struct driver *d = calloc(1, sizeof(*d));
	int err;

	if (!d)
		return NULL;
	if (!getenv("AGENT_LIBBPF_DEBUG"))
		libbpf_set_print(silent_print);
	d->skel = agent_driver__open();
	if (!d->skel) {
		err = errno ? errno : EINVAL;
		free(d);
		errno = err;
		return NULL;
	}
	d->ncpus = libbpf_num_possible_cpus();
	if (d->ncpus <= 0) {
		err = -d->ncpus;
		driver__close(d);
		errno = err ? err : EINVAL;
		return NULL;
	}
	bpf_map__set_max_entries(d->skel->maps.frames, d->ncpus);
	bpf_map__set_max_entries(d->skel->maps.kf_slots, d->ncpus);
	bpf_map__set_max_entries(d->skel->maps.events, d->ncpus);
	bpf_map__set_max_entries(d->skel->maps.rings, d->ncpus);
	d->skel->bss->settings.snaplen = DRIVER_DEFAULT_SNAPLEN;
	d->skel->bss->settings.own_tgid = getpid();
	d->skel->bss->settings.procexit = 1;
	for (size_t i = 0; i < sizeof(sock_io_calls) / sizeof(sock_io_calls[0]); i++) {
		d->skel->rodata->sock_io[sock_io_calls[i].nr] = sock_io_calls[i].how;
		d->skel->rodata->sock_send[sock_io_calls[i].nr] = sock_io_calls[i].send;
	}
	d->all_syscalls = true;
	memset(d->syscalls, 1, sizeof(d->syscalls));
	memset(d->skel->bss->interesting, 1, sizeof(d->skel->bss->interesting));
	memset(&d->skel->bss->kf, 0, sizeof(d->skel->bss->kf));
	return d;
}

bool driver__exit_only_supported(void)
{
	/* each probe loads a program: asked once per process */
	static int known = -1;

	if (known < 0)
		known = libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT,
						BPF_FUNC_task_pt_regs, NULL) == 1 &&
			libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT,
						BPF_FUNC_get_current_task_btf, NULL) == 1;
	return known;
}

int driver__configure(struct driver *d, const struct driver_config *cfg)
{
	if (d->loaded)
		return -EBUSY;
	if (cfg->exit_only && !driver__exit_only_supported())
		return -EOPNOTSUPP;
	d->skel->bss->settings.snaplen = cfg->snaplen || cfg->snaplen_given ? cfg->snaplen
									     : DRIVER_DEFAULT_SNAPLEN;
	if (d->skel->bss->settings.snaplen > PPM_MAX_ARG_SIZE)
		return -EINVAL;
	if (cfg->h2_snaplen > H2_SNAPLEN_MAX)
		return -EINVAL;
	d->skel->bss->settings.h2_snaplen = cfg->h2_snaplen;
	bpf_map__set_max_entries(d->skel->maps.h2_fds, cfg->h2_snaplen ? H2_FDS_MAX : 1);
	d->skel->bss->settings.drop_failed = cfg->drop_failed;
	d->skel->bss->settings.own_tgid = cfg->own_tgid ? cfg->own_tgid : (uint32_t)getpid();
	d->no_bpf_loop = cfg->no_bpf_loop;
	d->paused = cfg->paused;
	d->skel->bss->settings.exit_only = cfg->exit_only;
	d->skel->bss->settings.ringbuf = cfg->ringbuf;
	d->skel->bss->settings.sock_families = cfg->sock_families;
	d->skel->bss->settings.sock_compact =
		cfg->sock_compact && cfg->exit_only && cfg->sock_families;
	/* rodata: a configure without it clears what an earlier one set */
	for (size_t i = 0; i < sizeof(fdf_calls) / sizeof(fdf_calls[0]); i++)
		d->skel->rodata->fdf_how[fdf_calls[i].nr] =
			cfg->file_closes && cfg->exit_only ? fdf_calls[i].how : FDF_NONE;
	if (cfg->profile > PROF_FOLLOW_ALL)
		return -EINVAL;
	d->skel->bss->settings.profile = cfg->profile;
	d->skel->bss->settings.prof_names = cfg->profile && cfg->profile_names;
	/* the table takes its memory at load: none without profiling */
	bpf_map__set_max_entries(d->skel->maps.prof_threads, cfg->profile ? PROF_THREADS : 1);
	bpf_map__set_max_entries(d->skel->maps.prof_let_go,
				 cfg->profile == PROF_FOLLOW_SENT ? PROF_THREADS : 1);
	if (cfg->profile_hz > 10000)
		return -EINVAL;
	/* the ciphertext is kept at the syscall's exit, with its enter event */
	if (cfg->tls && !cfg->exit_only)
		return -EINVAL;
	d->tls = cfg->tls;
	d->tcp = cfg->tcp;
	d->tcp_conns = cfg->tcp_conns ? cfg->tcp_conns : TCP_CONNS;
	d->profile_hz = cfg->profile ? cfg->profile_hz : 0;
	d->per_thread = cfg->per_thread;
	/* rodata: without it the kernel filter's code is not even verified */
	d->skel->rodata->kf_loaded = cfg->per_thread;
	d->no_syscall_tps = cfg->no_syscall_tps;
	d->verifier_stats = cfg->verifier_stats;
	d->no_sock_tps = cfg->no_sock_tps;
	d->no_close_at_enter = cfg->no_close_at_enter;
	d->no_close_enter = cfg->no_close_enter;
	d->all_syscalls = !cfg->syscalls;
	for (int i = 0; i < SYSCALL_TABLE_SIZE; i++)
		d->syscalls[i] = !cfg->syscalls || cfg->syscalls[i];
	return 0;
}

/* Filler programs are named after their event id in lower case, continuation parts
 * "<id>_partN". Returns the event code and sets *part (0 for the filler itself). */
static int filler_code(const char *prog_name, int *part)
{
	char id[64];
	size_t i;
	char *p;

	for (i = 0; prog_name[i] && i < sizeof(id) - 1; i++)
		id[i] = toupper((unsigned char)prog_name[i]);
	id[i] = 0;
	*part = 0;
	p = strstr(id, "_PART");
	if (p && p[5] >= '1' && p[5] < '0' + FILLER_PARTS && !p[6]) {
		*part = p[5] - '0';
		*p = 0;
	}
	return schema__event_by_id(id);
}

static bool is_dispatcher(const struct bpf_program *p)
{
	const char *n = bpf_program__name(p);

	return !strcmp(n, "sys_enter") || !strcmp(n, "sys_exit") || !strcmp(n, "sys_exit_eo") ||
	       !strcmp(n, "close_enter") ||
	       !strcmp(n, "sched_process_exit") || !strcmp(n, "sched_process_exit_eo") ||
	       !strcmp(n, "sched_switch") || !strcmp(n, "sched_process_exec") ||
	       !strncmp(n, "prof_", 5) || !strncmp(n, "tlsp_", 5) || !strncmp(n, "gotls_", 6) ||
	       !strncmp(n, "socktp_", 7) || !strncmp(n, "tcp_", 4);
}

static bool calls_helper(const struct bpf_program *p, int helper)
{
	const struct bpf_insn *in = bpf_program__insns(p);
	size_t n = bpf_program__insn_cnt(p);

	for (size_t i = 0; i < n; i++)
		if (in[i].code == (BPF_JMP | BPF_CALL) && in[i].src_reg == 0 && in[i].imm == helper)
			return true;
	return false;
}

/* Fillers that call bpf_loop (5.17) are left out on older kernels, with every
 * part of the same event and the other half of its enter/exit pair: those
 * syscalls fall back to the generic pair instead of the whole driver failing to
 * load. */
static void skip_fillers_needing_loop(struct driver *d)
{
	uint8_t skip[PPM_EVENT_MAX] = { 0 };
	struct bpf_program *p;
	int code, part;

	if (!d->no_bpf_loop &&
	    libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT, BPF_FUNC_loop, NULL) == 1)
		return;
	bpf_object__for_each_program(p, d->skel->obj)
		if (!is_dispatcher(p) && calls_helper(p, BPF_FUNC_loop) &&
		    (code = filler_code(bpf_program__name(p), &part)) >= 0)
			skip[code & ~1] = 1;
	bpf_object__for_each_program(p, d->skel->obj)
		if (!is_dispatcher(p) && (code = filler_code(bpf_program__name(p), &part)) >= 0 &&
		    skip[code & ~1])
			bpf_program__set_autoload(p, false);
}

/* The plan (plan.h) onto the object: each program on or off. A filler the
 * plan leaves out is marked in filler_off, so that an event of it that comes
 * anyway is counted, not sent as the generic event. */
static void plan__apply(struct driver *d)
{
	struct agent_driver *sk = d->skel;
	struct driver_plan_in in = {
		.syscalls = d->all_syscalls ? NULL : d->syscalls,
		.exit_only = sk->bss->settings.exit_only,
		.drop_failed = sk->bss->settings.drop_failed,
		.per_thread = d->per_thread,
		.profile = sk->bss->settings.profile != PROF_FOLLOW_NONE,
		.sock_compact = sk->bss->settings.sock_compact,
	};
	struct driver_plan plan;
	struct bpf_program *p;
	int code, part;

	driver_plan__build(&plan, &in);
	bpf_program__set_autoload(sk->progs.sys_enter, plan.sys_enter);
	bpf_program__set_autoload(sk->progs.sys_exit, plan.sys_exit);
	bpf_program__set_autoload(sk->progs.sys_exit_eo, plan.sys_exit_eo);
	bpf_program__set_autoload(sk->progs.close_enter, plan.close_enter);
	/* on with syscall_tps only (set_mode) */
	bpf_program__set_autoload(sk->progs.socktp_recv, false);
	bpf_program__set_autoload(sk->progs.socktp_send, false);
	bpf_program__set_autoload(sk->progs.sched_process_exec, plan.sched_exec);
	bpf_program__set_autoload(sk->progs.sched_process_exit, plan.sched_exit);
	bpf_program__set_autoload(sk->progs.sched_process_exit_eo, plan.sched_exit_eo);
	bpf_program__set_autoload(sk->progs.sched_switch, plan.sched_switch);
	bpf_program__set_autoload(sk->progs.prof_switch, plan.prof);
	bpf_program__set_autoload(sk->progs.prof_waking, plan.prof);
	bpf_program__set_autoload(sk->progs.prof_wakeup_new, plan.prof);
	bpf_program__set_autoload(sk->progs.prof_sample, plan.prof && d->profile_hz);
	bpf_program__set_autoload(sk->progs.tlsp_read, d->tls);
	bpf_program__set_autoload(sk->progs.tlsp_read_ex, d->tls);
	bpf_program__set_autoload(sk->progs.tlsp_read_ret, d->tls);
	bpf_program__set_autoload(sk->progs.tlsp_write, d->tls);
	bpf_program__set_autoload(sk->progs.tlsp_write_ex, d->tls);
	bpf_program__set_autoload(sk->progs.tlsp_write_ret, d->tls);
	bpf_program__set_autoload(sk->progs.tlsp_free, d->tls);
	bpf_program__set_autoload(sk->progs.tlsp_hs, d->tls);
	bpf_program__set_autoload(sk->progs.tlsp_hs_ret, d->tls);
	bpf_map__set_max_entries(sk->maps.tls_calls, d->tls ? TLS_CALLS : 1);
	bpf_map__set_max_entries(sk->maps.tls_fds, d->tls ? TLS_SESSIONS : 1);
	bpf_map__set_max_entries(sk->maps.tls_claims, d->tls ? TLS_CLAIMS : 1);
	bpf_program__set_autoload(sk->progs.gotls_read, d->tls);
	bpf_program__set_autoload(sk->progs.gotls_read_ret, d->tls);
	bpf_program__set_autoload(sk->progs.gotls_write, d->tls);
	bpf_map__set_max_entries(sk->maps.go_calls, d->tls ? GO_TLS_CALLS : 1);
	bpf_map__set_max_entries(sk->maps.go_fds, d->tls ? GO_FDS_MAX : 1);
	bpf_map__set_max_entries(sk->maps.go_bins, d->tls ? GO_BINS_MAX : 1);
	sk->bss->settings.tls = d->tls;
	bpf_program__set_autoload(sk->progs.tcp_state, d->tcp);
	bpf_program__set_autoload(sk->progs.tcp_state2, d->tcp);
	bpf_program__set_autoload(sk->progs.tcp_rst_out, d->tcp);
	bpf_program__set_autoload(sk->progs.tcp_rst_in, d->tcp);
	bpf_program__set_autoload(sk->progs.tcp_destroy, d->tcp);
	bpf_program__set_autoload(sk->progs.tcp_destroy2, d->tcp);
	/* the tables take their memory at load: none without TCP health */
	bpf_map__set_max_entries(sk->maps.tcp_conns, d->tcp ? d->tcp_conns : 1);
	bpf_map__set_max_entries(sk->maps.tcp_listeners, d->tcp ? TCP_LISTENERS : 1);
	sk->bss->settings.tcp = d->tcp;
	memset(sk->bss->filler_off, 0, sizeof(sk->bss->filler_off));
	bpf_object__for_each_program(p, sk->obj) {
		if (is_dispatcher(p) || (code = filler_code(bpf_program__name(p), &part)) < 0)
			continue;
		bpf_program__set_autoload(p, plan.fillers[code]);
		if (!plan.fillers[code])
			sk->bss->filler_off[code] = 1;
	}
	/* only those syscalls can be turned on without a driver bug */
	for (int i = 0; i < SYSCALL_TABLE_SIZE; i++)
		sk->bss->interesting[i] = d->syscalls[i];
}

/* The calls compact socket I/O takes at the socket tracepoints (sock_tps):
 * those any fd may make (sockio.bpf.h, sockio__on_sock_tp), and sendfile
 * where it reaches sock_sendmsg (sock_tp_sendfile). */
static const int sock_tp_calls[] = { SYS_read, SYS_write, SYS_readv, SYS_writev };

static bool sock_tp_call(const struct driver *d, int nr)
{
	if (nr == SYS_sendfile)
		return d->sock_tp_sendfile;
	for (size_t i = 0; i < sizeof(sock_tp_calls) / sizeof(sock_tp_calls[0]); i++)
		if (sock_tp_calls[i] == nr)
			return true;
	return false;
}

/* Whether a sendfile to a socket goes through sock_sendmsg, so that
 * sock_send_length sees its bytes: since 6.5 a socket's splice_write is
 * splice_to_socket, which sends each batch of pages by sock_sendmsg; before,
 * it was the protocol's sendpage, which never reaches it. */
static bool sendfile__sends_msg(void)
{
	static int known = -1;

	if (known < 0)
		known = libbpf_find_vmlinux_btf_id("splice_to_socket", BPF_TRACE_FENTRY) > 0;
	return known;
}

/* Whether compact socket I/O can go on the socket tracepoints: asked for,
 * its two fillers loaded (what they need, bpf_loop, the socket tracepoints'
 * programs need too), and both tracepoints here (5.19). */
static bool sock_tps__possible(struct driver *d)
{
	struct agent_driver *sk = d->skel;

	return sk->bss->settings.sock_compact && !d->no_sock_tps &&
	       bpf_program__autoload(sk->progs.sock_recv_x) &&
	       bpf_program__autoload(sk->progs.sock_send_x) &&
	       driver__has_sock_tps();
}

bool driver__has_sock_tps(void)
{
	/* each lookup parses the kernel's BTF: asked once per process */
	static int known = -1;

	if (known < 0)
		known = libbpf_find_vmlinux_btf_id("sock_recv_length", BPF_TRACE_RAW_TP) > 0 &&
			libbpf_find_vmlinux_btf_id("sock_send_length", BPF_TRACE_RAW_TP) > 0;
	return known;
}

/* Whether close_enter may send closes itself (close_at_enter): request
 * mode's compact path, where it judges each close at its enter anyway
 * (file_fds.bpf.h). A socket's close then needs nothing its exit knows: the
 * fd's state at the enter gives the result. drop_failed would want a failed
 * close's enter event alone, which only its exit can tell. */
static bool close_at_enter__possible(struct driver *d)
{
	struct agent_driver *sk = d->skel;

	return sk->bss->settings.sock_compact && !sk->bss->settings.drop_failed &&
	       sk->rodata->fdf_how[SYS_close] == FDF_CLOSE && !d->no_close_at_enter &&
	       bpf_program__autoload(sk->progs.close_enter);
}

/* Exit-only capture with a fixed set of syscalls, each with its own exit
 * tracepoint here: sys_exit_eo goes on those (syscall_tps.h), so the host's
 * other syscalls never run it. The set: the syscalls the run may turn on,
 * and those request mode keeps in the kernel by fdf_how (close, socket),
 * whose exits it must see whatever is sent; less those compact socket I/O
 * takes at the socket tracepoints instead (sock_tps), when it can. */
static void syscall_tps__plan(struct driver *d)
{
	struct agent_driver *sk = d->skel;

	d->syscall_tps = d->sock_tps = d->sock_tp_sendfile = d->close_at_enter = false;
	sk->rodata->sockio_tp_sendfile = 0;
	sk->bss->settings.close_at_enter = 0;
	if (!sk->bss->settings.exit_only || d->all_syscalls || d->no_syscall_tps)
		return;
	d->sock_tps = sock_tps__possible(d);
	d->sock_tp_sendfile = d->sock_tps && sendfile__sends_msg();
	d->close_at_enter = close_at_enter__possible(d);
	for (int i = 0; i < SYSCALL_TABLE_SIZE; i++)
		d->tp_syscalls[i] = ((d->syscalls[i] && !(d->sock_tps && sock_tp_call(d, i))) ||
				     sk->rodata->fdf_how[i]) &&
				    !(i == SYS_close && d->close_at_enter);
	d->syscall_tps = syscall_tps__cover(d->tp_syscalls);
	d->close_at_enter = d->close_at_enter && d->syscall_tps;
	sk->bss->settings.close_at_enter = d->close_at_enter;
	d->sock_tps = d->sock_tps && d->syscall_tps;
	d->sock_tp_sendfile = d->sock_tp_sendfile && d->sock_tps;
	sk->rodata->sockio_tp_sendfile = d->sock_tp_sendfile;
	bpf_program__set_autoload(sk->progs.socktp_recv, d->sock_tps);
	bpf_program__set_autoload(sk->progs.socktp_send, d->sock_tps);
}

/* The exit side's programs are declared raw_tp: loaded as tp_btf programs on
 * the raw sys_exit tracepoint, or as tracepoint programs on the syscalls'
 * own (syscall_tps). In exit-only capture the enter fillers go with them: a
 * tail call needs programs of one kind and hook. */
static int set_mode(struct driver *d)
{
	struct agent_driver *sk = d->skel;
	bool eo = sk->bss->settings.exit_only;
	struct bpf_program *p;
	int code, part, err;

	syscall_tps__plan(d);
	sk->rodata->syscall_tps = d->syscall_tps;
	bpf_object__for_each_program(p, sk->obj) {
		if (!bpf_program__autoload(p))
			continue;
		if (p != sk->progs.sys_exit_eo &&
		    (is_dispatcher(p) || (code = filler_code(bpf_program__name(p), &part)) < 0 ||
		     (!eo && !PPME_IS_EXIT(code))))
			continue;
		if (d->syscall_tps)
			err = bpf_program__set_type(p, BPF_PROG_TYPE_TRACEPOINT) ||
			      bpf_program__set_expected_attach_type(p, 0);
		else
			err = bpf_program__set_type(p, BPF_PROG_TYPE_TRACING) ||
			      bpf_program__set_expected_attach_type(p, BPF_TRACE_RAW_TP) ||
			      bpf_program__set_attach_target(p, 0, "sys_exit");
		if (err)
			return -EINVAL;
	}
	return 0;
}

/* The verifier's figures of one program: BPF_LOG_STATS writes only these
 * lines (time, stack depth, instructions walked), well under this. */
#define VSTATS_LOG 1024

/* Each program about to load gets a log of its own for the verifier's
 * figures. Returns the logs (NULL: not asked, or no memory: then no
 * figures, the load as usual). */
static char *vstats__ask(struct driver *d)
{
	struct bpf_program *p;
	size_t n = 0, i = 0;
	char *logs;

	/* AGENT_LIBBPF_DEBUG: libbpf's own log of a refused program, the
	 * verifier's whole walk, is wanted, not these figures */
	if (!d->verifier_stats || getenv("AGENT_LIBBPF_DEBUG"))
		return NULL;
	bpf_object__for_each_program(p, d->skel->obj)
		n++;
	logs = calloc(n ? n : 1, VSTATS_LOG);
	if (!logs)
		return NULL;
	bpf_object__for_each_program(p, d->skel->obj) {
		if (bpf_program__autoload(p)) {
			bpf_program__set_log_level(p, 4 /* BPF_LOG_STATS */);
			bpf_program__set_log_buf(p, logs + i * VSTATS_LOG, VSTATS_LOG);
		}
		i++;
	}
	return logs;
}

/* The figures of the LOGS vstats__ask gave, into d->info; the logs freed. */
static void vstats__take(struct driver *d, char *logs)
{
	struct bpf_program *p;
	size_t i = 0;

	if (!logs)
		return;
	bpf_object__for_each_program(p, d->skel->obj) {
		char *l = logs + i++ * VSTATS_LOG, *at;
		unsigned long long us, insns;

		l[VSTATS_LOG - 1] = 0;
		if (!bpf_program__autoload(p))
			continue;
		/* the log is freed below: libbpf must not keep it */
		bpf_program__set_log_buf(p, NULL, 0);
		if ((at = strstr(l, "verification time ")) &&
		    sscanf(at, "verification time %llu usec", &us) == 1)
			d->info.verified_us += us;
		if (!(at = strstr(l, "processed ")) ||
		    sscanf(at, "processed %llu insns", &insns) != 1)
			continue;
		d->info.verified_insns += insns;
		if (insns > d->info.verified_max) {
			d->info.verified_max = (uint32_t)insns;
			snprintf(d->info.verified_max_name, sizeof(d->info.verified_max_name),
				 "%s", bpf_program__name(p));
		}
	}
	free(logs);
}

int driver__load(struct driver *d)
{
	struct bpf_program *p;
	int enter_table, exit_table, chain_table, parts, err;
	uint64_t start;
	char *logs;

	if (d->loaded)
		return -EBUSY;
	/* Timestamps are boot-clock ns in BPF: this offset turns them into epoch ns. */
	d->skel->bss->settings.boot_time = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_BOOTTIME);
	plan__apply(d);
	skip_fillers_needing_loop(d);
	if ((err = set_mode(d)))
		return err;
	logs = vstats__ask(d);
	start = clock_ns(CLOCK_MONOTONIC);
	err = agent_driver__load(d->skel);
	d->info.load_ns = clock_ns(CLOCK_MONOTONIC) - start;
	vstats__take(d, logs);
	if (err)
		return err < 0 ? err : -err;
	d->loaded = true;
	enter_table = bpf_map__fd(d->skel->maps.fillers_enter);
	exit_table = bpf_map__fd(d->skel->maps.fillers_exit);
	chain_table = bpf_map__fd(d->skel->maps.fillers_chain);
	parts = bpf_map__fd(d->skel->maps.filler_parts);
	bpf_object__for_each_program(p, d->skel->obj) {
		int code, part, fd, key;

		d->info.programs_total++;
		if (bpf_program__autoload(p))
			d->info.programs++;
		if (is_dispatcher(p) || !bpf_program__autoload(p))
			continue;
		code = filler_code(bpf_program__name(p), &part);
		if (code < 0)
			return -ENOENT;	/* a program not named after an event */
		fd = bpf_program__fd(p);
		key = part ? code * FILLER_PARTS + part : code;
		if (bpf_map_update_elem(part ? parts : PPME_IS_EXIT(code) ? exit_table : enter_table,
					&key, &fd, BPF_ANY))
			return -errno;
		if (d->skel->bss->settings.exit_only && !part && PPME_IS_EXIT(code) &&
		    bpf_map_update_elem(chain_table, &key, &fd, BPF_ANY))
			return -errno;
		if (!part && !d->has_filler[code]) {
			d->has_filler[code] = 1;
			d->info.fillers++;
		}
	}
	/* the dispatcher writes an enter frame itself only where both fillers
	 * of the pair are in: else the pair comes as its fillers' absence makes it */
	for (int code = 0; code + 1 < PPM_EVENT_MAX; code += 2)
		d->skel->bss->park_inline[code] = d->has_filler[code] && d->has_filler[code + 1];
	return 0;
}

/* The memlock line of program FD's fdinfo: the bytes the kernel charges it. */
static uint64_t prog__memlock(int fd)
{
	unsigned long long v = 0;
	char path[64], line[128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

int driver__load_info(const struct driver *d, struct driver_load_info *out, bool memlock)
{
	struct bpf_program *p;

	if (!d->loaded)
		return -EINVAL;
	*out = d->info;
	out->syscall_tps = 0;
	if (d->syscall_tps)
		for (int i = 0; i < SYSCALL_TABLE_SIZE; i++)
			out->syscall_tps += d->tp_syscalls[i];
	out->sock_compact = d->skel->bss->settings.sock_compact &&
			    d->has_filler[PPME_SOCK_RECV_X] && d->has_filler[PPME_SOCK_SEND_X];
	out->sock_tps = d->sock_tps;
	out->sock_tp_sendfile = d->sock_tp_sendfile;
	out->close_at_enter = d->close_at_enter;
	out->memlock = 0;
	if (memlock)
		bpf_object__for_each_program(p, d->skel->obj)
			if (bpf_program__autoload(p))
				out->memlock += prog__memlock(bpf_program__fd(p));
	return 0;
}

int driver__for_each_program(const struct driver *d,
			     int (*fn)(const char *name, int fd, void *arg), void *arg)
{
	struct bpf_program *p;
	int r;

	if (!d->loaded)
		return -EINVAL;
	bpf_object__for_each_program(p, d->skel->obj)
		if (bpf_program__autoload(p) && (r = fn(bpf_program__name(p), bpf_program__fd(p), arg)))
			return r;
	return 0;
}

/* prof_sample on a cpu-clock perf event of each online CPU, at profile_hz;
 * a CPU that is not online (ENODEV) has none. */
static int samplers__attach(struct driver *d)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK, .freq = 1, .sample_freq = d->profile_hz,
	};

	d->samplers = calloc((size_t)d->ncpus, sizeof(*d->samplers));
	if (!d->samplers)
		return -ENOMEM;
	for (int cpu = 0; cpu < d->ncpus; cpu++) {
		int fd = (int)syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		struct bpf_link *l;

		if (fd < 0) {
			if (errno == ENODEV)
				continue;
			return -errno;
		}
		l = bpf_program__attach_perf_event(d->skel->progs.prof_sample, fd);
		if (!l) {
			int err = -errno;

			close(fd);
			return err;
		}
		d->samplers[d->nsamplers++] = l;
	}
	return 0;
}

/* syscall_tps: sys_exit_eo onto the exit tracepoint of each syscall in
 * tp_syscalls it is not on yet. */
static int tps__attach(struct driver *d)
{
	for (int nr = 0; nr < SYSCALL_TABLE_SIZE; nr++) {
		struct bpf_link *l;

		if (!d->tp_syscalls[nr] || d->tp_links[nr])
			continue;
		l = syscall_tps__attach(d->skel->progs.sys_exit_eo, nr);
		if (!l)
			return -errno;
		d->tp_links[nr] = l;
		d->ntp_links++;
	}
	return 0;
}

/* sock_tps: the socket tracepoints' programs on them. */
static int sock_tps__attach(struct driver *d)
{
	struct bpf_program *p[2] = { d->skel->progs.socktp_recv, d->skel->progs.socktp_send };

	for (int i = 0; i < 2; i++) {
		if (d->sock_links[i])
			continue;
		d->sock_links[i] = bpf_program__attach_trace(p[i]);
		if (!d->sock_links[i])
			return -errno;
	}
	return 0;
}

/* close_enter onto syscalls:sys_enter_close, when loaded (exit-only
 * capture) and not on yet; a failure is said (driver_load_info.close_began),
 * not fatal. */
static void close_enter__attach(struct driver *d)
{
	struct bpf_program *p = d->skel->progs.close_enter;

	if (!bpf_program__autoload(p) || d->close_link)
		return;
	if (d->no_close_enter) {
		d->info.close_began = -EPERM;
		return;
	}
	/* (tracefs found, or mounted for a moment, as for the exit ones) */
	d->close_link = syscall_tps__attach_enter(p, SYS_close);
	d->info.close_began = d->close_link ? 1 : -errno;
}

/* syscall_tps: syscall NR turned on: a syscall outside the loaded set (its
 * events are then counted as the driver's bugs, as on the raw tracepoint)
 * gets its tracepoint too, at once when attached. */
static int tps__want(struct driver *d, int nr)
{
	if (!d->syscall_tps || d->tp_syscalls[nr] || (d->sock_tps && sock_tp_call(d, nr)) ||
	    (nr == SYS_close && d->close_at_enter))
		return 0;
	if (syscall_tps__id(nr) < 0)
		return -EOPNOTSUPP;
	d->tp_syscalls[nr] = 1;
	return d->nlinks || d->ntp_links ? tps__attach(d) : 0;
}

int driver__attach(struct driver *d)
{
	static const struct {
		const char *tp;
		size_t prog_off;
	} hooks[] = {
		{ "sys_enter", offsetof(struct agent_driver, progs.sys_enter) },
		{ "sys_exit", offsetof(struct agent_driver, progs.sys_exit) },
		{ "sys_exit", offsetof(struct agent_driver, progs.sys_exit_eo) },
		{ "sched_process_exec", offsetof(struct agent_driver, progs.sched_process_exec) },
		{ "sched_process_exit", offsetof(struct agent_driver, progs.sched_process_exit) },
		{ "sched_process_exit", offsetof(struct agent_driver, progs.sched_process_exit_eo) },
		{ "sched_switch", offsetof(struct agent_driver, progs.sched_switch) },
		{ "sched_switch", offsetof(struct agent_driver, progs.prof_switch) },
		{ "sched_waking", offsetof(struct agent_driver, progs.prof_waking) },
		{ "sched_wakeup_new", offsetof(struct agent_driver, progs.prof_wakeup_new) },
		{ "inet_sock_set_state", offsetof(struct agent_driver, progs.tcp_state) },
		{ "inet_sock_set_state", offsetof(struct agent_driver, progs.tcp_state2) },
		{ "tcp_send_reset", offsetof(struct agent_driver, progs.tcp_rst_out) },
		{ "tcp_receive_reset", offsetof(struct agent_driver, progs.tcp_rst_in) },
		{ "tcp_destroy_sock", offsetof(struct agent_driver, progs.tcp_destroy) },
		{ "tcp_destroy_sock", offsetof(struct agent_driver, progs.tcp_destroy2) },
	};

	_Static_assert(sizeof(hooks) / sizeof(hooks[0]) <= sizeof(d->links) / sizeof(d->links[0]),
		       "a link per hook");
	if (!d->loaded)
		return -EINVAL;
	if (d->nlinks)
		return -EBUSY;
	d->nhook_progs = 0;
	for (size_t i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++) {
		struct bpf_program *p = *(struct bpf_program **)((char *)d->skel + hooks[i].prog_off);
		struct bpf_link *l;

		if (!bpf_program__autoload(p))	/* the other mode's */
			continue;
		if (p == d->skel->progs.sys_exit_eo && d->syscall_tps) {
			int err = tps__attach(d);

			if (!err && d->sock_tps)
				err = sock_tps__attach(d);

			if (err) {
				driver__detach(d);
				return err;
			}
			continue;
		}
		/* a tp_btf program (sys_exit, or sys_exit_eo typed so at load)
		 * knows its target */
		l = bpf_program__type(p) == BPF_PROG_TYPE_TRACING ?
			bpf_program__attach_trace(p) :
			bpf_program__attach_raw_tracepoint(p, hooks[i].tp);
		if (!l) {
			int err = -errno;

			driver__detach(d);
			return err;
		}
		d->links[d->nlinks++] = l;
		d->hook_progs[d->nhook_progs++] = p;
	}
	/* (loaded where the run may want closes: plan.c) */
	close_enter__attach(d);
	if (d->close_at_enter && d->info.close_began != 1) {
		/* nothing sends closes then: back to close's exit tracepoint,
		 * which sends every one (no note says which are files) */
		int err;

		d->skel->bss->settings.close_at_enter = 0;
		d->close_at_enter = false;
		err = tps__want(d, SYS_close);
		if (err) {
			driver__detach(d);
			return err;
		}
	}
	if (d->profile_hz) {
		int err = samplers__attach(d);

		if (err) {
			driver__detach(d);
			return err;
		}
	}
	d->skel->bss->settings.capture = !d->paused;
	return 0;
}

/* One probe of a TLS function: its entry or return program. */
/* P on PATH at FUNC (a symbol) or, without one, at file offset OFF, with
 * COOKIE for the program. */
static int tls__probe_at(struct driver *d, struct bpf_program *p, const char *path,
			 const char *func, bool ret, size_t off, uint64_t cookie)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o, .func_name = func, .retprobe = ret, .bpf_cookie = cookie);
	struct bpf_link *l;

	if (d->ntls_links == d->tls_cap) {
		uint32_t cap = d->tls_cap ? d->tls_cap * 2 : 16;
		struct bpf_link **v = realloc(d->tls_links, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		d->tls_links = v;
		d->tls_cap = cap;
	}
	/* pid -1: every process that maps the file */
	l = bpf_program__attach_uprobe_opts(p, -1, path, off, &o);
	if (!l)
		return errno ? -errno : -ENOENT;
	d->tls_links[d->ntls_links++] = l;
	return 0;
}

/* The TLS probes put on since the first FIRST taken off again. */
static void tls__unwind(struct driver *d, uint32_t first)
{
	while (d->ntls_links > first)
		bpf_link__destroy(d->tls_links[--d->ntls_links]);
}

static int tls__probe(struct driver *d, struct bpf_program *p, const char *path,
		      const char *func, bool ret)
{
	return tls__probe_at(d, p, path, func, ret, 0, 0);
}

int driver__tls_attach(struct driver *d, const char *path, enum driver_tls_lib lib)
{
	struct agent_driver *sk = d->skel;
	/* RET NULL: an entry probe only */
	const struct {
		enum driver_tls_lib lib;
		const char *func;
		struct bpf_program *enter, *ret;
	} fns[] = {
		{ DRIVER_TLS_OPENSSL, "SSL_read", sk->progs.tlsp_read, sk->progs.tlsp_read_ret },
		{ DRIVER_TLS_OPENSSL, "SSL_read_ex", sk->progs.tlsp_read_ex, sk->progs.tlsp_read_ret },
		{ DRIVER_TLS_OPENSSL, "SSL_write", sk->progs.tlsp_write, sk->progs.tlsp_write_ret },
		{ DRIVER_TLS_OPENSSL, "SSL_write_ex", sk->progs.tlsp_write_ex,
		  sk->progs.tlsp_write_ret },
		{ DRIVER_TLS_GNUTLS, "gnutls_record_recv", sk->progs.tlsp_read,
		  sk->progs.tlsp_read_ret },
		{ DRIVER_TLS_GNUTLS, "gnutls_record_send", sk->progs.tlsp_write,
		  sk->progs.tlsp_write_ret },
		{ DRIVER_TLS_OPENSSL, "SSL_do_handshake", sk->progs.tlsp_hs, sk->progs.tlsp_hs_ret },
		{ DRIVER_TLS_OPENSSL, "SSL_free", sk->progs.tlsp_free, NULL },
		{ DRIVER_TLS_GNUTLS, "gnutls_deinit", sk->progs.tlsp_free, NULL },
	};
	uint32_t first = d->ntls_links;
	int err = 0;

	if (!d->loaded || !d->tls || (lib != DRIVER_TLS_OPENSSL && lib != DRIVER_TLS_GNUTLS))
		return -EINVAL;
	/* each return probe after its entry probe: a return without its
	 * entry's note is ignored, not the other way round */
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]) && !err; i++)
		if (fns[i].lib == lib && !(err = tls__probe(d, fns[i].enter, path, fns[i].func, false)) &&
		    fns[i].ret)
			err = tls__probe(d, fns[i].ret, path, fns[i].func, true);
	if (err) {
		tls__unwind(d, first);
		return err;
	}
	d->tls_files++;
	return 0;
}

uint32_t driver__tls_files(const struct driver *d)
{
	return d->tls_files;
}

/* FN's RET probes (RET, unless NULL), then its entry probe (ENTER): a call
 * is noted only once its returns are probed. */
static int go__probe_fn(struct driver *d, const char *path, const struct driver_go_fn *fn,
			uint64_t slot, struct bpf_program *enter, struct bpf_program *ret)
{
	int err = 0;

	for (uint32_t i = 0; ret && i < fn->nrets && !err; i++)
		err = tls__probe_at(d, ret, path, NULL, false, fn->off + fn->rets[i],
				    slot << GO_COOKIE_SLOT_SHIFT | (fn->vaddr + fn->rets[i]));
	return err ?: tls__probe_at(d, enter, path, NULL, false, fn->off,
				    slot << GO_COOKIE_SLOT_SHIFT | fn->vaddr);
}

int driver__go_tls_attach(struct driver *d, const char *path, const struct driver_go_tls *g)
{
	struct agent_driver *sk = d->skel;
	struct go_bin_itabs it = { .tcp = g->itab_tcp, .unix_ = g->itab_unix };
	uint32_t first = d->ntls_links, slot = d->go_files;
	int err;

	if (!d->loaded || !d->tls || !g->read.nrets)
		return -EINVAL;
	if (slot >= GO_BINS_MAX)
		return -ENOSPC;
	/* the cookie keeps 48 bits of address */
	if ((g->read.vaddr | g->write.vaddr) >> GO_COOKIE_SLOT_SHIFT)
		return -ERANGE;
	err = bpf_map__update_elem(sk->maps.go_bins, &slot, sizeof(slot), &it, sizeof(it), BPF_ANY);
	if (!err)
		err = go__probe_fn(d, path, &g->read, slot, sk->progs.gotls_read,
				   sk->progs.gotls_read_ret) ?:
		      go__probe_fn(d, path, &g->write, slot, sk->progs.gotls_write, NULL);
	if (err) {
		tls__unwind(d, first);
		return err;
	}
	d->go_files++;
	return 0;
}

uint32_t driver__go_tls_files(const struct driver *d)
{
	return d->go_files;
}

/* Every link of D, destroyed at once (links_close.h): each syscall
 * tracepoint's and each uprobe's takes the kernel tens of ms to tear down.
 * Returns false without memory for the list: then nothing was done. */
static bool detach__together(struct driver *d)
{
	size_t n = 0, cap = (size_t)d->nlinks + SYSCALL_TABLE_SIZE + 3 + d->ntls_links +
			    (size_t)d->nsamplers;
	struct bpf_link **all = calloc(cap, sizeof(*all));

	if (!all)
		return false;
	for (int i = 0; i < d->nlinks; i++)
		all[n++] = d->links[i];
	for (int nr = 0; nr < SYSCALL_TABLE_SIZE; nr++)
		all[n++] = d->tp_links[nr];
	all[n++] = d->sock_links[0];
	all[n++] = d->sock_links[1];
	all[n++] = d->close_link;
	for (uint32_t i = 0; i < d->ntls_links; i++)
		all[n++] = d->tls_links[i];
	for (int i = 0; i < d->nsamplers; i++)
		all[n++] = d->samplers[i];
	links__close_all(all, n);
	free(all);
	d->nlinks = 0;
	memset(d->tp_links, 0, sizeof(d->tp_links));
	d->ntp_links = 0;
	d->sock_links[0] = d->sock_links[1] = NULL;
	d->close_link = NULL;
	d->ntls_links = 0;
	d->nsamplers = 0;
	return true;
}

void driver__detach(struct driver *d)
{
	if (!d)
		return;
	if (d->loaded)
		d->skel->bss->settings.capture = 0;
	detach__together(d);
	/* what is left (all of it, without memory for the list): one by one */
	while (d->nlinks > 0)
		bpf_link__destroy(d->links[--d->nlinks]);
	for (int nr = 0; nr < SYSCALL_TABLE_SIZE && d->ntp_links; nr++)
		if (d->tp_links[nr]) {
			bpf_link__destroy(d->tp_links[nr]);
			d->tp_links[nr] = NULL;
			d->ntp_links--;
		}
	for (int i = 0; i < 2; i++) {
		bpf_link__destroy(d->sock_links[i]);
		d->sock_links[i] = NULL;
	}
	bpf_link__destroy(d->close_link);
	d->close_link = NULL;
	tls__unwind(d, 0);
	free(d->tls_links);
	d->tls_links = NULL;
	d->tls_cap = 0;
	d->tls_files = 0;
	d->go_files = 0;
	/* a sampler's link closes its perf event */
	while (d->nsamplers > 0)
		bpf_link__destroy(d->samplers[--d->nsamplers]);
	free(d->samplers);
	d->samplers = NULL;
}

void driver__close(struct driver *d)
{
	if (!d)
		return;
	driver__detach(d);
	agent_driver__destroy(d->skel);
	free(d);
}

int driver__perf_map_fd(const struct driver *d)
{
	return d->loaded ? bpf_map__fd(d->skel->maps.events) : -EINVAL;
}

int driver__set_perf_fd(struct driver *d, uint32_t cpu, int fd)
{
	int map = driver__perf_map_fd(d);

	if (map < 0)
		return map;
	if (cpu >= (uint32_t)d->ncpus)
		return -ERANGE;
	return bpf_map_update_elem(map, &cpu, &fd, BPF_ANY) ? -errno : 0;
}

int driver__ring_create(struct driver *d, uint32_t cpu, uint64_t bytes)
{
	int fd, err;

	if (!d->loaded)
		return -EINVAL;
	if (cpu >= (uint32_t)d->ncpus)
		return -ERANGE;
	if (bytes > UINT32_MAX)
		return -E2BIG;
	fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "agent_ring", 0, 0, (uint32_t)bytes, NULL);
	if (fd < 0)
		return -errno;
	if (bpf_map_update_elem(bpf_map__fd(d->skel->maps.rings), &cpu, &fd, BPF_ANY)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

int driver__set_interesting(struct driver *d, const uint8_t *bitmap)
{
	int err = 0, r;

	for (int i = 0; i < SYSCALL_TABLE_SIZE; i++) {
		r = bitmap[i] ? tps__want(d, i) : 0;
		if (r && !err)
			err = r;
		d->skel->bss->interesting[i] = bitmap[i] && !r;
	}
	return err;
}

int driver__set_syscall(struct driver *d, uint32_t nr, bool on)
{
	int err;

	if (nr >= SYSCALL_TABLE_SIZE)
		return -ERANGE;
	if (on && (err = tps__want(d, (int)nr)))
		return err;
	d->skel->bss->interesting[nr] = on;
	return 0;
}

int driver__set_procexit(struct driver *d, bool on)
{
	d->skel->bss->settings.procexit = on;
	return 0;
}

int driver__set_capture(struct driver *d, bool on)
{
	d->skel->bss->settings.capture = on;
	return 0;
}

int driver__set_snaplen(struct driver *d, uint32_t snaplen)
{
	if (snaplen > PPM_MAX_ARG_SIZE)
		return -EINVAL;
	d->skel->bss->settings.snaplen = snaplen;
	return 0;
}

int driver__set_sock_families(struct driver *d, uint32_t mask)
{
	/* the read and write of other fds are on no tracepoint of ours */
	if (d->sock_tps && !mask)
		return -EOPNOTSUPP;
	/* one aligned store: each event sees the old mask or the new one */
	__atomic_store_n(&d->skel->bss->settings.sock_families, mask, __ATOMIC_RELAXED);
	return 0;
}

int driver__tcp_listener(struct driver *d, uint32_t netns, uint16_t port, uint32_t pid,
			 const char *comm)
{
	struct tcp_lkey k = { .netns = netns, .port = port };
	struct tcp_listener v = { .pid = pid };

	if (!d->loaded || !d->tcp)
		return -EINVAL;
	strncpy(v.comm, comm, sizeof(v.comm) - 1);
	if (bpf_map__update_elem(d->skel->maps.tcp_listeners, &k, sizeof(k), &v, sizeof(v),
				 BPF_NOEXIST))
		return errno == E2BIG ? -ENOSPC : -errno;
	return 0;
}

int driver__sock_quiet(struct driver *d, const struct sock_quiet_key *k, bool on)
{
	int fd = bpf_map__fd(d->skel->maps.quiet_socks);
	uint8_t one = 1;
	uint16_t *n;

	if (!d->loaded)
		return -EINVAL;
	n = &d->skel->bss->quiet_lports[k->lport];
	/* the port's count covers every key of it the table holds: up before
	 * a new key goes in, down once one went out */
	if (!on) {
		if (bpf_map_delete_elem(fd, k))
			return -errno;
		if (*n)
			__atomic_store_n(n, *n - 1, __ATOMIC_RELEASE);
		return 0;
	}
	__atomic_store_n(n, *n + 1, __ATOMIC_RELEASE);
	if (bpf_map_update_elem(fd, k, &one, BPF_NOEXIST)) {
		int err = errno;

		__atomic_store_n(n, *n - 1, __ATOMIC_RELEASE);
		/* already in: counted when it went in */
		return err == EEXIST ? 0 : -err;
	}
	/* from now on the socket test looks the table up */
	if (!d->skel->bss->settings.sock_quiet)
		__atomic_store_n(&d->skel->bss->settings.sock_quiet, 1, __ATOMIC_RELEASE);
	return 0;
}

int driver__prof_let_go(struct driver *d, uint32_t tid, bool on)
{
	int fd = bpf_map__fd(d->skel->maps.prof_let_go);
	uint8_t one = 1;

	if (!d->loaded || d->skel->bss->settings.profile != PROF_FOLLOW_SENT)
		return -EINVAL;
	if (!on)
		return bpf_map_delete_elem(fd, &tid) && errno != ENOENT ? -errno : 0;
	if (bpf_map_update_elem(fd, &tid, &one, BPF_ANY))
		return -errno;
	if (!d->skel->bss->settings.prof_let_go)
		__atomic_store_n(&d->skel->bss->settings.prof_let_go, 1, __ATOMIC_RELEASE);
	/* after the entry above: its next I/O event finds it and follows no
	 * more (a batch already built may still come) */
	if (bpf_map_delete_elem(bpf_map__fd(d->skel->maps.prof_threads), &tid) && errno != ENOENT)
		return -errno;
	return 0;
}

int driver__prof_each(const struct driver *d,
		      int (*fn)(void *ctx, uint32_t tid, const struct prof_thread *t), void *ctx)
{
	int fd = bpf_map__fd(d->skel->maps.prof_threads);
	struct prof_thread t;
	uint32_t key, next;
	bool first = true;
	int r, left = 2 * PROF_THREADS;	/* a table that changes could loop */

	if (!d->loaded)
		return -EINVAL;
	if (!d->skel->bss->settings.profile)
		return 0;
	while (left-- > 0 && !bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		first = false;
		key = next;
		/* gone meanwhile (its thread exited): the next key still follows */
		if (bpf_map_lookup_elem(fd, &key, &t))
			continue;
		if ((r = fn(ctx, key, &t)))
			return r;
	}
	return left < 0 || errno == ENOENT ? 0 : -errno;
}

int driver__counters(const struct driver *d, struct driver_counters *per_cpu, int ncpu,
		     struct driver_counters *total)
{
	struct driver_counters *vals;
	uint32_t zero = 0;
	int err = 0;

	if (!d->loaded)
		return -EINVAL;
	vals = calloc(d->ncpus, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(d->skel->maps.counters), &zero, vals)) {
		err = -errno;
		goto cleanup;
	}
	if (total)
		memset(total, 0, sizeof(*total));
	for (int c = 0; c < d->ncpus; c++) {
		if (per_cpu && c < ncpu)
			per_cpu[c] = vals[c];
		if (total) {
			total->n_evts += vals[c].n_evts;
			total->n_drops_buffer += vals[c].n_drops_buffer;
			total->n_drops_pf += vals[c].n_drops_pf;
			total->n_drops_bug += vals[c].n_drops_bug;
			total->n_drops_scratch += vals[c].n_drops_scratch;
			total->n_quiet += vals[c].n_quiet;
			total->n_prof_full += vals[c].n_prof_full;
			total->n_file_closes += vals[c].n_file_closes;
			total->n_tls_cipher += vals[c].n_tls_cipher;
			total->n_tls_nofd += vals[c].n_tls_nofd;
			total->n_tls_claimed += vals[c].n_tls_claimed;
			total->n_peeks += vals[c].n_peeks;
			total->n_tcp_untracked += vals[c].n_tcp_untracked;
			total->n_tcp_sockets += vals[c].n_tcp_sockets;
			total->n_sock_empty += vals[c].n_sock_empty;
			total->n_mmsg_unsent += vals[c].n_mmsg_unsent;
		}
	}
	err = d->ncpus;
cleanup:
	free(vals);
	return err;
}

int driver__skipped(const struct driver *d, uint64_t *paired, uint64_t *lost)
{
	*paired = *lost = 0;
	if (!d->loaded)
		return -EINVAL;
	/* one call per hook (at most 16), about once a second: not per event */
	for (int i = 0; i < d->nhook_progs; i++) {
		const struct bpf_program *p = d->hook_progs[i];
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);

		if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
			return -errno;
		if (p == d->skel->progs.tcp_state || p == d->skel->progs.tcp_state2 ||
		    p == d->skel->progs.tcp_destroy || p == d->skel->progs.tcp_destroy2)
			*paired += info.recursion_misses;
		else
			*lost += info.recursion_misses;
	}
	return 0;
}

int driver__drops_by_type(const struct driver *d, uint64_t *out, uint32_t n)
{
	int fd = bpf_map__fd(d->skel->maps.drops_by_type);
	uint64_t *vals;
	int err = 0;

	if (!d->loaded)
		return -EINVAL;
	if (n > PPM_EVENT_MAX)
		n = PPM_EVENT_MAX;
	vals = calloc(d->ncpus, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	/* One lookup per code: called for summaries and metrics (about once a
	 * second), never per event. */
	for (uint32_t code = 0; code < n; code++) {
		out[code] = 0;
		if (bpf_map_lookup_elem(fd, &code, vals)) {
			err = -errno;
			break;
		}
		for (int c = 0; c < d->ncpus; c++)
			out[code] += vals[c];
	}
	free(vals);
	return err;
}

uint64_t driver__boot_time(const struct driver *d)
{
	return d->loaded ? d->skel->bss->settings.boot_time : 0;
}

bool driver__has_filler(const struct driver *d, uint16_t event_code)
{
	return event_code < PPM_EVENT_MAX && d->has_filler[event_code];
}

int driver__kf_set(struct driver *d, const struct driver_kfilter *cfg)
{
	struct driver_kfilter *kf = &d->skel->bss->kf;

	if (!d->loaded)
		return -EINVAL;
	/* loaded without driver_config.per_thread: the programs have no filter */
	if (cfg->on && !d->per_thread)
		return -EOPNOTSUPP;
	uint32_t gen = kf->gen;

	__atomic_store_n(&kf->on, 0, __ATOMIC_SEQ_CST);
	memcpy(kf, cfg, sizeof(*cfg));
	kf->on = 0;
	/* every CPU's slot and every thread's cgroup results are looked up again */
	__atomic_store_n(&kf->gen, gen + 1 ? gen + 1 : 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&kf->on, cfg->on, __ATOMIC_SEQ_CST);
	return 0;
}

/* KEY -> VALUE in the kernel filter's map M. */
static int kf__put(struct driver *d, struct bpf_map *m, const void *key, const void *val,
		   uint64_t flags)
{
	if (!d->loaded)
		return -EINVAL;
	return bpf_map_update_elem(bpf_map__fd(m), key, val, flags) ? -errno : 0;
}

int driver__kf_comm(struct driver *d, const char *name, size_t len, bool exact, uint32_t bits)
{
	struct kf_comm_key k = { 0 };

	if (len + exact > sizeof(k.comm))
		return -ENAMETOOLONG;
	memcpy(k.comm, name, len);
	k.prefixlen = 8 * (len + exact);
	return kf__put(d, d->skel->maps.kf_comm, &k, &bits, BPF_ANY);
}

int driver__kf_num(struct driver *d, enum kf_kind kind, uint32_t value, uint32_t bits)
{
	struct kf_num_key k = { .kind = kind, .value = value };

	return kf__put(d, d->skel->maps.kf_nums, &k, &bits, BPF_ANY);
}

int driver__kf_cgroup(struct driver *d, uint64_t cgid, uint32_t bits)
{
	return kf__put(d, d->skel->maps.kf_cgroups, &cgid, &bits, BPF_NOEXIST);
}

int driver__kf_cgroup1(struct driver *d, uint64_t cgid, uint32_t bits)
{
	return kf__put(d, d->skel->maps.kf_cgroups1, &cgid, &bits, BPF_NOEXIST);
}

int driver__kf_seed(struct driver *d, uint32_t tid, uint32_t bits)
{
	struct kf_thread t = { .bits = bits, .cg_pending = 1 };

	return kf__put(d, d->skel->maps.kf_threads, &tid, &t, BPF_ANY);
}

void driver__kf_bump(struct driver *d)
{
	__atomic_add_fetch(&d->skel->bss->kf.gen, 1, __ATOMIC_SEQ_CST);
}
