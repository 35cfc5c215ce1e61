/* mkdir, mkdirat, rmdir, unlink, unlinkat, rename, renameat, renameat2 on the real
 * driver: every param of both events (the enter events are empty but for mkdir's
 * mode, as in sysdig's table), paths as passed, and failing calls. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/stat.h>

#include "fs_live.h"

static char dir[64];

/* The calls checked, each made with syscall(). */
static const int fs_path_calls[] = {
	SYS_mkdir, SYS_mkdirat, SYS_rmdir, SYS_unlink, SYS_unlinkat,
	SYS_rename, SYS_renameat, SYS_renameat2, -1,
};

static void touch(const char *name)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	EXPECT(fd >= 0);
	close(fd);
}

/* The exit event of XTYPE whose string param I is S, with the enter event of
 * XTYPE - 1 right before it; both headers checked. */
static struct hevt *find_exit(struct harness *h, uint16_t xtype, uint32_t i, const char *s)
{
	int64_t tid = live__tid();
	struct hevt *e, *x;
	int at = 0;

	x = live__find_str(h, xtype, i, s, &at);
	EXPECT(x != NULL);
	if (!x)
		return NULL;
	hevt__expect_header(x, xtype, tid);
	e = live__prev(h, x, xtype - 1);
	EXPECT(e != NULL);
	if (e)
		hevt__expect_header(e, xtype - 1, tid);
	return x;
}

static void test_mkdir_rmdir(struct harness *h)
{
	char path[128];
	struct hevt *x, *e;
	long r;

	snprintf(path, sizeof(path), "%s/d", dir);
	harness__drain(h, -1);
	r = syscall(SYS_mkdir, path, 0750);
	harness__drain(h, live__tid());
	EXPECT(r == 0);
	if ((x = find_exit(h, PPME_SYSCALL_MKDIR_2_X, 1, path))) {
		EXPECT_PARAM_INT(x, 0, 0);
		EXPECT_PARAM_STR(x, 1, path);
		e = live__prev(h, x, PPME_SYSCALL_MKDIR_2_E);
		if (e)
			EXPECT_PARAM_INT(e, 0, 0750);
	}
	/* Again: EEXIST. */
	harness__drain(h, -1);
	r = syscall(SYS_mkdir, path, 0700);
	harness__drain(h, live__tid());
	EXPECT(r == -1 && errno == EEXIST);
	if ((x = find_exit(h, PPME_SYSCALL_MKDIR_2_X, 1, path))) {
		EXPECT_PARAM_INT(x, 0, -EEXIST);
		e = live__prev(h, x, PPME_SYSCALL_MKDIR_2_E);
		if (e)
			EXPECT_PARAM_INT(e, 0, 0700);
	}
	harness__drain(h, -1);
	r = syscall(SYS_rmdir, path);
	harness__drain(h, live__tid());
	EXPECT(r == 0);
	if ((x = find_exit(h, PPME_SYSCALL_RMDIR_2_X, 1, path))) {
		EXPECT_PARAM_INT(x, 0, 0);
		EXPECT_PARAM_STR(x, 1, path);
	}
	harness__drain(h, -1);
	r = syscall(SYS_rmdir, path);
	harness__drain(h, live__tid());
	EXPECT(r == -1 && errno == ENOENT);
	if ((x = find_exit(h, PPME_SYSCALL_RMDIR_2_X, 1, path)))
		EXPECT_PARAM_INT(x, 0, -ENOENT);
}

static void test_mkdirat(struct harness *h)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	char path[128];
	struct hevt *x;
	long r;

	harness__drain(h, -1);
	r = syscall(SYS_mkdirat, dfd, "e", 0711);
	harness__drain(h, live__tid());
	EXPECT(r == 0);
	if ((x = find_exit(h, PPME_SYSCALL_MKDIRAT_X, 2, "e"))) {
		EXPECT_PARAM_INT(x, 0, 0);
		EXPECT_PARAM_INT(x, 1, dfd);
		EXPECT_PARAM_STR(x, 2, "e");
		EXPECT_PARAM_INT(x, 3, 0711);
	}
	snprintf(path, sizeof(path), "%s/e", dir);
	harness__drain(h, -1);
	r = syscall(SYS_mkdirat, AT_FDCWD, path, 0755);
	harness__drain(h, live__tid());
	EXPECT(r == -1 && errno == EEXIST);
	if ((x = find_exit(h, PPME_SYSCALL_MKDIRAT_X, 2, path))) {
		EXPECT_PARAM_INT(x, 0, -EEXIST);
		EXPECT_PARAM_INT(x, 1, AT_FDCWD);
		EXPECT_PARAM_STR(x, 2, path);
		EXPECT_PARAM_INT(x, 3, 0755);
	}
	close(dfd);
}

