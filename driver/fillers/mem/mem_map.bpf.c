/* mmap, munmap, mprotect: the call's arguments at enter; mmap and munmap exits
 * also carry the task's memory counters after the call. */
#include "mem.bpf.h"

FILLER(syscall_mmap_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_MMAP_E))
		return 0;
	filler__u64(&f, filler__arg(&f, 0));
	filler__u64(&f, filler__arg(&f, 1));
	filler__u32(&f, mem__prot_flags(filler__arg(&f, 2)));
	filler__u32(&f, mem__mmap_flags(filler__arg(&f, 3)));
	/* An int in the C API: the register's upper half is not part of it. */
	filler__s64(&f, (int)filler__arg(&f, 4));
	filler__u64(&f, filler__arg(&f, 5));
	return filler__submit(&f);
}

/* res is the address mapped, or a negative errno shown as an address (UINT64),
 * as sysdig sends it. */
FILLER_EXIT(syscall_mmap_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_MMAP_X))
		return 0;
	filler__u64(&f, f.ret);
	filler__mm_stats(&f, (struct task_struct *)bpf_get_current_task());
	return filler__submit(&f);
}

FILLER(syscall_munmap_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_MUNMAP_E))
		return 0;
	filler__u64(&f, filler__arg(&f, 0));
	filler__u64(&f, filler__arg(&f, 1));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_munmap_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_MUNMAP_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__mm_stats(&f, (struct task_struct *)bpf_get_current_task());
	return filler__submit(&f);
}

FILLER(syscall_mprotect_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_MPROTECT_E))
		return 0;
	filler__u64(&f, filler__arg(&f, 0));
	filler__u64(&f, filler__arg(&f, 1));
	filler__u32(&f, mem__prot_flags(filler__arg(&f, 2)));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_mprotect_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_MPROTECT_X))
		return 0;
	filler__s64(&f, f.ret);
	return filler__submit(&f);
}
