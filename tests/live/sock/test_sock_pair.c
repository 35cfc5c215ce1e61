/* socketpair, and the calls whose events have no params (getsockname,
 * getpeername, sendmmsg, recvmmsg), on the real driver: every param of both
 * events, failing calls. The socketpair source/peer pointers are checked against
 * the unix tuple a sendto on each end reports. */
#include <errno.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "../fdio/fdio_live.h"

/* The calls checked; sendto (glibc's is the syscall) reads the pairs' socks. */
static const int sock_pair_calls[] = {
	SYS_socketpair, SYS_sendto, SYS_getsockname, SYS_getpeername, SYS_sendmmsg,
	SYS_recvmmsg, -1,
};

/* The self and peer socks of FD as a sendto naming an address reports them in
 * its unix tuple (outbound: family, peer, self, path). The send itself fails
 * (connected socket, no such abstract name): only the enter event matters. */
static int sendto_ends(struct harness *h, int fd, uint64_t *self, uint64_t *peer)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = "\0h3-none" };
	struct hevt *e;
	int at = 0;
	long r;

	LIVE_CALL(h, r, sendto(fd, "x", 1, MSG_DONTWAIT, (struct sockaddr *)&sa, 2 + 8));
	EXPECT(r < 0);
	e = harness__find(h, PPME_SOCKET_SENDTO_E, &at);

	EXPECT(e != NULL);
	if (!e)
		return -1;
	EXPECT(e->p.n == 3 && e->p.len[2] >= 17 && e->p.val[2][0] == AF_UNIX);
	if (e->p.n != 3 || e->p.len[2] < 17)
		return -1;
	memcpy(peer, e->p.val[2] + 1, 8);
	memcpy(self, e->p.val[2] + 9, 8);
	return 0;
}

