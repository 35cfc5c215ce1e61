/* setsockopt and getsockopt on the real driver: every param of both events, the
 * DYN val in each of its kinds (raw bytes, errno, u32, u64, timeval as ns), levels
 * and option names as sysdig numbers them, and failing calls. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "../fdio/fdio_live.h"

/* sockopt_dynamic_param members. */
enum { IDX_BYTES, IDX_ERRNO, IDX_UINT32, IDX_UINT64, IDX_TIMEVAL };

/* The calls checked (glibc's wrappers are these syscalls). */
static const int sock_opt_calls[] = { SYS_setsockopt, SYS_getsockopt, -1 };

/* The expected val param: the index byte, then LEN bytes of VAL. */
struct dynval {
	uint8_t b[64];
	size_t len;
};

static struct dynval dyn(uint8_t idx, const void *val, size_t len)
{
	struct dynval d = { .len = 1 + len };

	d.b[0] = idx;
	memcpy(d.b + 1, val, len);
	return d;
}

static struct dynval dyn_u32(uint32_t v)
{
	return dyn(IDX_UINT32, &v, 4);
}

static struct dynval dyn_s64(uint8_t idx, int64_t v)
{
	return dyn(idx, &v, 8);
}

/* The exit event of TYPE (set or get): res, fd, level, optname, val (NULL: empty
 * with optlen empty too), optlen. */
static void check_opt(struct harness *h, uint16_t type, long r, int fd, int level, int name,
		      const struct dynval *val, uint32_t optlen)
{
	struct hevt *e, *x;

	if (live__pair(h, type, &e, &x))
		return;
	EXPECT(e->p.n == 0 && e->hdr.len == PPM_HDR_LEN);
	EXPECT_PARAM_INT(x, 0, r);
	EXPECT_PARAM_INT(x, 1, fd);
	EXPECT_PARAM_INT(x, 2, level);
	EXPECT_PARAM_INT(x, 3, name);
	if (!val) {
		EXPECT_PARAM_EMPTY(x, 4);
		EXPECT_PARAM_EMPTY(x, 5);
		return;
	}
	EXPECT_PARAM_BUF(x, 4, val->b, val->len);
	EXPECT_PARAM_INT(x, 5, optlen);
}

#define SET PPME_SOCKET_SETSOCKOPT_E
#define GET PPME_SOCKET_GETSOCKOPT_E

static void test_set(struct harness *h, int fd, int tcp)
{
	struct timeval tv = { .tv_sec = 1, .tv_usec = 500000 };
	struct linger lg = { .l_onoff = 1, .l_linger = 5 };
	struct dynval d;
	int v = 4096;
	long r;

	LIVE_CALL(h, r, setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, 4));
	EXPECT(r == 0);
	d = dyn_u32(4096);
	check_opt(h, SET, 0, fd, 1, 8, &d, 4);

	LIVE_CALL(h, r, setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	EXPECT(r == 0);
	d = dyn_s64(IDX_TIMEVAL, 1500000000);
	check_opt(h, SET, 0, fd, 1, 20, &d, sizeof(tv));

	/* A struct option: its bytes as passed. */
	LIVE_CALL(h, r, setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	EXPECT(r == 0);
	d = dyn(IDX_BYTES, &lg, sizeof(lg));
	check_opt(h, SET, 0, fd, 1, 13, &d, sizeof(lg));

	/* SOL_TCP is a level sysdig names, but none of its options. */
	v = 1;
	LIVE_CALL(h, r, setsockopt(tcp, IPPROTO_TCP, TCP_NODELAY, &v, 4));
	EXPECT(r == 0);
	d = dyn(IDX_BYTES, &v, 4);
	check_opt(h, SET, 0, tcp, 2, 0, &d, 4);

	v = 0x10;
	LIVE_CALL(h, r, setsockopt(tcp, IPPROTO_IP, IP_TOS, &v, 4));
	EXPECT(r == 0);
	d = dyn(IDX_BYTES, &v, 4);
	check_opt(h, SET, 0, tcp, 0, 0, &d, 4);

	/* Failing: SO_ERROR cannot be set, but its val is read as an errno. */
	v = 5;
	LIVE_CALL(h, r, setsockopt(fd, SOL_SOCKET, SO_ERROR, &v, 4));
	EXPECT(r == -ENOPROTOOPT);
	d = dyn_s64(IDX_ERRNO, -5);
	check_opt(h, SET, r, fd, 1, 4, &d, 4);

	/* SO_PEERGROUPS: renumbered by sysdig (59 -> 51). */
	LIVE_CALL(h, r, setsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, &v, 4));
	EXPECT(r == -ENOPROTOOPT);
	d = dyn(IDX_BYTES, &v, 4);
	check_opt(h, SET, r, fd, 1, 51, &d, 4);

	v = 777;
	LIVE_CALL(h, r, setsockopt(9999, SOL_SOCKET, SO_SNDBUF, &v, 4));
	EXPECT(r == -EBADF);
	d = dyn_u32(777);
	check_opt(h, SET, r, 9999, 1, 7, &d, 4);

	/* An unreadable value: val is empty, optlen as passed. */
	LIVE_CALL(h, r, setsockopt(fd, SOL_SOCKET, SO_SNDBUF, (void *)8, 4));
	EXPECT(r == -EFAULT);
	struct hevt *e, *x;

	if (!live__pair(h, SET, &e, &x)) {
		EXPECT_PARAM_INT(x, 0, -EFAULT);
		EXPECT_PARAM_INT(x, 3, 7);
		EXPECT_PARAM_EMPTY(x, 4);
		EXPECT_PARAM_INT(x, 5, 4);
	}

	/* No value at all: the index byte alone. */
	LIVE_CALL(h, r, setsockopt(fd, SOL_SOCKET, SO_LINGER, NULL, 0));
	EXPECT(r == -EINVAL);
	d = dyn(IDX_BYTES, "", 0);
	check_opt(h, SET, r, fd, 1, 13, &d, 0);
}

