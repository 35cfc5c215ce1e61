/* sendfile, splice and copy_file_range on the real driver: every param of both
 * events, with and without offset pointers, and failing calls. */
#include <errno.h>
#include <fcntl.h>

#include "fdio_live.h"

static char dir[64];
static const char text[] = "0123456789abcdef";

/* The calls checked, each made with syscall(). */
static const int fdio_copy_calls[] = { SYS_sendfile, SYS_splice, SYS_copy_file_range, -1 };

/* A file of DIR holding TEXT, opened with FLAGS. */
static int open_text(const char *name, int flags)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	if (fd < 0 || pwrite(fd, text, 16, 0) != 16 || close(fd) || (fd = open(path, flags)) < 0) {
		perror(path);
		exit(1);
	}
	return fd;
}

/* offset at enter, and where the kernel left it at exit. */
static void check_sendfile(struct harness *h, int out, int in, uint64_t off, uint64_t size,
			   long r, uint64_t off_after)
{
	struct hevt *e, *x;

	if (live__pair(h, PPME_SYSCALL_SENDFILE_E, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, out);
	EXPECT_PARAM_INT(e, 1, in);
	EXPECT_PARAM_INT(e, 2, off);
	EXPECT_PARAM_INT(e, 3, size);
	EXPECT_PARAM_INT(x, 0, r);
	EXPECT_PARAM_INT(x, 1, off_after);
}

static void test_sendfile(struct harness *h)
{
	int in = open_text("sf_in", O_RDONLY);
	int out = open_text("sf_out", O_WRONLY);
	off_t off = 4;
	long r;

	LIVE_CALL(h, r, syscall(SYS_sendfile, out, in, &off, 6));
	EXPECT(r == 6 && off == 10);
	check_sendfile(h, out, in, 4, 6, 6, 10);

	/* No offset pointer: the file position is used and offset is 0. */
	LIVE_CALL(h, r, syscall(SYS_sendfile, out, in, NULL, 3));
	EXPECT(r == 3);
	check_sendfile(h, out, in, 0, 3, 3, 0);

	/* Failing: a closed in fd (the offset stays), an unreadable offset. */
	LIVE_CALL(h, r, syscall(SYS_sendfile, out, 9999, &off, 6));
	EXPECT(r == -EBADF);
	check_sendfile(h, out, 9999, 10, 6, -EBADF, 10);

	LIVE_CALL(h, r, syscall(SYS_sendfile, out, in, (void *)8, 6));
	EXPECT(r == -EFAULT);
	check_sendfile(h, out, in, 0, 6, -EFAULT, 0);
	close(in);
	close(out);
}

static void check_splice(struct harness *h, int in, int out, uint64_t len, uint32_t flags, long r)
{
	struct hevt *e, *x;

	if (live__pair(h, PPME_SYSCALL_SPLICE_E, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, in);
	EXPECT_PARAM_INT(e, 1, out);
	EXPECT_PARAM_INT(e, 2, len);
	EXPECT_PARAM_INT(e, 3, flags);
	EXPECT_PARAM_INT(x, 0, r);
}

static void test_splice(struct harness *h)
{
	int in = open_text("sp_in", O_RDONLY);
	loff_t off = 2;
	int p[2];
	long r;

	EXPECT(pipe(p) == 0);
	LIVE_CALL(h, r, syscall(SYS_splice, in, &off, p[1], NULL, 5,
				SPLICE_F_MOVE | SPLICE_F_MORE));
	EXPECT(r == 5);
	check_splice(h, in, p[1], 5, SPLICE_F_MOVE | SPLICE_F_MORE, 5);

	LIVE_CALL(h, r, syscall(SYS_splice, p[0], NULL, p[1], NULL, 3, SPLICE_F_NONBLOCK));
	/* Failing: a pipe into itself, a closed fd. */
	EXPECT(r == -EINVAL);
	check_splice(h, p[0], p[1], 3, SPLICE_F_NONBLOCK, -EINVAL);

	LIVE_CALL(h, r, syscall(SYS_splice, 9999, NULL, p[1], NULL, 4, SPLICE_F_GIFT));
	EXPECT(r == -EBADF);
	check_splice(h, 9999, p[1], 4, SPLICE_F_GIFT, -EBADF);
	close(p[0]);
	close(p[1]);
	close(in);
}

/* offin and offout are the pointers passed, as sysdig sends them. */
static void check_cfr(struct harness *h, int in, const void *offin, uint64_t len, long r,
		      int out, const void *offout)
{
	struct hevt *e, *x;

	if (live__pair(h, PPME_SYSCALL_COPY_FILE_RANGE_E, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, in);
	EXPECT_PARAM_INT(e, 1, (uintptr_t)offin);
	EXPECT_PARAM_INT(e, 2, len);
	EXPECT_PARAM_INT(x, 0, r);
	EXPECT_PARAM_INT(x, 1, out);
	EXPECT_PARAM_INT(x, 2, (uintptr_t)offout);
}

static void test_copy_file_range(struct harness *h)
{
	int in = open_text("cfr_in", O_RDONLY);
	int out = open_text("cfr_out", O_WRONLY);
	loff_t offin = 1, offout = 20;
	long r;

	LIVE_CALL(h, r, syscall(SYS_copy_file_range, in, &offin, out, &offout, 8, 0));
	EXPECT(r == 8 && offin == 9 && offout == 28);
	check_cfr(h, in, &offin, 8, 8, out, &offout);

	LIVE_CALL(h, r, syscall(SYS_copy_file_range, in, NULL, out, NULL, 4, 0));
	EXPECT(r == 4);
	check_cfr(h, in, NULL, 4, 4, out, NULL);

	/* Failing: a closed out fd, unknown flags. */
	LIVE_CALL(h, r, syscall(SYS_copy_file_range, in, &offin, 9999, NULL, 8, 0));
	EXPECT(r == -EBADF);
	check_cfr(h, in, &offin, 8, -EBADF, 9999, NULL);

	LIVE_CALL(h, r, syscall(SYS_copy_file_range, in, NULL, out, &offout, 2, 1));
	EXPECT(r == -EINVAL);
	check_cfr(h, in, NULL, 2, -EINVAL, out, &offout);
	close(in);
	close(out);
}

int main(void)
{
	struct harness *h = live__open(256, fdio_copy_calls);

	live__tmpdir(dir, sizeof(dir), "fdio_copy");
	test_sendfile(h);
	test_splice(h);
	test_copy_file_range(h);
	harness__close(h);
	live__rmtree(dir);
	return harness__report("fdio_copy");
}
