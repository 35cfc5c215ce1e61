/* readv, writev (fd, iov, iovcnt): size is the sum of the iovec lengths (for a
 * successful readv at most res); data the first snaplen bytes across the iovecs
 * (for readv only the res bytes read). */
#include "fs.bpf.h"

FILLER(syscall_readv_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_READV_E))
		return 0;
	filler__fd_arg(&f, 0);
	return filler__submit(&f);
}

FILLER_EXIT(syscall_readv_x)
{
	struct filler f;
	const struct iovec *iov;
	unsigned long cnt;
	long total;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_READV_X))
		return 0;
	iov = (const struct iovec *)filler__arg(&f, 1);
	cnt = filler__arg(&f, 2);
	filler__s64(&f, f.ret);
	total = fs__iov_total(iov, cnt);
	if (total < 0) {
		COUNT(n_drops_pf);
		filler__empty(&f);
	} else {
		/* a read's size is what it read, as sysdig's drivers send it: at
		 * most res on success (a short read), the iovecs' total on failure */
		filler__u32(&f, (__u32)(f.ret >= 0 && f.ret < total ? f.ret : total));
	}
	h2__iov_user(&f, filler__arg(&f, 0), iov, cnt, f.ret > 0 ? f.ret : 0);
	return filler__submit(&f);
}

FILLER(syscall_writev_e)
{
	struct filler f;
	long total;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_WRITEV_E))
		return 0;
	filler__fd_arg(&f, 0);
	total = fs__iov_total((const struct iovec *)filler__arg(&f, 1), filler__arg(&f, 2));
	if (total < 0) {
		COUNT(n_drops_pf);
		filler__empty(&f);
	} else {
		filler__u32(&f, (__u32)total);
	}
	return filler__submit(&f);
}

/* Like write, the data is what the call was given, whatever res says. */
FILLER_EXIT(syscall_writev_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_WRITEV_X))
		return 0;
	filler__s64(&f, f.ret);
	/* asking for all stops at the snaplen or the iovecs' end */
	h2__iov_user(&f, filler__arg(&f, 0), (const struct iovec *)filler__arg(&f, 1),
		     filler__arg(&f, 2), ~0ull);
	return filler__submit(&f);
}