static void test_get(struct harness *h, int fd, int peer)
{
	struct ucred cred;
	struct timeval tv;
	struct dynval d;
	uint64_t cookie;
	socklen_t len;
	int v;
	long r;

	len = 4;
	LIVE_CALL(h, r, getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &len));
	EXPECT(r == 0 && v == SOCK_STREAM);
	d = dyn_u32(SOCK_STREAM);
	check_opt(h, GET, 0, fd, 1, 3, &d, 4);

	len = 4;
	LIVE_CALL(h, r, getsockopt(fd, SOL_SOCKET, SO_ERROR, &v, &len));
	EXPECT(r == 0 && v == 0);
	d = dyn_s64(IDX_ERRNO, 0);
	check_opt(h, GET, 0, fd, 1, 4, &d, 4);

	len = sizeof(cookie);
	LIVE_CALL(h, r, getsockopt(fd, SOL_SOCKET, SO_COOKIE, &cookie, &len));
	EXPECT(r == 0 && cookie != 0);
	d = dyn(IDX_UINT64, &cookie, 8);
	check_opt(h, GET, 0, fd, 1, 53, &d, 8);

	len = sizeof(tv);
	LIVE_CALL(h, r, getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, &len));
	EXPECT(r == 0 && tv.tv_sec == 1 && tv.tv_usec == 500000);
	d = dyn_s64(IDX_TIMEVAL, 1500000000);
	check_opt(h, GET, 0, fd, 1, 20, &d, sizeof(tv));

	/* optlen is what the kernel wrote back: 12 of the 40 offered. */
	char buf[40];

	len = sizeof(buf);
	LIVE_CALL(h, r, getsockopt(peer, SOL_SOCKET, SO_PEERCRED, buf, &len));
	EXPECT(r == 0 && len == sizeof(cred));
	memcpy(&cred, buf, sizeof(cred));
	EXPECT(cred.pid == getpid());
	d = dyn(IDX_BYTES, &cred, sizeof(cred));
	check_opt(h, GET, 0, peer, 1, 17, &d, sizeof(cred));

	/* Failing: what the caller had in the buffer and length. */
	v = 0x11223344;
	len = 4;
	LIVE_CALL(h, r, getsockopt(9999, SOL_SOCKET, SO_RCVBUF, &v, &len));
	EXPECT(r == -EBADF);
	d = dyn_u32(0x11223344);
	check_opt(h, GET, r, 9999, 1, 8, &d, 4);

	/* An unreadable length: val and optlen empty. */
	LIVE_CALL(h, r, syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_RCVBUF, &v, 8));
	EXPECT(r == -EFAULT);
	check_opt(h, GET, r, fd, 1, 8, NULL, 0);
}

int main(void)
{
	struct harness *h = live__open(256, sock_opt_calls);
	int sv[2], tcp = socket(AF_INET, SOCK_STREAM, 0);

	if (tcp < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		perror("socket");
		return 1;
	}
	test_set(h, sv[0], tcp);
	test_get(h, sv[0], sv[1]);
	close(sv[0]);
	close(sv[1]);
	close(tcp);
	harness__close(h);
	return harness__report("sock_opt");
}
