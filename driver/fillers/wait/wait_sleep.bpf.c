/* nanosleep and futex. */
#include "wait.bpf.h"

FILLER(syscall_nanosleep_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_NANOSLEEP_E))
		return 0;
	filler__timespec_user(&f, (const void *)filler__arg(&f, 0));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_nanosleep_x)
{
	return WAIT_RES_ONLY(ctx, SYSCALL_NANOSLEEP_X);
}

/* val is sent as the whole register, as sysdig does (the kernel reads 32 bits). */
FILLER(syscall_futex_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_FUTEX_E))
		return 0;
	filler__u64(&f, filler__arg(&f, 0));
	filler__u16(&f, wait__futex_op(filler__arg(&f, 1)));
	filler__u64(&f, filler__arg(&f, 2));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_futex_x)
{
	return WAIT_RES_ONLY(ctx, SYSCALL_FUTEX_X);
}
