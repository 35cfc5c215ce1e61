/* An output's life (open, close) and its producer side: output__push on the
 * capture thread's hot path copies a line into the queue without a lock, a
 * syscall or an allocation, and wakes the writer only when it sleeps and has
 * a batch worth writing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "output_int.h"

static void output__free(struct output *o)
{
	if (o->ops && o->ops->fini)
		o->ops->fini(o);
	queue__fini(&o->q);
	pthread_cond_destroy(&o->done_cv);
	pthread_cond_destroy(&o->wake);
	pthread_mutex_destroy(&o->mu);
	output_url__fini(&o->u);
	free(o->marker);
	free(o->url);
	free(o);
}

static int output__sync_init(struct output *o)
{
	pthread_condattr_t ca;
	int ret;

	pthread_mutex_init(&o->mu, NULL);
	pthread_condattr_init(&ca);
	/* the writer's timeouts are on the monotonic clock, like the deadline */
	ret = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (!ret)
		pthread_cond_init(&o->wake, &ca);
	if (!ret)
		pthread_cond_init(&o->done_cv, &ca);
	pthread_condattr_destroy(&ca);
	return -ret;
}

static const struct sink_ops *output__ops(enum output_kind kind)
{
	switch (kind) {
	case OUTPUT_STDOUT:
	case OUTPUT_FILE:
		return &sink_fd_ops;
	case OUTPUT_HTTP:
		return &sink_http_ops;
	default:
		return &sink_stream_ops;
	}
}

struct output *output__open(const char *url, const struct output_opts *opts, char *err,
			    size_t errlen)
{
	struct output *o;
	size_t size = (sizeof(*o) + 63) & ~(size_t)63;
	int ret;

	if (errlen)
		err[0] = 0;
	/* aligned: the producer's and the writer's fields are on separate lines */
	o = aligned_alloc(64, size);
	if (!o) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memset(o, 0, size);
	ret = output__sync_init(o);
	if (ret)
		goto cleanup;
	ret = output_url__parse(&o->u, url, err, errlen);
	if (ret)
		goto cleanup;
	o->url = strdup(url);
	ret = o->url ? 0 : -ENOMEM;
	if (ret)
		goto cleanup;
	if (opts)
		o->opts = *opts;
	if (!o->opts.batch_bytes)
		o->opts.batch_bytes = 1u << 20;
	if (!o->opts.batch_ms)
		o->opts.batch_ms = 1000;
	ret = queue__init(&o->q, o->opts.queue_bytes ? o->opts.queue_bytes : OUTPUT_DEFAULT_QUEUE);
	if (ret)
		goto cleanup;
	STAT_SET(o, queue_capacity, queue__capacity(&o->q));
	o->wake_bytes = queue__capacity(&o->q) / 4 < OUTPUT_WAKE_BYTES
			? queue__capacity(&o->q) / 4 : OUTPUT_WAKE_BYTES;
	if (o->u.kind == OUTPUT_HTTP)
		o->wake_bytes = o->opts.batch_bytes < queue__capacity(&o->q) / 2
				? o->opts.batch_bytes : queue__capacity(&o->q) / 2;
	ret = marker__init(o);
	if (ret)
		goto cleanup;
	if (gethostname(o->hostname, sizeof(o->hostname) - 1) || !o->hostname[0])
		strcpy(o->hostname, "-");
	o->pid = getpid();
	o->ops = output__ops(o->u.kind);
	ret = o->ops->init(o, err, errlen);
	if (ret)
		goto cleanup;
	ret = writer__start(o);
	if (ret)
		goto cleanup;
	return o;

cleanup:
	if (errlen && !err[0])
		snprintf(err, errlen, "%s: %s", url, strerror(-ret));
	output__free(o);
	errno = -ret;
	return NULL;
}

/* A writer asleep with a batch worth its while now: wake it, once. */
static void output__wake(struct output *o, bool any)
{
	uint64_t bytes;

	/* pairs with writer__sleep: our queue update, then its flag */
	atomic_thread_fence(memory_order_seq_cst);
	if (!atomic_load_explicit(&o->sleeping, memory_order_relaxed))
		return;
	bytes = queue__bytes(&o->q);
	if (!bytes || (!any && !o->opts.unbuffered && bytes < o->wake_bytes))
		return;
	if (!atomic_exchange(&o->sleeping, false))
		return;		/* someone else woke it */
	pthread_mutex_lock(&o->mu);
	pthread_cond_signal(&o->wake);
	pthread_mutex_unlock(&o->mu);
}

/* A blocking output's full queue: waits (kicking the writer) until LEN more
 * bytes fit. false when the writer made no progress for OUTPUT_BLOCK_STALL_MS
 * or the program is stopping: the line is then dropped as usual. */
static bool output__wait_room(struct output *o, size_t len)
{
	enum { NAP_US = 200, STALL_NAPS = OUTPUT_BLOCK_STALL_MS * 1000 / NAP_US };
	const struct timespec nap = { 0, NAP_US * 1000 };
	uint64_t tail = queue__tail(&o->q);
	unsigned idle_naps = 0;

	while (!queue__room(&o->q, len, 0)) {
		if (o->opts.stop && *o->opts.stop)
			return false;
		atomic_store(&o->kick, true);
		output__wake(o, true);
		nanosleep(&nap, NULL);
		if (queue__tail(&o->q) != tail) {
			tail = queue__tail(&o->q);
			idle_naps = 0;
		} else if (++idle_naps >= STALL_NAPS) {
			return false;
		}
	}
	return true;
}

