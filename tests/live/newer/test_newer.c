/* The agent's own events (codes 336 and up) on the real driver: for each call,
 * one that succeeds and one that fails, the enter event (header only) and every
 * param of the exit event. */
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "../fs/fs_live.h"

#ifndef AT_EACCESS
#define AT_EACCESS 0x200
#endif

static struct harness *h;
static char dir[64];

/* The calls checked, each made with syscall(). */
static const int newer_calls[] = {
	SYS_memfd_create, SYS_statx, SYS_faccessat2, SYS_pidfd_open, SYS_pidfd_getfd,
	SYS_process_vm_readv, SYS_process_vm_writev, SYS_init_module, SYS_finit_module,
	SYS_io_uring_setup, SYS_close_range, SYS_open_tree, SYS_mount_setattr, SYS_move_mount,
	-1,
};

/* Drains, runs the call (RESULT), drains this thread's events. */
#define RUN(call)                              \
	({                                     \
		long __r;                      \
		harness__drain(h, -1);         \
		__r = (call);                  \
		if (__r < 0)                   \
			__r = -errno;          \
		harness__drain(h, live__tid()); \
		__r;                           \
	})

/* The exit event of TYPE (the last one) after its enter, both headers checked. */
static struct hevt *exit_of(uint16_t type)
{
	struct hevt *x = NULL, *e;
	int at = 0;

	while ((e = harness__find(h, type, &at)))
		x = e, at++;
	EXPECT(x != NULL);
	if (!x)
		return NULL;
	hevt__expect_header(x, type, live__tid());
	e = live__prev(h, x, type - 1);
	EXPECT(e != NULL);
	if (e) {
		hevt__expect_header(e, type - 1, live__tid());
		EXPECT(e->p.n == 0);
	}
	return x;
}

static void test_memfd(void)
{
	long r = RUN(syscall(SYS_memfd_create, "agent-memfd", MFD_CLOEXEC | MFD_ALLOW_SEALING));
	struct hevt *x = exit_of(PPME_SYSCALL_MEMFD_CREATE_X);

	EXPECT(r >= 0);
	if (x) {
		EXPECT_PARAM_INT(x, 0, r);
		EXPECT_PARAM_STR(x, 1, "agent-memfd");
		EXPECT_PARAM_INT(x, 2, 3);
	}
	close(r);
	r = RUN(syscall(SYS_memfd_create, "bad", 0x4000));	/* unknown flag */
	x = exit_of(PPME_SYSCALL_MEMFD_CREATE_X);
	EXPECT(r == -EINVAL);
	if (x) {
		EXPECT_PARAM_INT(x, 0, -EINVAL);
		EXPECT_PARAM_STR(x, 1, "bad");
		EXPECT_PARAM_INT(x, 2, 0);
	}
}

static void check_res_dirfd_path(struct hevt *x, long res, long dirfd, const char *path)
{
	EXPECT_PARAM_INT(x, 0, res);
	EXPECT_PARAM_INT(x, 1, dirfd);
	EXPECT_PARAM_STR(x, 2, path);
}

static void test_statx_faccessat2(void)
{
	struct statx st;
	long r = RUN(syscall(SYS_statx, AT_FDCWD, dir, AT_SYMLINK_NOFOLLOW, STATX_MODE, &st));
	struct hevt *x = exit_of(PPME_SYSCALL_STATX_X);

	EXPECT(r == 0);
	if (x) {
		check_res_dirfd_path(x, 0, -100, dir);
		EXPECT_PARAM_INT(x, 3, AT_SYMLINK_NOFOLLOW);
		EXPECT_PARAM_INT(x, 4, STATX_MODE);
	}
	r = RUN(syscall(SYS_statx, 9999, "rel", 0, STATX_ALL, &st));
	x = exit_of(PPME_SYSCALL_STATX_X);
	EXPECT(r == -EBADF);
	if (x) {
		check_res_dirfd_path(x, -EBADF, 9999, "rel");
		EXPECT_PARAM_INT(x, 3, 0);
		EXPECT_PARAM_INT(x, 4, STATX_ALL);
	}

	r = RUN(syscall(SYS_faccessat2, AT_FDCWD, dir, R_OK | X_OK, AT_EACCESS));
	x = exit_of(PPME_SYSCALL_FACCESSAT2_X);
	EXPECT(r == 0);
	if (x) {
		check_res_dirfd_path(x, 0, -100, dir);
		EXPECT_PARAM_INT(x, 3, R_OK | X_OK);
		EXPECT_PARAM_INT(x, 4, AT_EACCESS);
	}
	r = RUN(syscall(SYS_faccessat2, AT_FDCWD, "/nonexistent/agent", W_OK, 0));
	x = exit_of(PPME_SYSCALL_FACCESSAT2_X);
	EXPECT(r == -ENOENT);
	if (x) {
		check_res_dirfd_path(x, -ENOENT, -100, "/nonexistent/agent");
		EXPECT_PARAM_INT(x, 3, W_OK);
		EXPECT_PARAM_INT(x, 4, 0);
	}
}

