/* rename, renameat, renameat2: both paths as passed, on the exit event only. */
#include "fs.bpf.h"

static __always_inline int fs__no_params_e(void *ctx, __u16 type)
{
	struct filler f;

	if (filler__begin(&f, ctx, type, 0))
		return 0;
	return filler__submit(&f);
}

FILLER(syscall_rename_e)
{
	return fs__no_params_e(ctx, PPME_SYSCALL_RENAME_E);
}

/* rename(oldpath, newpath) */
FILLER_EXIT(syscall_rename_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_RENAME_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__str_user(&f, (const void *)filler__arg(&f, 0));
	filler__str_user(&f, (const void *)filler__arg(&f, 1));
	return filler__submit(&f);
}

/* res, olddirfd, oldpath, newdirfd, newpath: renameat's params, renameat2's first. */
static __always_inline void fs__renameat_params(struct filler *f)
{
	filler__s64(f, f->ret);
	filler__dirfd_arg(f, 0);
	filler__str_user(f, (const void *)filler__arg(f, 1));
	filler__dirfd_arg(f, 2);
	filler__str_user(f, (const void *)filler__arg(f, 3));
}

FILLER(syscall_renameat_e)
{
	return fs__no_params_e(ctx, PPME_SYSCALL_RENAMEAT_E);
}

FILLER_EXIT(syscall_renameat_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_RENAMEAT_X))
		return 0;
	fs__renameat_params(&f);
	return filler__submit(&f);
}

FILLER(syscall_renameat2_e)
{
	return fs__no_params_e(ctx, PPME_SYSCALL_RENAMEAT2_E);
}

FILLER_EXIT(syscall_renameat2_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_RENAMEAT2_X))
		return 0;
	fs__renameat_params(&f);
	filler__u32(&f, fs__rename_flags(filler__arg(&f, 4)));
	return filler__submit(&f);
}
