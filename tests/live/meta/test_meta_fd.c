/* lseek, flock, fcntl on the real driver: every param of both events, flag and
 * command conversions, the new fd of F_DUPFD and F_DUPFD_CLOEXEC, failing calls. */
#include <fcntl.h>
#include <limits.h>
#include <sys/file.h>

#include "meta_live.h"

/* The calls checked, each made with syscall(). */
static const int meta_fd_calls[] = { SYS_lseek, SYS_flock, SYS_fcntl, -1 };

/* The only XTYPE exit since the last drain and its enter: res must be WANT and
 * the enter's fd FD. Returns the enter event. */
static struct hevt *check_fd_call(struct harness *h, uint16_t xtype, int fd, long want)
{
	struct hevt *e, *x;

	if (!(x = meta__exit(h, xtype, &e)))
		return NULL;
	EXPECT_PARAM_INT(x, 0, want);
	EXPECT_PARAM_INT(e, 0, fd);
	return e;
}

static void lseek_case(struct harness *h, int fd, long off, int whence, long want, uint8_t pwhence)
{
	struct hevt *e;
	long r;

	META_CALL(h, r, syscall(SYS_lseek, fd, off, whence));
	EXPECT(r == (want < 0 ? -1 : want));
	if (want < 0)
		EXPECT(meta_errno == -want);
	if ((e = check_fd_call(h, PPME_SYSCALL_LSEEK_X, fd, want))) {
		EXPECT_PARAM_INT(e, 1, off);	/* a UINT64: -5 reads back as 2^64 - 5 */
		EXPECT_PARAM_INT(e, 2, pwhence);
	}
}

static void test_lseek(struct harness *h)
{
	int fd = open(file, O_RDWR);
	int p[2];

	EXPECT(pipe(p) == 0);
	lseek_case(h, fd, 10, SEEK_SET, 10, PPM_LSEEK_WHENCE_SEEK_SET);
	lseek_case(h, fd, -5, SEEK_CUR, 5, PPM_LSEEK_WHENCE_SEEK_CUR);
	lseek_case(h, fd, 0, SEEK_END, 100, PPM_LSEEK_WHENCE_SEEK_END);
	lseek_case(h, fd, 1L << 40, SEEK_SET, 1L << 40, PPM_LSEEK_WHENCE_SEEK_SET);
	/* sysdig had no value for SEEK_DATA or a bad whence: both read SEEK_SET. */
	lseek_case(h, fd, 0, SEEK_DATA, 0, PPM_LSEEK_WHENCE_SEEK_SET);
	lseek_case(h, fd, 0, 99, -EINVAL, PPM_LSEEK_WHENCE_SEEK_SET);
	lseek_case(h, fd, -200, SEEK_END, -EINVAL, PPM_LSEEK_WHENCE_SEEK_END);
	lseek_case(h, p[0], 0, SEEK_CUR, -ESPIPE, PPM_LSEEK_WHENCE_SEEK_CUR);
	lseek_case(h, 9999, 0, SEEK_SET, -EBADF, PPM_LSEEK_WHENCE_SEEK_SET);
	close(p[0]);
	close(p[1]);
	close(fd);
}

static void flock_case(struct harness *h, int fd, int op, long want, uint32_t pop)
{
	struct hevt *e;
	long r;

	META_CALL(h, r, syscall(SYS_flock, fd, op));
	EXPECT(r == (want < 0 ? -1 : want));
	if (want < 0)
		EXPECT(meta_errno == -want);
	if ((e = check_fd_call(h, PPME_SYSCALL_FLOCK_X, fd, want)))
		EXPECT_PARAM_INT(e, 1, pop);
}

static void test_flock(struct harness *h)
{
	int fd = open(file, O_RDONLY), fd2 = open(file, O_RDONLY);

	flock_case(h, fd, LOCK_EX, 0, PPM_FLOCK_FLAGS_LOCK_EX);
	flock_case(h, fd, LOCK_SH | LOCK_NB, 0, PPM_FLOCK_FLAGS_LOCK_SH | PPM_FLOCK_FLAGS_LOCK_NB);
	/* Another open file description cannot take it exclusively. */
	flock_case(h, fd2, LOCK_EX | LOCK_NB, -EWOULDBLOCK,
		   PPM_FLOCK_FLAGS_LOCK_EX | PPM_FLOCK_FLAGS_LOCK_NB);
	flock_case(h, fd, LOCK_UN, 0, PPM_FLOCK_FLAGS_LOCK_UN);
	flock_case(h, fd, 0, -EINVAL, PPM_FLOCK_FLAGS_LOCK_NONE);
	flock_case(h, 9999, LOCK_SH, -EBADF, PPM_FLOCK_FLAGS_LOCK_SH);
	close(fd2);
	close(fd);
}

/* WANT of a call whose result is only known afterwards (a new fd, a size). */
#define ANY_RES LONG_MAX