/* A successful pair: both fds, and the socks behind them as sendto sees them. */
static void check_pair(struct harness *h, int domain, int type, const int *sv)
{
	uint64_t src, peer, self, other;
	struct hevt *e, *x;

	if (live__pair(h, PPME_SOCKET_SOCKETPAIR_E, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, domain);
	EXPECT_PARAM_INT(e, 1, type);
	EXPECT_PARAM_INT(e, 2, 0);
	EXPECT_PARAM_INT(x, 0, 0);
	EXPECT_PARAM_INT(x, 1, sv[0]);
	EXPECT_PARAM_INT(x, 2, sv[1]);
	src = hevt__int(x, 3);
	peer = hevt__int(x, 4);
	EXPECT(src != 0 && peer != 0 && src != peer);

	if (!sendto_ends(h, sv[0], &self, &other)) {
		EXPECT(self == src);
		EXPECT(other == peer);
	}
	if (!sendto_ends(h, sv[1], &self, &other)) {
		EXPECT(self == peer);
		EXPECT(other == src);
	}
}

/* A failed pair: res, and zeros for the rest as sysdig sends them. */
static void check_pair_failed(struct harness *h, int domain, int type, int proto, long r)
{
	struct hevt *e, *x;

	if (live__pair(h, PPME_SOCKET_SOCKETPAIR_E, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, domain);
	EXPECT_PARAM_INT(e, 1, type);
	EXPECT_PARAM_INT(e, 2, proto);
	EXPECT_PARAM_INT(x, 0, r);
	for (uint32_t i = 1; i < 5; i++)
		EXPECT_PARAM_INT(x, i, 0);
}

static void test_socketpair(struct harness *h, int *dg)
{
	int sv[2];
	long r;

	LIVE_CALL(h, r, syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	EXPECT(r == 0);
	check_pair(h, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, sv);
	close(sv[0]);
	close(sv[1]);

	LIVE_CALL(h, r, syscall(SYS_socketpair, AF_UNIX, SOCK_DGRAM, 0, dg));
	EXPECT(r == 0);
	check_pair(h, AF_UNIX, SOCK_DGRAM, dg);

	/* Failing: inet has no pairs, an unwritable array, a bad protocol. */
	LIVE_CALL(h, r, syscall(SYS_socketpair, AF_INET, SOCK_STREAM, 0, sv));
	EXPECT(r == -EOPNOTSUPP);
	check_pair_failed(h, AF_INET, SOCK_STREAM, 0, r);

	LIVE_CALL(h, r, syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, (void *)8));
	EXPECT(r == -EFAULT);
	check_pair_failed(h, AF_UNIX, SOCK_STREAM, 0, r);

	LIVE_CALL(h, r, syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 7, sv));
	EXPECT(r == -EPROTONOSUPPORT);
	check_pair_failed(h, AF_UNIX, SOCK_STREAM, 7, r);
}

/* The call made one enter and one exit event of TYPE, header only. */
static void check_bare(struct harness *h, uint16_t type)
{
	struct hevt *e, *x;

	if (live__pair(h, type, &e, &x))
		return;
	EXPECT(e->p.n == 0 && e->hdr.len == PPM_HDR_LEN);
	EXPECT(x->p.n == 0 && x->hdr.len == PPM_HDR_LEN);
}

static void test_bare(struct harness *h, const int *dg)
{
	struct sockaddr_un sa;
	socklen_t len = sizeof(sa);
	char a[4] = "abc", b[4];
	struct iovec iov[2] = { { a, 3 }, { b, 4 } };
	struct mmsghdr msgs[2] = {
		{ .msg_hdr = { .msg_iov = &iov[0], .msg_iovlen = 1 } },
		{ .msg_hdr = { .msg_iov = &iov[0], .msg_iovlen = 1 } },
	};
	long r;

	LIVE_CALL(h, r, syscall(SYS_getsockname, dg[0], &sa, &len));
	EXPECT(r == 0);
	check_bare(h, PPME_SOCKET_GETSOCKNAME_E);
	LIVE_CALL(h, r, syscall(SYS_getsockname, 9999, &sa, &len));
	EXPECT(r == -EBADF);
	check_bare(h, PPME_SOCKET_GETSOCKNAME_E);

	len = sizeof(sa);
	LIVE_CALL(h, r, syscall(SYS_getpeername, dg[0], &sa, &len));
	EXPECT(r == 0);
	check_bare(h, PPME_SOCKET_GETPEERNAME_E);
	LIVE_CALL(h, r, syscall(SYS_getpeername, 0 + 9999, &sa, &len));
	EXPECT(r == -EBADF);
	check_bare(h, PPME_SOCKET_GETPEERNAME_E);

	LIVE_CALL(h, r, syscall(SYS_sendmmsg, dg[0], msgs, 2, MSG_DONTWAIT));
	EXPECT(r == 2);
	check_bare(h, PPME_SOCKET_SENDMMSG_E);
	LIVE_CALL(h, r, syscall(SYS_sendmmsg, 9999, msgs, 2, 0));
	EXPECT(r == -EBADF);
	check_bare(h, PPME_SOCKET_SENDMMSG_E);

	msgs[0].msg_hdr.msg_iov = &iov[1];
	msgs[1].msg_hdr.msg_iov = &iov[1];
	LIVE_CALL(h, r, syscall(SYS_recvmmsg, dg[1], msgs, 2, MSG_DONTWAIT, NULL));
	EXPECT(r == 2);
	check_bare(h, PPME_SOCKET_RECVMMSG_E);
	/* Nothing left to read. */
	LIVE_CALL(h, r, syscall(SYS_recvmmsg, dg[1], msgs, 2, MSG_DONTWAIT, NULL));
	EXPECT(r == -EAGAIN);
	check_bare(h, PPME_SOCKET_RECVMMSG_E);
}

int main(void)
{
	struct harness *h = live__open(256, sock_pair_calls);
	int dg[2] = { -1, -1 };

	test_socketpair(h, dg);
	test_bare(h, dg);
	close(dg[0]);
	close(dg[1]);
	harness__close(h);
	return harness__report("sock_pair");
}
