/* eventfd/eventfd2, signalfd/signalfd4, timerfd_create, inotify_init/inotify_init1
 * and userfaultfd on the real driver: every param of both events, each native
 * syscall, and failing calls. sysdig sends 0 for the flags, mask and clock it
 * never decoded: those params must be 0 whatever the call passed. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>

#include "fdio_live.h"

/* The calls checked, each made with syscall(); live__pair also finds no second
 * event of the one eventfd and eventfd2, signalfd and signalfd4, inotify_init
 * and inotify_init1 share. */
static const int fdio_make_calls[] = {
	SYS_eventfd, SYS_eventfd2, SYS_signalfd, SYS_signalfd4, SYS_timerfd_create,
	SYS_inotify_init, SYS_inotify_init1, SYS_userfaultfd, -1,
};

/* The exit event's res is R; closes the fd a successful call made. */
static void check_res(struct hevt *x, long r)
{
	EXPECT_PARAM_INT(x, 0, r);
	if (r >= 0)
		close(r);
}

static void check_eventfd(struct harness *h, unsigned int initval, long r)
{
	struct hevt *e, *x;

	if (live__pair(h, PPME_SYSCALL_EVENTFD_E, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, initval);
	EXPECT_PARAM_INT(e, 1, 0);
	check_res(x, r);
}

static void test_eventfd(struct harness *h)
{
	long r;

	LIVE_CALL(h, r, syscall(SYS_eventfd, 7));
	EXPECT(r >= 0);
	check_eventfd(h, 7, r);

	LIVE_CALL(h, r, syscall(SYS_eventfd2, 0xfffffffeUL, EFD_CLOEXEC | EFD_SEMAPHORE));
	EXPECT(r >= 0);
	check_eventfd(h, 0xfffffffeU, r);

	LIVE_CALL(h, r, syscall(SYS_eventfd2, 3, 0x40000000));
	EXPECT(r == -EINVAL);
	check_eventfd(h, 3, r);
}

static void check_signalfd(struct harness *h, int fd, long r)
{
	struct hevt *e, *x;

	if (live__pair(h, PPME_SYSCALL_SIGNALFD_E, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, fd);
	EXPECT_PARAM_INT(e, 1, 0);
	EXPECT_PARAM_INT(e, 2, 0);
	EXPECT_PARAM_INT(x, 0, r);
}

static void test_signalfd(struct harness *h)
{
	uint64_t mask = 1ULL << (SIGUSR1 - 1);
	long r, fd;

	LIVE_CALL(h, r, syscall(SYS_signalfd, -1, &mask, 8));
	EXPECT(r >= 0);
	check_signalfd(h, -1, r);
	fd = r;

	/* An existing signalfd gets the new mask: res is that fd. */
	mask |= 1ULL << (SIGUSR2 - 1);
	LIVE_CALL(h, r, syscall(SYS_signalfd4, fd, &mask, 8, SFD_CLOEXEC));
	EXPECT(r == fd);
	check_signalfd(h, fd, r);
	close(fd);

	/* Failing: a mask size that is not a sigset's (EINVAL), a closed fd. */
	LIVE_CALL(h, r, syscall(SYS_signalfd, -1, &mask, 4));
	EXPECT(r == -EINVAL);
	check_signalfd(h, -1, r);

	LIVE_CALL(h, r, syscall(SYS_signalfd4, 9997, &mask, 8, SFD_NONBLOCK));
	EXPECT(r == -EBADF);
	check_signalfd(h, 9997, r);
}

static void check_zero_params(struct harness *h, uint16_t type, long r)
{
	struct hevt *e, *x;

	if (live__pair(h, type, &e, &x))
		return;
	for (uint32_t i = 0; i < e->p.n; i++)
		EXPECT_PARAM_INT(e, i, 0);
	check_res(x, r);
}

static void test_timerfd_inotify(struct harness *h)
{
	long r;

	LIVE_CALL(h, r, syscall(SYS_timerfd_create, CLOCK_BOOTTIME, TFD_CLOEXEC | TFD_NONBLOCK));
	EXPECT(r >= 0);
	check_zero_params(h, PPME_SYSCALL_TIMERFD_CREATE_E, r);

	LIVE_CALL(h, r, syscall(SYS_timerfd_create, 12345, 0));
	EXPECT(r == -EINVAL);
	check_zero_params(h, PPME_SYSCALL_TIMERFD_CREATE_E, r);

	LIVE_CALL(h, r, syscall(SYS_inotify_init));
	EXPECT(r >= 0);
	check_zero_params(h, PPME_SYSCALL_INOTIFY_INIT_E, r);

	LIVE_CALL(h, r, syscall(SYS_inotify_init1, IN_CLOEXEC | IN_NONBLOCK));
	EXPECT(r >= 0);
	check_zero_params(h, PPME_SYSCALL_INOTIFY_INIT_E, r);

	LIVE_CALL(h, r, syscall(SYS_inotify_init1, 0x1234));
	EXPECT(r == -EINVAL);
	check_zero_params(h, PPME_SYSCALL_INOTIFY_INIT_E, r);
}

/* flags: the native bits as passed (sysdig did not convert them). */
static void check_userfaultfd(struct harness *h, unsigned long flags, long r)
{
	struct hevt *e, *x;

	if (live__pair(h, PPME_SYSCALL_USERFAULTFD_E, &e, &x))
		return;
	EXPECT(e->p.n == 0);
	EXPECT_PARAM_INT(x, 1, flags);
	check_res(x, r);
}

static void test_userfaultfd(struct harness *h)
{
	long r;

	LIVE_CALL(h, r, syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK));
	if (r == -ENOSYS) {
		fprintf(stderr, "userfaultfd: not in this kernel, only the failing call\n");
	} else {
		EXPECT(r >= 0);
		check_userfaultfd(h, O_CLOEXEC | O_NONBLOCK, r);
	}

	LIVE_CALL(h, r, syscall(SYS_userfaultfd, 0x10));
	EXPECT(r == -EINVAL || r == -ENOSYS);
	check_userfaultfd(h, 0x10, r);
}

int main(void)
{
	struct harness *h = live__open(256, fdio_make_calls);

	test_eventfd(h);
	test_signalfd(h);
	test_timerfd_inotify(h);
	test_userfaultfd(h);
	harness__close(h);
	return harness__report("fdio_make");
}
