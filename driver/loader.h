/* The driver's userspace side: open, configure, load, attach, read counters, set the
 * interesting syscalls, detach. Used by the capture layer. */
#ifndef DRIVER_LOADER_H
#define DRIVER_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver.h"
#include "schema_syscalls.h"

struct driver;

struct driver_config {
	uint32_t snaplen;	/* 0: DRIVER_DEFAULT_SNAPLEN, unless snaplen_given */
	bool snaplen_given;	/* use snaplen as is, 0 included (no buffer bytes) */
	bool drop_failed;
	uint32_t own_tgid;	/* process never captured; 0: getpid(), UINT32_MAX: none (tests) */
	bool no_bpf_loop;	/* act as if the kernel lacked bpf_loop (< 5.17), for tests */
	bool paused;		/* attach with capture off: the caller turns it on */
	/* Exit-only capture: no program on sys_enter; sys_exit sends each wanted
	 * syscall's enter and exit events (see the README's "Capture modes"). */
	bool exit_only;
	/* Events go into one BPF ring buffer per CPU (driver__ring_create), not
	 * into perf rings (driver__set_perf_fd). */
	bool ringbuf;
	/* The syscalls the run captures (SYSCALL_TABLE_SIZE bytes, nonzero =
	 * captured; copied), NULL: all. Only their fillers are loaded (plan.h),
	 * and only they start interesting; one turned on later by
	 * driver__set_syscall without its fillers has its events counted as
	 * driver-bug drops, never sent as something else. */
	const uint8_t *syscalls;
	/* The caller will turn the per-thread kernel filter on (driver__kf_set):
	 * the programs are loaded with it, and sched_switch, which keeps each
	 * CPU's slot for its fast path. Without it they have no filter. */
	bool per_thread;
	/* Request mode: the data syscalls on an fd (read, write, send*, recv*,
	 * their vector and positional forms, sendfile, splice) are sent only for
	 * sockets of these families, 1u << PPM_AF_INET, PPM_AF_INET6, PPM_AF_UNIX;
	 * 0: every fd (the default). driver__set_sock_families changes it later
	 * (not to 0 with driver_load_info.sock_tps: -EOPNOTSUPP, as read,
	 * readv, write and writev are then taken at the socket tracepoints). */
	uint32_t sock_families;
	/* Request mode, with exit_only (else ignored): the closes of fds that
	 * are no sockets (files, pipes, eventfds, ...: request mode sends no
	 * call that makes one) stay in the kernel, counted in n_file_closes.
	 * Needs close_enter (driver_load_info.close_began): without it every
	 * close is sent. */
	bool file_closes;
	/* Exit-only capture with a set of syscalls: keep the dispatcher on the
	 * raw sys_exit tracepoint even where each syscall has its own exit
	 * tracepoint to put it on (syscall_tps.h; for tests and comparisons). */
	bool no_syscall_tps;
	/* Ask the kernel's verifier for its figures of each program it loads
	 * (BPF_LOG_STATS): driver_load_info's verified_* fields. */
	bool verifier_stats;
	/* With sock_compact on the syscalls' own tracepoints: keep read,
	 * readv, write and writev there instead of taking them at the socket
	 * tracepoints (README, "Socket I/O at the socket's tracepoints"; for
	 * tests and comparisons). */
	bool no_sock_tps;
	/* With sock_compact and file_closes on the syscalls' own tracepoints:
	 * keep close's events at its exit instead of sending them from its
	 * enter (driver_load_info.close_at_enter; for tests and comparisons). */
	bool no_close_at_enter;
	/* close_enter left unattached, as where close's enter tracepoint
	 * cannot be opened (driver_load_info.close_began -EPERM; for tests) */
	bool no_close_enter;
	/* Profiling: enum prof_follow (driver.h), whose off-CPU and run-queue
	 * time the driver keeps and sends as CPU_SLICES events; loads the
	 * scheduler programs of prof.bpf.c. */
	uint8_t profile;
	/* With profile: the followed threads' on-CPU stacks, sampled this many
	 * times a second per CPU (a cpu-clock perf event each, prof_sample.bpf.c)
	 * and sent as CPU_SAMPLE events; 0: none. */
	uint32_t profile_hz;
	/* With profile: the files followed threads go off CPU waiting on named
	 * by FD_NAME events (prof_name.bpf.h), once per file between a thread's
	 * sent events. */
	bool profile_names;
	/* Request mode's TLS probes (tls.bpf.c; needs exit_only): loaded, to be
	 * put on each TLS library file with driver__tls_attach. While they
	 * are, a socket syscall made inside a probed call stays in the kernel
	 * (n_tls_cipher) and the call's plaintext goes as a TLS_READ or
	 * TLS_WRITE pair. */
	bool tls;
	/* Request mode: an fd whose I/O began with HTTP/2's client preface has
	 * its buffers captured up to this many bytes, not the snaplen (h2.bpf.h;
	 * at most H2_SNAPLEN_MAX); 0: none are. */
	uint32_t h2_snaplen;
	/* Request mode, with exit_only and sock_families (else ignored): a
	 * read, recvfrom, readv, write, sendto, writev or sendfile on a TCP
	 * socket that moved bytes goes as one SOCK_RECV_X or SOCK_SEND_X
	 * event (fillers/sockio): its result, fd, syscall number and first
	 * bytes, with no enter event. Not sysdig's events: for a caller that
	 * writes no capture file. */
	bool sock_compact;
	/* TCP health (tcp.bpf.c): every TCP connection begun while capture is
	 * on is kept in the kernel from its SYN (or its making out of a
	 * listener) and sent once, when its socket goes, as a TCP_CLOSE event;
	 * the typed tracepoints inet_sock_set_state, tcp_send_reset,
	 * tcp_receive_reset and tcp_destroy_sock (5.5 and later). */
	bool tcp;
	/* With tcp: the connections kept at once (0: TCP_CONNS); one begun
	 * with that many kept is counted (n_tcp_untracked), not sent */
	uint32_t tcp_conns;
};

