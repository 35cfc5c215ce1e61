/* poll, ppoll, select, epoll_wait. poll and ppoll list their fds with the events
 * asked for at enter and the events returned at exit. */
#include "wait.bpf.h"

FILLER(syscall_poll_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_POLL_E))
		return 0;
	filler__pollfds(&f, (const struct pollfd *)filler__arg(&f, 0), filler__arg(&f, 1), 0);
	filler__s64(&f, (int)filler__arg(&f, 2));
	return filler__submit(&f);
}

/* Shared by poll and ppoll (the same layout). The revents are read back even
 * when the call failed, as sysdig does. */
static __always_inline int wait__poll_exit(void *ctx, __u16 type, __u32 nparams)
{
	struct filler f;

	if (filler__begin(&f, ctx, type, nparams))
		return 0;
	filler__s64(&f, f.ret);
	filler__pollfds(&f, (const struct pollfd *)filler__arg(&f, 0), filler__arg(&f, 1), 1);
	return filler__submit(&f);
}

FILLER_EXIT(syscall_poll_x)
{
	return wait__poll_exit(ctx, PPME_SYSCALL_POLL_X, PPME_SYSCALL_POLL_X_NPARAMS);
}

/* timeout: no timespec (wait forever) is sent as (u64)-1. sigmask: the first
 * 32 signals of the mask, 0 without one. */
FILLER(syscall_ppoll_e)
{
	struct filler f;
	const void *ts, *mask;
	__u64 set = 0;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_PPOLL_E))
		return 0;
	filler__pollfds(&f, (const struct pollfd *)filler__arg(&f, 0), filler__arg(&f, 1), 0);
	ts = (const void *)filler__arg(&f, 2);
	if (ts)
		filler__timespec_user(&f, ts);
	else
		filler__u64(&f, (__u64)-1);
	mask = (const void *)filler__arg(&f, 3);
	if (mask && bpf_probe_read_user(&set, sizeof(set), mask)) {
		COUNT(n_drops_pf);
		filler__empty(&f);
	} else {
		filler__u32(&f, (__u32)set);
	}
	return filler__submit(&f);
}

FILLER_EXIT(syscall_ppoll_x)
{
	return wait__poll_exit(ctx, PPME_SYSCALL_PPOLL_X, PPME_SYSCALL_PPOLL_X_NPARAMS);
}

FILLER_EXIT(syscall_select_x)
{
	return WAIT_RES_ONLY(ctx, SYSCALL_SELECT_X);
}

/* maxevents is an ERRNO-typed param in sysdig's table: an int sent as s64. */
FILLER(syscall_epollwait_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_EPOLLWAIT_E))
		return 0;
	filler__s64(&f, (int)filler__arg(&f, 2));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_epollwait_x)
{
	return WAIT_RES_ONLY(ctx, SYSCALL_EPOLLWAIT_X);
}
