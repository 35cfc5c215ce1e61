/* read, write, pread64, pwrite64, readv, writev on the real driver: every param of
 * both events, EBADF, short reads, and the data cut to the snaplen (80 by default,
 * 1000 when configured). */
#include <errno.h>
#include <fcntl.h>
#include <sys/uio.h>

#include "fs_live.h"

static char dir[64];
static uint8_t big[4000];

/* The calls checked (glibc's read, write, pread, pwrite, readv and writev are
 * these syscalls), for both loads. */
static const int fs_rw_calls[] = {
	SYS_read, SYS_write, SYS_pread64, SYS_pwrite64, SYS_readv, SYS_writev, -1,
};

/* The enter event of TYPE for FD whose exit follows it; both checked for header. */
static struct hevt *find_pair(struct harness *h, uint16_t etype, int fd, struct hevt **x)
{
	int at = 0;
	struct hevt *e = live__find_int(h, etype, 0, fd, &at);

	*x = NULL;
	EXPECT(e != NULL);
	if (!e)
		return NULL;
	hevt__expect_header(e, etype, live__tid());
	*x = live__next(h, e, etype + 1);
	EXPECT(*x != NULL);
	if (!*x)
		return NULL;
	hevt__expect_header(*x, etype + 1, live__tid());
	return e;
}

static int scratch_file(const char *name)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	return fd;
}

static void test_read_write(struct harness *h)
{
	int fd = scratch_file("rw");
	char buf[64];
	struct hevt *e, *x;
	long r;

	harness__drain(h, -1);
	r = write(fd, "0123456789", 10);
	harness__drain(h, live__tid());
	EXPECT(r == 10);
	if ((e = find_pair(h, PPME_SYSCALL_WRITE_E, fd, &x))) {
		EXPECT_PARAM_INT(e, 0, fd);
		EXPECT_PARAM_INT(e, 1, 10);
		EXPECT_PARAM_INT(x, 0, 10);
		EXPECT_PARAM_BUF(x, 1, "0123456789", 10);
	}

	/* A short read: 64 asked, 10 there; data is what was read. */
	lseek(fd, 0, SEEK_SET);
	memset(buf, 'x', sizeof(buf));
	harness__drain(h, -1);
	r = read(fd, buf, sizeof(buf));
	harness__drain(h, live__tid());
	EXPECT(r == 10);
	if ((e = find_pair(h, PPME_SYSCALL_READ_E, fd, &x))) {
		EXPECT_PARAM_INT(e, 0, fd);
		EXPECT_PARAM_INT(e, 1, 64);
		EXPECT_PARAM_INT(x, 0, 10);
		EXPECT_PARAM_BUF(x, 1, "0123456789", 10);
	}

	/* At end of file: res 0, no data. */
	harness__drain(h, -1);
	r = read(fd, buf, sizeof(buf));
	harness__drain(h, live__tid());
	EXPECT(r == 0);
	if ((e = find_pair(h, PPME_SYSCALL_READ_E, fd, &x))) {
		EXPECT_PARAM_INT(x, 0, 0);
		EXPECT_PARAM_EMPTY(x, 1);
	}
	close(fd);

	/* EBADF: read has no data; write shows what it tried to write (as sysdig). */
	harness__drain(h, -1);
	r = read(fd, buf, 7);
	EXPECT(r == -1 && errno == EBADF);
	r = write(fd, "abc", 3);
	EXPECT(r == -1 && errno == EBADF);
	harness__drain(h, live__tid());
	if ((e = find_pair(h, PPME_SYSCALL_READ_E, fd, &x))) {
		EXPECT_PARAM_INT(e, 0, fd);
		EXPECT_PARAM_INT(e, 1, 7);
		EXPECT_PARAM_INT(x, 0, -EBADF);
		EXPECT_PARAM_EMPTY(x, 1);
	}
	if ((e = find_pair(h, PPME_SYSCALL_WRITE_E, fd, &x))) {
		EXPECT_PARAM_INT(e, 0, fd);
		EXPECT_PARAM_INT(e, 1, 3);
		EXPECT_PARAM_INT(x, 0, -EBADF);
		EXPECT_PARAM_BUF(x, 1, "abc", 3);
	}
}

