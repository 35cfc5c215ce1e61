/* Copies between fds in the kernel: sendfile, splice, copy_file_range. */
#include "fdio.bpf.h"

/* offset: the value at the offset pointer (0 when NULL: the in file's own
 * position is used). */
FILLER(syscall_sendfile_e)
{
	struct filler f;
	__u64 off;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_SENDFILE_E))
		return 0;
	filler__fd_arg(&f, 0);
	filler__fd_arg(&f, 1);
	off = fdio__user_u64(filler__arg(&f, 2));
	/* exit-only: read after the call, which moved *offset past the bytes sent */
	if (settings.exit_only && filler__arg(&f, 2) && f.ret > 0)
		off -= f.ret;
	filler__u64(&f, off);
	filler__u64(&f, filler__arg(&f, 3));
	return filler__submit(&f);
}

/* offset: where the kernel left *offset, past the bytes sent. */
FILLER_EXIT(syscall_sendfile_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_SENDFILE_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__u64(&f, fdio__user_u64(filler__arg(&f, 2)));
	return filler__submit(&f);
}

/* splice(fd_in, off_in, fd_out, off_out, len, flags): the SPLICE_F_* bits have
 * sysdig's values natively. */
FILLER(syscall_splice_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_SPLICE_E))
		return 0;
	filler__fd_arg(&f, 0);
	filler__fd_arg(&f, 2);
	filler__u64(&f, filler__arg(&f, 4));
	filler__u32(&f, filler__arg(&f, 5));
	return filler__submit(&f);
}

FDIO_RES_EXIT(syscall_splice_x, SYSCALL_SPLICE_X)

/* copy_file_range(fd_in, off_in, fd_out, off_out, len, flags): offin and offout
 * are the loff_t pointers themselves, not the offsets they point to; that is what
 * sysdig 0.29.3 sent. */
FILLER(syscall_copy_file_range_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_COPY_FILE_RANGE_E))
		return 0;
	filler__fd_arg(&f, 0);
	filler__u64(&f, filler__arg(&f, 1));
	filler__u64(&f, filler__arg(&f, 4));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_copy_file_range_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_COPY_FILE_RANGE_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__fd_arg(&f, 2);
	filler__u64(&f, filler__arg(&f, 3));
	return filler__submit(&f);
}