int output__push(struct output *o, const char *line, size_t len, uint64_t ts_ns)
{
	if (len > UINT32_MAX)
		goto drop;
	/* syslog headers are made from the record's time, again if a record is
	 * written in two parts: it must be fixed now (vDSO clock, no syscall) */
	if (!ts_ns && (o->u.kind == OUTPUT_SYSLOG || o->u.kind == OUTPUT_SYSLOG_TCP)) {
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		ts_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	}
	/* the marker goes first, and only with the line: alone, it would be
	 * followed by another marker */
	if (o->pending_drops) {
		size_t mlen = marker__format(o, o->pending_drops);

		if (!queue__room(&o->q, mlen, len))
			goto drop;
		queue__push(&o->q, QUEUE_MARKER, ts_ns, o->marker, mlen, 0);
		o->pending_drops = 0;
	}
	if (queue__push(&o->q, QUEUE_LINE, ts_ns, line, len, 1) &&
	    (!o->opts.block || !output__wait_room(o, len) ||
	     queue__push(&o->q, QUEUE_LINE, ts_ns, line, len, 1)))
		goto drop;
	/* Whether the writer sleeps is asked once per WAKE_BYTES pushed (or per
	 * line, unbuffered), not per line: that look costs a full fence. A writer
	 * that fell asleep in between still has its timeout and the kicks. */
	if (o->opts.unbuffered || queue__head(&o->q) >= o->wake_check) {
		o->wake_check = queue__head(&o->q) + o->wake_bytes;
		output__wake(o, false);
	}
	return 0;

drop:
	o->pending_drops++;
	STAT_ADD(o, drop_queue_full, 1);
	output__wake(o, false);
	return -ENOBUFS;
}

void output__kick(struct output *o)
{
	if (!queue__bytes(&o->q))
		return;
	atomic_store(&o->kick, true);
	output__wake(o, true);
}

static void output__signal(struct output *o)
{
	pthread_mutex_lock(&o->mu);
	pthread_cond_signal(&o->wake);
	pthread_mutex_unlock(&o->mu);
}

void output__reopen(struct output *o)
{
	if (o->u.kind != OUTPUT_FILE)
		return;
	atomic_store(&o->reopen, true);
	output__signal(o);
}

/* Waits until the writer returned, or until AT (ms): true when it did. */
static bool output__wait_done(struct output *o, uint64_t at)
{
	struct timespec ts = { .tv_sec = (time_t)(at / 1000), .tv_nsec = (long)(at % 1000) * 1000000 };
	bool done;

	pthread_mutex_lock(&o->mu);
	while (!o->done && output__now_ms() < at)
		if (pthread_cond_timedwait(&o->done_cv, &o->mu, &ts) == ETIMEDOUT)
			break;
	done = o->done;
	pthread_mutex_unlock(&o->mu);
	return done;
}

void output__close(struct output *o, uint64_t deadline_ms, struct output_stats *final)
{
	if (!o)
		return;
	o->deadline_ms = deadline_ms;
	atomic_store(&o->stopping, true);
	output__signal(o);
	if (!output__wait_done(o, deadline_ms)) {
		/* a write() blocked on a stalled pipe or disk only returns when
		 * interrupted; the signal may also come just before it blocks,
		 * so it is sent again until the writer is out */
		do
			pthread_kill(o->thread, OUTPUT_SIGNAL);
		while (!output__wait_done(o, output__now_ms() + 20));
	}
	pthread_join(o->thread, NULL);
	/* what the writer could not send by the deadline */
	writer__drop_exit(o);
	if (final)
		output__stats(o, final);
	output__free(o);
}

void output__stats(const struct output *o, struct output_stats *st)
{
	struct output *w = (struct output *)o;	/* atomic loads only */

	/* the queue's own count: no second counter on the per-line path */
	st->queued = atomic_load_explicit(&w->q.lines_in, memory_order_relaxed);
	st->emitted = STAT_GET(w, emitted);
	st->drop_queue_full = STAT_GET(w, drop_queue_full);
	st->drop_error = STAT_GET(w, drop_error);
	st->drop_exit = STAT_GET(w, drop_exit);
	st->markers = STAT_GET(w, markers);
	st->write_errors = STAT_GET(w, write_errors);
	st->connects = STAT_GET(w, connects);
	st->connect_failures = STAT_GET(w, connect_failures);
	st->bytes = STAT_GET(w, bytes);
	st->queue_bytes = queue__bytes(&o->q);
	st->queue_lines = queue__lines(&o->q);
	st->queue_capacity = queue__capacity(&o->q);
	st->error = STAT_GET(w, error);
	st->connected = STAT_GET(w, connected);
	st->fatal = STAT_GET(w, fatal);
}

const char *output__url(const struct output *o)
{
	return o->url;
}

enum output_kind output__kind(const struct output *o)
{
	return o->u.kind;
}
