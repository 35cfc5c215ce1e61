/* The writer thread of an output: steps its sink while there is work, sleeps
 * on a condition variable otherwise, backs off after failures, and at stop
 * drains the queue until it is empty or the deadline passes. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "output_int.h"

uint64_t output__now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static struct timespec writer__abstime(uint64_t ms)
{
	struct timespec ts = { .tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000 };

	return ts;
}

bool writer__expired(struct output *o)
{
	return atomic_load(&o->stopping) && output__now_ms() >= o->deadline_ms;
}

int writer__slice_ms(struct output *o)
{
	uint64_t now;

	if (!atomic_load(&o->stopping))
		return OUTPUT_TICK_MS;
	now = output__now_ms();
	if (now >= o->deadline_ms)
		return 0;
	return o->deadline_ms - now < OUTPUT_TICK_MS ? (int)(o->deadline_ms - now) : OUTPUT_TICK_MS;
}

static void writer__vnotice(struct output *o, int level, const char *fmt, va_list ap)
{
	char msg[512];

	if (!o->opts.notice)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	o->opts.notice(o->opts.notice_arg, o, level, msg);
}

void writer__notice(struct output *o, int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	writer__vnotice(o, level, fmt, ap);
	va_end(ap);
}

void writer__state(struct output *o, int state, int level, const char *fmt, ...)
{
	va_list ap;

	if (o->state == state)
		return;
	o->state = state;
	va_start(ap, fmt);
	writer__vnotice(o, level, fmt, ap);
	va_end(ap);
}

void writer__backoff_reset(struct output *o)
{
	o->backoff_ms = OUTPUT_BACKOFF_MIN_MS;
}

/* Releases everything queued; returns how many lines that was. */
static uint64_t writer__release_all(struct output *o)
{
	uint64_t head = queue__head(&o->q), pos = queue__tail(&o->q), lines = 0;
	const struct queue_rec *rec;

	while ((rec = queue__peek(&o->q, &pos, head))) {
		lines += rec->kind == QUEUE_LINE;
		pos = queue__after(pos, rec);
	}
	queue__release(&o->q, pos, lines);
	o->partial = 0;
	return lines;
}

void writer__discard(struct output *o)
{
	STAT_ADD(o, drop_error, writer__release_all(o));
}

void writer__drop_exit(struct output *o)
{
	STAT_ADD(o, drop_exit, writer__release_all(o));
}

void writer__drop_first(struct output *o)
{
	uint64_t pos = queue__tail(&o->q);
	const struct queue_rec *rec = queue__peek(&o->q, &pos, queue__head(&o->q));

	o->partial = 0;
	if (!rec)
		return;
	if (rec->kind == QUEUE_LINE)
		STAT_ADD(o, drop_error, 1);
	queue__release(&o->q, queue__after(pos, rec), rec->kind == QUEUE_LINE);
}

/* Under MU: is there a reason not to sleep? The same test as the producer's
 * wakeup (output__push), so a wakeup it skips is one the writer would not act on. */
static bool writer__has_work(struct output *o)
{
	uint64_t bytes = queue__bytes(&o->q);

	return atomic_load(&o->stopping) || atomic_load(&o->reopen) || atomic_load(&o->kick) ||
	       bytes >= o->wake_bytes || (o->opts.unbuffered && bytes);
}

static void writer__sleep(struct output *o, int ms)
{
	struct timespec ts = writer__abstime(output__now_ms() + (uint64_t)(ms > 0 ? ms : 1));

	pthread_mutex_lock(&o->mu);
	/* SLEEPING before looking at the queue, the producer stores the head
	 * before looking at SLEEPING (both sequentially consistent): one of
	 * the two sees the other, so no push is missed for longer than MS. */
	atomic_store(&o->sleeping, true);
	atomic_thread_fence(memory_order_seq_cst);
	if (!writer__has_work(o))
		pthread_cond_timedwait(&o->wake, &o->mu, &ts);
	atomic_store(&o->sleeping, false);
	pthread_mutex_unlock(&o->mu);
}

/* Waits until AT (ms), or until output__close starts the stop. */
static void writer__wait_until(struct output *o, uint64_t at)
{
	struct timespec ts = writer__abstime(at);
	bool stopping = atomic_load(&o->stopping);

	pthread_mutex_lock(&o->mu);
	while (output__now_ms() < at && atomic_load(&o->stopping) == stopping)
		if (pthread_cond_timedwait(&o->wake, &o->mu, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&o->mu);
}

static void writer__backoff(struct output *o)
{
	uint64_t at = output__now_ms() + (uint64_t)o->backoff_ms;

	/* while stopping, no wait goes past the deadline */
	if (atomic_load(&o->stopping) && at > o->deadline_ms)
		at = o->deadline_ms;
	o->retry_at = at;
	o->backoff_ms = o->backoff_ms * 2 > OUTPUT_BACKOFF_MAX_MS ? OUTPUT_BACKOFF_MAX_MS
								   : o->backoff_ms * 2;
}

static void *writer__main(void *arg)
{
	struct output *o = arg;
	bool stop_seen = false;

	for (;;) {
		bool stopping = atomic_load(&o->stopping);

		if (stopping && !stop_seen) {
			/* a backoff wait longer than the deadline would lose it
			 * all: try once more at once */
			stop_seen = true;
			o->retry_at = 0;
		}
		if (stopping && (queue__head(&o->q) == queue__tail(&o->q) || writer__expired(o)))
			break;
		if (o->retry_at && output__now_ms() < o->retry_at) {
			writer__wait_until(o, o->retry_at);
			continue;
		}
		o->retry_at = 0;
		o->kicked = atomic_exchange(&o->kick, false);
		o->sleep_ms = OUTPUT_TICK_MS;
		switch (o->ops->step(o)) {
		case STEP_AGAIN:
			break;
		case STEP_IDLE:
			writer__sleep(o, o->sleep_ms);
			break;
		case STEP_BACKOFF:
			writer__backoff(o);
			break;
		}
	}
	pthread_mutex_lock(&o->mu);
	o->done = true;
	pthread_cond_broadcast(&o->done_cv);
	pthread_mutex_unlock(&o->mu);
	return NULL;
}

/* The signal's only job is to make a blocked write() return EINTR. */
static void writer__on_signal(int sig)
{
	(void)sig;
}

static void writer__install_signal(void)
{
	struct sigaction sa = { .sa_handler = writer__on_signal };

	/* no SA_RESTART: an interrupted write returns instead of resuming */
	sigemptyset(&sa.sa_mask);
	sigaction(OUTPUT_SIGNAL, &sa, NULL);
}

int writer__start(struct output *o)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	sigset_t all, old;
	int ret;

	pthread_once(&once, writer__install_signal);
	o->backoff_ms = OUTPUT_BACKOFF_MIN_MS;
	/* the thread inherits this mask: only OUTPUT_SIGNAL reaches it, the
	 * agent's signals go to its main thread */
	sigfillset(&all);
	sigdelset(&all, OUTPUT_SIGNAL);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&o->thread, NULL, writer__main, o);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return -ret;
	pthread_setname_np(o->thread, "output");
	return 0;
}
