/* A filler's state and the per-CPU scratch frame it builds its event in:
 * starting an event there (filler__begin) or picking it up in a continuation
 * part (filler__resume). */
#ifndef SCRATCH_BPF_H
#define SCRATCH_BPF_H

#include "maps.bpf.h"
#include "counters.bpf.h"

/* Offsets into data are masked with this so the verifier sees them bounded. */
#define FRAME_MASK (FRAME_HALF - 1)
#define PARK_MASK (PARK_SIZE - 1)
#define PARAMS_MASK 31

struct filler {
	struct scratch *s;
	void *ctx;
	struct pt_regs *regs;	/* the syscall's saved user registers */
	long ret;		/* exit events: the syscall's return value */
	/* pid_tgid of this task, read once: the scratch frame's owner while this
	 * filler builds in it (a task preempting us on the CPU changes that). */
	__u64 me;
	/* The event's type, a constant where the filler names it: the compiler
	 * then keeps only the send path of its direction (frame__send). */
	__u16 type;
	/* A generic exit event whose enter event exit-only capture left out
	 * (UF_EO_SYNTH); for other exit events the type says it. */
	__u8 eo_generic;
	/* pt_regs from r10 to orig_ax, read once on the first filler__arg: one probe
	 * read instead of one per argument. */
	unsigned long regblock[9];
	int have_args;
};

static __always_inline struct scratch *scratch__get(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&frames, &cpu);
}

/* The syscall's saved user registers at its exit: the raw tracepoint's
 * args[0], or, on a syscall's own tracepoint (syscall_tps), whose record has
 * no pointer to them, the task's: the same pt_regs (both are the task's
 * saved registers on its kernel stack). */
static __always_inline struct pt_regs *sysexit__regs(void *ctx)
{
	if (syscall_tps)
		return (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	return (struct pt_regs *)((struct bpf_raw_tracepoint_args *)ctx)->args[0];
}

/* The raw tracepoint's args[1] (the return value at exit, the syscall id at
 * enter), or on a syscall's own tracepoint the return value from REGS (ax,
 * which is what the tracepoint's record holds). args[1] is read either way:
 * a load at a fixed offset the verifier takes in every context, so the
 * compiler cannot merge the two loads into one through a picked pointer. */
static __always_inline long sysexit__arg1(void *ctx, struct pt_regs *regs)
{
	long a1 = (long)((struct bpf_raw_tracepoint_args *)ctx)->args[1];

	return syscall_tps ? (long)regs->ax : a1;
}

/* Starts event TYPE with NPARAMS params for the current task, whose pid_tgid
 * (read once per program: a helper call) is PID_TGID. CTX is the raw
 * tracepoint's context: args[0] the pt_regs, args[1] the syscall id (enter) or
 * return value (exit); or a syscall's own sys_exit tracepoint's (above). */
static __always_inline int filler__begin_as(struct filler *f, void *ctx, __u16 type,
					     __u32 nparams, __u64 pid_tgid)
{
	f->s = scratch__get();
	if (!f->s) {
		DROP(n_drops_bug, type);
		return -1;
	}
	f->ctx = ctx;
	f->regs = sysexit__regs(ctx);
	f->ret = sysexit__arg1(ctx, f->regs);
	f->have_args = 0;
	f->me = pid_tgid;
	f->type = type;
	f->eo_generic = 0;
	f->s->owner = f->me;
	f->s->type = type;
	f->s->nparams = nparams;
	f->s->curarg = 0;
	f->s->overflow = 0;
	f->s->off = PPM_HDR_LEN + nparams * 2;
	return 0;
}

static __always_inline int filler__begin(struct filler *f, void *ctx, __u16 type, __u32 nparams)
{
	return filler__begin_as(f, ctx, type, nparams, bpf_get_current_pid_tgid());
}

/* The event's size must match the table: generated counts keep fillers honest. */
#define FILLER_BEGIN(f, ctx, ID) filler__begin(f, ctx, PPME_##ID, PPME_##ID##_NPARAMS)
#define FILLER_BEGIN_AS(f, ctx, ID, me) \
	filler__begin_as(f, ctx, PPME_##ID, PPME_##ID##_NPARAMS, me)

/* Picks up, in a continuation part, the event the previous part left in this
 * CPU's frame (tail calls stay on the CPU). */
static __always_inline int filler__resume(struct filler *f, void *ctx, __u16 type)
{
	f->s = scratch__get();
	f->me = bpf_get_current_pid_tgid();
	if (!f->s || f->s->type != type || f->s->owner != f->me) {
		DROP(n_drops_bug, type);
		return -1;
	}
	f->type = type;
	f->eo_generic = 0;
	f->ctx = ctx;
	f->regs = sysexit__regs(ctx);
	f->ret = sysexit__arg1(ctx, f->regs);
	f->have_args = 0;
	return 0;
}

#endif
