/* Directory calls: getdents and getdents64 (the fd in, the byte count out),
 * getcwd (the directory on exit) and chroot (the new root on exit). */
#include "meta.bpf.h"

FILLER(syscall_getdents_e)
{
	return meta__s64(ctx, PPME_SYSCALL_GETDENTS_E, PPME_SYSCALL_GETDENTS_E_NPARAMS, 0);
}

FILLER_EXIT(syscall_getdents_x)
{
	return meta__s64(ctx, PPME_SYSCALL_GETDENTS_X, PPME_SYSCALL_GETDENTS_X_NPARAMS, 1);
}

FILLER(syscall_getdents64_e)
{
	return meta__s64(ctx, PPME_SYSCALL_GETDENTS64_E, PPME_SYSCALL_GETDENTS64_E_NPARAMS, 0);
}

FILLER_EXIT(syscall_getdents64_x)
{
	return meta__s64(ctx, PPME_SYSCALL_GETDENTS64_X, PPME_SYSCALL_GETDENTS64_X_NPARAMS, 1);
}

/* getcwd(buf, size): res is the length with the NUL. The kernel writes buf only on
 * success; a failed call sends "" rather than what buf held before (a string, not
 * an absent param: sysdig prints bytes beyond the event for an absent CHARBUF). */
FILLER_EXIT(syscall_getcwd_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_GETCWD_X))
		return 0;
	filler__s64(&f, f.ret);
	if (f.ret < 0)
		meta__empty_str(&f);
	else
		filler__str_user(&f, (const void *)filler__arg(&f, 0));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_chroot_x)
{
	return meta__res_strs(ctx, PPME_SYSCALL_CHROOT_X, PPME_SYSCALL_CHROOT_X_NPARAMS);
}