static void test_pidfd(void)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	long pidfd = RUN(syscall(SYS_pidfd_open, getpid(), O_NONBLOCK));
	struct hevt *x = exit_of(PPME_SYSCALL_PIDFD_OPEN_X);
	long r;

	EXPECT(pidfd >= 0);
	if (x) {
		EXPECT_PARAM_INT(x, 0, pidfd);
		EXPECT_PARAM_INT(x, 1, getpid());
		EXPECT_PARAM_INT(x, 2, PPM_FILE_FLAGS_O_NONBLOCK);
	}
	r = RUN(syscall(SYS_pidfd_open, 0x3ffffff0, 0));
	x = exit_of(PPME_SYSCALL_PIDFD_OPEN_X);
	EXPECT(r == -ESRCH);
	if (x) {
		EXPECT_PARAM_INT(x, 0, -ESRCH);
		EXPECT_PARAM_INT(x, 1, 0x3ffffff0);
		EXPECT_PARAM_INT(x, 2, 0);
	}

	r = RUN(syscall(SYS_pidfd_getfd, pidfd, fd, 0));
	x = exit_of(PPME_SYSCALL_PIDFD_GETFD_X);
	EXPECT(r >= 0);
	if (x) {
		EXPECT_PARAM_INT(x, 0, r);
		EXPECT_PARAM_INT(x, 1, pidfd);
		EXPECT_PARAM_INT(x, 2, fd);
		EXPECT_PARAM_INT(x, 3, 0);
	}
	close(r);
	r = RUN(syscall(SYS_pidfd_getfd, pidfd, 9999, 0));
	x = exit_of(PPME_SYSCALL_PIDFD_GETFD_X);
	EXPECT(r == -EBADF);
	if (x) {
		EXPECT_PARAM_INT(x, 0, -EBADF);
		EXPECT_PARAM_INT(x, 2, 9999);
	}
	close(pidfd);
	close(fd);
}

static void test_vm_rw(void)
{
	char src[16] = "agent-vm", dst[16] = { 0 };
	struct iovec l = { dst, sizeof(dst) }, rm = { src, sizeof(src) };
	long r = RUN(syscall(SYS_process_vm_readv, getpid(), &l, 1, &rm, 1, 0));
	struct hevt *x = exit_of(PPME_SYSCALL_PROCESS_VM_READV_X);

	EXPECT(r == sizeof(src) && strcmp(dst, "agent-vm") == 0);
	if (x) {
		EXPECT_PARAM_INT(x, 0, r);
		EXPECT_PARAM_INT(x, 1, getpid());
		EXPECT_PARAM_INT(x, 2, 1);
		EXPECT_PARAM_INT(x, 3, 1);
	}
	r = RUN(syscall(SYS_process_vm_writev, 0x3ffffff0, &l, 1, &rm, 1, 0));
	x = exit_of(PPME_SYSCALL_PROCESS_VM_WRITEV_X);
	EXPECT(r == -ESRCH);
	if (x) {
		EXPECT_PARAM_INT(x, 0, -ESRCH);
		EXPECT_PARAM_INT(x, 1, 0x3ffffff0);
		EXPECT_PARAM_INT(x, 2, 1);
		EXPECT_PARAM_INT(x, 3, 1);
	}
}

/* Both module calls fail here on purpose: nothing is ever loaded. */
static void test_modules(void)
{
	static const char junk[64] = "not an ELF module";
	long r = RUN(syscall(SYS_init_module, junk, sizeof(junk), "opt=1"));
	struct hevt *x = exit_of(PPME_SYSCALL_INIT_MODULE_X);

	EXPECT(r < 0);
	if (x) {
		EXPECT_PARAM_INT(x, 0, r);
		EXPECT_PARAM_INT(x, 1, sizeof(junk));
		EXPECT_PARAM_STR(x, 2, "opt=1");
	}
	r = RUN(syscall(SYS_finit_module, 9999, "", 2));
	x = exit_of(PPME_SYSCALL_FINIT_MODULE_X);
	EXPECT(r < 0);
	if (x) {
		EXPECT_PARAM_INT(x, 0, r);
		EXPECT_PARAM_INT(x, 1, 9999);
		EXPECT_PARAM_STR(x, 2, "");
		EXPECT_PARAM_INT(x, 3, 2);
	}
}

