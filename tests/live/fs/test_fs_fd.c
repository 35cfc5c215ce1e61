/* dup, dup2, dup3 (one event: sysdig's table routes all three to dup), pipe and
 * pipe2 (the pipe event), chdir and fchdir on the real driver: every param of both
 * events, and failing calls. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "fs_live.h"

static char dir[64];

/* The calls checked, each made with syscall(); check_pipe also finds no second
 * pipe event (pipe and pipe2 share it). */
static const int fs_fd_calls[] = {
	SYS_dup, SYS_dup2, SYS_dup3, SYS_pipe, SYS_pipe2, SYS_chdir, SYS_fchdir, -1,
};

/* The dup enter event for OLDFD and its exit: res must be WANT. */
static void check_dup(struct harness *h, int oldfd, long want)
{
	int64_t tid = live__tid();
	struct hevt *e, *x;
	int at = 0;

	e = live__find_int(h, PPME_SYSCALL_DUP_E, 0, oldfd, &at);
	EXPECT(e != NULL);
	if (!e)
		return;
	hevt__expect_header(e, PPME_SYSCALL_DUP_E, tid);
	EXPECT_PARAM_INT(e, 0, oldfd);
	x = live__next(h, e, PPME_SYSCALL_DUP_X);
	EXPECT(x != NULL);
	if (!x)
		return;
	hevt__expect_header(x, PPME_SYSCALL_DUP_X, tid);
	EXPECT_PARAM_INT(x, 0, want);
}

static void test_dup(struct harness *h)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	long r;

	harness__drain(h, -1);
	r = syscall(SYS_dup, fd);
	harness__drain(h, live__tid());
	EXPECT(r > fd);
	check_dup(h, fd, r);
	close(r);

	harness__drain(h, -1);
	r = syscall(SYS_dup2, fd, 200);
	harness__drain(h, live__tid());
	EXPECT(r == 200);
	check_dup(h, fd, 200);
	close(200);

	harness__drain(h, -1);
	r = syscall(SYS_dup3, fd, 201, O_CLOEXEC);
	harness__drain(h, live__tid());
	EXPECT(r == 201);
	check_dup(h, fd, 201);
	close(201);

	/* Failing: a closed fd (EBADF), dup3 onto itself (EINVAL). */
	harness__drain(h, -1);
	r = syscall(SYS_dup, 9999);
	harness__drain(h, live__tid());
	EXPECT(r == -1 && errno == EBADF);
	check_dup(h, 9999, -EBADF);

	harness__drain(h, -1);
	r = syscall(SYS_dup3, fd, fd, 0);
	harness__drain(h, live__tid());
	EXPECT(r == -1 && errno == EINVAL);
	check_dup(h, fd, -EINVAL);
	close(fd);
}

/* The last pipe exit event and its enter: res, both fds and the pipe's inode. */
static void check_pipe(struct harness *h, long res, const int *fds)
{
	int64_t tid = live__tid();
	struct hevt *e, *x;
	int at = 0;

	x = harness__find(h, PPME_SYSCALL_PIPE_X, &at);
	EXPECT(x != NULL);
	if (!x)
		return;
	hevt__expect_header(x, PPME_SYSCALL_PIPE_X, tid);
	e = live__prev(h, x, PPME_SYSCALL_PIPE_E);
	EXPECT(e != NULL);
	if (e)
		hevt__expect_header(e, PPME_SYSCALL_PIPE_E, tid);
	EXPECT_PARAM_INT(x, 0, res);
	if (res < 0) {
		/* Nothing was written to the array: fds and ino are not available. */
		EXPECT_PARAM_EMPTY(x, 1);
		EXPECT_PARAM_EMPTY(x, 2);
		EXPECT_PARAM_EMPTY(x, 3);
		return;
	}
	struct stat st0, st1;

	EXPECT(fstat(fds[0], &st0) == 0 && fstat(fds[1], &st1) == 0);
	EXPECT(st0.st_ino == st1.st_ino);	/* both ends: one pipe inode */
	EXPECT_PARAM_INT(x, 1, fds[0]);
	EXPECT_PARAM_INT(x, 2, fds[1]);
	EXPECT_PARAM_INT(x, 3, st0.st_ino);
	EXPECT(harness__find(h, PPME_SYSCALL_PIPE_X, &at) == NULL);
}

