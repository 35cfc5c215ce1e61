/* Calls on one path: unlink, unlinkat, mkdir, mkdirat, rmdir, chdir. Their events
 * carry the path on exit (as passed, relative paths kept); enter events are empty
 * but for mkdir's mode. */
#include "fs.bpf.h"

/* An exit event of RES and the path in arg 0. */
static __always_inline int fs__res_path(void *ctx, __u16 type, __u32 nparams)
{
	struct filler f;

	if (filler__begin(&f, ctx, type, nparams))
		return 0;
	filler__s64(&f, f.ret);
	filler__str_user(&f, (const void *)filler__arg(&f, 0));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_unlink_2_x)
{
	return fs__res_path(ctx, PPME_SYSCALL_UNLINK_2_X, PPME_SYSCALL_UNLINK_2_X_NPARAMS);
}

/* unlinkat(dirfd, path, flags) */
FILLER_EXIT(syscall_unlinkat_2_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_UNLINKAT_2_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__dirfd_arg(&f, 0);
	filler__str_user(&f, (const void *)filler__arg(&f, 1));
	filler__u32(&f, filler__arg(&f, 2) & NAT_AT_REMOVEDIR ? PPM_UNLINKAT_FLAGS_AT_REMOVEDIR : 0);
	return filler__submit(&f);
}

/* mkdir(path, mode): the mode is sent as passed, before the umask. */
FILLER(syscall_mkdir_2_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_MKDIR_2_E))
		return 0;
	filler__u32(&f, (__u32)filler__arg(&f, 1));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_mkdir_2_x)
{
	return fs__res_path(ctx, PPME_SYSCALL_MKDIR_2_X, PPME_SYSCALL_MKDIR_2_X_NPARAMS);
}

/* mkdirat(dirfd, path, mode) */
FILLER_EXIT(syscall_mkdirat_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_MKDIRAT_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__dirfd_arg(&f, 0);
	filler__str_user(&f, (const void *)filler__arg(&f, 1));
	filler__u32(&f, (__u32)filler__arg(&f, 2));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_rmdir_2_x)
{
	return fs__res_path(ctx, PPME_SYSCALL_RMDIR_2_X, PPME_SYSCALL_RMDIR_2_X_NPARAMS);
}

FILLER_EXIT(syscall_chdir_x)
{
	return fs__res_path(ctx, PPME_SYSCALL_CHDIR_X, PPME_SYSCALL_CHDIR_X_NPARAMS);
}
