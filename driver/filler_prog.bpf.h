/* Filler programs: how one is declared (FILLER, FILLER_EXIT) and where it goes
 * next: its continuation parts, the exit filler of an exit-only chain, or the
 * generic event. */
#ifndef FILLER_PROG_BPF_H
#define FILLER_PROG_BPF_H

#include "counters.bpf.h"
#include "exit_only.bpf.h"
#include "params.bpf.h"
#include "ring_out.bpf.h"
#include "scratch.bpf.h"

/* Continues in part N of this event's filler; returns only if that failed. */
static __always_inline int filler__next_part(struct filler *f, int n)
{
	bpf_tail_call(f->ctx, &filler_parts, f->s->type * FILLER_PARTS + n);
	DROP(n_drops_bug, f->s->type);
	return 0;
}

/* An event without params (sysdig's table gives many enter events none): the
 * header alone still says which call it was, and times it. The fillers of those
 * events are generated from the schema (proto/gen_schema.py, schema_bare.bpf.c). */
static __always_inline int filler__no_params(void *ctx, __u16 type)
{
	struct filler f;

	if (filler__begin(&f, ctx, type, 0))
		return 0;
	return filler__submit(&f);
}

/* The generic exit event of a syscall without an exit filler; EO_SYNTH: its
 * enter event was left out (exit-only capture, a UF_EO_SYNTH route). */
static __always_inline int filler__generic_exit(void *ctx, __u16 ppm_sc, __u64 pid_tgid,
						int eo_synth)
{
	struct filler f;

	if (FILLER_BEGIN_AS(&f, ctx, GENERIC_X, pid_tgid))
		return 0;
	f.eo_generic = eo_synth;
	filler__u16(&f, ppm_sc);
	return filler__submit(&f);
}

/* After a tail call to the filler of event TYPE failed: whether the loader
 * left that filler out (filler_off). Its event then came for a syscall the
 * run was not to capture: counted as ours to fix, and never sent as the
 * generic event instead. Other failed tail calls (a filler this kernel could
 * not load) fall back to the generic event. */
static __always_inline int filler__off(__u32 type)
{
	if (type >= PPM_EVENT_MAX || !filler_off[type])
		return 0;
	DROP(n_drops_bug, type);
	return 1;
}

/* Exit-only capture, after the enter event: continues with the exit event the
 * sys_exit dispatcher left in this CPU's frame. A task that preempted this one
 * on the CPU may have taken the chain over: that exit event is counted lost. */
static __always_inline int filler__chain(void *ctx, __u64 pid_tgid)
{
	struct scratch *s;
	__u16 ev, sc;

	if (!settings.exit_only)
		return 0;
	s = scratch__get();
	if (!s || !s->chain_ev || s->chain_owner != pid_tgid) {
		DROP(n_drops_bug, PPME_GENERIC_X);
		if (s)
			park__flush(ctx, s);
		return 0;
	}
	ev = s->chain_ev - 1;
	sc = s->chain_sc;
	s->chain_ev = 0;
	if (ev + 1 == EO_NO_EXIT)
		return 0;
	if (ev != PPME_GENERIC_X) {
		bpf_tail_call(ctx, &fillers_chain, ev);
		if (filler__off(ev))
			return 0;
	}
	return filler__generic_exit(ctx, sc, pid_tgid, 0);
}

/* Declares the filler program of an enter event; its name (the event id in lower
 * case) is how the loader finds it. In exit-only mode the same program runs from
 * sys_exit and then goes on to the exit event (filler__chain). */
#define FILLER(name)                                                              \
	static __always_inline int name##__fill(struct bpf_raw_tracepoint_args *ctx); \
	SEC("raw_tp") int name(struct bpf_raw_tracepoint_args *ctx)                   \
	{                                                                             \
		name##__fill(ctx);                                                    \
		return filler__chain(ctx, bpf_get_current_pid_tgid());                \
	}                                                                             \
	static __always_inline int name##__fill(struct bpf_raw_tracepoint_args *ctx)
/* The same for exit events and their parts: loaded like their dispatcher (a
 * tail call needs the same kind of program), as typed tp_btf programs on
 * sys_exit, whose context has args[0] the pt_regs and args[1] the return
 * value, or as tracepoint programs on each syscall's own sys_exit_*
 * tracepoint (syscall_tps; filler__begin reads both). The loader sets which. */
#define FILLER_EXIT(name) SEC("raw_tp") int name(struct bpf_raw_tracepoint_args *ctx)

#endif
