/* The pairer's life: created with its bounds, fed closes and the clock, and
 * emptied at the end. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "pair_int.h"

struct pairer *pair__new(const struct pair_opts *o, pair_emit_fn *emit, void *ctx)
{
	struct pairer *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->o = *o;
	if (!p->o.max_conns)
		p->o.max_conns = PAIR_MAX_CONNS;
	if (!p->o.timeout_ns)
		p->o.timeout_ns = PAIR_TIMEOUT_NS;
	p->emit = emit;
	p->ctx = ctx;
	p->seed = hash__seed();
	for (p->nbuckets = 64; p->nbuckets < 2 * p->o.max_conns && p->nbuckets < (1u << 24);)
		p->nbuckets <<= 1;
	p->by_key = calloc(p->nbuckets, sizeof(*p->by_key));
	p->by_tuple = calloc(p->nbuckets, sizeof(*p->by_tuple));
	p->all = calloc(p->o.max_conns, sizeof(*p->all));
	p->threads = calloc(PAIR_THREADS, sizeof(*p->threads));
	if (!p->by_key || !p->by_tuple || !p->all || !p->threads) {
		pair__free(p);
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

void pair__free(struct pairer *p)
{
	if (!p)
		return;
	p->quiet = NULL;	/* what it took goes with it */
	for (uint32_t i = 0; i < p->nalloc; i++) {
		if (p->all[i]->used)
			pair_conn__remove(p, p->all[i]);	/* its references */
		free(p->all[i]);
	}
	free(p->all);
	free(p->by_key);
	free(p->by_tuple);
	free(p->threads);
	free(p->scratch);
	free(p);
}

/* C ends (closed, or gone idle): answered requests are reported, those
 * whose response was cut (ABORT: by a close) aborted; unanswered ones
 * aborted too when closed, else counted as open. */
static void conn__end(struct pairer *p, struct pair_conn *c, bool closed)
{
	while (c->n) {
		struct pair_req *q = pair_q__at(c, 0);
		/* (done with no response: a Kafka request answered by none) */
		bool cut = !q->resp_done &&
			   (!q->has_resp || (q->resp_need != PAIR_LEN_OPEN && q->resp_need));

		if (!closed && !q->has_resp && !q->resp_done) {
			p->c.n_open_at_end++;
			pair_req__release(p, q);
			pair_q__pop(c);
			continue;
		}
		pair_emit__req(p, c, q, false, closed && cut, 0);
	}
	pair_conn__remove(p, c);
}

void pair__close(struct pairer *p, const struct req_io *io)
{
	struct pair_key k;
	struct pair_conn *c;

	pair_key__of(&k, io);
	c = pair_conn__find(p, &k);
	if (c)
		conn__end(p, c, true);
}

void pair__exit(struct pairer *p, int64_t pid)
{
	if (!p->pid_conns[pair_pid__slot(p, pid)])
		return;
	for (uint32_t i = 0; i < p->nalloc; i++) {
		struct pair_conn *c = p->all[i];

		if (c->used && c->pid == pid)
			conn__end(p, c, true);
	}
}

/* A quiet connection pair__set_quiet's callback took may see no I/O while it is busy:
 * it lives on as long as its server's side, which still names its process. */
static bool conn__held(struct pairer *p, struct pair_conn *c, uint64_t now)
{
	struct pair_conn *s = c->quiet_handed ? pair_conn__peer(p, c) : NULL;

	return s && now <= s->last_ts + 4 * p->o.timeout_ns;
}

void pair__expire(struct pairer *p, uint64_t now)
{
	uint64_t t = p->o.timeout_ns;

	for (uint32_t i = 0; i < p->nalloc; i++) {
		struct pair_conn *c = p->all[i];

		if (!c->used)
			continue;
		/* in order: an unanswered request holds the later ones back */
		while (c->n) {
			struct pair_req *q = pair_q__at(c, 0);

			if (!q->has_resp && !q->resp_done && now > q->ts_start + t)
				pair_emit__req(p, c, q, true, false, q->ts_start + t);
			else if ((q->has_resp || q->resp_done) && now > c->last_ts + t)
				pair_emit__req(p, c, q, false, false, 0);
			else
				break;
		}
		/* a process that exited closed its fds without close events */
		if (!c->n && now > c->last_ts + 4 * t && !conn__held(p, c, now))
			pair_conn__remove(p, c);
		else
			pair_q__shrink(c, false);
	}
}

void pair__flush(struct pairer *p)
{
	for (uint32_t i = 0; i < p->nalloc; i++)
		if (p->all[i]->used)
			conn__end(p, p->all[i], false);
}

void pair__set_quiet(struct pairer *p, pair_quiet_fn *fn, void *ctx)
{
	p->quiet = fn;
	p->quiet_ctx = ctx;
}

void pair__counters(const struct pairer *p, struct pair_counters *c)
{
	*c = p->c;
	c->n_threads = p->n_threads;
}
