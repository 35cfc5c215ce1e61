/* open, creat, openat, openat2 on the real driver: every param of both events,
 * flag conversion to PPM bits, mode only with O_CREAT/O_TMPFILE, the device of the
 * opened file, and failing calls. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "fs_live.h"

/* The kernel's O_LARGEFILE on x86_64: glibc's is 0 there (always implied). */
#define K_O_LARGEFILE 0100000

static char dir[64];

/* The calls checked, each made with syscall(). */
static const int fs_open_calls[] = { SYS_open, SYS_creat, SYS_openat, SYS_openat2, -1 };

/* What the dev param must hold for PATH. The kernel keeps a superblock's s_dev as
 * MKDEV (major << 20 | minor); stat(2) reports it through new_encode_dev()
 * ((minor & 0xff) | (major << 8) | ((minor & ~0xff) << 12)), and sysdig sends that
 * same encoding, so the param equals the low 32 bits of stat's st_dev. Computed here
 * from major/minor explicitly so that a driver sending the raw MKDEV would fail. */
static uint32_t expected_dev(const char *path)
{
	struct stat st;
	uint32_t ma, mi, enc;

	if (stat(path, &st)) {
		perror(path);
		exit(1);
	}
	ma = major(st.st_dev);
	mi = minor(st.st_dev);
	enc = (mi & 0xff) | (ma << 8) | ((mi & ~0xffu) << 12);
	EXPECT(enc == (uint32_t)st.st_dev);
	EXPECT(enc != ((ma << 20) | mi) || (ma == 0 && mi < 256));
	return enc;
}

/* open(2) with known flags and mode: the enter and exit events of PATH. */
static void check_open(struct harness *h, const char *path, int flags, int mode,
		       uint32_t want_flags, uint32_t want_mode)
{
	int64_t tid = live__tid();
	long fd;
	struct hevt *e, *x;
	int at = 0;

	harness__drain(h, -1);
	fd = syscall(SYS_open, path, flags, mode);
	harness__drain(h, tid);
	e = live__find_str(h, PPME_SYSCALL_OPEN_E, 0, path, &at);
	EXPECT(e != NULL);
	if (!e)
		goto cleanup;
	hevt__expect_header(e, PPME_SYSCALL_OPEN_E, tid);
	EXPECT_PARAM_STR(e, 0, path);
	EXPECT_PARAM_INT(e, 1, want_flags);
	EXPECT_PARAM_INT(e, 2, want_mode);
	x = live__next(h, e, PPME_SYSCALL_OPEN_X);
	EXPECT(x != NULL);
	if (!x)
		goto cleanup;
	hevt__expect_header(x, PPME_SYSCALL_OPEN_X, tid);
	EXPECT_PARAM_INT(x, 0, fd < 0 ? -errno : fd);
	EXPECT_PARAM_STR(x, 1, path);
	EXPECT_PARAM_INT(x, 2, want_flags);
	EXPECT_PARAM_INT(x, 3, want_mode);
	EXPECT_PARAM_INT(x, 4, fd < 0 ? 0 : expected_dev(path));
cleanup:
	if (fd >= 0)
		close(fd);
}

static void test_open(struct harness *h)
{
	char path[128], missing[128];

	snprintf(path, sizeof(path), "%s/a", dir);
	snprintf(missing, sizeof(missing), "%s/missing", dir);
	/* Creating: every creation flag, the mode kept (no umask applied). */
	check_open(h, path, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC | O_APPEND | O_CLOEXEC | O_NONBLOCK,
		   0640,
		   PPM_FILE_FLAGS_O_WRONLY | PPM_FILE_FLAGS_O_CREAT | PPM_FILE_FLAGS_O_EXCL |
		   PPM_FILE_FLAGS_O_TRUNC | PPM_FILE_FLAGS_O_APPEND | PPM_FILE_FLAGS_O_CLOEXEC |
		   PPM_FILE_FLAGS_O_NONBLOCK, 0640);
	/* O_RDONLY is 0 natively but PPM bit 1; a mode without O_CREAT is sent as 0. */
	check_open(h, path, O_RDONLY, 0777, PPM_FILE_FLAGS_O_RDONLY, 0);
	/* O_SYNC is __O_SYNC | O_DSYNC: both PPM bits. Flags outside the flagset
	 * (O_NOFOLLOW, O_NOATIME) are not sent. */
	check_open(h, path, O_RDWR | O_SYNC | K_O_LARGEFILE | O_NOFOLLOW | O_NOATIME, 0,
		   PPM_FILE_FLAGS_O_RDWR | PPM_FILE_FLAGS_O_SYNC | PPM_FILE_FLAGS_O_DSYNC |
		   PPM_FILE_FLAGS_O_LARGEFILE, 0);
	check_open(h, path, O_WRONLY | O_DSYNC | O_DIRECT, 0,
		   PPM_FILE_FLAGS_O_WRONLY | PPM_FILE_FLAGS_O_DSYNC | PPM_FILE_FLAGS_O_DIRECT, 0);
	/* A directory is not a tmpfile although O_TMPFILE contains O_DIRECTORY. */
	check_open(h, dir, O_RDONLY | O_DIRECTORY, 0755,
		   PPM_FILE_FLAGS_O_RDONLY | PPM_FILE_FLAGS_O_DIRECTORY, 0);
	check_open(h, dir, O_RDWR | O_TMPFILE, 0600,
		   PPM_FILE_FLAGS_O_RDWR | PPM_FILE_FLAGS_O_TMPFILE | PPM_FILE_FLAGS_O_DIRECTORY, 0600);
	/* Failing: fd = -ENOENT and dev 0. */
	check_open(h, missing, O_RDONLY, 0, PPM_FILE_FLAGS_O_RDONLY, 0);
	/* Another filesystem has another device (devtmpfs or the container's /dev). */
	check_open(h, "/dev/null", O_WRONLY, 0, PPM_FILE_FLAGS_O_WRONLY, 0);
	EXPECT(expected_dev("/dev/null") != expected_dev(dir));
}

