/* chmod, fchmod, fchmodat: empty enter events; on exit the file (path, fd, or
 * dirfd and path) and the mode as passed, permission and set-id bits only. */
#include "meta.bpf.h"

/* chmod(path, mode) */
FILLER_EXIT(syscall_chmod_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_CHMOD_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__str_user(&f, (const void *)filler__arg(&f, 0));
	filler__u32(&f, meta__chmod_mode(filler__arg(&f, 1)));
	return filler__submit(&f);
}

/* fchmod(fd, mode) */
FILLER_EXIT(syscall_fchmod_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_FCHMOD_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__fd_arg(&f, 0);
	filler__u32(&f, meta__chmod_mode(filler__arg(&f, 1)));
	return filler__submit(&f);
}

/* fchmodat(dirfd, path, mode) */
FILLER_EXIT(syscall_fchmodat_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_FCHMODAT_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__dirfd_arg(&f, 0);
	filler__str_user(&f, (const void *)filler__arg(&f, 1));
	filler__u32(&f, meta__chmod_mode(filler__arg(&f, 2)));
	return filler__submit(&f);
}
