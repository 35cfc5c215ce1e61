/* preadv, pwritev (fd, iov, iovcnt, pos): readv and writev at a position. size is
 * the sum of the iovec lengths (for preadv no more than res); data the first
 * snaplen bytes across the iovecs (for preadv only the res bytes read). pos is
 * one register on x86_64. */
#include "fdio.bpf.h"

FILLER(syscall_preadv_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_PREADV_E))
		return 0;
	filler__fd_arg(&f, 0);
	filler__u64(&f, filler__arg(&f, 3));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_preadv_x)
{
	const struct iovec *iov;
	unsigned long cnt;
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_PREADV_X))
		return 0;
	iov = (const struct iovec *)filler__arg(&f, 1);
	cnt = filler__arg(&f, 2);
	filler__s64(&f, f.ret);
	fdio__iov_size(&f, iov, cnt, f.ret);
	filler__iov_user(&f, iov, cnt, f.ret > 0 ? f.ret : 0, settings.snaplen);
	return filler__submit(&f);
}

/* size: what the caller asked to write, whatever the call will do. */
FILLER(syscall_pwritev_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_PWRITEV_E))
		return 0;
	filler__fd_arg(&f, 0);
	fdio__iov_size(&f, (const struct iovec *)filler__arg(&f, 1), filler__arg(&f, 2), -1);
	filler__u64(&f, filler__arg(&f, 3));
	return filler__submit(&f);
}

/* data: the buffers given, whatever res says, as for write. */
FILLER_EXIT(syscall_pwritev_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_PWRITEV_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__iov_user(&f, (const struct iovec *)filler__arg(&f, 1), filler__arg(&f, 2),
			 settings.snaplen, settings.snaplen);
	return filler__submit(&f);
}
