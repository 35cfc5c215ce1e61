/* Profiling's side of the pairing: a server request's CPU breakdown from
 * its thread's clock (pair__set_clock), read at the request's first read and
 * at each write of its response. The driver sends a thread's slices before
 * each of its syscall events, so each reading holds all of the thread's time
 * before that syscall's exit: the difference of two readings is the thread's
 * time between the request's first byte and its last, with nothing from
 * before or after. */
#include "pair_int.h"

void pair__set_clock(struct pairer *p, pair_clock_fn *fn, void *ctx)
{
	p->clock = fn;
	p->clock_ctx = ctx;
}

void pair__set_role(struct pairer *p, pair_role_fn *fn, void *ctx)
{
	p->role = fn;
	p->role_ctx = ctx;
}

void pair_cpu__begin(struct pairer *p, struct pair_conn *c, struct pair_req *q)
{
	q->cpu_state = PAIR_CPU_NONE;
	if (p->role)
		p->role(p->role_ctx, q->tid, c->side == REQ_SIDE_SERVER);
	if (!p->clock || c->side != REQ_SIDE_SERVER)
		return;
	q->cpu_state = p->clock(p->clock_ctx, q->tid, &q->cpu0) ? PAIR_CPU_BEGUN
							       : PAIR_CPU_UNFOLLOWED;
}

void pair_cpu__write(struct pairer *p, struct pair_req *q, int64_t tid)
{
	struct pair_cpu_read r;

	if (q->cpu_state != PAIR_CPU_BEGUN && q->cpu_state != PAIR_CPU_READ)
		return;
	if (tid != q->tid) {
		/* the reader's clock is not cut at another thread's write */
		q->cpu_state = PAIR_CPU_HANDED;
		return;
	}
	if (!p->clock(p->clock_ctx, tid, &r) || r.gen != q->cpu0.gen) {
		q->cpu_state = PAIR_CPU_GAP;
		return;
	}
	q->cpu1 = r;
	q->cpu_state = PAIR_CPU_READ;
}

void pair_cpu__record(struct pairer *p, const struct pair_req *q, struct req_record *r)
{
	uint64_t off = 0;

	r->has_cpu = false;
	/* its duration runs to the timeout bound, or to a close: not to a write */
	if (r->timed_out || r->aborted)
		return;
	switch (q->cpu_state) {
	case PAIR_CPU_NONE:
		return;
	case PAIR_CPU_UNFOLLOWED:
		p->c.n_cpu_unfollowed++;
		return;
	case PAIR_CPU_HANDED:
		p->c.n_cpu_handed++;
		return;
	case PAIR_CPU_GAP:
		p->c.n_cpu_gap++;
		return;
	case PAIR_CPU_BEGUN:
		/* no response written (a timeout, an abort): nothing to cut at */
		return;
	}
	for (unsigned k = 0; k < REQ_CPU__KINDS; k++) {
		r->cpu[k] = q->cpu1.t[k] - q->cpu0.t[k];
		off += r->cpu[k];
	}
	r->has_cpu = true;
	/* the slices lie within the first read's and the last write's exits;
	 * the record's times may be nested into its client's by microseconds
	 * (pair_emit.c), which the time on CPU absorbs */
	r->oncpu = r->duration > off ? r->duration - off : 0;
}
