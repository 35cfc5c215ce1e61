/* rename, renameat, renameat2: both paths as passed, on the exit event only. */
#include "fs.bpf.h"

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

FILLER_EXIT(syscall_renameat_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_RENAMEAT_X))
		return 0;
	fs__renameat_params(&f);
	return filler__submit(&f);
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
