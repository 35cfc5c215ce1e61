/* unshare(flags) and setns(fd, nstype): the namespace flags as PPM clone flags
 * (a CLONE_* bit sysdig does not know, such as CLONE_NEWTIME, is dropped). */
#include "cred.bpf.h"

FILLER(syscall_unshare_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_UNSHARE_E))
		return 0;
	filler__u32(&f, cred__clone_flags(filler__arg(&f, 0)));
	return filler__submit(&f);
}

CRED_FILLER(FILLER_EXIT(syscall_unshare_x), cred__simple, SYSCALL_UNSHARE_X, CRED_RES)

FILLER(syscall_setns_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_SETNS_E))
		return 0;
	/* An fd: a C int. */
	filler__s64(&f, (int)filler__arg(&f, 0));
	filler__u32(&f, cred__clone_flags(filler__arg(&f, 1)));
	return filler__submit(&f);
}

CRED_FILLER(FILLER_EXIT(syscall_setns_x), cred__simple, SYSCALL_SETNS_X, CRED_RES)
