/* chmod, fchmod, fchmodat on the real driver: every param of both events (the
 * enter events are empty, as in sysdig's table), the mode as passed but for the
 * file type bits, failing calls. */
#include <fcntl.h>
#include <sys/stat.h>

#include "meta_live.h"

/* The calls checked, each made with syscall(). */
static const int meta_chmod_calls[] = { SYS_chmod, SYS_fchmod, SYS_fchmodat, -1 };

/* The result must be WANT and the file's mode WANT_MODE afterwards (when WANT is
 * 0); the exit's res param WANT. */
static void check_res(long r, long want, const char *path, mode_t want_mode)
{
	struct stat st;

	EXPECT(r == (want < 0 ? -1 : want));
	if (want < 0)
		EXPECT(meta_errno == -want);
	else
		EXPECT(stat(path, &st) == 0 && (st.st_mode & 07777) == want_mode);
}

static void chmod_case(struct harness *h, const char *path, mode_t mode, long want)
{
	struct hevt *e, *x;
	long r;

	META_CALL(h, r, syscall(SYS_chmod, path, mode));
	check_res(r, want, file, mode & 07777);
	if ((x = meta__exit_str(h, PPME_SYSCALL_CHMOD_X, 1, path, &e))) {
		EXPECT_PARAM_INT(x, 0, want);
		EXPECT_PARAM_STR(x, 1, path);
		EXPECT_PARAM_INT(x, 2, mode & 07777);
	}
}

static void fchmod_case(struct harness *h, int fd, mode_t mode, long want)
{
	struct hevt *e, *x;
	long r;

	META_CALL(h, r, syscall(SYS_fchmod, fd, mode));
	check_res(r, want, file, mode & 07777);
	if ((x = meta__exit(h, PPME_SYSCALL_FCHMOD_X, &e))) {
		EXPECT_PARAM_INT(x, 0, want);
		EXPECT_PARAM_INT(x, 1, fd);
		EXPECT_PARAM_INT(x, 2, mode & 07777);
	}
}

static void fchmodat_case(struct harness *h, int dfd, const char *path, mode_t mode, long want)
{
	struct hevt *e, *x;
	long r;

	META_CALL(h, r, syscall(SYS_fchmodat, dfd, path, mode));
	check_res(r, want, file, mode & 07777);
	if ((x = meta__exit_str(h, PPME_SYSCALL_FCHMODAT_X, 2, path, &e))) {
		EXPECT_PARAM_INT(x, 0, want);
		EXPECT_PARAM_INT(x, 1, dfd);
		EXPECT_PARAM_STR(x, 2, path);
		EXPECT_PARAM_INT(x, 3, mode & 07777);
	}
}

static void test_chmod(struct harness *h)
{
	chmod_case(h, file, 0640, 0);
	chmod_case(h, file, 04755, 0);
	/* The file type bits are not part of the mode sent. */
	chmod_case(h, file, S_IFREG | 0600, 0);
	chmod_case(h, missing, 0644, -ENOENT);
}

static void test_fchmod(struct harness *h)
{
	int fd = open(file, O_RDONLY), dfd = open(dir, O_RDONLY | O_DIRECTORY | O_PATH);

	fchmod_case(h, fd, 02750, 0);
	fchmod_case(h, fd, 01777, 0);
	fchmod_case(h, 9999, 0600, -EBADF);
	/* An O_PATH fd is not enough for fchmod. */
	fchmod_case(h, dfd, 0700, -EBADF);
	close(dfd);
	close(fd);
}

static void test_fchmodat(struct harness *h)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);

	fchmodat_case(h, dfd, "f", 0604, 0);
	fchmodat_case(h, AT_FDCWD, file, 06711, 0);
	fchmodat_case(h, dfd, "missing", 0644, -ENOENT);
	fchmodat_case(h, 9999, "f", 0644, -EBADF);
	fchmodat_case(h, AT_FDCWD, file, 0600, 0);
	close(dfd);
}

int main(void)
{
	struct harness *h = live__open(256, meta_chmod_calls);

	meta__scratch("meta_chmod", "", 0);
	test_chmod(h);
	test_fchmod(h);
	test_fchmodat(h);
	harness__close(h);
	live__rmtree(dir);
	return harness__report("meta_chmod");
}
