/* link, linkat, symlink, symlinkat: empty enter events, both names on exit as
 * passed (a symlink's target is any string, not a path to resolve). */
#include "meta.bpf.h"

/* link(oldpath, newpath) */
FILLER_EXIT(syscall_link_2_x)
{
	return meta__res_strs(ctx, PPME_SYSCALL_LINK_2_X, PPME_SYSCALL_LINK_2_X_NPARAMS);
}

/* linkat(olddirfd, oldpath, newdirfd, newpath, flags) */
FILLER_EXIT(syscall_linkat_2_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_LINKAT_2_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__dirfd_arg(&f, 0);
	filler__str_user(&f, (const void *)filler__arg(&f, 1));
	filler__dirfd_arg(&f, 2);
	filler__str_user(&f, (const void *)filler__arg(&f, 3));
	filler__u32(&f, meta__linkat_flags(filler__arg(&f, 4)));
	return filler__submit(&f);
}

/* symlink(target, linkpath) */
FILLER_EXIT(syscall_symlink_x)
{
	return meta__res_strs(ctx, PPME_SYSCALL_SYMLINK_X, PPME_SYSCALL_SYMLINK_X_NPARAMS);
}

/* symlinkat(target, newdirfd, linkpath) */
FILLER_EXIT(syscall_symlinkat_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_SYMLINKAT_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__str_user(&f, (const void *)filler__arg(&f, 0));
	filler__dirfd_arg(&f, 1);
	filler__str_user(&f, (const void *)filler__arg(&f, 2));
	return filler__submit(&f);
}
