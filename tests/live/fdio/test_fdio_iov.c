/* preadv and pwritev on the real driver: every param of both events, short reads,
 * the data cut to the snaplen (80), and failing calls. */
#include <errno.h>
#include <fcntl.h>
#include <sys/uio.h>

#include "fdio_live.h"

static char dir[64];

/* The calls checked, each made with syscall(). */
static const int fdio_iov_calls[] = { SYS_preadv, SYS_pwritev, -1 };

static void check_preadv(struct harness *h, int fd, uint64_t pos, long r, uint32_t size,
			 const char *data)
{
	struct hevt *e, *x;

	if (live__pair(h, PPME_SYSCALL_PREADV_E, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, fd);
	EXPECT_PARAM_INT(e, 1, pos);
	EXPECT_PARAM_INT(x, 0, r);
	EXPECT_PARAM_INT(x, 1, size);
	EXPECT_PARAM_BUF(x, 2, data, strlen(data));
}

static void test_preadv(struct harness *h, int fd)
{
	char a[4], b[8];
	struct iovec iov[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	long r;

	LIVE_CALL(h, r, syscall(SYS_preadv, fd, iov, 2, 3, 0));
	EXPECT(r == 12);
	check_preadv(h, fd, 3, 12, 12, "3456789abcde");

	/* A short read: size is what was read, like sysdig (not the 12 asked). */
	LIVE_CALL(h, r, syscall(SYS_preadv, fd, iov, 2, 10, 0));
	EXPECT(r == 6);
	check_preadv(h, fd, 10, 6, 6, "abcdef");

	/* Failing: size is still the sum of the iovecs, data empty. */
	LIVE_CALL(h, r, syscall(SYS_preadv, 9999, iov, 2, 0, 0));
	EXPECT(r == -EBADF);
	check_preadv(h, 9999, 0, -EBADF, 12, "");

	LIVE_CALL(h, r, syscall(SYS_preadv, fd, iov, 2, -1L, 0));
	EXPECT(r == -EINVAL);
	check_preadv(h, fd, (uint64_t)-1, -EINVAL, 12, "");
}

/* SIZE < 0: the iovec array was unreadable (param empty). */
static void check_pwritev(struct harness *h, int fd, long size, uint64_t pos, long r,
			  const void *data, size_t len)
{
	struct hevt *e, *x;

	if (live__pair(h, PPME_SYSCALL_PWRITEV_E, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, fd);
	if (size < 0)
		EXPECT_PARAM_EMPTY(e, 1);
	else
		EXPECT_PARAM_INT(e, 1, size);
	EXPECT_PARAM_INT(e, 2, pos);
	EXPECT_PARAM_INT(x, 0, r);
	EXPECT_PARAM_BUF(x, 1, data, len);
}

static void test_pwritev(struct harness *h, int fd, int rdonly)
{
	char ab[] = "AB", cde[] = "CDE", big[100];
	struct iovec iov[3] = { { ab, 2 }, { cde, 3 }, { big, sizeof(big) } };
	long r;

	LIVE_CALL(h, r, syscall(SYS_pwritev, fd, iov, 2, 5, 0));
	EXPECT(r == 5);
	check_pwritev(h, fd, 5, 5, 5, "ABCDE", 5);

	/* 105 bytes: data is the first 80 (the snaplen) across the iovecs. */
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = 'a' + i % 26;
	char want[80];

	memcpy(want, "ABCDE", 5);
	memcpy(want + 5, big, 75);
	LIVE_CALL(h, r, syscall(SYS_pwritev, fd, iov, 3, 0, 0));
	EXPECT(r == 105);
	check_pwritev(h, fd, 105, 0, 105, want, 80);

	/* Failing: the data is what was given all the same. */
	LIVE_CALL(h, r, syscall(SYS_pwritev, rdonly, iov, 2, 7, 0));
	EXPECT(r == -EBADF);
	check_pwritev(h, rdonly, 5, 7, -EBADF, "ABCDE", 5);

	LIVE_CALL(h, r, syscall(SYS_pwritev, fd, (void *)8, 2, 0, 0));
	EXPECT(r == -EFAULT);
	check_pwritev(h, fd, -1, 0, -EFAULT, "", 0);
}

int main(void)
{
	struct harness *h = live__open(256, fdio_iov_calls);
	char path[128];
	int fd, rdonly;

	live__tmpdir(dir, sizeof(dir), "fdio_iov");
	snprintf(path, sizeof(path), "%s/data", dir);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	rdonly = open(path, O_RDONLY);
	if (fd < 0 || rdonly < 0 || pwrite(fd, "0123456789abcdef", 16, 0) != 16) {
		perror(path);
		return 1;
	}
	test_preadv(h, fd);
	test_pwritev(h, fd, rdonly);
	close(fd);
	close(rdonly);
	harness__close(h);
	live__rmtree(dir);
	return harness__report("fdio_iov");
}
