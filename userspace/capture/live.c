/* The live engine: the BPF driver writing into one perf ring per online CPU. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "engine.h"
#include "loader.h"
#include "perf.h"
#include "ringset.h"
#include "schema.h"

#define DEFAULT_RING_PAGES 2048	/* 8 MiB with 4 KiB pages */
/* Long enough to cover a producer preempted for a few scheduler slices between
 * taking its timestamp and publishing the event; the wait back-off reaches 30 ms
 * anyway, so this adds little latency. */
#define DEFAULT_ORDER_WINDOW_US 10000

/* Filled in at the end of this file. */
static const struct capture_engine_ops live_engine_ops;

struct live {
	struct driver *drv;
	struct ringset *rs;
	int nfds;
	int fds[CAPTURE_MAX_CPUS];
	uint16_t cpus[CAPTURE_MAX_CPUS];
	struct driver_counters *drv_cpu;	/* one per possible CPU */
	int ncpu_possible;
	bool exit_only;
	bool tls;
	bool tcp;
	/* Exit-only capture: the enter event rebuilt for an exit event whose
	 * enter event the driver left out, handed out first; then HELD, the
	 * exit event, without a look at the rings. */
	bool held;
	struct capture_event held_ev;
	uint8_t synth[SCHEMA_EO_ENTER_MAX];
	/* Rebuilt enter events per CPU: handed out like the rings' own. */
	uint64_t synth_evts[CAPTURE_MAX_CPUS];
	uint64_t synth_bytes[CAPTURE_MAX_CPUS];
	/* the last skipped-run counts read (driver__skipped) */
	uint64_t skipped_paired, skipped_lost;
};

static void live_free(struct live *l)
{
	if (!l)
		return;
	/* Detach first so that nothing writes into rings being unmapped. */
	driver__close(l->drv);
	ringset__free(l->rs);
	for (int i = 0; i < l->nfds; i++)
		close(l->fds[i]);
	free(l->drv_cpu);
	free(l);
}

/* CPU's perf ring: a BPF output perf event, mapped, enabled, in the driver's
 * perf event array. What the kernel allowed for one ring's mapping (*MODE) it
 * allows for all. */
static int live_add_perf(struct live *l, int cpu, uint32_t pages, uint32_t wakeup,
			 enum ring_mode *mode)
{
	struct ring *r;
	int fd, err;