/* The TLS libraries driver__tls_attach knows, by their functions. */
enum driver_tls_lib {
	DRIVER_TLS_OPENSSL = 1,	/* SSL_read, SSL_write and their _ex forms (libssl 3) */
	DRIVER_TLS_GNUTLS,	/* gnutls_record_recv, gnutls_record_send */
};

/* What driver__load did: programs loaded (dispatchers, fillers and their
 * parts) of those the object has, and how long the kernel took. */
struct driver_load_info {
	uint32_t programs;
	uint32_t programs_total;
	uint32_t fillers;	/* events whose filler is loaded */
	uint64_t load_ns;	/* the verifier and JIT, maps included */
	/* Exit-only capture: the syscalls on whose own exit tracepoints the
	 * dispatcher is (syscall_tps.h); 0: on the raw sys_exit tracepoint,
	 * run by every syscall. */
	uint32_t syscall_tps;
	/* driver_config.sock_compact is in effect: asked for, in exit-only
	 * request mode, and its two fillers loaded (they need bpf_loop) */
	bool sock_compact;
	/* With sock_compact and syscall_tps: read, readv, write and writev
	 * are taken at the socket tracepoints sock_recv_length and
	 * sock_send_length (5.19; typed programs), not at their own: a pipe's
	 * or a file's calls run no program. syscall_tps does not count them
	 * then. */
	bool sock_tps;
	/* With sock_tps, where a sendfile to a socket goes through
	 * sock_sendmsg (6.5): sendfile is taken there too, one compact event
	 * per batch of pages the kernel hands the socket (their res adding up
	 * to the call's), and a sendfile to anything else runs no program. */
	bool sock_tp_sendfile;
	/* With sock_compact, file_closes (and no drop_failed) on the syscalls'
	 * own tracepoints: close's exit tracepoint has no program; close_enter
	 * sends a socket's close, both its events, when the close begins, with
	 * the result the fd's state then gives (0, or -EBADF for no file), and
	 * keeps any other fd's (n_file_closes). syscall_tps does not count close
	 * then. false where close_enter could not be attached (close_began). */
	bool close_at_enter;
	/* Exit-only capture: 1 when close's enter tracepoint has close_enter
	 * (close_enter.bpf.h: close's enter event stamped when the close
	 * began), a negative errno when it could not be attached (then it is
	 * stamped at its exit, as the other enter events), 0 when closes are
	 * not wanted yet or sys_enter is attached. */
	int close_began;
	/* Kernel memory the loaded programs are charged (their fdinfo's
	 * memlock, as bpftool prog show says), filled only when asked. */
	uint64_t memlock;
	/* With driver_config.verifier_stats, what the verifier said: the
	 * instructions it walked for all the programs and their time, and
	 * the program it walked most of (the kernel refuses one past its
	 * limit, 1M on 5.2 and later); 0 and "" when not asked or not told. */
	uint64_t verified_insns;
	uint64_t verified_us;
	uint32_t verified_max;
	char verified_max_name[64];
};

/* Whether this kernel has the socket tracepoints sock_recv_length and
 * sock_send_length (5.19) in its BTF, where compact socket I/O takes read,
 * readv, write and writev (driver_load_info.sock_tps). */
bool driver__has_sock_tps(void);

