/* A connection's requests in flight (pair_int.h, pair_conn.q): a ring in the
 * connection for the usual few, grown on the heap for deep pipelines (a
 * `redis-cli --pipe` load, redis-benchmark -P 64, many HTTP/2 streams) rather
 * than giving up on their requests. Growth doubles, so its copies cost a
 * request little; the larger array goes when the connection is idle at an
 * expiry sweep, so memory follows the pipelines in flight, not the
 * connections that once had one. */
#include <errno.h>
#include <stdlib.h>

#include "pair_int.h"

_Static_assert((PAIR_PIPELINE & (PAIR_PIPELINE - 1)) == 0 &&
		       (PAIR_PIPELINE_MAX & (PAIR_PIPELINE_MAX - 1)) == 0 &&
		       PAIR_PIPELINE_MAX >= PAIR_PIPELINE && PAIR_PIPELINE_MAX <= 32768,
	       "queue sizes: powers of 2 that a uint16_t counts");

void pair_q__init(struct pair_conn *c)
{
	c->q = c->q0;
	c->cap = PAIR_PIPELINE;
	c->head = c->n = 0;
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
	return 0;
}

void pair_q__shrink(struct pair_conn *c, bool removing)
{
	if (c->q == c->q0 || (c->n && !removing))
		return;
	free(c->q);
	pair_q__init(c);
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
