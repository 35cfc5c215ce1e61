/* Ordered merge of per-CPU rings and the batched wait. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ring_cursor.h"
#include "schema_events.h"
#include "ringset.h"

/* ring__peek, without a call when an event is already peeked (here, not in
 * ring_cursor.h, so that the header calls nothing of ring.c). */
static inline bool ring__peek_fast(struct ring *r, struct capture_event *ev, uint64_t *ts)
{
	if (!r->have_peek)
		return ring__peek(r, ev, ts);
	if (ev) {
		ev->frame = r->peek_ev.frame;
		ev->len = r->peek_ev.len;
	}
	*ts = r->peek_ts;
	return true;
}

#define NS_PER_MS 1000000ull
#define BACKOFF_MIN_NS (1 * NS_PER_MS)
#define BACKOFF_MAX_NS (30 * NS_PER_MS)
/* Events stamped further than this past our clock are not held back for order. */
#define ORDER_MAX_FUTURE_NS 1000000000ull
/* A wait that brought less than this is "nearly empty": wait longer next time. */
#define NEARLY_EMPTY_BYTES (16 * 1024)

struct member {
	struct ring *ring;
	uint64_t horizon;	/* events of this ring not yet read have ts above this */
	uint16_t cpu;
};

struct ringset {
	struct member *m;
	struct pollfd *pfd;
	int n;
	uint64_t window;
	uint64_t (*clock)(void *ctx);
	void *clock_ctx;
	int64_t boot_to_epoch;	/* default clock */
	uint64_t backoff_min, backoff_max, backoff;
	uint64_t harvest;	/* bytes found since the last wait */
	uint64_t last_ts;	/* of the last event handed out */
	/* The ring and timestamp of the last event handed out: a frame after it
	 * in that ring with the same timestamp is next in order too. */
	int hot;		/* its index + 1; 0: none */
	uint64_t hot_ts;
	uint64_t n_reordered;
	bool last_wait_polled;	/* and it reported readiness */
	bool sleep_wait;	/* never poll the fds (ringset_opts) */
	bool has_mask;
	sigset_t mask;
};

