/* ioctl: request and argument are sent as the whole registers (the argument is
 * a value or a pointer depending on the request). */
#include "wait.bpf.h"

FILLER(syscall_ioctl_3_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_IOCTL_3_E))
		return 0;
	filler__s64(&f, (int)filler__arg(&f, 0));
	filler__u64(&f, filler__arg(&f, 1));
	filler__u64(&f, filler__arg(&f, 2));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_ioctl_3_x)
{
	return WAIT_RES_ONLY(ctx, SYSCALL_IOCTL_3_X);
}