static void test_creat(struct harness *h)
{
	int64_t tid = live__tid();
	char path[128];
	long fd;
	struct hevt *e, *x;
	int at = 0;

	snprintf(path, sizeof(path), "%s/c", dir);
	harness__drain(h, -1);
	fd = syscall(SYS_creat, path, 0604);
	harness__drain(h, tid);
	EXPECT(fd >= 0);
	e = live__find_str(h, PPME_SYSCALL_CREAT_E, 0, path, &at);
	EXPECT(e != NULL);
	if (e) {
		hevt__expect_header(e, PPME_SYSCALL_CREAT_E, tid);
		EXPECT_PARAM_STR(e, 0, path);
		EXPECT_PARAM_INT(e, 1, 0604);
		x = live__next(h, e, PPME_SYSCALL_CREAT_X);
		EXPECT(x != NULL);
		if (x) {
			hevt__expect_header(x, PPME_SYSCALL_CREAT_X, tid);
			EXPECT_PARAM_INT(x, 0, fd);
			EXPECT_PARAM_STR(x, 1, path);
			EXPECT_PARAM_INT(x, 2, 0604);
			EXPECT_PARAM_INT(x, 3, expected_dev(path));
		}
	}
	close(fd);

	/* Failing: a path in a directory that does not exist. */
	snprintf(path, sizeof(path), "%s/nodir/c", dir);
	harness__drain(h, -1);
	fd = syscall(SYS_creat, path, 0600);
	harness__drain(h, tid);
	EXPECT(fd == -1 && errno == ENOENT);
	at = 0;
	x = live__find_str(h, PPME_SYSCALL_CREAT_X, 1, path, &at);
	EXPECT(x != NULL);
	if (x) {
		hevt__expect_header(x, PPME_SYSCALL_CREAT_X, tid);
		EXPECT_PARAM_INT(x, 0, -ENOENT);
		EXPECT_PARAM_INT(x, 2, 0600);
		EXPECT_PARAM_INT(x, 3, 0);
		EXPECT(live__prev(h, x, PPME_SYSCALL_CREAT_E) != NULL);
	}
}

/* openat(dirfd, name, ...): dirfd and the path as passed (relative kept). */
static void check_openat(struct harness *h, int dirfd, const char *name, int flags, int mode,
			 uint32_t want_flags, uint32_t want_mode, const char *statpath)
{
	int64_t tid = live__tid();
	long fd;
	struct hevt *e, *x;
	int at = 0;

	harness__drain(h, -1);
	fd = syscall(SYS_openat, dirfd, name, flags, mode);
	harness__drain(h, tid);
	e = live__find_str(h, PPME_SYSCALL_OPENAT_2_E, 1, name, &at);
	EXPECT(e != NULL);
	if (!e)
		goto cleanup;
	hevt__expect_header(e, PPME_SYSCALL_OPENAT_2_E, tid);
	EXPECT_PARAM_INT(e, 0, dirfd);
	EXPECT_PARAM_STR(e, 1, name);
	EXPECT_PARAM_INT(e, 2, want_flags);
	EXPECT_PARAM_INT(e, 3, want_mode);
	x = live__next(h, e, PPME_SYSCALL_OPENAT_2_X);
	EXPECT(x != NULL);
	if (!x)
		goto cleanup;
	hevt__expect_header(x, PPME_SYSCALL_OPENAT_2_X, tid);
	EXPECT_PARAM_INT(x, 0, fd < 0 ? -errno : fd);
	EXPECT_PARAM_INT(x, 1, dirfd);
	EXPECT_PARAM_STR(x, 2, name);
	EXPECT_PARAM_INT(x, 3, want_flags);
	EXPECT_PARAM_INT(x, 4, want_mode);
	EXPECT_PARAM_INT(x, 5, fd < 0 ? 0 : expected_dev(statpath));
cleanup:
	if (fd >= 0)
		close(fd);
}

