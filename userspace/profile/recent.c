/* Each thread's recent slices (recent.h): an open-addressed table by tid
 * (linear probing, backward-shift deletion) whose slots name a ring in a
 * pool taken up front; a free list hands rings out and takes them back. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recent.h"

#define RECENT_MAX (PROF_RECENT_THREADS / 4 * 3)

struct recent_slot {
	uint64_t tid;		/* 0: empty */
	uint32_t ring;		/* its ring in the pool */
};

struct recent_ring {
	uint32_t head, n;	/* the oldest slice's index; how many are kept */
	uint64_t dropped_end;	/* the latest end of a slice the ring let go */
	struct prof_slice_rec s[PROF_RECENT_SLICES];
	char name[PROF_RECENT_SLICES][PROF_RECENT_NAME];
	uint32_t shead, sn;	/* samples: the oldest's index, how many */
	uint64_t sts[PROF_RECENT_SAMPLES];
	int32_t skey[PROF_RECENT_SAMPLES];
};

struct prof_recent {
	struct recent_slot *slots;
	struct recent_ring *rings;
	uint32_t *free_rings, n_free;
	struct prof_recent_counters c;
};

static uint32_t slot__home(uint64_t tid)
{
	return (uint32_t)((tid * 0x9e3779b97f4a7c15ull) >> 40) & (PROF_RECENT_THREADS - 1);
}

static struct recent_slot *slot__find(const struct prof_recent *r, uint64_t tid)
{
	for (uint32_t i = slot__home(tid);; i = (i + 1) & (PROF_RECENT_THREADS - 1)) {
		struct recent_slot *s = &r->slots[i];

		if (!s->tid || s->tid == tid)
			return s;
	}
}

struct prof_recent *prof_recent__new(void)
{
	struct prof_recent *r = calloc(1, sizeof(*r));

	if (!r)
		goto fail;
	r->slots = calloc(PROF_RECENT_THREADS, sizeof(*r->slots));
	/* calloc: the pages of rings never used are never touched */
	r->rings = calloc(RECENT_MAX, sizeof(*r->rings));
	r->free_rings = calloc(RECENT_MAX, sizeof(*r->free_rings));
	if (!r->slots || !r->rings || !r->free_rings)
		goto fail;
	for (uint32_t i = 0; i < RECENT_MAX; i++)
		r->free_rings[i] = RECENT_MAX - 1 - i;
	r->n_free = RECENT_MAX;
	return r;
fail:
	prof_recent__free(r);
	errno = ENOMEM;
	return NULL;
}

void prof_recent__free(struct prof_recent *r)
{
	if (!r)
		return;
	free(r->slots);
	free(r->rings);
	free(r->free_rings);
	free(r);
}

/* NAME into DST, its last PROF_RECENT_NAME - 1 bytes when longer (a path's
 * file name is at its end). */
static void name__put(char *dst, const char *name)
{
	size_t len = name ? strlen(name) : 0;

	/* every slice of every batch: a copy, not a formatted print */
	if (len >= PROF_RECENT_NAME) {
		name += len - (PROF_RECENT_NAME - 1);
		len = PROF_RECENT_NAME - 1;
	}
	if (len)
		memcpy(dst, name, len);
	dst[len] = '\0';
}

/* Thread TID's ring, made when new; NULL past the bound (counted). */
static struct recent_ring *ring__get(struct prof_recent *r, uint64_t tid)
{
	struct recent_slot *s = slot__find(r, tid);
	struct recent_ring *g;

	if (s->tid)
		return &r->rings[s->ring];
	if (!r->n_free) {
		r->c.n_full++;
		return NULL;
	}
	s->tid = tid;
	s->ring = r->free_rings[--r->n_free];
	g = &r->rings[s->ring];
	g->head = g->n = g->shead = g->sn = 0;
	g->dropped_end = 0;
	r->c.n_threads++;
	return g;
}

