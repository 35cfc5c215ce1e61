/* kill(pid, sig), tkill(tid, sig), tgkill(tgid, tid, sig), setuid(uid), setgid(gid). */
#include "../../frame.bpf.h"
#include "schema_flags.h"

/* Exit events of these calls carry only res. */
static __always_inline int signal__res(void *ctx, __u16 type, __u32 nparams)
{
	struct filler f;

	if (filler__begin(&f, ctx, type, nparams))
		return 0;
	filler__s64(&f, f.ret);
	return filler__submit(&f);
}

FILLER(syscall_kill_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_KILL_E))
		return 0;
	filler__s64(&f, (int)filler__arg(&f, 0));
	filler__u8(&f, filler__arg(&f, 1));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_kill_x)
{
	return signal__res(ctx, PPME_SYSCALL_KILL_X, PPME_SYSCALL_KILL_X_NPARAMS);
}

FILLER(syscall_tkill_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_TKILL_E))
		return 0;
	filler__s64(&f, (int)filler__arg(&f, 0));
	filler__u8(&f, filler__arg(&f, 1));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_tkill_x)
{
	return signal__res(ctx, PPME_SYSCALL_TKILL_X, PPME_SYSCALL_TKILL_X_NPARAMS);
}

FILLER(syscall_tgkill_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_TGKILL_E))
		return 0;
	filler__s64(&f, (int)filler__arg(&f, 0));
	filler__s64(&f, (int)filler__arg(&f, 1));
	filler__u8(&f, filler__arg(&f, 2));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_tgkill_x)
{
	return signal__res(ctx, PPME_SYSCALL_TGKILL_X, PPME_SYSCALL_TGKILL_X_NPARAMS);
}

FILLER(syscall_setuid_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_SETUID_E))
		return 0;
	filler__u32(&f, filler__arg(&f, 0));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_setuid_x)
{
	return signal__res(ctx, PPME_SYSCALL_SETUID_X, PPME_SYSCALL_SETUID_X_NPARAMS);
}

FILLER(syscall_setgid_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_SETGID_E))
		return 0;
	filler__u32(&f, filler__arg(&f, 0));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_setgid_x)
{
	return signal__res(ctx, PPME_SYSCALL_SETGID_X, PPME_SYSCALL_SETGID_X_NPARAMS);
}