static void test_openat(struct harness *h)
{
	char path[128];
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);

	snprintf(path, sizeof(path), "%s/b", dir);
	check_openat(h, dfd, "b", O_RDWR | O_CREAT, 0644,
		     PPM_FILE_FLAGS_O_RDWR | PPM_FILE_FLAGS_O_CREAT, 0644, path);
	/* AT_FDCWD (-100) is sent as PPM_AT_FDCWD, the same value. */
	check_openat(h, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0,
		     PPM_FILE_FLAGS_O_RDONLY | PPM_FILE_FLAGS_O_CLOEXEC, 0, path);
	check_openat(h, dfd, "nothere", O_WRONLY, 0, PPM_FILE_FLAGS_O_WRONLY, 0, NULL);
	close(dfd);
}

/* openat2(dirfd, name, how): flags, mode and resolve from struct open_how. */
static void check_openat2(struct harness *h, int dirfd, const char *name, const struct open_how *how,
			  uint32_t want_flags, uint32_t want_mode, uint32_t want_resolve)
{
	int64_t tid = live__tid();
	long fd;
	struct hevt *e, *x;
	int at = 0;

	harness__drain(h, -1);
	fd = syscall(SYS_openat2, dirfd, name, how, sizeof(*how));
	harness__drain(h, tid);
	e = live__find_str(h, PPME_SYSCALL_OPENAT2_E, 1, name, &at);
	EXPECT(e != NULL);
	if (!e)
		goto cleanup;
	hevt__expect_header(e, PPME_SYSCALL_OPENAT2_E, tid);
	EXPECT_PARAM_INT(e, 0, dirfd);
	EXPECT_PARAM_STR(e, 1, name);
	EXPECT_PARAM_INT(e, 2, want_flags);
	EXPECT_PARAM_INT(e, 3, want_mode);
	EXPECT_PARAM_INT(e, 4, want_resolve);
	x = live__next(h, e, PPME_SYSCALL_OPENAT2_X);
	EXPECT(x != NULL);
	if (!x)
		goto cleanup;
	hevt__expect_header(x, PPME_SYSCALL_OPENAT2_X, tid);
	EXPECT_PARAM_INT(x, 0, fd < 0 ? -errno : fd);
	EXPECT_PARAM_INT(x, 1, dirfd);
	EXPECT_PARAM_STR(x, 2, name);
	EXPECT_PARAM_INT(x, 3, want_flags);
	EXPECT_PARAM_INT(x, 4, want_mode);
	EXPECT_PARAM_INT(x, 5, want_resolve);
cleanup:
	if (fd >= 0)
		close(fd);
}

static void test_openat2(struct harness *h)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	struct open_how create = {
		.flags = O_WRONLY | O_CREAT | O_TRUNC, .mode = 0600,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS,
	};
	struct open_how inroot = {
		.flags = O_RDONLY, .mode = 0,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS,
	};
	struct open_how cached = { .flags = O_RDONLY, .resolve = RESOLVE_CACHED };

	check_openat2(h, dfd, "o2", &create,
		      PPM_FILE_FLAGS_O_WRONLY | PPM_FILE_FLAGS_O_CREAT | PPM_FILE_FLAGS_O_TRUNC, 0600,
		      PPM_OPENAT2_FLAGS_RESOLVE_BENEATH | PPM_OPENAT2_FLAGS_RESOLVE_NO_SYMLINKS);
	check_openat2(h, dfd, "o2", &inroot, PPM_FILE_FLAGS_O_RDONLY, 0,
		      PPM_OPENAT2_FLAGS_RESOLVE_IN_ROOT | PPM_OPENAT2_FLAGS_RESOLVE_NO_XDEV |
		      PPM_OPENAT2_FLAGS_RESOLVE_NO_MAGICLINKS);
	check_openat2(h, AT_FDCWD, "/nonexistent/o2", &cached, PPM_FILE_FLAGS_O_RDONLY, 0,
		      PPM_OPENAT2_FLAGS_RESOLVE_CACHED);
	/* RESOLVE_BENEATH refuses an escape: EXDEV, still fully described. */
	check_openat2(h, dfd, "../o2", &create,
		      PPM_FILE_FLAGS_O_WRONLY | PPM_FILE_FLAGS_O_CREAT | PPM_FILE_FLAGS_O_TRUNC, 0600,
		      PPM_OPENAT2_FLAGS_RESOLVE_BENEATH | PPM_OPENAT2_FLAGS_RESOLVE_NO_SYMLINKS);
	close(dfd);
}

int main(void)
{
	struct harness *h = live__open(256, fs_open_calls);

	live__tmpdir(dir, sizeof(dir), "fs_open");
	test_open(h);
	test_creat(h);
	test_openat(h);
	test_openat2(h);
	harness__close(h);
	live__rmtree(dir);
	return harness__report("fs_open");
}
