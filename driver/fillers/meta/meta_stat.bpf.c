/* stat, lstat (the path on exit), fstat (the fd on enter) and access (the mode on
 * enter, the path on exit). newfstatat, statx and faccessat are not routed here:
 * they get the generic event, as in sysdig's table. */
#include "meta.bpf.h"

FILLER_EXIT(syscall_stat_x)
{
	return meta__res_strs(ctx, PPME_SYSCALL_STAT_X, PPME_SYSCALL_STAT_X_NPARAMS);
}

FILLER_EXIT(syscall_lstat_x)
{
	return meta__res_strs(ctx, PPME_SYSCALL_LSTAT_X, PPME_SYSCALL_LSTAT_X_NPARAMS);
}

FILLER(syscall_fstat_e)
{
	return meta__s64(ctx, PPME_SYSCALL_FSTAT_E, PPME_SYSCALL_FSTAT_E_NPARAMS, 0);
}

FILLER_EXIT(syscall_fstat_x)
{
	return meta__s64(ctx, PPME_SYSCALL_FSTAT_X, PPME_SYSCALL_FSTAT_X_NPARAMS, 1);
}

/* access(path, mode) */
FILLER(syscall_access_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_ACCESS_E))
		return 0;
	filler__u32(&f, meta__access_mode(filler__arg(&f, 1)));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_access_x)
{
	return meta__res_strs(ctx, PPME_SYSCALL_ACCESS_X, PPME_SYSCALL_ACCESS_X_NPARAMS);
}
