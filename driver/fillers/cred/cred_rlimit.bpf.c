/* getrlimit(resource, rlim), setrlimit(resource, rlim), prlimit64(pid, resource,
 * new, old): the resource as a PPM value, the limits as s64 (RLIM_INFINITY is
 * -1); -1 also stands for "not available". */
#include "cred.bpf.h"

/* The two limits of a struct rlimit at U, or -1 and -1 when it cannot be read
 * (a NULL pointer included). */
static __always_inline void rlimit__put(struct filler *f, const void *u)
{
	__s64 lim[2] = { -1, -1 };

	if (u && bpf_probe_read_user(lim, sizeof(lim), u)) {
		lim[0] = -1;
		lim[1] = -1;
	}
	filler__s64(f, lim[0]);
	filler__s64(f, lim[1]);
}

static __always_inline int rlimit__enter(void *ctx, __u16 type, __u32 nparams)
{
	struct filler f;

	if (filler__begin(&f, ctx, type, nparams))
		return 0;
	filler__u8(&f, cred__rlimit_resource(filler__arg(&f, 0)));
	return filler__submit(&f);
}

/* res, cur, max: getrlimit's limits once it wrote them, setrlimit's as asked
 * (even when refused, as sysdig reports them). */
static __always_inline int rlimit__exit(void *ctx, __u16 type, __u32 nparams)
{
	struct filler f;
	const void *u = NULL;

	if (filler__begin(&f, ctx, type, nparams))
		return 0;
	filler__s64(&f, f.ret);
	if (f.ret >= 0 || type == PPME_SYSCALL_SETRLIMIT_X)
		u = (const void *)filler__arg(&f, 1);
	rlimit__put(&f, u);
	return filler__submit(&f);
}

CRED_FILLER(FILLER(syscall_getrlimit_e), rlimit__enter, SYSCALL_GETRLIMIT_E)
CRED_FILLER(FILLER_EXIT(syscall_getrlimit_x), rlimit__exit, SYSCALL_GETRLIMIT_X)
CRED_FILLER(FILLER(syscall_setrlimit_e), rlimit__enter, SYSCALL_SETRLIMIT_E)
CRED_FILLER(FILLER_EXIT(syscall_setrlimit_x), rlimit__exit, SYSCALL_SETRLIMIT_X)

FILLER(syscall_prlimit_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_PRLIMIT_E))
		return 0;
	filler__pid_arg(&f, 0);
	filler__u8(&f, cred__rlimit_resource(filler__arg(&f, 1)));
	return filler__submit(&f);
}

/* res, the new limits (only once the call succeeded), the old ones (read
 * whatever the result, as sysdig does: a failed call shows what the caller's
 * buffer held). */
FILLER_EXIT(syscall_prlimit_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_PRLIMIT_X))
		return 0;
	filler__s64(&f, f.ret);
	rlimit__put(&f, f.ret >= 0 ? (const void *)filler__arg(&f, 2) : NULL);
	rlimit__put(&f, (const void *)filler__arg(&f, 3));
	return filler__submit(&f);
}