static void test_pread_pwrite(struct harness *h)
{
	int fd = scratch_file("prw");
	char buf[8];
	struct hevt *e, *x;
	long r;

	harness__drain(h, -1);
	r = pwrite(fd, "abc", 3, 100);
	harness__drain(h, live__tid());
	EXPECT(r == 3);
	if ((e = find_pair(h, PPME_SYSCALL_PWRITE_E, fd, &x))) {
		EXPECT_PARAM_INT(e, 0, fd);
		EXPECT_PARAM_INT(e, 1, 3);
		EXPECT_PARAM_INT(e, 2, 100);
		EXPECT_PARAM_INT(x, 0, 3);
		EXPECT_PARAM_BUF(x, 1, "abc", 3);
	}
	harness__drain(h, -1);
	r = pread(fd, buf, sizeof(buf), 99);
	harness__drain(h, live__tid());
	EXPECT(r == 4);
	if ((e = find_pair(h, PPME_SYSCALL_PREAD_E, fd, &x))) {
		EXPECT_PARAM_INT(e, 0, fd);
		EXPECT_PARAM_INT(e, 1, sizeof(buf));
		EXPECT_PARAM_INT(e, 2, 99);
		EXPECT_PARAM_INT(x, 0, 4);
		EXPECT_PARAM_BUF(x, 1, "\0abc", 4);
	}
	/* A negative offset: EINVAL, no data read. */
	harness__drain(h, -1);
	r = pread(fd, buf, sizeof(buf), -5);
	EXPECT(r == -1 && errno == EINVAL);
	harness__drain(h, live__tid());
	if ((e = find_pair(h, PPME_SYSCALL_PREAD_E, fd, &x))) {
		EXPECT_PARAM_INT(e, 2, -5);
		EXPECT_PARAM_INT(x, 0, -EINVAL);
		EXPECT_PARAM_EMPTY(x, 1);
	}
	close(fd);
}

static void test_readv_writev(struct harness *h)
{
	int fd = scratch_file("iov");
	char a[4], b[1], c[10];
	struct iovec wv[3] = {
		{ "hello ", 6 }, { "", 0 }, { "world", 5 },
	};
	struct iovec rv[3] = { { a, sizeof(a) }, { b, 0 }, { c, sizeof(c) } };
	struct hevt *e, *x;
	long r;

	harness__drain(h, -1);
	r = writev(fd, wv, 3);
	harness__drain(h, live__tid());
	EXPECT(r == 11);
	if ((e = find_pair(h, PPME_SYSCALL_WRITEV_E, fd, &x))) {
		EXPECT_PARAM_INT(e, 0, fd);
		EXPECT_PARAM_INT(e, 1, 11);
		EXPECT_PARAM_INT(x, 0, 11);
		EXPECT_PARAM_BUF(x, 1, "hello world", 11);
	}
	/* readv of 14 bytes across 3 iovecs from an 11-byte file: a short read. */
	lseek(fd, 0, SEEK_SET);
	harness__drain(h, -1);
	r = readv(fd, rv, 3);
	harness__drain(h, live__tid());
	EXPECT(r == 11);
	if ((e = find_pair(h, PPME_SYSCALL_READV_E, fd, &x))) {
		EXPECT_PARAM_INT(e, 0, fd);
		EXPECT_PARAM_INT(x, 0, 11);
		EXPECT_PARAM_INT(x, 1, 11);	/* capped at res, as sysdig */
		EXPECT_PARAM_BUF(x, 2, "hello world", 11);
	}
	close(fd);
	/* EBADF: size is still the iovecs' total; no data. */
	harness__drain(h, -1);
	r = readv(fd, rv, 3);
	EXPECT(r == -1 && errno == EBADF);
	harness__drain(h, live__tid());
	if ((e = find_pair(h, PPME_SYSCALL_READV_E, fd, &x))) {
		EXPECT_PARAM_INT(x, 0, -EBADF);
		EXPECT_PARAM_INT(x, 1, 14);
		EXPECT_PARAM_EMPTY(x, 2);
	}
}