static void test_io_uring(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_CLAMP };
	long r = RUN(syscall(SYS_io_uring_setup, 4, &p));
	struct hevt *x = exit_of(PPME_SYSCALL_IO_URING_SETUP_X);

	/* io_uring may be switched off by sysctl: the result is whatever it was */
	if (x) {
		EXPECT_PARAM_INT(x, 0, r);
		EXPECT_PARAM_INT(x, 1, 4);
		EXPECT_PARAM_INT(x, 2, IORING_SETUP_CLAMP);
	}
	if (r >= 0)
		close(r);
	r = RUN(syscall(SYS_io_uring_setup, 0, &p));
	x = exit_of(PPME_SYSCALL_IO_URING_SETUP_X);
	EXPECT(r < 0);
	if (x) {
		EXPECT_PARAM_INT(x, 0, r);
		EXPECT_PARAM_INT(x, 1, 0);
	}
}

/* Two adjacent free fd numbers, copies of stdin: fixed numbers could be the
 * harness's own (a link closed there detaches the driver). */
static int free_pair(void)
{
	int a = fcntl(0, F_DUPFD, 100);

	while (a >= 0 && fcntl(a + 1, F_GETFD) >= 0) {
		int n = fcntl(0, F_DUPFD, a + 2);

		close(a);
		a = n;
	}
	return a >= 0 && dup2(0, a + 1) == a + 1 ? a : -1;
}

static void test_close_range(void)
{
	int a = free_pair();
	long r = RUN(syscall(SYS_close_range, a, a + 1, 0));
	struct hevt *x = exit_of(PPME_SYSCALL_CLOSE_RANGE_X);

	EXPECT(a > 0 && r == 0 && fcntl(a, F_GETFD) < 0 && fcntl(a + 1, F_GETFD) < 0);
	if (x) {
		EXPECT_PARAM_INT(x, 0, 0);
		EXPECT_PARAM_INT(x, 1, a);
		EXPECT_PARAM_INT(x, 2, a + 1);
		EXPECT_PARAM_INT(x, 3, 0);
	}
	r = RUN(syscall(SYS_close_range, 10, 5, 4));	/* first > last */
	x = exit_of(PPME_SYSCALL_CLOSE_RANGE_X);
	EXPECT(r == -EINVAL);
	if (x) {
		EXPECT_PARAM_INT(x, 0, -EINVAL);
		EXPECT_PARAM_INT(x, 1, 10);
		EXPECT_PARAM_INT(x, 2, 5);
		EXPECT_PARAM_INT(x, 3, 4);
	}
}

static void test_mount_api(void)
{
	long r = RUN(syscall(SYS_open_tree, AT_FDCWD, dir, O_CLOEXEC));
	struct hevt *x = exit_of(PPME_SYSCALL_OPEN_TREE_X);

	EXPECT(r >= 0);
	if (x) {
		check_res_dirfd_path(x, r, -100, dir);
		EXPECT_PARAM_INT(x, 3, O_CLOEXEC);
	}
	if (r >= 0)
		close(r);
	r = RUN(syscall(SYS_mount_setattr, AT_FDCWD, "/nonexistent/agent", 0, NULL, 0));
	x = exit_of(PPME_SYSCALL_MOUNT_SETATTR_X);
	EXPECT(r < 0);
	if (x) {
		check_res_dirfd_path(x, r, -100, "/nonexistent/agent");
		EXPECT_PARAM_INT(x, 3, 0);
	}
	r = RUN(syscall(SYS_move_mount, 9999, "from", AT_FDCWD, "/nonexistent/to", 0x20));
	x = exit_of(PPME_SYSCALL_MOVE_MOUNT_X);
	EXPECT(r < 0);
	if (x) {
		check_res_dirfd_path(x, r, 9999, "from");
		EXPECT_PARAM_INT(x, 3, -100);
		EXPECT_PARAM_STR(x, 4, "/nonexistent/to");
		EXPECT_PARAM_INT(x, 5, 0x20);
	}
}

int main(void)
{
	h = live__open(256, newer_calls);
	live__tmpdir(dir, sizeof(dir), "newer");
	test_memfd();
	test_statx_faccessat2();
	test_pidfd();
	test_vm_rw();
	test_modules();
	test_io_uring();
	test_close_range();
	test_mount_api();
	harness__close(h);
	live__rmtree(dir);
	return harness__report("newer");
}