void prof_recent__sample(struct prof_recent *r, uint64_t tid, uint64_t ts, int32_t key)
{
	struct recent_ring *g = tid ? ring__get(r, tid) : NULL;
	uint32_t k;

	if (!g)
		return;
	if (g->sn == PROF_RECENT_SAMPLES) {
		k = g->shead;
		g->shead = (g->shead + 1) % PROF_RECENT_SAMPLES;
	} else {
		k = (g->shead + g->sn++) % PROF_RECENT_SAMPLES;
	}
	g->sts[k] = ts;
	g->skey[k] = key;
}

size_t prof_recent__samples(const struct prof_recent *r, uint64_t tid, uint64_t from, uint64_t to,
			    int32_t *keys, size_t n)
{
	const struct recent_slot *s = tid ? slot__find(r, tid) : NULL;
	const struct recent_ring *g;
	size_t k = 0;

	if (!s || !s->tid)
		return 0;
	g = &r->rings[s->ring];
	for (uint32_t i = 0; i < g->sn && k < n; i++) {
		uint32_t at = (g->shead + i) % PROF_RECENT_SAMPLES;

		if (g->sts[at] >= from && g->sts[at] <= to)
			keys[k++] = g->skey[at];
	}
	return k;
}

void prof_recent__batch(struct prof_recent *r, const struct prof_batch *b,
			const char *const *names)
{
	struct recent_ring *g;

	if (!b->tid || !b->n || !(g = ring__get(r, b->tid)))
		return;
	for (unsigned i = 0; i < b->n; i++) {
		uint32_t k;

		if (g->n == PROF_RECENT_SLICES) {
			const struct prof_slice_rec *old = &g->s[g->head];

			if (old->start + old->dur > g->dropped_end)
				g->dropped_end = old->start + old->dur;
			k = g->head;
			g->head = (g->head + 1) % PROF_RECENT_SLICES;
		} else {
			k = (g->head + g->n) % PROF_RECENT_SLICES;
			g->n++;
		}
		g->s[k] = b->s[i];
		name__put(g->name[k], names ? names[i] : NULL);
	}
}

void prof_recent__forget(struct prof_recent *r, uint64_t tid)
{
	struct recent_slot *s;
	uint32_t hole, i;

	if (!tid)
		return;
	s = slot__find(r, tid);
	if (!s->tid)
		return;
	r->free_rings[r->n_free++] = s->ring;
	r->c.n_threads--;
	s->tid = 0;
	hole = i = (uint32_t)(s - r->slots);
	for (;;) {
		struct recent_slot *e;
		uint32_t home;

		i = (i + 1) & (PROF_RECENT_THREADS - 1);
		e = &r->slots[i];
		if (!e->tid)
			return;
		home = slot__home(e->tid);
		/* E may move to HOLE when HOLE lies on its probe path */
		if (((i - home) & (PROF_RECENT_THREADS - 1)) >=
		    ((i - hole) & (PROF_RECENT_THREADS - 1))) {
			r->slots[hole] = *e;
			e->tid = 0;
			hole = i;
		}
	}
}

size_t prof_recent__window(const struct prof_recent *r, uint64_t tid, uint64_t from, uint64_t to,
			   struct prof_slice_rec *out, char (*names)[PROF_RECENT_NAME], size_t n,
			   bool *whole)
{
	const struct recent_slot *s = tid ? slot__find(r, tid) : NULL;
	const struct recent_ring *g;
	size_t k = 0;

	*whole = false;
	if (!s || !s->tid)
		return 0;
	g = &r->rings[s->ring];
	*whole = g->dropped_end <= from;
	for (uint32_t i = 0; i < g->n; i++) {
		uint32_t at = (g->head + i) % PROF_RECENT_SLICES;
		const struct prof_slice_rec *x = &g->s[at];

		if (x->start + x->dur <= from || x->start >= to)
			continue;
		if (k == n) {
			*whole = false;
			break;
		}
		if (names)
			memcpy(names[k], g->name[at], PROF_RECENT_NAME);
		out[k++] = *x;
	}
	return k;
}

void prof_recent__counters(const struct prof_recent *r, struct prof_recent_counters *out)
{
	*out = r->c;
}
