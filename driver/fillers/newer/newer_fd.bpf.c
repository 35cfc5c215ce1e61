/* Calls that make fds: memfd_create, pidfd_open, pidfd_getfd, io_uring_setup,
 * and close_range, which removes them. */
#include "newer.bpf.h"

FILLER_EXIT(syscall_memfd_create_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_MEMFD_CREATE_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__str_user(&f, (const void *)filler__arg(&f, 0));
	filler__u32(&f, (__u32)filler__arg(&f, 1) & NAT_MFD_KNOWN);
	return filler__submit(&f);
}

/* PIDFD_NONBLOCK is O_NONBLOCK and PIDFD_THREAD O_EXCL: file flags name them
 * (only those two: a pidfd has no access mode to show). */
static __always_inline __u32 pidfd__flags(unsigned long fl)
{
	return (fl & NAT_O_NONBLOCK ? PPM_FILE_FLAGS_O_NONBLOCK : 0) |
	       (fl & NAT_O_EXCL ? PPM_FILE_FLAGS_O_EXCL : 0);
}

FILLER_EXIT(syscall_pidfd_open_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_PIDFD_OPEN_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__s64(&f, (int)filler__arg(&f, 0));
	filler__u32(&f, pidfd__flags(filler__arg(&f, 1)));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_pidfd_getfd_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_PIDFD_GETFD_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__fd_arg(&f, 0);
	filler__fd_arg(&f, 1);
	filler__u32(&f, (__u32)filler__arg(&f, 2));
	return filler__submit(&f);
}

/* flags are in struct io_uring_params, after sq_entries and cq_entries. */
FILLER_EXIT(syscall_io_uring_setup_x)
{
	struct filler f;
	__u32 flags;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_IO_URING_SETUP_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__u32(&f, (__u32)filler__arg(&f, 0));
	if (bpf_probe_read_user(&flags, sizeof(flags), (const char *)filler__arg(&f, 1) + 8)) {
		COUNT(n_drops_pf);
		filler__empty(&f);
	} else {
		filler__u32(&f, flags);
	}
	return filler__submit(&f);
}

FILLER_EXIT(syscall_close_range_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_CLOSE_RANGE_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__s64(&f, (__u32)filler__arg(&f, 0));
	filler__u32(&f, (__u32)filler__arg(&f, 1));
	filler__u32(&f, (__u32)filler__arg(&f, 2) & NAT_CLOSE_RANGE_KNOWN);
	return filler__submit(&f);
}
