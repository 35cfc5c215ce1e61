/* A connection's requests in flight (pair_int.h, pair_conn.q): a ring in the
 * connection for the usual few, grown on the heap for deep pipelines (a
 * `redis-cli --pipe` load, redis-benchmark -P 64, many HTTP/2 streams) rather
 * than giving up on their requests. Growth doubles, so its copies cost a
 * request little; the larger array goes when the connection is idle at an
 * expiry sweep, so memory follows the pipelines in flight, not the
 * connections that once had one. The times kept for the other side's
 * records (pair_emit.c) grow and go back with it: a batch answered at once
 * has all its records made on one side before the other's first. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pair_int.h"

_Static_assert((PAIR_PIPELINE & (PAIR_PIPELINE - 1)) == 0 &&
		       (PAIR_PIPELINE_MAX & (PAIR_PIPELINE_MAX - 1)) == 0 &&
		       PAIR_PIPELINE_MAX >= PAIR_PIPELINE && PAIR_PIPELINE_MAX <= 32768,
	       "queue sizes: powers of 2 that a uint16_t counts");

static void queue__init(struct pair_conn *c)
{
	c->q = c->q0;
	c->cap = PAIR_PIPELINE;
	c->head = c->n = 0;
}

void pair_q__init(struct pair_conn *c)
{
	queue__init(c);
	c->own = c->own0;
	c->other = c->other0;
	c->times_cap = PAIR_TIMES;
}

/* FROM's N entries into TO's N2 slots, each at its key's (the later of two
 * keys that meet there: the newer request on a TCP connection). */
static void times__move(struct pair_times *to, uint32_t n2, const struct pair_times *from,
			uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct pair_times *t = &to[from[i].key % n2];

		if (from[i].key && from[i].key >= t->key)
			*t = from[i];
	}
}

/* C's times in CAP slots each: its own arrays up to PAIR_TIMES, else one
 * heap array for both. Kept as they are if it cannot be had: a record then
 * may stand alone. */
static void times__resize(struct pair_conn *c, uint32_t cap)
{
	struct pair_times *own = c->own0, *other = c->other0;

	if (cap < PAIR_TIMES)
		cap = PAIR_TIMES;
	if (cap == c->times_cap)
		return;
	if (cap > PAIR_TIMES) {
		own = calloc(2 * (size_t)cap, sizeof(*own));
		if (!own)
			return;
		other = own + cap;
	} else {
		memset(c->own0, 0, sizeof(c->own0));
		memset(c->other0, 0, sizeof(c->other0));
	}
	times__move(own, cap, c->own, c->times_cap);
	times__move(other, cap, c->other, c->times_cap);
	if (c->own != c->own0)
		free(c->own);
	c->own = own;
	c->other = other;
	c->times_cap = (uint16_t)cap;
}

int pair_q__room(struct pair_conn *c)
{
	uint32_t cap = (uint32_t)c->cap * 2;
	struct pair_req *q;

	if (c->n < c->cap)
		return 0;
	if (cap > PAIR_PIPELINE_MAX)
		return -ENOSPC;
	q = malloc(cap * sizeof(*q));
	if (!q)
		return -ENOMEM;
	/* oldest first from 0: the ring unwound */
	for (uint32_t i = 0; i < c->n; i++)
		q[i] = *pair_q__at(c, i);
	if (c->q != c->q0)
		free(c->q);
	c->q = q;
	c->cap = (uint16_t)cap;
	c->head = 0;
	times__resize(c, cap);
	return 0;
}

void pair_q__shrink(struct pair_conn *c, bool removing)
{
	if (c->q == c->q0 || (c->n && !removing))
		return;
	free(c->q);
	queue__init(c);
	/* (the times grow only with the queue: they are on the heap only now) */
	times__resize(c, PAIR_TIMES);
}

void pair_q__drop(struct pair_conn *c, struct pair_req *q)
{
	uint32_t i = 0;

	while (i < c->n && pair_q__at(c, i) != q)
		i++;
	if (i == c->n)
		return;
	if (i == 0) {
		pair_q__pop(c);
		return;
	}
	for (; i + 1 < c->n; i++)
		*pair_q__at(c, i) = *pair_q__at(c, i + 1);
	c->n--;
}