	fd = perf__open_bpf_output(cpu, wakeup);
	if (fd < 0)
		return fd;
	l->fds[l->nfds] = fd;
	l->cpus[l->nfds++] = cpu;
	r = ring__map(fd, pages, *mode);
	if (!r)
		return -errno;
	*mode = ring__mode(r);
	err = ringset__add(l->rs, r, cpu);
	if (!err)
		err = driver__set_perf_fd(l->drv, cpu, fd);
	if (!err && ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		err = -errno;
	return err;
}

/* CPU's BPF ring buffer, created by the driver, mapped. */
static int live_add_ringbuf(struct live *l, int cpu, uint64_t bytes)
{
	struct ring *r;
	int fd;

	fd = driver__ring_create(l->drv, cpu, bytes);
	if (fd < 0)
		return fd;
	l->fds[l->nfds] = fd;
	l->cpus[l->nfds++] = cpu;
	r = ring__map_bpf(fd, bytes);
	if (!r)
		return -errno;
	return ringset__add(l->rs, r, cpu);
}

static void live_step(const struct capture_live_opts *o, enum capture_step step)
{
	if (o->on_step)
		o->on_step(o->step_arg, step);
}

static int live_setup(struct live *l, const struct capture_live_opts *o)
{
	bool ringbuf = capture__engine(o->engine) == CAPTURE_ENGINE_RINGBUF;
	struct driver_config cfg = {
		.snaplen = o->snaplen,
		.snaplen_given = o->snaplen_given,
		.drop_failed = o->drop_failed,
		.own_tgid = o->own_tgid,
		.paused = o->paused,
		.exit_only = o->exit_only,
		.ringbuf = ringbuf,
		.syscalls = o->syscalls,
		.per_thread = o->per_thread,
		.sock_families = o->sock_families,
		.file_closes = o->file_closes,
		.no_syscall_tps = o->no_syscall_tps,
		.verifier_stats = o->verifier_stats,
		.tls = o->tls,
		.h2_snaplen = o->h2_snaplen,
		.sock_compact = o->sock_compact,
		.no_sock_tps = o->no_sock_tps,
		.no_close_at_enter = o->no_close_at_enter,
		.profile = o->profile,
		.profile_hz = o->profile_hz,
		.profile_names = o->profile_names,
		.tcp = o->tcp,
	};
	struct ringset_opts ro = {0};
	uint32_t pages = o->ring_pages ? o->ring_pages : DEFAULT_RING_PAGES;
	uint64_t ring_bytes = (uint64_t)pages * sysconf(_SC_PAGESIZE);
	uint32_t wakeup = o->wakeup_bytes ? o->wakeup_bytes : ring_bytes / 4;
	enum ring_mode mode = o->force_slack ? RING_SLACK_COPY : RING_AUTO;
	bool online[CAPTURE_MAX_CPUS] = {0};
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	int err;

	if (pages & (pages - 1))
		return -EINVAL;
	if (wakeup > ring_bytes / 2)
		wakeup = ring_bytes / 2;
	/* Needed before 5.11 only (memcg accounting since); fails without
	 * CAP_SYS_RESOURCE, which is harmless on newer kernels. */
	setrlimit(RLIMIT_MEMLOCK, &unlimited);

	err = perf__online_cpus(online, CAPTURE_MAX_CPUS);
	if (err)
		return err;
	live_step(o, CAPTURE_STEP_OPEN);
	l->drv = driver__open();
	if (!l->drv)
		return -errno;
	/* the kernel's feature probes load programs too */
	live_step(o, CAPTURE_STEP_LOAD);
	if (cfg.exit_only && o->exit_only_optional && !driver__exit_only_supported())
		cfg.exit_only = false;
	l->exit_only = cfg.exit_only;
	cfg.tls = cfg.tls && cfg.exit_only;
	l->tls = cfg.tls;
	l->tcp = cfg.tcp;
	err = driver__configure(l->drv, &cfg);
	if (!err)
		err = driver__load(l->drv);
	if (err)
		return err;
	l->ncpu_possible = driver__counters(l->drv, NULL, 0, NULL);
	if (l->ncpu_possible <= 0)
		return l->ncpu_possible < 0 ? l->ncpu_possible : -EINVAL;
	l->drv_cpu = calloc(l->ncpu_possible, sizeof(*l->drv_cpu));
	if (!l->drv_cpu)
		return -ENOMEM;

	if (o->order_window_us != UINT32_MAX)
		ro.order_window_ns = (o->order_window_us ? o->order_window_us
							 : DEFAULT_ORDER_WINDOW_US) * 1000ull;
	ro.boot_to_epoch_ns = driver__boot_time(l->drv);
	ro.sleep_wait = ringbuf;
	live_step(o, CAPTURE_STEP_RINGS);
	l->rs = ringset__new(&ro);
	if (!l->rs)
		return -errno;
	for (int cpu = 0; cpu < l->ncpu_possible && cpu < CAPTURE_MAX_CPUS; cpu++) {
		if (!online[cpu])
			continue;
		err = ringbuf ? live_add_ringbuf(l, cpu, ring_bytes)
			      : live_add_perf(l, cpu, pages, wakeup, &mode);
		if (err)
			return err;
	}
	if (!l->nfds)
		return -ENODEV;
	live_step(o, CAPTURE_STEP_ATTACH);
	return driver__attach(l->drv);
}

struct capture *capture__open_live(const struct capture_live_opts *opts)
{
	struct capture_live_opts defaults = {0};
	struct live *l = calloc(1, sizeof(*l));
	struct capture *c;
	int err;

