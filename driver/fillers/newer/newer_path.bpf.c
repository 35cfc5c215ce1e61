/* Path calls newer than sysdig's table: statx, faccessat2, and the new mount
 * API (mount_setattr, open_tree, move_mount). */
#include "newer.bpf.h"

FILLER_EXIT(syscall_statx_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_STATX_X))
		return 0;
	newer__res_dirfd_path(&f, 0);
	filler__u32(&f, (__u32)filler__arg(&f, 2) & NAT_AT_KNOWN);
	filler__u32(&f, (__u32)filler__arg(&f, 3));
	return filler__submit(&f);
}

/* The access mode bits (R_OK 4, W_OK 2, X_OK 1) are sysdig's values too. */
FILLER_EXIT(syscall_faccessat2_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_FACCESSAT2_X))
		return 0;
	newer__res_dirfd_path(&f, 0);
	filler__u32(&f, (__u32)filler__arg(&f, 2) & 7);
	filler__u32(&f, (__u32)filler__arg(&f, 3) & NAT_AT_KNOWN);
	return filler__submit(&f);
}

FILLER_EXIT(syscall_mount_setattr_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_MOUNT_SETATTR_X))
		return 0;
	newer__res_dirfd_path(&f, 0);
	filler__u32(&f, (__u32)filler__arg(&f, 2) & NAT_AT_KNOWN);
	return filler__submit(&f);
}

FILLER_EXIT(syscall_open_tree_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_OPEN_TREE_X))
		return 0;
	newer__res_dirfd_path(&f, 0);
	filler__u32(&f, (__u32)filler__arg(&f, 2) & NAT_OPEN_TREE_KNOWN);
	return filler__submit(&f);
}

FILLER_EXIT(syscall_move_mount_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_MOVE_MOUNT_X))
		return 0;
	newer__res_dirfd_path(&f, 0);
	filler__dirfd_arg(&f, 2);
	filler__str_user(&f, (const void *)filler__arg(&f, 3));
	filler__u32(&f, (__u32)filler__arg(&f, 4));
	return filler__submit(&f);
}
