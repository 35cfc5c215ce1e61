/* Fillers split into parts: a part picks up the event where the previous one left
 * it in the per-CPU scratch frame (same CPU: tail calls do not migrate). */
#ifndef PN_PART_BPF_H
#define PN_PART_BPF_H

#include "../../frame.bpf.h"
#include "schema_flags.h"

/* Like filler__begin, but keeps the event built so far. */
static __always_inline int filler__resume(struct filler *f, void *ctx, __u16 type)
{
	struct bpf_raw_tracepoint_args *a = ctx;

	f->s = scratch__get();
	if (!f->s || f->s->type != type) {
		COUNT(n_drops_bug);
		return -1;
	}
	f->ctx = ctx;
	f->regs = (struct pt_regs *)a->args[0];
	f->ret = (long)a->args[1];
	return 0;
}

/* Continues in part N of this event's filler; returns only if that failed. */
static __always_inline int filler__next_part(struct filler *f, int n)
{
	bpf_tail_call(f->ctx, &filler_parts, f->s->type * FILLER_PARTS + n);
	COUNT(n_drops_bug);
	return 0;
}

#endif
