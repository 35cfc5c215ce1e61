/* brk: the requested break at enter; at exit the break the kernel kept (brk
 * returns the old one when it refuses, never an errno) and the memory counters. */
#include "mem.bpf.h"

FILLER(syscall_brk_4_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_BRK_4_E))
		return 0;
	filler__u64(&f, filler__arg(&f, 0));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_brk_4_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_BRK_4_X))
		return 0;
	filler__u64(&f, f.ret);
	filler__mm_stats(&f, (struct task_struct *)bpf_get_current_task());
	return filler__submit(&f);
}
