/* getdents, getdents64, getcwd, chroot on the real driver: every param of both
 * events and failing calls (a failed getcwd sends "" as its path). */
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include "meta_live.h"

/* The calls checked, each made with syscall(). */
static const int meta_dir_calls[] = { SYS_getdents, SYS_getdents64, SYS_getcwd, SYS_chroot, -1 };

/* getdents or getdents64 (NR) of SIZE bytes on FD: the enter has the fd, the exit
 * the call's result, which must be WANT (or > 0 when WANT is 1). */
static void dents_case(struct harness *h, long nr, int fd, unsigned int size, long want)
{
	uint16_t xtype = nr == SYS_getdents ? PPME_SYSCALL_GETDENTS_X : PPME_SYSCALL_GETDENTS64_X;
	static char buf[4096];
	struct hevt *e, *x;
	long r;

	META_CALL(h, r, syscall(nr, fd, buf, size));
	if (want < 0)
		EXPECT(r == -1 && meta_errno == -want);
	else
		EXPECT(want == 1 ? r > 0 : r == want);
	if ((x = meta__exit(h, xtype, &e))) {
		EXPECT_PARAM_INT(e, 0, fd);
		EXPECT_PARAM_INT(x, 0, r < 0 ? -meta_errno : r);
	}
}

static void test_getdents(struct harness *h)
{
	long nrs[] = { SYS_getdents, SYS_getdents64 };

	for (int i = 0; i < 2; i++) {
		int fd = open(dir, O_RDONLY | O_DIRECTORY);

		dents_case(h, nrs[i], fd, 4096, 1);
		/* The end of the directory, then a buffer too small for one entry. */
		dents_case(h, nrs[i], fd, 4096, 0);
		EXPECT(lseek(fd, 0, SEEK_SET) == 0);
		dents_case(h, nrs[i], fd, 1, -EINVAL);
		dents_case(h, nrs[i], 9999, 4096, -EBADF);
		close(fd);
		/* A file is not a directory. */
		fd = open("/proc/self/stat", O_RDONLY);
		dents_case(h, nrs[i], fd, 4096, -ENOTDIR);
		close(fd);
	}
}

static void test_getcwd(struct harness *h)
{
	char buf[PATH_MAX], old[PATH_MAX];
	struct hevt *e, *x;
	long r;

	EXPECT(getcwd(old, sizeof(old)) != NULL && chdir(dir) == 0);
	META_CALL(h, r, syscall(SYS_getcwd, buf, sizeof(buf)));
	EXPECT(r == (long)strlen(dir) + 1);
	if ((x = meta__exit(h, PPME_SYSCALL_GETCWD_X, &e))) {
		EXPECT_PARAM_INT(x, 0, strlen(dir) + 1);
		EXPECT_PARAM_STR(x, 1, dir);
	}
	/* Too small: ERANGE, and not what the buffer held before. */
	strcpy(buf, "stale");
	META_CALL(h, r, syscall(SYS_getcwd, buf, 4));
	EXPECT(r == -1 && meta_errno == ERANGE);
	if ((x = meta__exit(h, PPME_SYSCALL_GETCWD_X, &e))) {
		EXPECT_PARAM_INT(x, 0, -ERANGE);
		EXPECT_PARAM_STR(x, 1, "");
	}
	META_CALL(h, r, syscall(SYS_getcwd, (void *)8, sizeof(buf)));
	EXPECT(r == -1 && meta_errno == EFAULT);
	if ((x = meta__exit(h, PPME_SYSCALL_GETCWD_X, &e))) {
		EXPECT_PARAM_INT(x, 0, -EFAULT);
		EXPECT_PARAM_STR(x, 1, "");
	}
	EXPECT(chdir(old) == 0);
}

static void chroot_case(struct harness *h, const char *path, long want)
{
	struct hevt *e, *x;
	long r;

	META_CALL(h, r, syscall(SYS_chroot, path));
	EXPECT(r == (want < 0 ? -1 : want));
	if (want < 0)
		EXPECT(meta_errno == -want);
	if ((x = meta__exit_str(h, PPME_SYSCALL_CHROOT_X, 1, path, &e))) {
		EXPECT_PARAM_INT(x, 0, want);
		EXPECT_PARAM_STR(x, 1, path);
	}
}

/* chroot to "/" leaves the root as it was; the others fail. */
static void test_chroot(struct harness *h)
{
	int fd;

	chroot_case(h, "/", 0);
	chroot_case(h, missing, -ENOENT);
	chroot_case(h, file, -ENOTDIR);
	/* A relative path is sent as passed. */
	fd = open(".", O_RDONLY | O_DIRECTORY);
	EXPECT(chdir("/") == 0);
	chroot_case(h, "no/such/dir", -ENOENT);
	EXPECT(fchdir(fd) == 0);
	close(fd);
}

int main(void)
{
	struct harness *h = live__open(256, meta_dir_calls);

	meta__scratch("meta_dir", "", 0);
	test_getdents(h);
	test_getcwd(h);
	test_chroot(h);
	harness__close(h);
	live__rmtree(dir);
	return harness__report("meta_dir");
}