static void test_unlink(struct harness *h)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	char path[128];
	struct hevt *x;
	long r;

	touch("u");
	snprintf(path, sizeof(path), "%s/u", dir);
	harness__drain(h, -1);
	r = syscall(SYS_unlink, path);
	harness__drain(h, live__tid());
	EXPECT(r == 0);
	if ((x = find_exit(h, PPME_SYSCALL_UNLINK_2_X, 1, path))) {
		EXPECT_PARAM_INT(x, 0, 0);
		EXPECT_PARAM_STR(x, 1, path);
	}
	harness__drain(h, -1);
	r = syscall(SYS_unlink, path);
	harness__drain(h, live__tid());
	EXPECT(r == -1 && errno == ENOENT);
	if ((x = find_exit(h, PPME_SYSCALL_UNLINK_2_X, 1, path)))
		EXPECT_PARAM_INT(x, 0, -ENOENT);

	/* unlinkat of a file (flags 0), of a directory (AT_REMOVEDIR), and a directory
	 * without AT_REMOVEDIR (EISDIR). */
	touch("v");
	EXPECT(mkdirat(dfd, "w", 0700) == 0);
	harness__drain(h, -1);
	r = syscall(SYS_unlinkat, dfd, "v", 0);
	EXPECT(r == 0);
	r = syscall(SYS_unlinkat, dfd, "w", 0);
	EXPECT(r == -1 && errno == EISDIR);
	harness__drain(h, live__tid());
	if ((x = find_exit(h, PPME_SYSCALL_UNLINKAT_2_X, 2, "v"))) {
		EXPECT_PARAM_INT(x, 0, 0);
		EXPECT_PARAM_INT(x, 1, dfd);
		EXPECT_PARAM_STR(x, 2, "v");
		EXPECT_PARAM_INT(x, 3, 0);
	}
	if ((x = find_exit(h, PPME_SYSCALL_UNLINKAT_2_X, 2, "w"))) {
		EXPECT_PARAM_INT(x, 0, -EISDIR);
		EXPECT_PARAM_INT(x, 3, 0);
	}
	snprintf(path, sizeof(path), "%s/w", dir);
	harness__drain(h, -1);
	r = syscall(SYS_unlinkat, AT_FDCWD, path, AT_REMOVEDIR);
	harness__drain(h, live__tid());
	EXPECT(r == 0);
	if ((x = find_exit(h, PPME_SYSCALL_UNLINKAT_2_X, 2, path))) {
		EXPECT_PARAM_INT(x, 0, 0);
		EXPECT_PARAM_INT(x, 1, AT_FDCWD);
		EXPECT_PARAM_STR(x, 2, path);
		EXPECT_PARAM_INT(x, 3, PPM_UNLINKAT_FLAGS_AT_REMOVEDIR);
	}
	close(dfd);
}

