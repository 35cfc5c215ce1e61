/* The capture layer (scap-like): one ordered stream of event frames from an engine
 * (live BPF through per-CPU perf rings, synthetic test input, later capture files). */
#ifndef CAPTURE_H
#define CAPTURE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ppm_wire.h"

#define CAPTURE_MAX_CPUS 256

/* One event handed out by capture__next. FRAME points into the ring (or into the
 * slack area for a record that wrapped) and stays valid until the next call. */
struct capture_event {
	const struct ppm_evt_hdr *frame;
	uint32_t len;	/* bytes available at frame (>= frame->len once validated) */
	uint16_t cpu;
	/* Capture files: the block's flags. CAPTURE_EVF_STATE_ONLY: the event keeps
	 * the tables right but was not captured to be shown (a filtered -w).
	 * Live: CAPTURE_EVF_REBUILT, an enter event exit-only capture left out,
	 * rebuilt here from its exit event (schema__eo_enter): well formed by
	 * construction, so a consumer need not validate it again. An event built
	 * by hand (tests) must set flags too, 0 for a plain frame. */
	uint32_t flags;
};

#define CAPTURE_EVF_STATE_ONLY 1u
#define CAPTURE_EVF_REBUILT 2u

/* Counters of one CPU (or the total). The drv_* ones are the driver's own. */
struct capture_cpu_stats {
	uint64_t n_evts;		/* events handed out */
	uint64_t n_bytes;		/* bytes of those events */
	/* Samples the kernel reported lost (PERF_RECORD_LOST): the same samples as
	 * drv_drops_buffer, seen from the ring's side, reported only once a later
	 * sample fits, so it may lag behind drv_drops_buffer. Never add the two:
	 * drv_drops_buffer is the count (made at the source, per event type too). */
	uint64_t n_lost;
	uint64_t n_corrupt;		/* records skipped as truncated/oversized/malformed */
	uint64_t n_reordered;		/* handed out older than an event before them (total only) */
	uint64_t drv_evts;		/* events the driver sent */
	uint64_t drv_drops_buffer;	/* perf ring full */
	uint64_t drv_drops_pf;		/* user memory unreadable */
	uint64_t drv_drops_bug;		/* bugs and verifier limits */
	uint64_t drv_drops_scratch;	/* event larger than the scratch frame */
	/* not a drop: socket I/O of quiet client ends left in the kernel
	 * (request mode, driver__sock_quiet); in the total only */
	uint64_t drv_quiet;
	/* not a drop: closes of non-socket fds request mode kept in the kernel
	 * (capture_live_opts.file_closes); in the total only */
	uint64_t drv_file_closes;
	/* not a drop: request mode's socket() calls that made TCP sockets,
	 * kept in the kernel (capture_live_opts.sock_compact); in the total
	 * only */
	uint64_t drv_tcp_sockets;
	/* not a drop: request mode's socket reads and writes that failed or
	 * moved no bytes, kept in the kernel (sock_compact); in the total only */
	uint64_t drv_sock_empty;
	/* request mode's recvmmsg and sendmmsg messages not sent (past the
	 * kernel's bound of a call): not followed; in the total only */
	uint64_t drv_mmsg_unsent;
	/* request mode's TLS probes (driver_counters): ciphertext syscalls
	 * kept in the kernel, plaintext calls on no known socket (not sent),
	 * sessions over memory BIOs whose socket a later send named; in the
	 * total only */
	uint64_t drv_tls_cipher, drv_tls_nofd, drv_tls_claimed;
	/* request mode's peeks at sockets (MSG_PEEK) kept in the kernel; in
	 * the total only */
	uint64_t drv_peeks;
	/* profiling: threads the driver did not follow, its table full; in
	 * the total only */
	uint64_t drv_prof_full;
	/* TCP connections the driver's table had no room for: no TCP_CLOSE event */
	uint64_t drv_tcp_untracked;
	/* runs of the driver's tracepoint programs the kernel skipped, nested
	 * on a CPU where the program ran (driver__skipped): of TCP health's
	 * paired programs, made by the pair's other; of the others, lost; in
	 * the total only */
	uint64_t drv_skipped_paired, drv_skipped_lost;
	uint64_t ring_used;		/* bytes written and not yet consumed, now */
	uint64_t ring_size;		/* bytes of ring */
};

