/* stat, lstat, fstat, access on the real driver: every param of both events
 * (stat's and lstat's enter events are empty, as in sysdig's table), failing
 * calls, and a path whose page is not yet faulted in when the call starts. */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "meta_live.h"

static char link_path[128];

/* The calls checked, each made with syscall(). */
static const int meta_stat_calls[] = { SYS_stat, SYS_lstat, SYS_fstat, SYS_access, -1 };

/* A stat-like call on PATH: the exit has RES and PATH, the enter no params. */
static void check_res_path(struct harness *h, uint16_t xtype, long r, long want, const char *path)
{
	struct hevt *e, *x;

	EXPECT(r == (want < 0 ? -1 : want));
	if (want < 0)
		EXPECT(meta_errno == -want);
	if ((x = meta__exit_str(h, xtype, 1, path, &e))) {
		EXPECT_PARAM_INT(x, 0, want);
		EXPECT_PARAM_STR(x, 1, path);
	}
}

static void test_stat_lstat(struct harness *h)
{
	char notdir[160];
	struct stat st;
	long r;

	META_CALL(h, r, syscall(SYS_stat, file, &st));
	check_res_path(h, PPME_SYSCALL_STAT_X, r, 0, file);
	META_CALL(h, r, syscall(SYS_stat, missing, &st));
	check_res_path(h, PPME_SYSCALL_STAT_X, r, -ENOENT, missing);
	snprintf(notdir, sizeof(notdir), "%s/x", file);
	META_CALL(h, r, syscall(SYS_stat, notdir, &st));
	check_res_path(h, PPME_SYSCALL_STAT_X, r, -ENOTDIR, notdir);
	/* A bad buffer: the path is still sent. */
	META_CALL(h, r, syscall(SYS_stat, file, (void *)8));
	check_res_path(h, PPME_SYSCALL_STAT_X, r, -EFAULT, file);

	META_CALL(h, r, syscall(SYS_lstat, link_path, &st));
	check_res_path(h, PPME_SYSCALL_LSTAT_X, r, 0, link_path);
	EXPECT(S_ISLNK(st.st_mode));
	META_CALL(h, r, syscall(SYS_lstat, missing, &st));
	check_res_path(h, PPME_SYSCALL_LSTAT_X, r, -ENOENT, missing);
}

/* The path lives in a page of a file mapping nobody has touched: unreadable for a
 * probe when the call starts, faulted in by the kernel before it returns. */
static void test_unfaulted_path(struct harness *h)
{
	char holder[160];
	struct stat st;
	char *p;
	long r;
	int fd;

	snprintf(holder, sizeof(holder), "%s/holder", dir);
	fd = open(holder, O_RDWR | O_CREAT, 0600);
	EXPECT(fd >= 0 && write(fd, file, strlen(file) + 1) == (ssize_t)strlen(file) + 1);
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	EXPECT(p != MAP_FAILED);
	if (p == MAP_FAILED)
		return;
	META_CALL(h, r, syscall(SYS_stat, p, &st));
	check_res_path(h, PPME_SYSCALL_STAT_X, r, 0, file);
	munmap(p, 4096);
	close(fd);
}

static void check_fstat(struct harness *h, int fd, long want)
{
	struct hevt *e, *x;

	if ((x = meta__exit(h, PPME_SYSCALL_FSTAT_X, &e))) {
		EXPECT_PARAM_INT(e, 0, fd);
		EXPECT_PARAM_INT(x, 0, want);
	}
}

static void test_fstat(struct harness *h)
{
	int fd = open(file, O_RDONLY);
	struct stat st;
	long r;

	META_CALL(h, r, syscall(SYS_fstat, fd, &st));
	EXPECT(r == 0 && st.st_size == 5);
	check_fstat(h, fd, 0);
	META_CALL(h, r, syscall(SYS_fstat, 9999, &st));
	EXPECT(r == -1 && meta_errno == EBADF);
	check_fstat(h, 9999, -EBADF);
	META_CALL(h, r, syscall(SYS_fstat, fd, (void *)8));
	EXPECT(r == -1 && meta_errno == EFAULT);
	check_fstat(h, fd, -EFAULT);
	close(fd);
}

static void check_access(struct harness *h, long r, long want, const char *path, uint32_t mode)
{
	struct hevt *e, *x;

	check_res_path(h, PPME_SYSCALL_ACCESS_X, r, want, path);
	if ((x = meta__exit_str(h, PPME_SYSCALL_ACCESS_X, 1, path, &e)))
		EXPECT_PARAM_INT(e, 0, mode);
}

static void test_access(struct harness *h)
{
	long r;

	META_CALL(h, r, syscall(SYS_access, file, R_OK | W_OK));
	check_access(h, r, 0, file, PPM_ACCESS_FLAGS_R_OK | PPM_ACCESS_FLAGS_W_OK);
	META_CALL(h, r, syscall(SYS_access, file, F_OK));
	check_access(h, r, 0, file, PPM_ACCESS_FLAGS_F_OK);
	/* Even root needs one x bit for X_OK: the file is 0600. */
	META_CALL(h, r, syscall(SYS_access, file, X_OK));
	check_access(h, r, -EACCES, file, PPM_ACCESS_FLAGS_X_OK);
	META_CALL(h, r, syscall(SYS_access, missing, R_OK | X_OK));
	check_access(h, r, -ENOENT, missing, PPM_ACCESS_FLAGS_R_OK | PPM_ACCESS_FLAGS_X_OK);
	/* A bad mode is EINVAL; only the known bits are sent. */
	META_CALL(h, r, syscall(SYS_access, file, 0x10 | W_OK));
	check_access(h, r, -EINVAL, file, PPM_ACCESS_FLAGS_W_OK);
}

int main(void)
{
	struct harness *h = live__open(256, meta_stat_calls);

	meta__scratch("meta_stat", "hello", 5);
	snprintf(link_path, sizeof(link_path), "%s/l", dir);
	EXPECT(symlink(file, link_path) == 0);
	test_stat_lstat(h);
	test_unfaulted_path(h);
	test_fstat(h);
	test_access(h);
	harness__close(h);
	live__rmtree(dir);
	return harness__report("meta_stat");
}