static void test_rename(struct harness *h)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	char a[128], b[128], c[128];
	struct hevt *x;
	long r;

	touch("ra");
	snprintf(a, sizeof(a), "%s/ra", dir);
	snprintf(b, sizeof(b), "%s/rb", dir);
	snprintf(c, sizeof(c), "%s/rc", dir);
	harness__drain(h, -1);
	r = syscall(SYS_rename, a, b);
	harness__drain(h, live__tid());
	EXPECT(r == 0);
	if ((x = find_exit(h, PPME_SYSCALL_RENAME_X, 1, a))) {
		EXPECT_PARAM_INT(x, 0, 0);
		EXPECT_PARAM_STR(x, 1, a);
		EXPECT_PARAM_STR(x, 2, b);
	}
	harness__drain(h, -1);
	r = syscall(SYS_rename, a, b);
	harness__drain(h, live__tid());
	EXPECT(r == -1 && errno == ENOENT);
	if ((x = find_exit(h, PPME_SYSCALL_RENAME_X, 1, a))) {
		EXPECT_PARAM_INT(x, 0, -ENOENT);
		EXPECT_PARAM_STR(x, 2, b);
	}

	/* renameat: relative old path under dfd, absolute new path at AT_FDCWD. */
	harness__drain(h, -1);
	r = syscall(SYS_renameat, dfd, "rb", AT_FDCWD, c);
	harness__drain(h, live__tid());
	EXPECT(r == 0);
	if ((x = find_exit(h, PPME_SYSCALL_RENAMEAT_X, 2, "rb"))) {
		EXPECT_PARAM_INT(x, 0, 0);
		EXPECT_PARAM_INT(x, 1, dfd);
		EXPECT_PARAM_STR(x, 2, "rb");
		EXPECT_PARAM_INT(x, 3, AT_FDCWD);
		EXPECT_PARAM_STR(x, 4, c);
	}
	harness__drain(h, -1);
	r = syscall(SYS_renameat, dfd, "rb", dfd, "rz");
	harness__drain(h, live__tid());
	EXPECT(r == -1 && errno == ENOENT);
	if ((x = find_exit(h, PPME_SYSCALL_RENAMEAT_X, 2, "rb"))) {
		EXPECT_PARAM_INT(x, 0, -ENOENT);
		EXPECT_PARAM_INT(x, 3, dfd);
		EXPECT_PARAM_STR(x, 4, "rz");
	}

	/* renameat2: NOREPLACE onto an existing name fails with EEXIST, EXCHANGE
	 * swaps two names. */
	touch("rd");
	harness__drain(h, -1);
	r = syscall(SYS_renameat2, dfd, "rc", dfd, "rd", RENAME_NOREPLACE);
	EXPECT(r == -1 && errno == EEXIST);
	r = syscall(SYS_renameat2, dfd, "rc", dfd, "rd", RENAME_EXCHANGE);
	EXPECT(r == 0);
	r = syscall(SYS_renameat2, dfd, "rd", dfd, "re", 0);
	EXPECT(r == 0);
	harness__drain(h, live__tid());
	int at = 0;
	x = live__find_int(h, PPME_SYSCALL_RENAMEAT2_X, 5, PPM_RENAMEAT2_FLAGS_RENAME_NOREPLACE, &at);
	EXPECT(x != NULL);
	if (x) {
		hevt__expect_header(x, PPME_SYSCALL_RENAMEAT2_X, live__tid());
		EXPECT(live__prev(h, x, PPME_SYSCALL_RENAMEAT2_E) != NULL);
		EXPECT_PARAM_INT(x, 0, -EEXIST);
		EXPECT_PARAM_INT(x, 1, dfd);
		EXPECT_PARAM_STR(x, 2, "rc");
		EXPECT_PARAM_INT(x, 3, dfd);
		EXPECT_PARAM_STR(x, 4, "rd");
	}
	x = live__find_int(h, PPME_SYSCALL_RENAMEAT2_X, 5, PPM_RENAMEAT2_FLAGS_RENAME_EXCHANGE, &at);
	EXPECT(x != NULL);
	if (x) {
		hevt__expect_header(x, PPME_SYSCALL_RENAMEAT2_X, live__tid());
		EXPECT(live__prev(h, x, PPME_SYSCALL_RENAMEAT2_E) != NULL);
		EXPECT_PARAM_INT(x, 0, 0);
		EXPECT_PARAM_STR(x, 2, "rc");
		EXPECT_PARAM_STR(x, 4, "rd");
	}
	if ((x = find_exit(h, PPME_SYSCALL_RENAMEAT2_X, 2, "rd"))) {
		EXPECT_PARAM_INT(x, 0, 0);
		EXPECT_PARAM_STR(x, 4, "re");
		EXPECT_PARAM_INT(x, 5, 0);
	}
	close(dfd);
}

int main(void)
{
	struct harness *h = live__open(256, fs_path_calls);

	live__tmpdir(dir, sizeof(dir), "fs_path");
	test_mkdir_rmdir(h);
	test_mkdirat(h);
	test_unlink(h);
	test_rename(h);
	harness__close(h);
	live__rmtree(dir);
	return harness__report("fs_path");
}