/* One fcntl(FD, CMD, ARG) whose enter must carry PCMD and whose exit the result,
 * which must be WANT. Returns the result. */
static long fcntl_case(struct harness *h, int fd, int cmd, long arg, long want, uint8_t pcmd)
{
	struct hevt *e;
	long r;

	META_CALL(h, r, syscall(SYS_fcntl, fd, cmd, arg));
	if (want < 0)
		EXPECT(r == -1 && meta_errno == -want);
	else if (want != ANY_RES)
		EXPECT(r == want);
	if ((e = check_fd_call(h, PPME_SYSCALL_FCNTL_X, fd, r < 0 ? -meta_errno : r)))
		EXPECT_PARAM_INT(e, 1, pcmd);
	return r;
}

static void test_fcntl(struct harness *h)
{
	int fd = open(file, O_RDWR);
	struct flock lk = { .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_len = 10 };
	int p[2];
	long nfd;

	EXPECT(pipe(p) == 0);
	/* F_DUPFD: the new fd is the lowest free one at or above arg. */
	nfd = fcntl_case(h, fd, F_DUPFD, 100, ANY_RES, PPM_FCNTL_COMMANDS_F_DUPFD);
	EXPECT(nfd >= 100 && syscall(SYS_fcntl, nfd, F_GETFD) == 0);
	fcntl_case(h, (int)nfd, F_GETFD, 0, 0, PPM_FCNTL_COMMANDS_F_GETFD);
	close(nfd);
	nfd = fcntl_case(h, fd, F_DUPFD_CLOEXEC, 150, ANY_RES, PPM_FCNTL_COMMANDS_F_DUPFD_CLOEXEC);
	EXPECT(nfd >= 150);
	fcntl_case(h, (int)nfd, F_GETFD, 0, FD_CLOEXEC, PPM_FCNTL_COMMANDS_F_GETFD);
	fcntl_case(h, (int)nfd, F_SETFD, 0, 0, PPM_FCNTL_COMMANDS_F_SETFD);
	close(nfd);
	fcntl_case(h, fd, F_SETFL, O_NONBLOCK, 0, PPM_FCNTL_COMMANDS_F_SETFL);
	/* The kernel adds O_LARGEFILE (0100000) to 64-bit opens; glibc's is 0. */
	fcntl_case(h, fd, F_GETFL, 0, O_RDWR | O_NONBLOCK | 0100000, PPM_FCNTL_COMMANDS_F_GETFL);
	fcntl_case(h, fd, F_SETLK, (long)&lk, 0, PPM_FCNTL_COMMANDS_F_SETLK);
	fcntl_case(h, fd, F_GETLK, (long)&lk, 0, PPM_FCNTL_COMMANDS_F_GETLK);
	fcntl_case(h, fd, F_OFD_GETLK, (long)&lk, 0, PPM_FCNTL_COMMANDS_F_OFD_GETLK);
	fcntl_case(h, fd, F_GETOWN, 0, 0, PPM_FCNTL_COMMANDS_F_GETOWN);
	fcntl_case(h, fd, F_GETSIG, 0, 0, PPM_FCNTL_COMMANDS_F_GETSIG);
	fcntl_case(h, fd, F_GETLEASE, 0, F_UNLCK, PPM_FCNTL_COMMANDS_F_GETLEASE);
	fcntl_case(h, p[0], F_GETPIPE_SZ, 0, ANY_RES, PPM_FCNTL_COMMANDS_F_GETPIPE_SZ);
	fcntl_case(h, p[0], F_SETPIPE_SZ, 8192, 8192, PPM_FCNTL_COMMANDS_F_SETPIPE_SZ);

	/* Failing: a closed fd, F_DUPFD above the fd limit, a command sysdig did not
	 * know (12 is F_GETLK64 on 32-bit kernels only) and one nobody knows. */
	fcntl_case(h, 9999, F_GETFD, 0, -EBADF, PPM_FCNTL_COMMANDS_F_GETFD);
	fcntl_case(h, fd, F_DUPFD, 1L << 30, -EINVAL, PPM_FCNTL_COMMANDS_F_DUPFD);
	fcntl_case(h, fd, 12, 0, -EINVAL, PPM_FCNTL_COMMANDS_UNKNOWN);
	fcntl_case(h, fd, 0x7777, 0, -EINVAL, PPM_FCNTL_COMMANDS_UNKNOWN);
	close(p[0]);
	close(p[1]);
	close(fd);
}

int main(void)
{
	struct harness *h = live__open(256, meta_fd_calls);
	char buf[100] = { 0 };

	meta__scratch("meta_fd", buf, sizeof(buf));
	test_lseek(h);
	test_flock(h);
	test_fcntl(h);
	harness__close(h);
	live__rmtree(dir);
	return harness__report("meta_fd");
}
