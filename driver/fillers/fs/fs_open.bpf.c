/* open, creat, openat: the path as passed, flags as PPM_FILE_FLAGS_* bits, the
 * mode when the call may create, and on exit the new fd and its device. */
#include "fs.bpf.h"

/* open(path, flags, mode) */
FILLER(syscall_open_e)
{
	struct filler f;
	unsigned long fl;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_OPEN_E))
		return 0;
	fl = filler__arg(&f, 1);
	filler__str_user(&f, (const void *)filler__arg(&f, 0));
	filler__u32(&f, fs__open_flags(fl));
	filler__u32(&f, fs__open_mode(fl, filler__arg(&f, 2)));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_open_x)
{
	struct filler f;
	unsigned long fl;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_OPEN_X))
		return 0;
	fl = filler__arg(&f, 1);
	filler__s64(&f, f.ret);
	filler__str_user(&f, (const void *)filler__arg(&f, 0));
	filler__u32(&f, fs__open_flags(fl));
	filler__u32(&f, fs__open_mode(fl, filler__arg(&f, 2)));
	filler__u32(&f, f.ret >= 0 ? fs__fd_dev(f.ret) : 0);
	return filler__submit(&f);
}

/* creat(path, mode): open with O_CREAT|O_WRONLY|O_TRUNC, so the mode always counts. */
FILLER(syscall_creat_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_CREAT_E))
		return 0;
	filler__str_user(&f, (const void *)filler__arg(&f, 0));
	filler__u32(&f, fs__open_mode(NAT_O_CREAT, filler__arg(&f, 1)));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_creat_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_CREAT_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__str_user(&f, (const void *)filler__arg(&f, 0));
	filler__u32(&f, fs__open_mode(NAT_O_CREAT, filler__arg(&f, 1)));
	filler__u32(&f, f.ret >= 0 ? fs__fd_dev(f.ret) : 0);
	return filler__submit(&f);
}

/* openat(dirfd, path, flags, mode) */
FILLER(syscall_openat_2_e)
{
	struct filler f;
	unsigned long fl;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_OPENAT_2_E))
		return 0;
	fl = filler__arg(&f, 2);
	filler__dirfd_arg(&f, 0);
	filler__str_user(&f, (const void *)filler__arg(&f, 1));
	filler__u32(&f, fs__open_flags(fl));
	filler__u32(&f, fs__open_mode(fl, filler__arg(&f, 3)));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_openat_2_x)
{
	struct filler f;
	unsigned long fl;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_OPENAT_2_X))
		return 0;
	fl = filler__arg(&f, 2);
	filler__s64(&f, f.ret);
	filler__dirfd_arg(&f, 0);
	filler__str_user(&f, (const void *)filler__arg(&f, 1));
	filler__u32(&f, fs__open_flags(fl));
	filler__u32(&f, fs__open_mode(fl, filler__arg(&f, 3)));
	filler__u32(&f, f.ret >= 0 ? fs__fd_dev(f.ret) : 0);
	return filler__submit(&f);
}
