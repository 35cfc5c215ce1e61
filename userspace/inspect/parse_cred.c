/* Exit events that change a thread's ids: setuid/setgid/setresuid/setresgid
 * (the effective id, which is what proc.uid/user.name show), setsid and
 * setpgid. Nothing changes unless the call succeeded.
 *
 * Credentials are per thread in Linux: the syscall changes the calling thread
 * only. glibc makes setuid() and friends process-wide by having every other
 * thread make the same raw syscall from a signal handler (SIGSETXID), so each
 * thread shows its own event. Changing the caller only is therefore right for
 * both raw syscalls and glibc's broadcast, and is what sysdig does. Session and
 * process group belong to the whole process: every known thread of it follows. */
#include "inspect_int.h"

/* -1 in a setres*id param: that id stays as it is. */
#define ID_UNCHANGED UINT32_MAX

struct pgrp_ctx {
	int64_t pid, pgid, sid;
	bool set_sid;
};

static int pgrp__set_one(struct thread_info *ti, void *arg)
{
	struct pgrp_ctx *c = arg;

	if (ti->pid != c->pid)
		return 0;
	ti->pgid = c->pgid;
	if (c->set_sid)
		ti->sid = c->sid;
	return 0;
}

/* Gives every known thread of MAIN's process the process group PGID (and the
 * session SID when SET_SID). */
static void pgrp__set(struct inspector *in, struct thread_info *main, int64_t pgid, int64_t sid,
		      bool set_sid)
{
	struct pgrp_ctx c = { .pid = main->pid, .pgid = pgid, .sid = sid, .set_sid = set_sid };

	if (thread_table__nthreads(in->threads, main) <= 1)
		pgrp__set_one(main, &c);
	else
		inspector__for_each_thread(in, pgrp__set_one, &c);
}

/* Sets *ID from the enter's param I unless absent or -1 (unchanged). */
static void cred__set(uint32_t *id, const struct evt_params *e, uint32_t i)
{
	int64_t v = evp__int(e, i, -1);

	if (v >= 0 && (uint32_t)v != ID_UNCHANGED)
		*id = (uint32_t)v;
}

void parse__cred_exit(struct inspector *in, struct ievt *ev, const struct evt_params *x,
		      const struct evt_params *e)
{
	struct thread_info *ti = ev->thread, *main;
	int64_t res = evp__int(x, 0, -1);

	if (!ti || res < 0)
		return;
	switch (ev->type) {
	/* setres*id params are real, effective, saved: the effective one counts */
	case PPME_SYSCALL_SETUID_X: cred__set(&ti->uid, e, 0); break;
	case PPME_SYSCALL_SETGID_X: cred__set(&ti->gid, e, 0); break;
	case PPME_SYSCALL_SETRESUID_X: cred__set(&ti->uid, e, 1); break;
	case PPME_SYSCALL_SETRESGID_X: cred__set(&ti->gid, e, 1); break;
	case PPME_SYSCALL_SETSID_X:
		/* the caller's process leads a new session and a new process group,
		 * both numbered with its pid (res is that pid as its namespace sees
		 * it; the table holds host pids, as /proc gives them) */
		if ((main = thread_table__main(in->threads, ti)))
			pgrp__set(in, main, main->pid, main->pid, true);
		else if (ti->pid >= 0)
			ti->pgid = ti->sid = ti->pid;
		break;
	case PPME_SYSCALL_SETPGID_X: {
		/* setpgid(pid, pgid): pid 0 is the caller, pgid 0 is that pid */
		int64_t pid = thread__host_pid(in->threads, ti, evp__int(e, 0, -1));
		int64_t pgid = evp__int(e, 1, -1);

		if (pid < 0 || pgid < 0 || !(main = thread_table__find(in->threads, pid)) ||
		    main->pid != pid)
			break;
		pgid = pgid == 0 ? pid : thread__host_pid(in->threads, ti, pgid);
		if (pgid >= 0)
			pgrp__set(in, main, pgid, 0, false);
		break;
	}
	default:
		break;
	}
}
