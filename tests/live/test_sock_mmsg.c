/* Request mode's recvmmsg and sendmmsg (driver_config.sock_compact with
 * sock_families, exit-only capture; fillers/sockio/sockio_mmsg.bpf.c): each
 * message a call moved arrives as one SOCK_SEND_X or SOCK_RECV_X event, in
 * the order moved, on UDP and on TCP alike: header, res (that message's
 * length), fd, the syscall's number, the message's bytes through its iovecs
 * (cut at the snaplen), the TCP state (0 and 0 on UDP; on TCP retransmits up
 * to TCP_INFO's count and an srtt measured) and the tuple: empty, but for a
 * message naming an address, where it is the message's ends, the sender
 * first (an unconnected socket's two sends; a connected socket's named one
 * beside its unnamed one; a recvmmsg's senders, two sockets, as the kernel
 * wrote them back). Not sent, and counted in n_mmsg_unsent: the messages
 * past the 32nd of a call (40 sent). A call that moved nothing stays in the
 * kernel, counted in n_sock_empty; a Unix socket's is not wanted. Nothing
 * is dropped. With sys_enter attached the setting does nothing: each call
 * comes as sysdig's SENDMMSG or RECVMMSG pair, which have no params.
 *
 * Each sent message's time is when it was sent, where the socket
 * tracepoints are loaded (driver_load_info.sock_tps): a TCP sendmmsg whose
 * second message cannot leave until a reader reads, 200 ms later, has its
 * first message's event at least 150 ms before its second's. */
#include <sys/uio.h>
#include <sys/wait.h>

#include "sock_compact_live.h"

static const int mmsg_calls[] = { SYS_sendmmsg, SYS_recvmmsg, -1 };

#define SNAP 64
#define BIG 200		/* > SNAP */
#define MANY 40		/* > DRIVER_MMSG_MAX */

struct ends {
	int ucli, usrv, tcli, tsrv, uloose, unx[2];
	struct sockaddr_in usrv_a;
};

#define SLOW_MSG (2 << 20)	/* far past what the buffers hold before the first read */
#define SLOW_MS 200

static int64_t me;
static bool eo, sock_tps;
static char big[BIG];

static void ends__open(struct ends *x)
{
	struct sockaddr_in a = pn_in4("127.0.0.1", 0);

	x->usrv_a = pn_in4("127.0.0.1", 0);
	x->usrv = pn_udp_bind(AF_INET, &x->usrv_a, sizeof(x->usrv_a));
	x->ucli = pn_udp_bind(AF_INET, &a, sizeof(a));
	a = pn_in4("127.0.0.1", 0);
	x->uloose = pn_udp_bind(AF_INET, &a, sizeof(a));
	if (x->usrv < 0 || x->ucli < 0 || x->uloose < 0 ||
	    connect(x->ucli, (void *)&x->usrv_a, sizeof(x->usrv_a)) ||
	    pn_tcp_pair4(&x->tcli, &x->tsrv) || socketpair(AF_UNIX, SOCK_DGRAM, 0, x->unx)) {
		perror("test ends");
		exit(1);
	}
	for (int i = 0; i < BIG; i++)
		big[i] = (char)('a' + i % 26);
}

static void ends__close(struct ends *x)
{
	int fds[] = { x->ucli, x->usrv, x->tcli, x->tsrv, x->uloose, x->unx[0], x->unx[1] };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		close(fds[i]);
}

/* The datagrams waiting at FD, N of them, read and let go. */
static void drain(int fd, int n)
{
	char buf[BIG];

	for (int i = 0; i < n; i++)
		EXPECT(recv(fd, buf, sizeof(buf), 0) > 0);
}

static char many_bytes[MANY][4];
static struct sockaddr_in from[3];

/* recvmmsg: the server reads two datagrams naming their senders (the
 * unconnected socket's and the connected one's), then one with no name
 * asked; the TCP server reads the client's bytes; then a read that finds
 * nothing (EAGAIN). */
