/* setpgid and setsid on the real driver, in a forked child: a new group, a new
 * session (res is the session id), and failing calls (EPERM, ESRCH, EINVAL). */
#include "cred_live.h"

/* The children's calls checked. */
static const int cred_session_calls[] = { SYS_setsid, SYS_setpgid, -1 };

/* Exits 1 if a call did not do what the events are checked against. */
static void child_session(void *arg)
{
	pid_t me = getpid();
	int bad = 0;

	(void)arg;
	/* Not a group leader after fork: setsid works once, then EPERM. */
	bad |= syscall(SYS_setsid) != me;
	bad |= syscall(SYS_setsid) != -1 || errno != EPERM;
	/* A session leader may not change its group: EPERM. */
	bad |= syscall(SYS_setpgid, 0, 0) != -1 || errno != EPERM;
	bad |= syscall(SYS_setpgid, 0x7ffffff0, 0) != -1 || errno != ESRCH;
	bad |= syscall(SYS_setpgid, 0, -5) != -1 || errno != EINVAL;
	if (bad)
		_exit(1);
}

/* A fresh child (in its parent's group, not a session leader) leads a group of its own. */
static void child_group(void *arg)
{
	pid_t me = getpid();
	int bad = 0;

	(void)arg;
	bad |= syscall(SYS_setpgid, 0, 0) != 0 || getpgid(0) != me;
	bad |= syscall(SYS_setpgid, me, me) != 0;
	if (bad)
		_exit(1);
}

static void check_setpgid(struct harness *h, int64_t tid, int *at, int64_t pid, int64_t pgid,
			  int64_t res)
{
	struct hevt *e, *x;

	if (!cred__call(h, PPME_SYSCALL_SETPGID_E, tid, at, &e, &x))
		return;
	EXPECT_INTS(e, pid, pgid);
	EXPECT_INTS(x, res);
}

static void check_setsid(struct harness *h, int64_t tid, int *at, int64_t res)
{
	struct hevt *e, *x;

	if (!cred__call(h, PPME_SYSCALL_SETSID_E, tid, at, &e, &x))
		return;
	EXPECT(e->p.n == 0);
	EXPECT_INTS(x, res);
}

int main(void)
{
	struct harness *h = live__open(256, cred_session_calls);
	pid_t child;
	int at = 0;

	harness__drain(h, -1);
	child = cred__in_child(child_session, NULL);
	harness__drain(h, child);
	check_setsid(h, child, &at, child);
	check_setsid(h, child, &at, -EPERM);
	check_setpgid(h, child, &at, 0, 0, -EPERM);
	check_setpgid(h, child, &at, 0x7ffffff0, 0, -ESRCH);
	check_setpgid(h, child, &at, 0, -5, -EINVAL);

	harness__drain(h, -1);
	child = cred__in_child(child_group, NULL);
	harness__drain(h, child);
	at = 0;
	check_setpgid(h, child, &at, 0, 0, 0);
	check_setpgid(h, child, &at, child, child, 0);

	harness__close(h);
	return harness__report("cred_session");
}
