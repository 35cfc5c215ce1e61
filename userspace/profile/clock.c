/* Per-thread clocks from CPU_SLICES batches (clock.h): an open-addressed
 * table by tid with linear probing and backward-shift deletion. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"

/* A slot is a thread's account; tid 0 marks it empty (tid 0 is the idle
 * task, never followed). */
#define clock_slot prof_clock_thread

struct prof_clock {
	struct clock_slot *slots;
	uint32_t n;
	struct prof_clock_counters c;
};

static uint32_t slot__home(uint64_t tid)
{
	/* Fibonacci hashing: tids are dense, the top bits spread them */
	return (uint32_t)((tid * 0x9e3779b97f4a7c15ull) >> 50) & (PROF_CLOCK_SLOTS - 1);
}

static struct clock_slot *slot__find(const struct prof_clock *c, uint64_t tid)
{
	for (uint32_t i = slot__home(tid);; i = (i + 1) & (PROF_CLOCK_SLOTS - 1)) {
		struct clock_slot *s = &c->slots[i];

		if (!s->tid || s->tid == tid)
			return s;
	}
}

struct prof_clock *prof_clock__new(void)
{
	struct prof_clock *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->slots = calloc(PROF_CLOCK_SLOTS, sizeof(*c->slots));
	if (!c->slots) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

void prof_clock__free(struct prof_clock *c)
{
	if (!c)
		return;
	free(c->slots);
	free(c);
}

void prof_clock__batch(struct prof_clock *c, const struct prof_batch *b)
{
	struct clock_slot *s;

	if (!b->tid)
		return;
	s = slot__find(c, b->tid);
	if (!s->tid) {
		if (c->n >= PROF_CLOCK_SLOTS / 4 * 3) {
			c->c.n_full++;
			return;
		}
		c->n++;
		memset(s, 0, sizeof(*s));
		s->tid = b->tid;
		s->r.gen = 1;
		s->r.since = b->from;
	} else if (s->let_go) {
		/* following begins again with a batch of none (prof__follow):
		 * those built before the driver let it go are passed over */
		if (b->n || b->from != b->to)
			return;
		s->let_go = false;
		s->r.gen++;
		s->r.since = b->from;
	} else if (b->from != s->last_to) {
		s->r.gen++;
		s->gaps++;
		if (b->from > s->last_to)
			s->lost += b->from - s->last_to;
		c->c.n_gaps++;
	}
	for (unsigned i = 0; i < b->n; i++) {
		if (b->s[i].flags & PROF_SLICE_F_UNSEEN) {
			/* as a gap: a reader across it must not trust the sum */
			s->r.gen++;
			s->gaps++;
			s->lost += b->s[i].dur;
			c->c.n_gaps++;
			continue;
		}
		s->r.t[b->s[i].kind] += b->s[i].dur;
	}
	s->last_to = b->to;
}

bool prof_clock__read(const struct prof_clock *c, uint64_t tid, struct prof_clock_read *out)
{
	const struct clock_slot *s;

	if (!tid)
		return false;
	s = slot__find(c, tid);
	if (!s->tid || s->let_go)
		return false;
	*out = s->r;
	return true;
}

int prof_clock__role(struct prof_clock *c, uint64_t tid, bool server)
{
	struct clock_slot *s = tid ? slot__find(c, tid) : NULL;

	if (!s || !s->tid)
		return 0;
	if (server) {
		if (s->served)
			return 0;
		s->served = true;
		if (!s->let_go)
			return 0;
		c->c.n_again++;
		return PROF_CLOCK_AGAIN;
	}
	if (s->served || s->let_go)
		return 0;
	s->let_go = true;
	c->c.n_let_go++;
	return PROF_CLOCK_LET_GO;
}

void prof_clock__forget(struct prof_clock *c, uint64_t tid)
{
	struct clock_slot *s;
	uint32_t hole, i;

	if (!tid)
		return;
	s = slot__find(c, tid);
	if (!s->tid)
		return;
	c->n--;
	s->tid = 0;
	hole = i = (uint32_t)(s - c->slots);
	for (;;) {
		struct clock_slot *e;
		uint32_t home;

		i = (i + 1) & (PROF_CLOCK_SLOTS - 1);
		e = &c->slots[i];
		if (!e->tid)
			return;
		home = slot__home(e->tid);
		/* E may move to HOLE when HOLE lies on its probe path */
		if (((i - home) & (PROF_CLOCK_SLOTS - 1)) >= ((i - hole) & (PROF_CLOCK_SLOTS - 1))) {
			c->slots[hole] = *e;
			e->tid = 0;
			hole = i;
		}
	}
}

void prof_clock__counters(const struct prof_clock *c, struct prof_clock_counters *out)
{
	*out = c->c;
	out->n_threads = c->n;
}

void prof_clock__name(struct prof_clock *c, uint64_t tid, int64_t pid, const char *comm,
		      const char *group)
{
	struct clock_slot *s = tid ? slot__find(c, tid) : NULL;

	if (!s || !s->tid)
		return;
	s->pid = pid;
	snprintf(s->comm, sizeof(s->comm), "%s", comm ? comm : "");
	snprintf(s->group, sizeof(s->group), "%s", group ? group : "");
}

void prof_clock__end(struct prof_clock *c, uint64_t tid, uint64_t ts)
{
	struct clock_slot *s = tid ? slot__find(c, tid) : NULL;

	if (s && s->tid && !s->end)
		s->end = ts > s->last_to ? ts : s->last_to;
}

void prof_clock__add(struct prof_clock *c, uint64_t tid, unsigned kind, uint64_t ns)
{
	struct clock_slot *s = tid ? slot__find(c, tid) : NULL;

	if (s && s->tid && kind < PROF_SLICE__KINDS)
		s->r.t[kind] += ns;
}

int prof_clock__each(const struct prof_clock *c,
		     int (*fn)(void *ctx, const struct prof_clock_thread *t), void *ctx)
{
	for (uint32_t i = 0; i < PROF_CLOCK_SLOTS; i++) {
		int r;

		if (c->slots[i].tid && (r = fn(ctx, &c->slots[i])))
			return r;
	}
	return 0;
}