/* Whether this kernel has what exit-only capture needs (bpf_task_pt_regs and
 * bpf_get_current_task_btf, 5.15); driver__configure refuses exit_only with
 * -EOPNOTSUPP otherwise. */
bool driver__exit_only_supported(void);

/* Opens the BPF object. NULL and errno on failure. */
struct driver *driver__open(void);
/* Before load. */
int driver__configure(struct driver *d, const struct driver_config *cfg);
/* Loads the programs the configuration needs (verifier, JIT) and fills the
 * filler tables. */
int driver__load(struct driver *d);
/* After load: its figures into OUT; MEMLOCK also sums the programs' kernel
 * memory (one /proc read per program: not for the event path). */
int driver__load_info(const struct driver *d, struct driver_load_info *out, bool memlock);
/* After load: calls FN with each loaded program's name and fd (tests look
 * them up in the kernel); stops at FN's first nonzero return, which it
 * returns. */
int driver__for_each_program(const struct driver *d,
			     int (*fn)(const char *name, int fd, void *arg), void *arg);
/* Attaches to sys_enter, sys_exit and the sched tracepoints. Capture starts on,
 * unless the config said paused. */
int driver__attach(struct driver *d);
void driver__detach(struct driver *d);
void driver__close(struct driver *d);

/* The BPF_MAP_TYPE_PERF_EVENT_ARRAY the capture layer stores its ring fds in. */
int driver__perf_map_fd(const struct driver *d);
int driver__set_perf_fd(struct driver *d, uint32_t cpu, int fd);
/* The ring-buffer engine: creates CPU's BPF_MAP_TYPE_RINGBUF of BYTES (a power
 * of two, in pages) and puts it in the driver's table. Returns its fd (the
 * caller's to close) or a negative errno. */
int driver__ring_create(struct driver *d, uint32_t cpu, uint64_t bytes);

/* Whether native syscall NR produces events (default: all). BITMAP has
 * SYSCALL_TABLE_SIZE bytes, nonzero = interesting. With the dispatcher on the
 * syscalls' own tracepoints (driver_load_info.syscall_tps), one turned on
 * outside the loaded set is attached too; -EOPNOTSUPP where it has none
 * (then it stays off). */
int driver__set_interesting(struct driver *d, const uint8_t *bitmap);
int driver__set_syscall(struct driver *d, uint32_t nr, bool on);
/* Whether sched_process_exit produces procexit events. */
int driver__set_procexit(struct driver *d, bool on);
int driver__set_capture(struct driver *d, bool on);
int driver__set_snaplen(struct driver *d, uint32_t snaplen);
/* driver_config.sock_families, before or after load, while the driver runs. */
int driver__set_sock_families(struct driver *d, uint32_t mask);
/* TCP health: the process of a port that listened before the driver saw it
 * do so (the /proc scan's), so that the connections made from it name their
 * server; one the kernel already keeps is left as it is (-EEXIST). NETNS is
 * the namespace's inode number, PORT in host order, COMM up to 15 bytes.
 * -EINVAL without TCP health, -ENOSPC with its table full. */
int driver__tcp_listener(struct driver *d, uint32_t netns, uint16_t port, uint32_t pid,
			 const char *comm);
/* Request mode: the socket I/O of the TCP client end K (driver.h) stays in
 * the kernel (ON, counted in n_quiet), or leaves it again (!ON). Looked at
 * in exit-only capture only, on kernels with the typed fd walk (6.17+);
 * elsewhere a key does nothing. Each call is a syscall: once per connection,
 * not per event. Keys are counted per local port (quiet_lports), so that the
 * socket test looks up only sockets whose port has one; one thread calls it.
 * 0, -E2BIG when SOCK_QUIET_MAX ends are kept already, -ENOENT for an end
 * not kept, or another negative errno. */
int driver__sock_quiet(struct driver *d, const struct sock_quiet_key *k, bool on);
/* After driver__attach, with driver_config.tls: the TLS probes on library
 * file PATH, for every process that maps it, now or later (one uprobe and
 * one uretprobe per function, on the file, not on a process). A process in
 * another mount namespace maps its own file: give its path as seen from
 * here (/proc/PID/root/...). 0; -EINVAL without tls or for an unknown LIB;
 * -ENOENT when the file lacks one of LIB's functions; else a negative errno.
 * On failure nothing stays attached to the file. Several threads must not
 * call it at once. */
int driver__tls_attach(struct driver *d, const char *path, enum driver_tls_lib lib);
/* The library files the TLS probes are on. */
uint32_t driver__tls_files(const struct driver *d);

/* A Go function driver__go_tls_attach probes: its link-time address, its
 * file offset, and its RET instructions' distances from its start. */
struct driver_go_fn {
	uint64_t vaddr, off;
	const uint32_t *rets;
	uint32_t nrets;
};

