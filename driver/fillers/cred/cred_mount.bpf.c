/* mount(dev, dir, type, flags, data) and umount2(name, flags). The mount flags
 * are the native MS_* bits (PPM's mount_flags have their values) without the old
 * magic number; the umount flags are native MNT_* bits (same values too). The
 * strings are sent on exit, as sysdig does; a NULL dev or type (a remount, a
 * bind mount) is "(NULL)". */
#include "cred.bpf.h"

FILLER(syscall_mount_e)
{
	struct filler f;
	unsigned long flags;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_MOUNT_E))
		return 0;
	flags = filler__arg(&f, 3);
	if ((flags & NAT_MS_MGC_MSK) == NAT_MS_MGC_VAL)
		flags &= ~NAT_MS_MGC_MSK;
	filler__u32(&f, flags);
	return filler__submit(&f);
}

FILLER_EXIT(syscall_mount_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_MOUNT_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__str_user_or_null(&f, (const void *)filler__arg(&f, 0));
	filler__str_user(&f, (const void *)filler__arg(&f, 1));
	filler__str_user_or_null(&f, (const void *)filler__arg(&f, 2));
	return filler__submit(&f);
}

FILLER(syscall_umount_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_UMOUNT_E))
		return 0;
	filler__u32(&f, filler__arg(&f, 1));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_umount_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_UMOUNT_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__str_user(&f, (const void *)filler__arg(&f, 0));
	return filler__submit(&f);
}
