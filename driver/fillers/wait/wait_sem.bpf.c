/* semop, semget, semctl (System V semaphores). */
#include "wait.bpf.h"

FILLER(syscall_semop_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_SEMOP_E))
		return 0;
	filler__u32(&f, (__u32)filler__arg(&f, 0));
	return filler__submit(&f);
}

/* sem_num, sem_op, sem_flg of sops[I]: zeros past nsops (as sysdig sends the
 * second entry of a one-entry call), empty when it cannot be read. */
static __always_inline void wait__sembuf(struct filler *f, const struct sembuf *sops,
					 __u32 nsops, int i)
{
	struct sembuf b = {};

	if (sops && i < nsops && bpf_probe_read_user(&b, sizeof(b), &sops[i])) {
		COUNT(n_drops_pf);
		filler__empty(f);
		filler__empty(f);
		filler__empty(f);
		return;
	}
	filler__u16(f, b.sem_num);
	filler__u16(f, b.sem_op);
	filler__u16(f, wait__semop_flags(b.sem_flg));
}

/* The operations are read at exit, as sysdig does: only the first two. */
FILLER_EXIT(syscall_semop_x)
{
	const struct sembuf *sops;
	struct filler f;
	__u32 nsops;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_SEMOP_X))
		return 0;
	sops = (const struct sembuf *)filler__arg(&f, 1);
	nsops = filler__arg(&f, 2);
	filler__s64(&f, f.ret);
	filler__u32(&f, nsops);
	wait__sembuf(&f, sops, nsops, 0);
	wait__sembuf(&f, sops, nsops, 1);
	return filler__submit(&f);
}

FILLER(syscall_semget_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_SEMGET_E))
		return 0;
	filler__u32(&f, (__u32)filler__arg(&f, 0));
	filler__u32(&f, (__u32)filler__arg(&f, 1));
	filler__u32(&f, wait__semget_flags(filler__arg(&f, 2)));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_semget_x)
{
	return WAIT_RES_ONLY(ctx, SYSCALL_SEMGET_X);
}

/* val is the fourth argument only for SETVAL (there it is the value, for the
 * other commands a pointer or nothing): 0 otherwise. */
FILLER(syscall_semctl_e)
{
	struct filler f;
	int cmd;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_SEMCTL_E))
		return 0;
	cmd = filler__arg(&f, 2);
	filler__u32(&f, (__u32)filler__arg(&f, 0));
	filler__u32(&f, (__u32)filler__arg(&f, 1));
	filler__u16(&f, wait__semctl_cmd(cmd));
	filler__u32(&f, cmd == NAT_SETVAL ? (__u32)filler__arg(&f, 3) : 0);
	return filler__submit(&f);
}

FILLER_EXIT(syscall_semctl_x)
{
	return WAIT_RES_ONLY(ctx, SYSCALL_SEMCTL_X);
}