static void recv__run(struct ends *x)
{
	char b[3][64];
	struct iovec v[3] = { { b[0], 64 }, { b[1], 64 }, { b[2], 64 } };
	struct mmsghdr m[3];

	memset(m, 0, sizeof(m));
	memset(from, 0, sizeof(from));
	EXPECT(sendto(x->uloose, "who", 3, 0, (void *)&x->usrv_a, sizeof(x->usrv_a)) == 3);
	EXPECT(send(x->ucli, "is it", 5, 0) == 5);
	EXPECT(send(x->ucli, "anon", 4, 0) == 4);
	for (int i = 0; i < 2; i++)
		m[i].msg_hdr = (struct msghdr){ .msg_name = &from[i], .msg_namelen = sizeof(from[i]),
						.msg_iov = &v[i], .msg_iovlen = 1 };
	EXPECT(recvmmsg(x->usrv, m, 2, MSG_DONTWAIT, NULL) == 2);
	m[0].msg_hdr = (struct msghdr){ .msg_iov = &v[2], .msg_iovlen = 1 };
	EXPECT(recvmmsg(x->usrv, m, 1, MSG_DONTWAIT, NULL) == 1);
	EXPECT(send(x->tcli, "PING\r\n", 6, 0) == 6);
	/* all 6, whenever they come */
	v[0].iov_len = 6;
	m[0].msg_hdr = (struct msghdr){ .msg_iov = &v[0], .msg_iovlen = 1 };
	EXPECT(recvmmsg(x->tsrv, m, 1, MSG_WAITALL, NULL) == 1);
	EXPECT(recvmmsg(x->usrv, m, 1, MSG_DONTWAIT, NULL) == -1 && errno == EAGAIN);
}

static void calls__run(void *arg)
{
	struct ends *x = arg;
	struct iovec q = { "query", 5 }, two[2] = { { "ab", 2 }, { "cdef", 4 } };
	struct iovec bigv = { big, BIG }, t1 = { "GET ", 4 }, t2 = { "/ HTTP/1.1\r\n\r\n", 16 };
	struct iovec manyv[MANY], named = { "named", 5 }, plain = { "plain", 5 };
	struct mmsghdr m[MANY];
	char buf[64];

	memset(m, 0, sizeof(m));
	m[0].msg_hdr = (struct msghdr){ .msg_iov = &q, .msg_iovlen = 1 };
	m[1].msg_hdr = (struct msghdr){ .msg_iov = two, .msg_iovlen = 2 };
	m[2].msg_hdr = (struct msghdr){ .msg_iov = &bigv, .msg_iovlen = 1 };
	EXPECT(sendmmsg(x->ucli, m, 3, 0) == 3);
	drain(x->usrv, 3);
	memset(m, 0, sizeof(m));
	m[0].msg_hdr = (struct msghdr){ .msg_iov = &t1, .msg_iovlen = 1 };
	m[1].msg_hdr = (struct msghdr){ .msg_iov = &t2, .msg_iovlen = 1 };
	EXPECT(sendmmsg(x->tcli, m, 2, 0) == 2);
	EXPECT(recv(x->tsrv, buf, 20, MSG_WAITALL) == 20);
	memset(m, 0, sizeof(m));
	for (int i = 0; i < MANY; i++) {
		snprintf(many_bytes[i], sizeof(many_bytes[i]), "m%02d", i);
		manyv[i] = (struct iovec){ many_bytes[i], 3 };
		m[i].msg_hdr = (struct msghdr){ .msg_iov = &manyv[i], .msg_iovlen = 1 };
	}
	EXPECT(sendmmsg(x->ucli, m, MANY, 0) == MANY);
	drain(x->usrv, MANY);
	/* naming an address: two from an unconnected socket, then one named
	 * and one not from the connected one */
	memset(m, 0, sizeof(m));
	for (int i = 0; i < 2; i++)
		m[i].msg_hdr = (struct msghdr){ .msg_name = &x->usrv_a,
						.msg_namelen = sizeof(x->usrv_a),
						.msg_iov = &named, .msg_iovlen = 1 };
	EXPECT(sendmmsg(x->uloose, m, 2, 0) == 2);
	m[1].msg_hdr = (struct msghdr){ .msg_iov = &plain, .msg_iovlen = 1 };
	EXPECT(sendmmsg(x->ucli, m, 2, 0) == 2);
	drain(x->usrv, 4);
	/* nothing sent; and a Unix socket (not a wanted family) */
	EXPECT(sendmmsg(x->ucli, m, 0, 0) == 0);
	EXPECT(sendmmsg(x->unx[0], &m[1], 1, 0) == 1);
	drain(x->unx[1], 1);
	recv__run(x);
}

/* The next kept event: a message RES bytes long of a sendmmsg on FD, DATA
 * (LEN of them) captured. */
