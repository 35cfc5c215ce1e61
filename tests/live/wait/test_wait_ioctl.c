/* ioctl on the real driver: fd, request and argument as passed, the result, and
 * failing calls. */
#include <sys/ioctl.h>

#include "wait_live.h"

/* The call checked. */
static const int wait_ioctl_calls[] = { SYS_ioctl, -1 };

static void check_ioctl(struct harness *h, int fd, unsigned long req, unsigned long arg, long want)
{
	struct hevt *e, *x;
	long r;

	r = wait__call(h, SYS_ioctl, fd, req, arg, 0, 0, 0);
	EXPECT(r == want);
	e = wait__pair(h, PPME_SYSCALL_IOCTL_3_E, 1, (int64_t)req, &x);
	if (!e)
		return;
	EXPECT_PARAM_INT(e, 0, fd);
	EXPECT_PARAM_INT(e, 1, req);
	EXPECT_PARAM_INT(e, 2, arg);
	EXPECT_PARAM_INT(x, 0, want);
}

int main(void)
{
	struct harness *h = live__open(256, wait_ioctl_calls);
	int p[2], n = -1, on = 1;

	if (pipe(p) || write(p[1], "abc", 3) != 3)
		return 1;
	check_ioctl(h, p[0], FIONREAD, (unsigned long)&n, 0);
	EXPECT(n == 3);
	check_ioctl(h, p[1], FIONBIO, (unsigned long)&on, 0);
	/* Failing: a request the pipe does not know (ENOTTY), with a plain value as
	 * argument; a closed fd (EBADF); an unwritable result (EFAULT). */
	check_ioctl(h, p[0], 0x5401deadUL, 0x1234abcdUL, -ENOTTY);
	check_ioctl(h, 9999, FIOCLEX, 0, -EBADF);
	check_ioctl(h, p[0], FIONREAD, 8, -EFAULT);
	close(p[0]);
	close(p[1]);
	harness__close(h);
	return harness__report("wait_ioctl");
}