	if (!l)
		return NULL;
	err = live_setup(l, opts ? opts : &defaults);
	if (err)
		goto fail;
	c = capture__open_engine(&live_engine_ops, l);
	if (!c) {
		err = -errno;
		goto fail;
	}
	return c;
fail:
	live_free(l);
	errno = -err;
	return NULL;
}

static int live_next(void *e, struct capture_event *ev, int timeout_ms)
{
	struct live *l = e;
	int err, n;

	if (l->held) {
		*ev = l->held_ev;	/* flags 0: a frame of the ring */
		l->held = false;
		return 0;
	}
	err = ringset__next(l->rs, ev, timeout_ms);
	if (err || !l->exit_only || !schema__eo_maybe(ev->frame->type))
		return err;
	/* 0: its enter event came (or is not rebuilt); < 0: malformed, which
	 * the caller's validation counts. The exit frame stays valid: the rings
	 * release nothing until the next ringset__next. */
	n = schema__eo_enter(ev->frame, ev->len, l->synth, sizeof(l->synth));
	if (n <= 0)
		return 0;
	l->held_ev = *ev;
	l->held = true;
	ev->frame = (const struct ppm_evt_hdr *)l->synth;
	ev->len = n;
	ev->flags = CAPTURE_EVF_REBUILT;
	l->synth_evts[ev->cpu]++;
	l->synth_bytes[ev->cpu] += n;
	return 0;
}

static int live_stats(void *e, struct capture_stats *st)
{
	struct live *l = e;
	struct driver_counters tot;
	uint64_t paired, lost;
	int err, n;

	err = ringset__stats(l->rs, st);
	if (err)
		return err;
	st->exit_only = l->exit_only;
	st->tls = l->tls;
	st->tcp = l->tcp;
	for (int c = 0; c < CAPTURE_MAX_CPUS; c++) {
		st->cpu[c].n_evts += l->synth_evts[c];
		st->cpu[c].n_bytes += l->synth_bytes[c];
		st->total.n_evts += l->synth_evts[c];
		st->total.n_bytes += l->synth_bytes[c];
	}
	n = driver__counters(l->drv, l->drv_cpu, l->ncpu_possible, &tot);
	if (n < 0)
		return n;
	for (int c = 0; c < n && c < CAPTURE_MAX_CPUS; c++) {
		st->cpu[c].drv_evts = l->drv_cpu[c].n_evts;
		st->cpu[c].drv_drops_buffer = l->drv_cpu[c].n_drops_buffer;
		st->cpu[c].drv_drops_pf = l->drv_cpu[c].n_drops_pf;
		st->cpu[c].drv_drops_bug = l->drv_cpu[c].n_drops_bug;
		st->cpu[c].drv_drops_scratch = l->drv_cpu[c].n_drops_scratch;
		if (c + 1u > st->ncpus)
			st->ncpus = c + 1;
	}
	st->total.drv_evts = tot.n_evts;
	st->total.drv_drops_buffer = tot.n_drops_buffer;
	st->total.drv_drops_pf = tot.n_drops_pf;
	st->total.drv_drops_bug = tot.n_drops_bug;
	st->total.drv_drops_scratch = tot.n_drops_scratch;
	st->total.drv_quiet = tot.n_quiet;
	st->total.drv_file_closes = tot.n_file_closes;
	st->total.drv_tcp_sockets = tot.n_tcp_sockets;
	st->total.drv_sock_empty = tot.n_sock_empty;
	st->total.drv_mmsg_unsent = tot.n_mmsg_unsent;
	st->total.drv_tls_cipher = tot.n_tls_cipher;
	st->total.drv_tls_nofd = tot.n_tls_nofd;
	st->total.drv_tls_claimed = tot.n_tls_claimed;
	st->total.drv_peeks = tot.n_peeks;
	st->total.drv_prof_full = tot.n_prof_full;
	st->total.drv_tcp_untracked = tot.n_tcp_untracked;
	/* A report beside the capture, not the capture: a failed read keeps the
	 * last counts and the stats read succeeds, as the agent's start (the TLS
	 * watcher, the listeners' seeding) waits on it. */
	if (driver__skipped(l->drv, &paired, &lost) == 0) {
		l->skipped_paired = paired;
		l->skipped_lost = lost;
	}
	st->total.drv_skipped_paired = l->skipped_paired;
	st->total.drv_skipped_lost = l->skipped_lost;
	return 0;
}

static void live_close(void *e)
{
	live_free(e);
}

static struct driver *live_driver(void *engine)
{
	return ((struct live *)engine)->drv;
}

static int live_stop(void *engine)
{
	struct live *l = engine;

	/* Detaching waits for running programs: every event is then in a ring. */
	driver__detach(l->drv);
	ringset__final(l->rs);
	return 0;
}

static int live_set_sigmask(void *engine, const sigset_t *mask)
{
	ringset__set_sigmask(((struct live *)engine)->rs, mask);
	return 0;
}

static const struct capture_engine_ops live_engine_ops = {
	.name = "live",
	.next = live_next,
	.stats = live_stats,
	.close = live_close,
	.stop = live_stop,
	.set_sigmask = live_set_sigmask,
	.driver = live_driver,
};