struct capture_stats {
	uint32_t ncpus;
	struct capture_cpu_stats total;
	struct capture_cpu_stats cpu[CAPTURE_MAX_CPUS];
	const char *mode;	/* "double-map", "slack-copy", "bpf-ringbuf", "synthetic", "file" */
	bool exit_only;		/* live: the driver runs in exit-only mode */
	bool tls;		/* live: the TLS probes are loaded (capture_live_opts.tls) */
	bool tcp;		/* live: TCP health is loaded (capture_live_opts.tcp) */
	uint64_t last_ts;	/* time of the last event handed out (epoch ns; live only) */
};

/* The operations an engine provides. */
struct capture_engine_ops {
	const char *name;
	/* 0 and *ev set; -EAGAIN when nothing came within timeout_ms (0: do not wait,
	 * <0: wait forever); -EINTR when a signal interrupted the wait; -ENODATA at the
	 * end of a finite source. */
	int (*next)(void *engine, struct capture_event *ev, int timeout_ms);
	int (*stats)(void *engine, struct capture_stats *st);
	void (*close)(void *engine);
	/* Only the engines that have them (NULL: capture__stop and
	 * capture__set_sigmask return -EOPNOTSUPP, capture__driver NULL). */
	int (*stop)(void *engine);
	int (*set_sigmask)(void *engine, const sigset_t *mask);
	struct driver *(*driver)(void *engine);
};

struct capture;

/* Where the driver's events go: the design's perf rings, or BPF ring buffers. */
enum capture_engine {
	CAPTURE_ENGINE_DEFAULT = 0,
	CAPTURE_ENGINE_PERF,		/* one perf ring per CPU (BPF_MAP_TYPE_PERF_EVENT_ARRAY) */
	CAPTURE_ENGINE_RINGBUF,		/* one BPF_MAP_TYPE_RINGBUF per CPU (5.8) */
};

/* E, or the engine used when E is CAPTURE_ENGINE_DEFAULT. */
enum capture_engine capture__engine(enum capture_engine e);
/* "perf" or "ringbuf". */
const char *capture__engine_name(enum capture_engine e);

/* The steps of capture__open_live, in order. */
enum capture_step {
	CAPTURE_STEP_OPEN,	/* the BPF object: its ELF and BTF parsed */
	CAPTURE_STEP_LOAD,	/* the programs it needs: the kernel's verifier and JIT */
	CAPTURE_STEP_RINGS,	/* a ring per CPU, created and mapped */
	CAPTURE_STEP_ATTACH,	/* onto the tracepoints */
};

