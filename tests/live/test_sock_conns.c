/* Request mode's connection events on the compact path (driver_config
 * sock_compact and file_closes, exit-only capture, loaded as request mode
 * loads them), every param checked:
 * - socket() of a TCP socket of a wanted family (127.0.0.1 and ::1, with
 *   protocol 0 or IPPROTO_TCP, SOCK_CLOEXEC or not) stays in the kernel,
 *   counted in n_tcp_sockets (at least those five: other processes' count
 *   too); a UDP socket's and a Unix socket's arrive as before;
 * - connect's enter frame is its fd and an empty addr (the dispatcher writes
 *   it); its exit keeps the tuple, for a refused connect too;
 * - accept4's enter frame (its flags, the dispatcher's) and exit;
 * - bind, listen and the closes arrive as before.
 * Then the same calls with sock_compact off (the agent's request mode with
 * -w), and without exit-only capture, where the settings do nothing: every
 * socket() arrives, connect's enter carries the address asked for, and
 * n_tcp_sockets stays 0. */
#include "procnet/pn_test.h"

static const int calls[] = {
	SYS_socket, SYS_bind, SYS_listen, SYS_connect, SYS_accept4, SYS_close, -1,
};

static int64_t me;
/* the compact path is on: exit-only capture with sock_compact */
static bool compact;

static uint64_t tcp_sockets(struct harness *h)
{
	struct driver_counters tot = { 0 };

	EXPECT(driver__counters(harness__driver(h), NULL, 0, &tot) > 0);
	return tot.n_tcp_sockets;
}

static int must(int fd, const char *what)
{
	if (fd < 0) {
		perror(what);
		exit(1);
	}
	return fd;
}