static void expect_msg(struct harness *h, int *at, int fd, int64_t res, const void *data,
		       size_t len)
{
	sock_compact__expect(h, at, PPME_SOCK_SEND_X, SYS_sendmmsg, fd, res, data, len, me);
}

/* The same, for a message naming an address: its tuple SRC -> DST. */
static void expect_named(struct harness *h, int *at, uint16_t type, long nr, int fd,
			 int64_t res, const void *data, size_t len, const struct sockaddr_in *src,
			 const struct sockaddr_in *dst)
{
	uint8_t t[64];
	size_t n = pn_tuple_bytes(t, (const void *)src, (const void *)dst);

	sock_compact__expect_tuple(h, at, type, nr, fd, res, data, len, me, t, n);
}

/* Without the compact path: the next two kept events are a SENDMMSG pair
 * (RECV: RECVMMSG). */
static void expect_pair(struct harness *h, int *at, bool recv)
{
	struct hevt *e, *x;

	if (!pn_pair(h, at, recv ? PPME_SOCKET_RECVMMSG_E : PPME_SOCKET_SENDMMSG_E, me, &e, &x))
		return;
	EXPECT(e->hdr.nparams == 0 && x->hdr.nparams == 0);
}

/* FD's own address. */
static struct sockaddr_in local_of(int fd)
{
	struct sockaddr_in a = { 0 };
	socklen_t l = sizeof(a);

	EXPECT(getsockname(fd, (void *)&a, &l) == 0);
	return a;
}

static void calls__check(struct harness *h, struct ends *x)
{
	struct driver_counters c0 = { 0 }, c1 = { 0 };
	int at = 0;

	sock_compact__run(h, calls__run, x, &c0, &c1, me);
	if (eo) {
		expect_msg(h, &at, x->ucli, 5, "query", 5);
		expect_msg(h, &at, x->ucli, 6, "abcdef", 6);
		expect_msg(h, &at, x->ucli, BIG, big, SNAP);
		expect_msg(h, &at, x->tcli, 4, "GET ", 4);
		expect_msg(h, &at, x->tcli, 16, "/ HTTP/1.1\r\n\r\n", 16);
		for (int i = 0; i < DRIVER_MMSG_MAX; i++)
			expect_msg(h, &at, x->ucli, 3, many_bytes[i], 3);
		struct sockaddr_in loose = local_of(x->uloose), cli = local_of(x->ucli);
		struct sockaddr_in srv = local_of(x->usrv);

		expect_named(h, &at, PPME_SOCK_SEND_X, SYS_sendmmsg, x->uloose, 5, "named", 5,
			     &loose, &x->usrv_a);
		expect_named(h, &at, PPME_SOCK_SEND_X, SYS_sendmmsg, x->uloose, 5, "named", 5,
			     &loose, &x->usrv_a);
		expect_named(h, &at, PPME_SOCK_SEND_X, SYS_sendmmsg, x->ucli, 5, "named", 5,
			     &cli, &x->usrv_a);
		expect_msg(h, &at, x->ucli, 5, "plain", 5);
		/* the senders, as the kernel wrote them back */
		EXPECT(memcmp(&from[0], &loose, sizeof(loose)) == 0);
		EXPECT(memcmp(&from[1], &cli, sizeof(cli)) == 0);
		expect_named(h, &at, PPME_SOCK_RECV_X, SYS_recvmmsg, x->usrv, 3, "who", 3, &loose,
			     &srv);
		expect_named(h, &at, PPME_SOCK_RECV_X, SYS_recvmmsg, x->usrv, 5, "is it", 5, &cli,
			     &srv);
		sock_compact__expect(h, &at, PPME_SOCK_RECV_X, SYS_recvmmsg, x->usrv, 4, "anon", 4,
				     me);
		sock_compact__expect(h, &at, PPME_SOCK_RECV_X, SYS_recvmmsg, x->tsrv, 6,
				     "PING\r\n", 6, me);
		/* 8 past the 32nd; the empty sendmmsg and the recvmmsg that
		 * found nothing */
		EXPECT(c1.n_mmsg_unsent >= c0.n_mmsg_unsent + MANY - DRIVER_MMSG_MAX);
		EXPECT(c1.n_sock_empty >= c0.n_sock_empty + 2);
	} else {
		/* the UDP, TCP and many calls, the two named ones, the empty one */
		for (int i = 0; i < 6; i++)
			expect_pair(h, &at, false);
		/* the named, unnamed, TCP and empty reads */
		for (int i = 0; i < 4; i++)
			expect_pair(h, &at, true);
		EXPECT(c1.n_mmsg_unsent == 0 && c1.n_sock_empty == 0);
	}
	EXPECT(at == harness__count(h));
	if (at != harness__count(h))
		fprintf(stderr, "  %d events of this thread, %d expected\n", harness__count(h), at);
	EXPECT(c1.n_drops_buffer == c0.n_drops_buffer && c1.n_drops_bug == c0.n_drops_bug &&
	       c1.n_drops_scratch == c0.n_drops_scratch && c1.n_drops_pf == c0.n_drops_pf);
	EXPECT(harness__lost(h) == 0);
}

