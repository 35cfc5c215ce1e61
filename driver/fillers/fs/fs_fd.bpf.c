/* dup, dup2, dup3 (all routed to the dup event: oldfd in, new fd out), pipe and
 * pipe2 (the pipe event: both fds and the pipe's inode), fchdir. */
#include "fs.bpf.h"

FILLER(syscall_dup_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_DUP_E))
		return 0;
	filler__fd_arg(&f, 0);
	return filler__submit(&f);
}

FILLER_EXIT(syscall_dup_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_DUP_X))
		return 0;
	filler__s64(&f, f.ret);
	return filler__submit(&f);
}

/* The fds are only in user memory once the call succeeded: a failed call leaves
 * fd1, fd2 and ino empty rather than report what the array held before. */
FILLER_EXIT(syscall_pipe_x)
{
	struct filler f;
	int fds[2];

	if (FILLER_BEGIN(&f, ctx, SYSCALL_PIPE_X))
		return 0;
	filler__s64(&f, f.ret);
	if (f.ret < 0) {
		filler__empty(&f);
		filler__empty(&f);
		filler__empty(&f);
	} else if (bpf_probe_read_user(fds, sizeof(fds), (const void *)filler__arg(&f, 0))) {
		COUNT(n_drops_pf);
		filler__empty(&f);
		filler__empty(&f);
		filler__empty(&f);
	} else {
		filler__s64(&f, fds[0]);
		filler__s64(&f, fds[1]);
		filler__u64(&f, fs__fd_ino(fds[0]));
	}
	return filler__submit(&f);
}

FILLER(syscall_fchdir_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_FCHDIR_E))
		return 0;
	filler__fd_arg(&f, 0);
	return filler__submit(&f);
}

FILLER_EXIT(syscall_fchdir_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_FCHDIR_X))
		return 0;
	filler__s64(&f, f.ret);
	return filler__submit(&f);
}