/* socket()'s pair, where it arrives: DOMAIN (sysdig's code), TYPE, PROTO. */
static void expect_socket(struct harness *h, int *at, int domain, int type, int proto, int fd)
{
	struct hevt *e, *x;

	if (!pn_pair(h, at, PPME_SOCKET_SOCKET_E, me, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, domain);
	EXPECT_PARAM_INT(e, 1, type);
	EXPECT_PARAM_INT(e, 2, proto);
	EXPECT_PARAM_INT(x, 0, fd);
}

/* A TCP socket's socket(): in the kernel on the compact path. */
static void expect_tcp_socket(struct harness *h, int *at, int domain, int type, int proto,
			      int fd)
{
	if (!compact)
		expect_socket(h, at, domain, type, proto, fd);
}

static void expect_bind_listen(struct harness *h, int *at, int fd, const struct sockaddr *sa,
			       int backlog)
{
	uint8_t want[32];
	size_t n = pn_sockaddr_bytes(want, sa);
	struct hevt *e, *x;

	if (pn_pair(h, at, PPME_SOCKET_BIND_E, me, &e, &x)) {
		EXPECT_PARAM_INT(e, 0, fd);
		EXPECT_PARAM_INT(x, 0, 0);
		EXPECT_PARAM_BYTES(x, 1, want, n);
	}
	if (pn_pair(h, at, PPME_SOCKET_LISTEN_E, me, &e, &x)) {
		EXPECT_PARAM_INT(e, 0, fd);
		EXPECT_PARAM_INT(e, 1, backlog);
		EXPECT_PARAM_INT(x, 0, 0);
	}
}

/* connect's pair: the enter's addr empty on the compact path, else SA's
 * bytes; the exit's result RES and tuple TUP (TLEN bytes). */
static void expect_connect(struct harness *h, int *at, int fd, const struct sockaddr *sa,
			   int64_t res, const uint8_t *tup, size_t tlen)
{
	uint8_t want[32];
	size_t n = pn_sockaddr_bytes(want, sa);
	struct hevt *e, *x;

	if (!pn_pair(h, at, PPME_SOCKET_CONNECT_E, me, &e, &x))
		return;
	EXPECT(!e->rebuilt);
	EXPECT_PARAM_INT(e, 0, fd);
	if (compact)
		EXPECT_PARAM_EMPTY(e, 1);
	else
		EXPECT_PARAM_BYTES(e, 1, want, n);
	EXPECT_PARAM_INT(x, 0, res);
	EXPECT_PARAM_BYTES(x, 1, tup, tlen);
}

static void expect_close(struct harness *h, int *at, int fd)
{
	struct hevt *e, *x;

	if (!pn_pair(h, at, PPME_SYSCALL_CLOSE_E, me, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, fd);
	EXPECT_PARAM_INT(x, 0, 0);
}

/* One round of the calls with the driver loaded with SOCK_COMPACT. */
static void phase(bool sock_compact)
{
	struct driver_config cfg = pn_capture_self;
	struct sockaddr_in a4 = pn_in4("127.0.0.1", 0), local;
	struct sockaddr_in closed = pn_in4("127.0.0.1", pn_free_port(AF_INET, SOCK_STREAM));
	struct sockaddr_in6 a6 = pn_in6("::1", 0);
	/* what bind asks for (port 0): its exit shows that, not the port got */
	const struct sockaddr_in b4 = a4;
	const struct sockaddr_in6 b6 = a6;
	socklen_t len4 = sizeof(a4), len6 = sizeof(a6), llen = sizeof(local);
	uint8_t tup[64], tup2[64], ref[64];
	size_t tlen, tlen6, rlen;
	int l4, c4, s4, l6, c6, r, u, x, at = 0;
	uint64_t before, after;
	struct harness *h;
	struct hevt *e, *xe;

	cfg.syscalls = harness__only(calls);
	cfg.sock_families = (1u << PPM_AF_INET) | (1u << PPM_AF_INET6);
	cfg.sock_compact = sock_compact;
	cfg.file_closes = true;
	h = harness__open(256, &cfg);
	compact = sock_compact && harness__exit_only();


	harness__drain(h, -1);
	before = tcp_sockets(h);
	l4 = must(socket(AF_INET, SOCK_STREAM, 0), "socket");
	EXPECT(bind(l4, (void *)&a4, len4) == 0 && listen(l4, 4) == 0 &&
	       getsockname(l4, (void *)&a4, &len4) == 0);
	c4 = must(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP), "socket");
	EXPECT(connect(c4, (void *)&a4, len4) == 0);
	s4 = must(accept4(l4, NULL, NULL, SOCK_CLOEXEC), "accept4");
	l6 = must(socket(AF_INET6, SOCK_STREAM, 0), "socket");
	EXPECT(bind(l6, (void *)&a6, len6) == 0 && listen(l6, 2) == 0 &&
	       getsockname(l6, (void *)&a6, &len6) == 0);
	c6 = must(socket(AF_INET6, SOCK_STREAM, 0), "socket");
	EXPECT(connect(c6, (void *)&a6, len6) == 0);
	r = must(socket(AF_INET, SOCK_STREAM, 0), "socket");
	EXPECT(connect(r, (void *)&closed, sizeof(closed)) == -1 && errno == ECONNREFUSED);
	getsockname(r, (void *)&local, &llen);
	u = must(socket(AF_INET, SOCK_DGRAM, 0), "socket");
	x = must(socket(AF_UNIX, SOCK_STREAM, 0), "socket");
	tlen = pn_fd_tuple(tup, c4, 1);
	pn_fd_tuple(tup2, s4, 0);
	tlen6 = pn_fd_tuple(ref, c6, 1);
	EXPECT(tlen == 13 && tlen6 == 37);
	/* the server's view is the client's */
	EXPECT(memcmp(tup, tup2, tlen) == 0);
	for (int fd = x; fd >= l4; fd--)
		close(fd);
	harness__drain(h, me);
	after = tcp_sockets(h);

	/* 127.0.0.1: the listener, a client (SOCK_CLOEXEC, IPPROTO_TCP), the
	 * accepted end */
	expect_tcp_socket(h, &at, PPM_AF_INET, SOCK_STREAM, 0, l4);
	expect_bind_listen(h, &at, l4, (const void *)&b4, 4);
	expect_tcp_socket(h, &at, PPM_AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP, c4);
	expect_connect(h, &at, c4, (void *)&a4, 0, tup, tlen);
	if (pn_pair(h, &at, PPME_SOCKET_ACCEPT4_5_E, me, &e, &xe)) {
		EXPECT(!e->rebuilt);
		EXPECT_PARAM_INT(e, 0, SOCK_CLOEXEC);
		EXPECT_PARAM_INT(xe, 0, s4);
		EXPECT_PARAM_BYTES(xe, 1, tup2, tlen);
		EXPECT_PARAM_INT(xe, 2, 0);
		EXPECT_PARAM_INT(xe, 3, 0);
		EXPECT_PARAM_INT(xe, 4, 4);
	}
	/* ::1 */
	expect_tcp_socket(h, &at, PPM_AF_INET6, SOCK_STREAM, 0, l6);
	expect_bind_listen(h, &at, l6, (const void *)&b6, 2);
	expect_tcp_socket(h, &at, PPM_AF_INET6, SOCK_STREAM, 0, c6);
	expect_connect(h, &at, c6, (void *)&a6, 0, ref, tlen6);
	/* refused: the local end as the socket has it after the failure, the
	 * remote end as asked */
	expect_tcp_socket(h, &at, PPM_AF_INET, SOCK_STREAM, 0, r);
	rlen = pn_tuple_bytes(ref, (void *)&local, (void *)&closed);
	expect_connect(h, &at, r, (void *)&closed, -ECONNREFUSED, ref, rlen);
	/* not TCP, or not a wanted family: as before */
	expect_socket(h, &at, PPM_AF_INET, SOCK_DGRAM, 0, u);
	expect_socket(h, &at, PPM_AF_UNIX, SOCK_STREAM, 0, x);
	for (int fd = x; fd >= l4; fd--)
		expect_close(h, &at, fd);
	EXPECT(at == harness__count(h));
	if (at != harness__count(h))
		fprintf(stderr, "  %d events of ours past the last checked (type %d next)\n",
			harness__count(h) - at, harness__get(h, at)->hdr.type);
	if (compact)
		EXPECT(after >= before + 5);
	else
		EXPECT(before == 0 && after == 0);
	fprintf(stderr, "sock_compact %d: socket() of TCP sockets kept in the kernel: %llu"
		" (5 of them ours)\n", sock_compact, (unsigned long long)(after - before));
	harness__close(h);
}

int main(void)
{
	me = pn_gettid();
	phase(true);
	/* the agent's request mode with -w: the compact path off */
	phase(false);
	return harness__report("sock_conns");
}
