/* A syscall's arguments, from the user registers it saved. */
#ifndef ARGS_BPF_H
#define ARGS_BPF_H

#include "scratch.bpf.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

/* Syscall argument I (0..5) from the saved user registers (x86_64 ABI). */
static __always_inline unsigned long syscall__arg(struct pt_regs *regs, int i)
{
	switch (i) {
	case 0: return BPF_CORE_READ(regs, di);
	case 1: return BPF_CORE_READ(regs, si);
	case 2: return BPF_CORE_READ(regs, dx);
	case 3: return BPF_CORE_READ(regs, r10);
	case 4: return BPF_CORE_READ(regs, r8);
	case 5: return BPF_CORE_READ(regs, r9);
	}
	return 0;
}

/* x86_64 pt_regs keeps r10, r9, r8, ax, cx, dx, si, di, orig_ax next to each other
 * (a ptrace ABI); the six argument registers are all in that block. */
static __always_inline unsigned long filler__arg(struct filler *f, int i)
{
	if (!f->have_args) {
		/* A local, so the CO-RE relocation is on pt_regs alone. */
		struct pt_regs *regs = f->regs;

		if (bpf_core_read(f->regblock, sizeof(f->regblock), &regs->r10))
			__builtin_memset(f->regblock, 0, sizeof(f->regblock));
		f->have_args = 1;
	}
	switch (i) {
	case 0: return f->regblock[7];	/* di */
	case 1: return f->regblock[6];	/* si */
	case 2: return f->regblock[5];	/* dx */
	case 3: return f->regblock[0];	/* r10 */
	case 4: return f->regblock[2];	/* r8 */
	case 5: return f->regblock[1];	/* r9 */
	}
	return 0;
}

#endif
