/* read, write, pread64, pwrite64. Exit data: for reads the bytes read (res), for
 * writes the buffer passed (size), as sysdig does; both cut to the snaplen. */
#include "fs.bpf.h"

/* fd, size (and pos for pread/pwrite): the enter params of all four. */
static __always_inline void fs__rw_enter(struct filler *f, int with_pos)
{
	filler__fd_arg(f, 0);
	filler__u32(f, (__u32)filler__arg(f, 2));
	if (with_pos)
		filler__u64(f, filler__arg(f, 3));
}

static __always_inline void fs__read_exit(struct filler *f)
{
	filler__s64(f, f->ret);
	h2__buf_user(f, filler__arg(f, 0), (const void *)filler__arg(f, 1), f->ret > 0 ? f->ret : 0);
}

/* A failed write still shows what it tried to write (sysdig's behaviour). */
static __always_inline void fs__write_exit(struct filler *f)
{
	filler__s64(f, f->ret);
	h2__buf_user(f, filler__arg(f, 0), (const void *)filler__arg(f, 1), filler__arg(f, 2));
}

FILLER(syscall_read_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_READ_E))
		return 0;
	fs__rw_enter(&f, 0);
	return filler__submit(&f);
}

FILLER_EXIT(syscall_read_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_READ_X))
		return 0;
	fs__read_exit(&f);
	return filler__submit(&f);
}

FILLER(syscall_write_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_WRITE_E))
		return 0;
	fs__rw_enter(&f, 0);
	return filler__submit(&f);
}

FILLER_EXIT(syscall_write_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_WRITE_X))
		return 0;
	fs__write_exit(&f);
	return filler__submit(&f);
}

FILLER(syscall_pread_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_PREAD_E))
		return 0;
	fs__rw_enter(&f, 1);
	return filler__submit(&f);
}

FILLER_EXIT(syscall_pread_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_PREAD_X))
		return 0;
	fs__read_exit(&f);
	return filler__submit(&f);
}

FILLER(syscall_pwrite_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_PWRITE_E))
		return 0;
	fs__rw_enter(&f, 1);
	return filler__submit(&f);
}

FILLER_EXIT(syscall_pwrite_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_PWRITE_X))
		return 0;
	fs__write_exit(&f);
	return filler__submit(&f);
}
