/* getrlimit, setrlimit and prlimit64 on the real driver: limits read, set (in a
 * forked child, so the test keeps its own) and failing calls (EINVAL, EPERM,
 * ESRCH, EFAULT); every param of both events. */
#include <sys/resource.h>

#include "cred_live.h"

/* The calls checked, the test's own and its child's, each made with syscall(). */
static const int cred_rlimit_calls[] = { SYS_getrlimit, SYS_setrlimit, SYS_prlimit64, -1 };

static void check_get_set(struct harness *h, uint16_t type, int64_t tid, int *at, int resource,
			  int64_t res, int64_t cur, int64_t max)
{
	struct hevt *e, *x;

	if (!cred__call(h, type, tid, at, &e, &x))
		return;
	EXPECT_INTS(e, resource);
	EXPECT_INTS(x, res, cur, max);
}

static void check_prlimit(struct harness *h, int64_t tid, int *at, int64_t pid, int resource,
			  int64_t res, const int64_t *lims)
{
	struct hevt *e, *x;

	if (!cred__call(h, PPME_SYSCALL_PRLIMIT_E, tid, at, &e, &x))
		return;
	EXPECT_INTS(e, pid, resource);
	EXPECT_INTS(x, res, lims[0], lims[1], lims[2], lims[3]);
}

static void test_getrlimit(struct harness *h)
{
	int64_t me = live__tid();
	struct rlimit nofile, stack, junk = { 5, 6 };
	int at = 0;

	harness__drain(h, -1);
	EXPECT(syscall(SYS_getrlimit, RLIMIT_NOFILE, &nofile) == 0);
	EXPECT(syscall(SYS_getrlimit, RLIMIT_STACK, &stack) == 0);
	/* An unknown resource: EINVAL, PPM's RLIMIT_UNKNOWN, no limits. */
	EXPECT(syscall(SYS_getrlimit, 99, &junk) == -1 && errno == EINVAL);
	EXPECT(syscall(SYS_getrlimit, RLIMIT_CORE, (void *)8) == -1 && errno == EFAULT);
	harness__drain(h, me);
	check_get_set(h, PPME_SYSCALL_GETRLIMIT_E, me, &at, PPM_RLIMIT_RESOURCES_RLIMIT_NOFILE, 0,
		      nofile.rlim_cur, nofile.rlim_max);
	check_get_set(h, PPME_SYSCALL_GETRLIMIT_E, me, &at, PPM_RLIMIT_RESOURCES_RLIMIT_STACK, 0,
		      (int64_t)stack.rlim_cur, (int64_t)stack.rlim_max);
	check_get_set(h, PPME_SYSCALL_GETRLIMIT_E, me, &at, PPM_RLIMIT_RESOURCES_RLIMIT_UNKNOWN,
		      -EINVAL, -1, -1);
	check_get_set(h, PPME_SYSCALL_GETRLIMIT_E, me, &at, PPM_RLIMIT_RESOURCES_RLIMIT_CORE,
		      -EFAULT, -1, -1);
}

/* In the child: lower RLIMIT_CORE, try a soft limit above the hard one
 * (EINVAL), then, as nobody, raise the hard limit (EPERM); prlimit64 on itself
 * with a new and an old limit. */
static void child_set(void *arg)
{
	struct rlimit lo = { 1000, 2000 }, bad = { 3000, 2000 }, up = { 1000, 4000 };
	struct rlimit nw = { 500, 2000 }, old = { 1, 1 };
	int bad_calls = 0;

	(void)arg;
	bad_calls |= syscall(SYS_setrlimit, RLIMIT_CORE, &lo) != 0;
	bad_calls |= syscall(SYS_setrlimit, RLIMIT_CORE, &bad) != -1 || errno != EINVAL;
	bad_calls |= syscall(SYS_prlimit64, 0, RLIMIT_CORE, &nw, &old) != 0;
	bad_calls |= old.rlim_cur != 1000 || old.rlim_max != 2000;
	bad_calls |= syscall(SYS_setuid, 65534) != 0;
	bad_calls |= syscall(SYS_setrlimit, RLIMIT_CORE, &up) != -1 || errno != EPERM;
	if (bad_calls)
		_exit(1);
}

static void test_setrlimit(struct harness *h)
{
	const int64_t pr[4] = { 500, 2000, 1000, 2000 };
	pid_t child;
	int at = 0;

	harness__drain(h, -1);
	child = cred__in_child(child_set, NULL);
	harness__drain(h, child);
	check_get_set(h, PPME_SYSCALL_SETRLIMIT_E, child, &at, PPM_RLIMIT_RESOURCES_RLIMIT_CORE,
		      0, 1000, 2000);
	/* Refused limits are still the ones asked for. */
	check_get_set(h, PPME_SYSCALL_SETRLIMIT_E, child, &at, PPM_RLIMIT_RESOURCES_RLIMIT_CORE,
		      -EINVAL, 3000, 2000);
	check_prlimit(h, child, &at, 0, PPM_RLIMIT_RESOURCES_RLIMIT_CORE, 0, pr);
	check_get_set(h, PPME_SYSCALL_SETRLIMIT_E, child, &at, PPM_RLIMIT_RESOURCES_RLIMIT_CORE,
		      -EPERM, 1000, 4000);
}

static void test_prlimit(struct harness *h)
{
	int64_t me = live__tid();
	struct rlimit cur, old = { 11, 12 };
	int64_t lims[4];
	int at = 0;

	EXPECT(getrlimit(RLIMIT_NOFILE, &cur) == 0);
	harness__drain(h, -1);
	/* Read only: no new limit. */
	EXPECT(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &old) == 0);
	/* Set only (to the same limits): no old limit asked for. */
	EXPECT(syscall(SYS_prlimit64, getpid(), RLIMIT_NOFILE, &cur, NULL) == 0);
	/* No such process: no new limits; old shows what the buffer held. */
	old.rlim_cur = 11;
	old.rlim_max = 12;
	EXPECT(syscall(SYS_prlimit64, 0x7ffffff0, RLIMIT_NOFILE, &cur, &old) == -1 &&
	       errno == ESRCH);
	harness__drain(h, me);

	lims[0] = -1, lims[1] = -1, lims[2] = cur.rlim_cur, lims[3] = cur.rlim_max;
	check_prlimit(h, me, &at, 0, PPM_RLIMIT_RESOURCES_RLIMIT_NOFILE, 0, lims);
	lims[0] = cur.rlim_cur, lims[1] = cur.rlim_max, lims[2] = -1, lims[3] = -1;
	check_prlimit(h, me, &at, getpid(), PPM_RLIMIT_RESOURCES_RLIMIT_NOFILE, 0, lims);
	lims[0] = -1, lims[1] = -1, lims[2] = 11, lims[3] = 12;
	check_prlimit(h, me, &at, 0x7ffffff0, PPM_RLIMIT_RESOURCES_RLIMIT_NOFILE, -ESRCH, lims);
}

int main(void)
{
	struct harness *h = live__open(256, cred_rlimit_calls);

	test_getrlimit(h);
	test_setrlimit(h);
	test_prlimit(h);
	harness__close(h);
	return harness__report("cred_rlimit");
}
