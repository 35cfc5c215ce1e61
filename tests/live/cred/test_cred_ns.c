/* unshare and setns on the real driver, in forked children: new namespaces,
 * joining one's own, and failing calls (EINVAL, EBADF, EPERM as nobody); the
 * flags as PPM clone flags. */
#include <fcntl.h>
#include <sched.h>

#include "cred_live.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x80
#endif

/* The fd the child opens on its uts namespace (same number in the parent's
 * check: the child's fd table starts as a copy). */
static int uts_fd = -1;

/* The calls checked, the test's own and its children's. */
static const int cred_ns_calls[] = { SYS_unshare, SYS_setns, -1 };

static void child_unshare(void *arg)
{
	int bad = 0;

	(void)arg;
	bad |= syscall(SYS_unshare, CLONE_NEWUTS) != 0;
	bad |= syscall(SYS_unshare, CLONE_NEWNS | CLONE_FILES | CLONE_NEWIPC) != 0;
	bad |= syscall(SYS_unshare, CLONE_PARENT) != -1 || errno != EINVAL;
	bad |= syscall(SYS_setuid, 65534) != 0;
	bad |= syscall(SYS_unshare, CLONE_NEWNET) != -1 || errno != EPERM;
	if (bad)
		_exit(1);
}

static void child_setns(void *arg)
{
	int bad = 0;

	(void)arg;
	bad |= dup2(open("/proc/self/ns/uts", O_RDONLY), uts_fd) != uts_fd;
	bad |= syscall(SYS_setns, uts_fd, CLONE_NEWUTS) != 0;
	bad |= syscall(SYS_setns, uts_fd, 0) != 0;
	bad |= syscall(SYS_setns, uts_fd, CLONE_NEWNET) != -1 || errno != EINVAL;
	bad |= syscall(SYS_setns, 9999, 0) != -1 || errno != EBADF;
	if (bad)
		_exit(1);
}

static void check(struct harness *h, uint16_t type, int64_t tid, int *at, int64_t fd,
		  uint32_t ppm_flags, int64_t res)
{
	struct hevt *e, *x;

	if (!cred__call(h, type, tid, at, &e, &x))
		return;
	if (type == PPME_SYSCALL_SETNS_E)
		EXPECT_INTS(e, fd, ppm_flags);
	else
		EXPECT_INTS(e, ppm_flags);
	EXPECT_INTS(x, res);
}

int main(void)
{
	struct harness *h = live__open(256, cred_ns_calls);
	const uint16_t un = PPME_SYSCALL_UNSHARE_E, ns = PPME_SYSCALL_SETNS_E;
	pid_t child;
	int at = 0;

	harness__drain(h, -1);
	child = cred__in_child(child_unshare, NULL);
	harness__drain(h, child);
	check(h, un, child, &at, 0, PPM_CLONE_FLAGS_CLONE_NEWUTS, 0);
	check(h, un, child, &at, 0, PPM_CLONE_FLAGS_CLONE_NEWNS | PPM_CLONE_FLAGS_CLONE_FILES |
		  PPM_CLONE_FLAGS_CLONE_NEWIPC, 0);
	check(h, un, child, &at, 0, PPM_CLONE_FLAGS_CLONE_PARENT, -EINVAL);
	check(h, un, child, &at, 0, PPM_CLONE_FLAGS_CLONE_NEWNET, -EPERM);

	/* CLONE_NEWTIME is newer than sysdig's table: no PPM bit for it. */
	harness__drain(h, -1);
	long r = syscall(SYS_unshare, CLONE_NEWTIME | CLONE_VM | CLONE_SIGHAND);
	int64_t err = r == 0 ? 0 : -errno;
	harness__drain(h, live__tid());
	at = 0;
	check(h, un, live__tid(), &at, 0, PPM_CLONE_FLAGS_CLONE_VM | PPM_CLONE_FLAGS_CLONE_SIGHAND,
	      err);

	uts_fd = 150;
	harness__drain(h, -1);
	child = cred__in_child(child_setns, NULL);
	harness__drain(h, child);
	at = 0;
	check(h, ns, child, &at, uts_fd, PPM_CLONE_FLAGS_CLONE_NEWUTS, 0);
	check(h, ns, child, &at, uts_fd, 0, 0);
	check(h, ns, child, &at, uts_fd, PPM_CLONE_FLAGS_CLONE_NEWNET, -EINVAL);
	check(h, ns, child, &at, 9999, 0, -EBADF);

	harness__close(h);
	return harness__report("cred_ns");
}