/* A Go (>= 1.17, x86-64) program's crypto/tls: (*Conn).Read and Write, and
 * the link-time addresses of its *net.TCPConn and *net.UnixConn net.Conn
 * itabs (0: none). */
struct driver_go_tls {
	struct driver_go_fn read, write;
	uint64_t itab_tcp, itab_unix;
};

/* After driver__attach, with driver_config.tls: the Go TLS probes
 * (tls_go.bpf.c) on the Go program file PATH, for every process that runs
 * it, now or later: an entry probe on both functions and a probe on each
 * RET of Read (a Write is sent at its entry; its RETs are not used). 0;
 * -EINVAL without tls or Read's RETs; -ENOSPC past GO_BINS_MAX
 * programs; else a negative errno. On failure nothing stays attached to the
 * file. A file attached twice would send each Write twice: the caller
 * attaches each file once (tls_libs does, by device and inode). Several
 * threads must not call it at once. */
int driver__go_tls_attach(struct driver *d, const char *path, const struct driver_go_tls *g);
/* The Go programs the Go TLS probes are on. */
uint32_t driver__go_tls_files(const struct driver *d);

/* Request mode's profiling (PROF_FOLLOW_SENT): ON, thread TID is followed no
 * more, nor again at its socket I/O (prof_let_go); off, it may be again.
 * 0 or a negative errno; -EINVAL when profiling follows no such threads. */
int driver__prof_let_go(struct driver *d, uint32_t tid, bool on);

/* Profiling: FN for each thread the driver follows now, with what it holds
 * (its slices not sent yet, its state since when); stops at FN's nonzero
 * return, which it returns. For the end of a run, once the programs are
 * detached: the table changes under a running driver. 0 without profiling. */
int driver__prof_each(const struct driver *d,
		      int (*fn)(void *ctx, uint32_t tid, const struct prof_thread *t), void *ctx);

/* Per-CPU counters into PER_CPU (ncpu entries, may be NULL) and their sum into
 * TOTAL (may be NULL). Returns the number of possible CPUs or a negative errno. */
int driver__counters(const struct driver *d, struct driver_counters *per_cpu, int ncpu,
		     struct driver_counters *total);

/* Runs of the attached tracepoint programs that the kernel skipped because
 * the same program was running on that CPU already (a softirq over a
 * process: bpf_prog_info's recursion_misses), summed since the load. PAIRED:
 * of TCP health's state and destroy programs, whose pair's other program
 * made the run's work (tcp.bpf.c); LOST: of the others (a reset not
 * counted, a profiler's wake-up not seen). Returns 0 or -errno. */
int driver__skipped(const struct driver *d, uint64_t *paired, uint64_t *lost);

/* Events dropped in the kernel by event code, summed over CPUs: OUT[code] for
 * code < N (N at most PPM_EVENT_MAX). Returns 0 or -errno. */
int driver__drops_by_type(const struct driver *d, uint64_t *out, uint32_t n);

/* The offset the driver adds to boot-clock ns to stamp events with epoch ns
 * (fixed at load; 0 before). */
uint64_t driver__boot_time(const struct driver *d);

/* Event codes with a dedicated filler program loaded (others fall back to the
 * generic event). */
bool driver__has_filler(const struct driver *d, uint16_t event_code);

/* Kernel filtering by process (driver.h, kfilter.bpf.h). Fill the maps, then
 * driver__kf_set copies CFG (its `on` last, so the tables are whole first);
 * a CFG with on = 0 turns it off. Each returns 0 or a negative errno;
 * driver__kf_set -EOPNOTSUPP for a driver configured without per_thread,
 * whose programs were loaded without the filter. */
int driver__kf_set(struct driver *d, const struct driver_kfilter *cfg);
/* comm entry: NAME (LEN bytes, at most 16) as a prefix, or with its NUL when
 * EXACT; BITS the tests it passes (and those of its shorter entries). */
int driver__kf_comm(struct driver *d, const char *name, size_t len, bool exact, uint32_t bits);
int driver__kf_num(struct driver *d, enum kf_kind kind, uint32_t value, uint32_t bits);
/* cgroup v2 id CGID's container tests; threads look it up again once
 * driver__kf_bump bumps the generation. */
int driver__kf_cgroup(struct driver *d, uint64_t cgid, uint32_t bits);
/* The same for the first controller's v1 hierarchy (hybrid hosts). */
int driver__kf_cgroup1(struct driver *d, uint64_t cgid, uint32_t bits);
void driver__kf_bump(struct driver *d);
/* Thread TID's results as userspace knows it (before driver__kf_set). */
int driver__kf_seed(struct driver *d, uint32_t tid, uint32_t bits);

#endif
