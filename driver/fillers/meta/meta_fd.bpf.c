/* fd control: lseek (fd, offset, whence in), flock (fd, operation in), fcntl (fd
 * and cmd in; out the result, which for F_DUPFD and F_DUPFD_CLOEXEC is the new fd
 * userspace adds to its table). */
#include "meta.bpf.h"

/* lseek(fd, offset, whence) */
FILLER(syscall_lseek_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_LSEEK_E))
		return 0;
	filler__fd_arg(&f, 0);
	filler__u64(&f, filler__arg(&f, 1));
	filler__u8(&f, meta__lseek_whence(filler__arg(&f, 2)));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_lseek_x)
{
	return meta__s64(ctx, PPME_SYSCALL_LSEEK_X, PPME_SYSCALL_LSEEK_X_NPARAMS, 1);
}

/* flock(fd, operation) */
FILLER(syscall_flock_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_FLOCK_E))
		return 0;
	filler__fd_arg(&f, 0);
	filler__u32(&f, meta__flock_op(filler__arg(&f, 1)));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_flock_x)
{
	return meta__s64(ctx, PPME_SYSCALL_FLOCK_X, PPME_SYSCALL_FLOCK_X_NPARAMS, 1);
}

/* fcntl(fd, cmd, arg): cmd is an unsigned int in the kernel. */
FILLER(syscall_fcntl_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_FCNTL_E))
		return 0;
	filler__fd_arg(&f, 0);
	filler__u8(&f, meta__fcntl_cmd((unsigned int)filler__arg(&f, 1)));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_fcntl_x)
{
	return meta__s64(ctx, PPME_SYSCALL_FCNTL_X, PPME_SYSCALL_FCNTL_X_NPARAMS, 1);
}