struct capture_live_opts {
	enum capture_engine engine;
	uint32_t ring_pages;	/* data pages per CPU ring, a power of two; 0 = 8 MiB */
	uint32_t snaplen;	/* bytes of I/O buffers captured; 0 = 80 unless snaplen_given */
	bool snaplen_given;	/* snaplen as is: 0 captures no buffer bytes */
	bool drop_failed;	/* do not send exit events of failed syscalls */
	bool exit_only;		/* driver_config.exit_only: no program on sys_enter */
	bool exit_only_optional; /* ... unless the kernel lacks what it needs */
	bool force_slack;	/* skip the double-map attempt (tests, benchmarks) */
	uint32_t wakeup_bytes;	/* wakeup watermark; 0 = a default batch size */
	uint32_t own_tgid;	/* process never captured: 0 = this one, UINT32_MAX = none */
	/* An event is handed out only once every other CPU's ring has been read
	 * this long after the event's timestamp, so that no event of another CPU
	 * still on its way can be older. 0 = default (10 ms: a producer preempted
	 * between timestamping and publishing can take a few scheduler slices; one
	 * that takes longer makes a late event, counted in n_reordered), UINT32_MAX
	 * = no such wait (events then come in order per CPU, and across CPUs as
	 * read). */
	uint32_t order_window_us;
	/* attached with capture off, for a caller that configures the driver
	 * (its kernel filter) before the first event: driver__set_capture */
	bool paused;
	/* What the driver loads (driver_config): the syscalls captured (NULL:
	 * all) and whether the per-thread kernel filter will be on. */
	const uint8_t *syscalls;
	bool per_thread;
	/* Request mode (driver_config.sock_families): data syscalls on an fd
	 * leave the kernel only for sockets of these families (1u << PPM_AF_*);
	 * 0 = every fd. */
	uint32_t sock_families;
	/* Request mode (driver_config.file_closes): the closes of fds made by
	 * calls that never make a socket stay in the kernel (exit-only). */
	bool file_closes;
	/* Exit-only capture of a set of syscalls: keep the dispatcher on the raw
	 * sys_exit tracepoint (driver_config.no_syscall_tps), for comparisons. */
	bool no_syscall_tps;
	/* the verifier's figures of the programs loaded (driver_config) */
	bool verifier_stats;
	/* Request mode's TLS probes (driver_config.tls), where capture is
	 * exit-only; else left off (capture_stats.tls says which) */
	bool tls;
	/* Request mode: HTTP/2 connections' buffers captured up to this, not
	 * the snaplen (driver_config.h2_snaplen); 0: none */
	uint32_t h2_snaplen;
	/* Request mode: a TCP socket's reads and writes that moved bytes as one
	 * SOCK_RECV_X or SOCK_SEND_X event each (driver_config.sock_compact) */
	bool sock_compact;
	/* With sock_compact: read, readv, write and writev on their syscalls'
	 * tracepoints, not the socket tracepoints (driver_config.no_sock_tps),
	 * for comparisons */
	bool no_sock_tps;
	/* With sock_compact: close's events at its exit, not sent from its
	 * enter (driver_config.no_close_at_enter), for comparisons */
	bool no_close_at_enter;
	/* Profiling: enum prof_follow (driver_config.profile) */
	uint8_t profile;
	uint32_t profile_hz;	/* on-CPU stack samples a second (driver_config) */
	bool profile_names;	/* FD_NAME events (driver_config) */
	/* TCP health: one TCP_CLOSE event per TCP connection (driver_config.tcp) */
	bool tcp;
	/* Called as each step begins (may be NULL), so that the caller can time
	 * the steps and tell which one does not end. */
	void (*on_step)(void *arg, enum capture_step step);
	void *step_arg;
};

/* Opens, loads and attaches the driver and maps one ring per online CPU. Returns
 * NULL and sets errno on failure. */
struct capture *capture__open_live(const struct capture_live_opts *opts);

/* An engine over caller-provided ops (synthetic input, capture files). */
struct capture *capture__open_engine(const struct capture_engine_ops *ops, void *engine);

int capture__next(struct capture *c, struct capture_event *ev, int timeout_ms);
int capture__stats(struct capture *c, struct capture_stats *st);
void capture__close(struct capture *c);

/* The live driver behind a capture (NULL for other engines): for the
 * interesting-syscalls bitmap and settings. */
struct driver *capture__driver(struct capture *c);

/* Test input: serves the frames laid back to back in BUF (LEN bytes, copied), in
 * order and as CPU 0, then -ENODATA. A frame whose len is below the header size or
 * runs past the end is counted in n_corrupt and ends the input. NULL and errno on
 * failure. */
struct capture *capture__open_memory(const void *buf, size_t len);

/* Live: detaches the driver (no event is produced any more, none is on its
 * way) and hands out what the rings still hold, in order, without waiting for
 * the order window: capture__next then returns -EAGAIN once they are empty.
 * -EOPNOTSUPP for other engines. */
int capture__stop(struct capture *c);

/* The signal mask to wait with (ppoll). A handler that runs while capture__next
 * waits makes it return -EINTR; one that runs just before the wait is not seen
 * by it (the wait goes on up to its timeout). To close that gap, block SIGINT/
 * SIGTERM in the caller and pass a mask without them here: they can then only be
 * delivered during the wait. -EOPNOTSUPP for engines that never wait. */
int capture__set_sigmask(struct capture *c, const sigset_t *mask);

#endif