/* A 4000-byte write, read back, a 3 x 1500-byte writev and readv: data cut to SNAP. */
static void check_snaplen(struct harness *h, uint32_t snap)
{
	int fd = scratch_file("snap");
	static uint8_t back[4500];
	struct iovec v[3] = {
		{ big, 1500 }, { big + 1500, 1500 }, { big + 3000, 1000 },
	};
	struct iovec rv[3] = {
		{ back, 10 }, { back + 10, 2000 }, { back + 2010, 2490 },
	};
	struct hevt *e, *x;
	long r;

	harness__drain(h, -1);
	r = write(fd, big, sizeof(big));
	harness__drain(h, live__tid());
	EXPECT(r == sizeof(big));
	if ((e = find_pair(h, PPME_SYSCALL_WRITE_E, fd, &x))) {
		EXPECT_PARAM_INT(e, 1, 4000);
		EXPECT_PARAM_INT(x, 0, 4000);
		EXPECT_PARAM_BUF(x, 1, big, snap);
	}
	lseek(fd, 0, SEEK_SET);
	harness__drain(h, -1);
	r = read(fd, back, sizeof(back));
	harness__drain(h, live__tid());
	EXPECT(r == 4000);
	if ((e = find_pair(h, PPME_SYSCALL_READ_E, fd, &x))) {
		EXPECT_PARAM_INT(e, 1, sizeof(back));
		EXPECT_PARAM_INT(x, 0, 4000);
		EXPECT_PARAM_BUF(x, 1, big, snap);
	}
	lseek(fd, 0, SEEK_SET);
	harness__drain(h, -1);
	r = writev(fd, v, 3);
	harness__drain(h, live__tid());
	EXPECT(r == 4000);
	if ((e = find_pair(h, PPME_SYSCALL_WRITEV_E, fd, &x))) {
		EXPECT_PARAM_INT(e, 1, 4000);
		EXPECT_PARAM_INT(x, 0, 4000);
		EXPECT_PARAM_BUF(x, 1, big, snap);
	}
	lseek(fd, 0, SEEK_SET);
	harness__drain(h, -1);
	r = readv(fd, rv, 3);
	harness__drain(h, live__tid());
	EXPECT(r == 4000);
	if ((e = find_pair(h, PPME_SYSCALL_READV_E, fd, &x))) {
		EXPECT_PARAM_INT(x, 0, 4000);
		EXPECT_PARAM_INT(x, 1, 4000);	/* 4500 asked, 4000 read */
		EXPECT_PARAM_BUF(x, 2, big, snap);
	}
	close(fd);
}

int main(void)
{
	struct driver_config snap1000 = capture_self;
	struct harness *h;

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7 + i / 251);
	live__tmpdir(dir, sizeof(dir), "fs_rw");
	h = live__open(256, fs_rw_calls);
	test_read_write(h);
	test_pread_pwrite(h);
	test_readv_writev(h);
	check_snaplen(h, 80);
	harness__close(h);

	snap1000.snaplen = 1000;
	snap1000.syscalls = harness__only(fs_rw_calls);
	h = harness__open(256, &snap1000);
	check_snaplen(h, 1000);
	/* Changed while running. */
	driver__set_snaplen(harness__driver(h), 3000);
	check_snaplen(h, 3000);
	harness__close(h);
	live__rmtree(dir);
	return harness__report("fs_rw");
}
