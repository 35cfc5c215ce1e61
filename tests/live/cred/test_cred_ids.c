/* setresuid, setresgid, getuid, geteuid, getgid, getegid, getresuid, getresgid
 * on the real driver: ids changed in a forked child (then read back), failing
 * calls (EPERM as an unprivileged uid, EFAULT), every param of both events. */
#include "cred_live.h"

#define GET(nr) ((uint32_t)syscall(nr))

/* The calls checked, the test's own and its child's, each made with syscall(). */
static const int cred_ids_calls[] = {
	SYS_getuid, SYS_geteuid, SYS_getgid, SYS_getegid, SYS_getresuid, SYS_getresgid,
	SYS_setresuid, SYS_setresgid, -1,
};

/* The get*id calls: enter without params, exit the id. */
static void check_getids(struct harness *h, int64_t tid, int *at, uint32_t uid, uint32_t euid,
			 uint32_t gid, uint32_t egid)
{
	static const uint16_t types[] = { PPME_SYSCALL_GETUID_E, PPME_SYSCALL_GETEUID_E,
					  PPME_SYSCALL_GETGID_E, PPME_SYSCALL_GETEGID_E };
	const uint32_t want[] = { uid, euid, gid, egid };
	struct hevt *e, *x;

	for (int i = 0; i < 4; i++) {
		if (!cred__call(h, types[i], tid, at, &e, &x))
			continue;
		EXPECT(e->p.n == 0);
		EXPECT_INTS(x, want[i]);
	}
}

/* A getres*id call: res and the three ids. */
static void check_getres(struct harness *h, uint16_t type, int64_t tid, int *at, int64_t res,
			 uint32_t r, uint32_t eff, uint32_t s)
{
	struct hevt *e, *x;

	if (!cred__call(h, type, tid, at, &e, &x))
		return;
	EXPECT(e->p.n == 0);
	EXPECT_INTS(x, res, r, eff, s);
}

/* A setres*id call: the three ids asked for, and res. */
static void check_setres(struct harness *h, uint16_t type, int64_t tid, int *at, uint32_t r,
			 uint32_t eff, uint32_t s, int64_t res)
{
	struct hevt *e, *x;

	if (!cred__call(h, type, tid, at, &e, &x))
		return;
	EXPECT_INTS(e, r, eff, s);
	EXPECT_INTS(x, res);
}

static void test_get_own(struct harness *h)
{
	int64_t me = live__tid();
	uid_t r = 1, eff = 1, s = 1, r2 = 1, e2 = 1, s2 = 1;
	uid_t keep_e = 777, keep_s = 778;
	uint32_t uid, euid, gid, egid;
	int at = 0;
	long res;

	harness__drain(h, -1);
	uid = GET(SYS_getuid);
	euid = GET(SYS_geteuid);
	gid = GET(SYS_getgid);
	egid = GET(SYS_getegid);
	EXPECT(syscall(SYS_getresuid, &r, &eff, &s) == 0);
	EXPECT(syscall(SYS_getresgid, &r2, &e2, &s2) == 0);
	/* EFAULT on the first pointer: nothing is written to the others, and the
	 * exit event shows 0 for the unreadable one and what the others hold. */
	res = syscall(SYS_getresuid, (void *)8, &keep_e, &keep_s);
	EXPECT(res == -1 && errno == EFAULT);
	res = syscall(SYS_getresgid, (void *)8, &keep_e, &keep_s);
	EXPECT(res == -1 && errno == EFAULT);
	harness__drain(h, me);

	check_getids(h, me, &at, uid, euid, gid, egid);
	check_getres(h, PPME_SYSCALL_GETRESUID_E, me, &at, 0, r, eff, s);
	EXPECT(r == uid && eff == euid);
	check_getres(h, PPME_SYSCALL_GETRESGID_E, me, &at, 0, r2, e2, s2);
	EXPECT(r2 == gid && e2 == egid);
	check_getres(h, PPME_SYSCALL_GETRESUID_E, me, &at, -EFAULT, 0, 777, 778);
	check_getres(h, PPME_SYSCALL_GETRESGID_E, me, &at, -EFAULT, 0, 777, 778);
}

/* In the child: root sets all three gids and uids, reads them back, then fails
 * to get root back (EPERM) and keeps its ids with -1 (no change). Exits 1 if a
 * call did not do what the events are checked against. */
static void child_ids(void *arg)
{
	uid_t r, eff, s;
	int bad = 0;

	(void)arg;
	bad |= syscall(SYS_setresgid, 1001, 1002, 1003) != 0;
	bad |= syscall(SYS_setresuid, 2001, 2002, 2003) != 0;
	bad |= syscall(SYS_getresuid, &r, &eff, &s) != 0 || r != 2001 || eff != 2002 || s != 2003;
	bad |= syscall(SYS_getresgid, &r, &eff, &s) != 0 || r != 1001 || eff != 1002 || s != 1003;
	bad |= GET(SYS_getuid) != 2001 || GET(SYS_geteuid) != 2002;
	bad |= GET(SYS_getgid) != 1001 || GET(SYS_getegid) != 1002;
	bad |= syscall(SYS_setresuid, 0, 0, 0) != -1 || errno != EPERM;
	bad |= syscall(SYS_setresgid, 0, 0, 0) != -1 || errno != EPERM;
	bad |= syscall(SYS_setresuid, -1, -1, -1) != 0;
	bad |= syscall(SYS_setresgid, -1, 1003, -1) != 0;
	if (bad)
		_exit(1);
}

static void test_set_in_child(struct harness *h)
{
	pid_t child;
	int at = 0;

	EXPECT(getuid() == 0);
	harness__drain(h, -1);
	child = cred__in_child(child_ids, NULL);
	harness__drain(h, child);

	check_setres(h, PPME_SYSCALL_SETRESGID_E, child, &at, 1001, 1002, 1003, 0);
	check_setres(h, PPME_SYSCALL_SETRESUID_E, child, &at, 2001, 2002, 2003, 0);
	check_getres(h, PPME_SYSCALL_GETRESUID_E, child, &at, 0, 2001, 2002, 2003);
	check_getres(h, PPME_SYSCALL_GETRESGID_E, child, &at, 0, 1001, 1002, 1003);
	check_getids(h, child, &at, 2001, 2002, 1001, 1002);
	check_setres(h, PPME_SYSCALL_SETRESUID_E, child, &at, 0, 0, 0, -EPERM);
	check_setres(h, PPME_SYSCALL_SETRESGID_E, child, &at, 0, 0, 0, -EPERM);
	/* -1 (leave as is) is an id like any other in the event: 0xffffffff. */
	check_setres(h, PPME_SYSCALL_SETRESUID_E, child, &at, UINT32_MAX, UINT32_MAX, UINT32_MAX, 0);
	check_setres(h, PPME_SYSCALL_SETRESGID_E, child, &at, UINT32_MAX, 1003, UINT32_MAX, 0);
}

int main(void)
{
	struct harness *h = live__open(256, cred_ids_calls);

	test_get_own(h);
	test_set_in_child(h);
	harness__close(h);
	return harness__report("cred_ids");
}
