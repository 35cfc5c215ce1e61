/* setpgid(pid, pgid) and setsid(): the exit's res is a PID param (the new
 * session id for setsid, 0 for setpgid) or a negative errno. */
#include "cred.bpf.h"

FILLER(syscall_setpgid_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_SETPGID_E))
		return 0;
	filler__pid_arg(&f, 0);
	filler__pid_arg(&f, 1);
	return filler__submit(&f);
}

CRED_FILLER(FILLER_EXIT(syscall_setpgid_x), cred__simple, SYSCALL_SETPGID_X, CRED_RES)
CRED_FILLER(FILLER_EXIT(syscall_setsid_x), cred__simple, SYSCALL_SETSID_X, CRED_RES)