static uint64_t clock_read(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t default_clock(void *ctx)
{
	const struct ringset *s = ctx;

	return clock_read(CLOCK_BOOTTIME) + s->boot_to_epoch;
}

struct ringset *ringset__new(const struct ringset_opts *opts)
{
	struct ringset *s = calloc(1, sizeof(*s));
	struct ringset_opts o = {0};

	if (!s)
		return NULL;
	if (opts)
		o = *opts;
	s->window = o.order_window_ns;
	s->boot_to_epoch = o.boot_to_epoch_ns ? (int64_t)o.boot_to_epoch_ns :
			   (int64_t)(clock_read(CLOCK_REALTIME) - clock_read(CLOCK_BOOTTIME));
	s->clock = o.clock_ns ? o.clock_ns : default_clock;
	s->clock_ctx = o.clock_ns ? o.clock_ctx : s;
	s->backoff_min = o.backoff_min_us ? o.backoff_min_us * 1000ull : BACKOFF_MIN_NS;
	s->backoff_max = o.backoff_max_us ? o.backoff_max_us * 1000ull : BACKOFF_MAX_NS;
	if (s->backoff_max < s->backoff_min)
		s->backoff_max = s->backoff_min;
	s->backoff = s->backoff_min;
	s->sleep_wait = o.sleep_wait;
	return s;
}

int ringset__add(struct ringset *s, struct ring *r, uint16_t cpu)
{
	struct member *m;
	struct pollfd *p;

	if (s->n >= CAPTURE_MAX_CPUS || cpu >= CAPTURE_MAX_CPUS) {
		ring__unmap(r);
		return -ERANGE;
	}
	m = realloc(s->m, (s->n + 1) * sizeof(*m));
	if (m)
		s->m = m;
	p = realloc(s->pfd, (s->n + 1) * sizeof(*p));
	if (p)
		s->pfd = p;
	if (!m || !p) {
		ring__unmap(r);
		return -ENOMEM;
	}
	s->m[s->n] = (struct member){ .ring = r, .cpu = cpu };
	s->pfd[s->n] = (struct pollfd){ .fd = ring__fd(r), .events = POLLIN };
	s->n++;
	return 0;
}

void ringset__set_sigmask(struct ringset *s, const sigset_t *mask)
{
	s->has_mask = mask != NULL;
	if (mask)
		s->mask = *mask;
}

/* The ring holding the next event to hand out, or NULL. With an order window, a
 * ring without pending events is read again only when the candidate is newer than
 * what its last read covered; if the candidate is still too new, *BLOCK_NS says
 * how long to wait for it. */
static struct member *pick(struct ringset *s, uint64_t *block_ns)
{
	struct member *best = NULL;
	uint64_t best_ts = 0, ts, now = 0;
	int i, exhausted = 0;

	*block_ns = 0;
	for (i = 0; i < s->n; i++) {
		if (!ring__peek_fast(s->m[i].ring, NULL, &ts))
			exhausted++;	/* a ring that peeks nothing is used up */
		else if (!best || ts < best_ts) {
			best = &s->m[i];
			best_ts = ts;
		}
	}
	/* Every ring has an event: the oldest goes, with nothing to read again
	 * and nothing to wait for (the common case under load). */
	if (!exhausted)
		return best;
	for (i = 0; i < s->n; i++) {
		struct member *m = &s->m[i];

		if (!ring__exhausted_fast(m->ring))
			continue;
		/* Give consumed space back at once, even if we do not read further. */
		ring__release(m->ring);
		if (best && s->window && best_ts <= m->horizon)
			continue;
		if (s->window) {
			if (!now)
				now = s->clock(s->clock_ctx);
			/* Read before the head: whatever the head misses is newer. */
			m->horizon = now > s->window ? now - s->window : 0;
		}
		s->harvest += ring__refresh(m->ring);
		if (ring__peek_fast(m->ring, NULL, &ts) && (!best || ts < best_ts)) {
			best = m;
			best_ts = ts;
		}
	}
	if (!best || !s->window)
		return best;
	for (i = 0; i < s->n; i++) {
		struct member *m = &s->m[i];
		uint64_t ahead = best_ts - m->horizon;

		/* A ts far past the clock is garbage or a skewed clock: waiting for
		 * it could stall the stream for good, so it goes out at once. */
		if (ring__exhausted_fast(m->ring) && best_ts > m->horizon &&
		    ahead <= s->window + ORDER_MAX_FUTURE_NS && ahead > *block_ns)
			*block_ns = ahead;
	}
	return *block_ns ? NULL : best;
}

/* Sleeps up to NS, on the ring fds when POLL. 0, or -EINTR. */
static int wait_rings(struct ringset *s, uint64_t ns, bool poll)
{
	struct timespec ts = { .tv_sec = ns / 1000000000ull, .tv_nsec = ns % 1000000000ull };
	int n;

	n = ppoll(poll ? s->pfd : NULL, poll ? s->n : 0, &ts, s->has_mask ? &s->mask : NULL);
	if (n < 0)
		return errno == EINTR ? -EINTR : -errno;
	s->last_wait_polled = poll && n > 0;
	return 0;
}

/* Hands out M's peeked event into EV. */
static void hand_out(struct ringset *s, struct member *m, struct capture_event *ev)
{
	uint64_t ts;

	ring__peek_fast(m->ring, ev, &ts);
	ev->cpu = m->cpu;
	ring__consume_fast(m->ring);
	s->hot = (int)(m - s->m) + 1;
	s->hot_ts = ts;
	/* Order is kept by the window; a producer preempted for longer still
	 * breaks it, and that must not pass unseen. Exit-only capture's close
	 * enter event is stamped when the close began and sent with its exit
	 * (driver/close_enter.bpf.h): what its CPU sent meanwhile is before
	 * it in the ring, by design, not a producer held up. */
	if (ts >= s->last_ts)
		s->last_ts = ts;
	else if (ev->frame->type != PPME_SYSCALL_CLOSE_E)
		s->n_reordered++;
}

int ringset__next(struct ringset *s, struct capture_event *ev, int timeout_ms)
{
	uint64_t deadline = 0, now, block_ns, wait;
	struct member *m;
	bool poll;
	int err;

	/* Exit-only capture sends a syscall's enter and exit frames in one
	 * record with one timestamp: the second needs no look at the other
	 * rings, which halves the merge's work per syscall. */
	if (s->hot) {
		uint64_t ts;

		m = &s->m[s->hot - 1];
		if (ring__peek_fast(m->ring, NULL, &ts) && ts == s->hot_ts) {
			hand_out(s, m, ev);
			return 0;
		}
	}
	for (;;) {
		m = pick(s, &block_ns);
		if (m) {
			hand_out(s, m, ev);
			return 0;
		}
		if (timeout_ms == 0)
			return -EAGAIN;
		now = clock_read(CLOCK_MONOTONIC);
		if (timeout_ms > 0) {
			if (!deadline)
				deadline = now + timeout_ms * NS_PER_MS;
			else if (now >= deadline)
				return -EAGAIN;
		}
		if (block_ns) {
			/* Events are there but too new to be sure of their order:
			 * no shorter than the shortest batch wait, so a busy
			 * host costs at most one wakeup per backoff_min. */
			wait = block_ns < s->backoff_min ? s->backoff_min : block_ns;
			wait = wait < s->backoff_max ? wait : s->backoff_max;
			poll = false;
		} else {
			/* Batch: a wait that brought little means a quiet system. */
			if (s->harvest >= NEARLY_EMPTY_BYTES)
				s->backoff = s->backoff_min;
			else if (s->backoff < s->backoff_max)
				s->backoff = s->backoff * 2 < s->backoff_max ? s->backoff * 2
									   : s->backoff_max;
			wait = s->backoff;
			/* A ready fd that then gave nothing (a memfd, a stale wakeup):
			 * sleep instead of polling again at once. */
			poll = !s->sleep_wait && !(s->last_wait_polled && s->harvest == 0);
		}
		s->harvest = 0;
		if (timeout_ms > 0 && wait > deadline - now)
			wait = deadline - now;
		err = wait_rings(s, wait, poll);
		if (err)
			return err;
	}
}

void ringset__final(struct ringset *s)
{
	s->window = 0;
}

int ringset__stats(const struct ringset *s, struct capture_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->mode = s->n ? ring__mode_name(ring__mode(s->m[0].ring)) : "none";
	for (int i = 0; i < s->n; i++) {
		struct capture_cpu_stats *c = &st->cpu[s->m[i].cpu];

		ring__stats(s->m[i].ring, c);
		st->total.n_evts += c->n_evts;
		st->total.n_bytes += c->n_bytes;
		st->total.n_lost += c->n_lost;
		st->total.n_corrupt += c->n_corrupt;
		st->total.ring_used += c->ring_used;
		st->total.ring_size += c->ring_size;
		st->total.n_reordered = s->n_reordered;
		st->last_ts = s->last_ts;
		if (s->m[i].cpu + 1u > st->ncpus)
			st->ncpus = s->m[i].cpu + 1u;
	}
	return 0;
}

void ringset__free(struct ringset *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->n; i++)
		ring__unmap(s->m[i].ring);
	free(s->m);
	free(s->pfd);
	free(s);
}

static int engine_next(void *e, struct capture_event *ev, int timeout_ms)
{
	return ringset__next(e, ev, timeout_ms);
}

static int engine_stats(void *e, struct capture_stats *st)
{
	return ringset__stats(e, st);
}

static void engine_close(void *e)
{
	ringset__free(e);
}

static int engine_set_sigmask(void *e, const sigset_t *mask)
{
	ringset__set_sigmask(e, mask);
	return 0;
}

const struct capture_engine_ops ringset_engine_ops = {
	.name = "rings",
	.next = engine_next,
	.stats = engine_stats,
	.close = engine_close,
	.set_sigmask = engine_set_sigmask,
};