static void test_pipe(struct harness *h)
{
	int fds[2] = { -1, -1 };
	long r;

	harness__drain(h, -1);
	r = syscall(SYS_pipe, fds);
	harness__drain(h, live__tid());
	EXPECT(r == 0);
	check_pipe(h, r, fds);
	close(fds[0]);
	close(fds[1]);

	harness__drain(h, -1);
	r = syscall(SYS_pipe2, fds, O_CLOEXEC | O_NONBLOCK);
	harness__drain(h, live__tid());
	EXPECT(r == 0);
	check_pipe(h, r, fds);
	close(fds[0]);
	close(fds[1]);

	/* Failing: unknown flags (EINVAL), an unwritable array (EFAULT). */
	harness__drain(h, -1);
	r = syscall(SYS_pipe2, fds, 0x40000000);
	harness__drain(h, live__tid());
	EXPECT(r == -1 && errno == EINVAL);
	check_pipe(h, -EINVAL, NULL);

	harness__drain(h, -1);
	r = syscall(SYS_pipe, (void *)8);
	harness__drain(h, live__tid());
	EXPECT(r == -1 && errno == EFAULT);
	check_pipe(h, -EFAULT, NULL);
}

/* The chdir exit event for PATH and its enter. */
static void check_chdir(struct harness *h, const char *path, long res)
{
	int64_t tid = live__tid();
	struct hevt *e, *x;
	int at = 0;

	x = live__find_str(h, PPME_SYSCALL_CHDIR_X, 1, path, &at);
	EXPECT(x != NULL);
	if (!x)
		return;
	hevt__expect_header(x, PPME_SYSCALL_CHDIR_X, tid);
	EXPECT_PARAM_INT(x, 0, res);
	EXPECT_PARAM_STR(x, 1, path);
	e = live__prev(h, x, PPME_SYSCALL_CHDIR_E);
	EXPECT(e != NULL);
	if (e)
		hevt__expect_header(e, PPME_SYSCALL_CHDIR_E, tid);
}

static void check_fchdir(struct harness *h, int fd, long res)
{
	int64_t tid = live__tid();
	struct hevt *e, *x;
	int at = 0;

	e = live__find_int(h, PPME_SYSCALL_FCHDIR_E, 0, fd, &at);
	EXPECT(e != NULL);
	if (!e)
		return;
	hevt__expect_header(e, PPME_SYSCALL_FCHDIR_E, tid);
	EXPECT_PARAM_INT(e, 0, fd);
	x = live__next(h, e, PPME_SYSCALL_FCHDIR_X);
	EXPECT(x != NULL);
	if (!x)
		return;
	hevt__expect_header(x, PPME_SYSCALL_FCHDIR_X, tid);
	EXPECT_PARAM_INT(x, 0, res);
}

static void test_chdir(struct harness *h)
{
	int back = open(".", O_RDONLY | O_DIRECTORY);
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	char sub[128];
	long r;

	snprintf(sub, sizeof(sub), "%s/sub", dir);
	EXPECT(mkdir(sub, 0700) == 0);

	harness__drain(h, -1);
	r = syscall(SYS_chdir, dir);
	harness__drain(h, live__tid());
	EXPECT(r == 0);
	check_chdir(h, dir, 0);

	/* Relative paths are sent as passed. */
	harness__drain(h, -1);
	r = syscall(SYS_chdir, "sub");
	harness__drain(h, live__tid());
	EXPECT(r == 0);
	check_chdir(h, "sub", 0);

	harness__drain(h, -1);
	r = syscall(SYS_chdir, "no/such/dir");
	harness__drain(h, live__tid());
	EXPECT(r == -1 && errno == ENOENT);
	check_chdir(h, "no/such/dir", -ENOENT);

	harness__drain(h, -1);
	r = syscall(SYS_fchdir, fd);
	harness__drain(h, live__tid());
	EXPECT(r == 0);
	check_fchdir(h, fd, 0);

	harness__drain(h, -1);
	r = syscall(SYS_fchdir, 9998);
	harness__drain(h, live__tid());
	EXPECT(r == -1 && errno == EBADF);
	check_fchdir(h, 9998, -EBADF);

	if (fchdir(back))
		perror("fchdir back");
	close(back);
	close(fd);
}

int main(void)
{
	struct harness *h = live__open(256, fs_fd_calls);

	live__tmpdir(dir, sizeof(dir), "fs_fd");
	test_dup(h);
	test_pipe(h);
	test_chdir(h);
	harness__close(h);
	live__rmtree(dir);
	return harness__report("fs_fd");
}
