/* Inside the outputs library: the output object, shared by the producer side
 * (output.c), the writer thread (writer.c) and the sinks (sink_*.c) that write
 * one kind of destination. */
#ifndef OUTPUT_INT_H
#define OUTPUT_INT_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "output.h"
#include "queue.h"
#include "url.h"

#define OUTPUT_TICK_MS 100		/* the writer looks at its queue at least this often */
#define OUTPUT_BACKOFF_MIN_MS 100
#define OUTPUT_BACKOFF_MAX_MS 10000
/* Queued bytes that wake a sleeping writer: each wakeup costs the capture
 * thread a futex syscall and an IPI (~3 us), so one per MiB, not per 64 KiB. */
#define OUTPUT_WAKE_BYTES (1u << 20)
#define FRAME_PREFIX_MAX 256		/* syslog header, octet count included */
#define GATHER_MAX (IOV_MAX / 2)	/* records per writev: two iovecs each */

/* What a sink's step did, for the writer loop. */
enum step {
	STEP_AGAIN,	/* made progress or may: step again now */
	STEP_IDLE,	/* nothing to send now: sleep (o->sleep_ms at most) */
	STEP_BACKOFF,	/* failed: wait the backoff, then step again */
};

struct sink_ops {
	/* On the caller's thread at output__open: may fail it (file:). */
	int (*init)(struct output *o, char *err, size_t errlen);
	/* Writer thread: connect if needed, send some of the queue. */
	enum step (*step)(struct output *o);
	/* After the writer is joined. */
	void (*fini)(struct output *o);
};

enum framing {
	FRAME_RAW,	/* the line as is */
	FRAME_3164,	/* "<14>Mmm dd hh:mm:ss agent[PID]: " + line without "\n" */
	FRAME_3164_NL,	/* the same, newline kept (syslog over a stream socket) */
	FRAME_5424,	/* "LEN <14>1 TS HOST agent PID - - " + line without "\n" */
};

/* Records of the queue as iovecs for one writev/sendmsg, from the first byte
 * not yet written. */
struct gather {
	struct iovec iov[GATHER_MAX * 2];
	int iovcnt;
	unsigned n;				/* records */
	size_t total;				/* bytes in IOV */
	uint32_t frame_len[GATHER_MAX];		/* each record, framing included */
	uint8_t kind[GATHER_MAX];
	uint64_t next[GATHER_MAX];		/* queue position after each */
	char prefix[GATHER_MAX][FRAME_PREFIX_MAX];
};

struct output {
	/* First, on cache lines of their own: the queue. */
	struct queue q;

	/* Capture thread (producer) only. */
	_Alignas(64) uint64_t pending_drops;	/* drops the next marker reports */
	uint64_t wake_check;			/* queue head at which to look at SLEEPING */
	char *marker;				/* marker scratch: MARKER_PRE + number + suffix */
	size_t marker_pre;

	/* Flags others set for the writer. */
	_Alignas(64) atomic_bool sleeping;	/* writer waits on WAKE */
	atomic_bool kick;
	atomic_bool reopen;
	atomic_bool stopping;
	uint64_t deadline_ms;			/* set before STOPPING */
	pthread_mutex_t mu;
	pthread_cond_t wake;			/* writer sleeps here */
	pthread_cond_t done_cv;			/* output__close waits here */
	bool done;				/* writer returned (under MU) */

	/* Counters: each field written by one thread (see output.h). */
	struct output_stats c;

	/* Set at open, read-only after. */
	char *url;
	struct output_url u;
	struct output_opts opts;
	const struct sink_ops *ops;
	uint64_t wake_bytes;			/* queued bytes that wake the writer */
	pthread_t thread;
	char hostname[65];
	int pid;

	/* Writer thread only. */
	void *sink;				/* the sink's state */
	enum framing framing;
	uint64_t partial;			/* bytes of the first record already written */
	bool kicked;				/* output__kick since the last step */
	int sleep_ms;				/* how long an idle step may sleep */
	int backoff_ms;				/* next backoff wait */
	uint64_t retry_at;			/* backing off until then (0: not) */
	int state;				/* the sink's state, for notices */
	int64_t frame_sec;			/* syslog timestamp cache: the second... */
	char frame_time[64];			/* ...and its text */
};

/* Counter updates by the thread that owns the field (relaxed, never locked). */
#define STAT_GET(o, f) __atomic_load_n(&(o)->c.f, __ATOMIC_RELAXED)
#define STAT_SET(o, f, v) __atomic_store_n(&(o)->c.f, (v), __ATOMIC_RELAXED)
#define STAT_ADD(o, f, n) STAT_SET(o, f, STAT_GET(o, f) + (n))

extern const struct sink_ops sink_fd_ops;	/* stdout, file: */
extern const struct sink_ops sink_stream_ops;	/* tcp://, unix:, syslog, syslog:// */
extern const struct sink_ops sink_http_ops;	/* http://, https:// */

/* writer.c */
uint64_t output__now_ms(void);
int writer__start(struct output *o);
/* Stopping and past the deadline: give up what is queued. */
bool writer__expired(struct output *o);
/* How long a wait inside a step may be: a tick, less when the deadline is nearer. */
int writer__slice_ms(struct output *o);
/* A message for opts.notice (LEVEL 0 informational, 1 warning). */
void writer__notice(struct output *o, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The sink's state is STATE now: tells opts.notice if that is a change. */
void writer__state(struct output *o, int state, int level, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Success: the next failure backs off from the start again. */
void writer__backoff_reset(struct output *o);
/* Drops every queued line, counted in drop_error (stdout failed). */
void writer__discard(struct output *o);
/* Drops the first queued record, counted in drop_error if a line (a
 * connection broke in the middle of it, a datagram too big). */
void writer__drop_first(struct output *o);
/* Counts what is queued now as drop_exit and empties the queue. */
void writer__drop_exit(struct output *o);

/* connect.c: a non-blocking socket of TYPE connected to the output's peer
 * (tcp://, syslog:// resolve HOST; unix:, syslog use the path), or -errno with
 * WHY saying what failed; -ECANCELED when the stop deadline passed. */
int sock__connect(struct output *o, int type, char *why, size_t whylen);

/* marker.c: the start of O's markers, made at open; then the marker for
 * COUNT drops in o->marker (capture thread), its length. */
int marker__init(struct output *o);
size_t marker__format(struct output *o, uint64_t count);

/* frame.c: syslog headers of a record; the prefix length (0 when raw). */
size_t frame__prefix(struct output *o, const struct queue_rec *rec, char *buf);
size_t frame__body_len(const struct output *o, const struct queue_rec *rec);

/* gather.c */
/* Up to MAX records from the queue's tail into G, and no more than MAX_BYTES
 * unless the first alone is more; false when the queue is empty. */
bool gather__fill(struct output *o, struct gather *g, unsigned max, size_t max_bytes);
/* N bytes of G were written: counts and releases the records done. */
void gather__advance(struct output *o, const struct gather *g, size_t n);

#endif