/* A sendmmsg on a TCP pair with a small send buffer: a short message, then
 * one far larger than the buffers, which waits for a child to read, SLOW_MS
 * from now. */
static void times__check(struct harness *h)
{
	int cli, srv, small = 4096;
	char *slow = calloc(1, SLOW_MSG);
	struct iovec v[2] = { { "first", 5 }, { slow, SLOW_MSG } };
	struct mmsghdr m[2] = { { .msg_hdr = { .msg_iov = &v[0], .msg_iovlen = 1 } },
				{ .msg_hdr = { .msg_iov = &v[1], .msg_iovlen = 1 } } };
	struct hevt *a, *b;
	pid_t child;
	int st;

	/* a small send buffer (the receiver's is left to grow: a small
	 * window would crawl) */
	if (!slow || pn_tcp_pair4(&cli, &srv) ||
	    setsockopt(cli, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small))) {
		perror("slow pair");
		exit(1);
	}
	harness__drain(h, -1);
	child = fork();
	if (child == 0) {
		char buf[65536];
		size_t got = 0;
		ssize_t n;

		usleep(SLOW_MS * 1000);
		while (got < 5 + SLOW_MSG && (n = read(srv, buf, sizeof(buf))) > 0)
			got += (size_t)n;
		_exit(got == 5 + SLOW_MSG ? 0 : 1);
	}
	EXPECT(child > 0 && sendmmsg(cli, m, 2, 0) == 2);
	EXPECT(child > 0 && waitpid(child, &st, 0) == child && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 0);
	harness__drain(h, me);
	/* a message's event each, or the call's pair */
	EXPECT(harness__count(h) == 2);
	if (eo && harness__count(h) == 2) {
		int at = 0;

		a = harness__get(h, 0);
		b = harness__get(h, 1);
		expect_msg(h, &at, cli, 5, "first", 5);
		expect_msg(h, &at, cli, SLOW_MSG, slow, SNAP);
		if (sock_tps)
			EXPECT(b->hdr.ts >= a->hdr.ts + (SLOW_MS - 50) * 1000000ull);
		else
			EXPECT(b->hdr.ts >= a->hdr.ts);
		if (sock_tps && b->hdr.ts < a->hdr.ts + (SLOW_MS - 50) * 1000000ull)
			fprintf(stderr, "  the messages' times %llu ns apart\n",
				(unsigned long long)(b->hdr.ts - a->hdr.ts));
	} else if (!eo) {
		int at = 0;

		expect_pair(h, &at, false);
	}
	close(cli);
	close(srv);
	free(slow);
}

int main(void)
{
	struct driver_config cfg = pn_capture_self;
	struct driver_load_info li = { 0 };
	struct harness *h;
	struct ends x;

	me = pn_gettid();
	cfg.syscalls = harness__only(mmsg_calls);
	cfg.sock_families = (1u << PPM_AF_INET) | (1u << PPM_AF_INET6);
	cfg.sock_compact = true;
	cfg.snaplen = SNAP;
	cfg.snaplen_given = true;
	h = harness__open(256, &cfg);
	eo = harness__exit_only();
	EXPECT(driver__load_info(harness__driver(h), &li, false) == 0);
	EXPECT(li.sock_compact == eo);
	sock_tps = li.sock_tps;
	EXPECT(sock_tps == (eo && !harness__raw_exit()));
	ends__open(&x);
	calls__check(h, &x);
	times__check(h);
	ends__close(&x);
	harness__close(h);
	return harness__report("sock_mmsg");
}
