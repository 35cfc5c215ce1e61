/* socket, bind, listen, connect, accept4, accept, shutdown on 127.0.0.1 and ::1
 * (tuples checked against getsockname/getpeername on both sides, accept queue
 * stats with a known backlog), a unix stream pair, and failures: ECONNREFUSED,
 * EADDRINUSE, EBADF, ENOTSOCK. */
#include "pn_test.h"

#define BAD_FD 9999

static int64_t me;

/* The calls checked (glibc's wrappers are these syscalls; accept is its own). */
static const int socket_calls[] = {
	SYS_socket, SYS_bind, SYS_listen, SYS_connect, SYS_accept, SYS_accept4, SYS_shutdown, -1,
};

/* The next event of TYPE; its header must be ours. */
static struct hevt *next(struct harness *h, uint16_t type, int *at)
{
	struct hevt *e = harness__find(h, type, at);

	EXPECT(e != NULL);
	if (e)
		hevt__expect_header(e, type, me);
	return e;
}

static void expect_socket(struct harness *h, int *at, int domain, int type, int proto, int fd)
{
	struct hevt *e = next(h, PPME_SOCKET_SOCKET_E, at);

	if (e) {
		EXPECT_PARAM_INT(e, 0, domain);
		EXPECT_PARAM_INT(e, 1, type);
		EXPECT_PARAM_INT(e, 2, proto);
	}
	e = next(h, PPME_SOCKET_SOCKET_X, at);
	if (e)
		EXPECT_PARAM_INT(e, 0, fd);
}

static void expect_bind(struct harness *h, int *at, int fd, int64_t res, const struct sockaddr *sa)
{
	uint8_t want[32];
	size_t n = pn_sockaddr_bytes(want, sa);
	struct hevt *e = pn_find_arg0(h, PPME_SOCKET_BIND_E, fd, at);

	EXPECT(e != NULL);
	e = next(h, PPME_SOCKET_BIND_X, at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, res);
		EXPECT_PARAM_BYTES(e, 1, want, n);
	}
}

static void expect_listen(struct harness *h, int *at, int fd, int backlog, int64_t res)
{
	struct hevt *e = next(h, PPME_SOCKET_LISTEN_E, at);

	if (e) {
		EXPECT_PARAM_INT(e, 0, fd);
		EXPECT_PARAM_INT(e, 1, backlog);
	}
	e = next(h, PPME_SOCKET_LISTEN_X, at);
	if (e)
		EXPECT_PARAM_INT(e, 0, res);
}

/* connect's enter (fd, addr) and exit (res, tuple TUP of TLEN bytes or empty). */
static void expect_connect(struct harness *h, int *at, int fd, const struct sockaddr *sa,
			   int64_t res, const uint8_t *tup, size_t tlen)
{
	uint8_t want[32];
	size_t n = pn_sockaddr_bytes(want, sa);
	struct hevt *e = next(h, PPME_SOCKET_CONNECT_E, at);

	if (e) {
		EXPECT_PARAM_INT(e, 0, fd);
		EXPECT_PARAM_BYTES(e, 1, want, n);
	}
	e = next(h, PPME_SOCKET_CONNECT_X, at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, res);
		if (tup)
			EXPECT_PARAM_BYTES(e, 1, tup, tlen);
		else
			EXPECT_PARAM_EMPTY(e, 1);
	}
}

/* An accept exit: fd, tuple (peer -> local of FD), queue stats. */
static void expect_accept_x(struct hevt *e, int64_t fd, int qlen, int qmax)
{
	uint8_t tup[64];

	if (!e)
		return;
	EXPECT_PARAM_INT(e, 0, fd);
	if (fd >= 0)
		EXPECT_PARAM_BYTES(e, 1, tup, pn_fd_tuple(tup, fd, 0));
	else
		EXPECT_PARAM_EMPTY(e, 1);
	EXPECT_PARAM_INT(e, 2, qmax ? qlen * 100 / qmax : 0);
	EXPECT_PARAM_INT(e, 3, qlen);
	EXPECT_PARAM_INT(e, 4, qmax);
}

/* Two clients connect before the server accepts: the first accept4 sees one
 * more in the queue, the plain accept none. FAMILY is AF_INET or AF_INET6. */
static void test_tcp(struct harness *h, int family)
{
	const char *ip = family == AF_INET ? "127.0.0.1" : "::1";
	uint16_t port = pn_free_port(family, SOCK_STREAM);
	struct sockaddr_in a4 = pn_in4(ip, port);
	struct sockaddr_in6 a6 = pn_in6(ip, port);
	struct sockaddr *sa = family == AF_INET ? (void *)&a4 : (void *)&a6;
	socklen_t slen = family == AF_INET ? sizeof(a4) : sizeof(a6);
	uint8_t tup1[64], tup2[64];
	size_t t1, t2;
	int srv, c1, c2, s1, s2, at = 0;
	struct hevt *e;

	harness__drain(h, -1);
	srv = socket(family, SOCK_STREAM, 0);
	bind(srv, sa, slen);
	listen(srv, 7);
	c1 = socket(family, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
	EXPECT(connect(c1, sa, slen) == 0);
	c2 = socket(family, SOCK_STREAM, 0);
	EXPECT(connect(c2, sa, slen) == 0);
	s1 = accept4(srv, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	s2 = syscall(SYS_accept, srv, NULL, NULL);
	EXPECT(s1 >= 0 && s2 >= 0);
	shutdown(c1, SHUT_WR);
	shutdown(c2, SHUT_RDWR);
	harness__drain(h, me);

	expect_socket(h, &at, family, SOCK_STREAM, 0, srv);
	expect_bind(h, &at, srv, 0, sa);
	expect_listen(h, &at, srv, 7, 0);
	expect_socket(h, &at, family, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP, c1);
	t1 = pn_fd_tuple(tup1, c1, 1);
	EXPECT(t1 == (family == AF_INET ? 13u : 37u));
	expect_connect(h, &at, c1, sa, 0, tup1, t1);
	expect_socket(h, &at, family, SOCK_STREAM, 0, c2);
	t2 = pn_fd_tuple(tup2, c2, 1);
	expect_connect(h, &at, c2, sa, 0, tup2, t2);

	e = next(h, PPME_SOCKET_ACCEPT4_5_E, &at);
	if (e)
		EXPECT_PARAM_INT(e, 0, SOCK_CLOEXEC | SOCK_NONBLOCK);
	expect_accept_x(next(h, PPME_SOCKET_ACCEPT4_5_X, &at), s1, 1, 7);
	next(h, PPME_SOCKET_ACCEPT_5_E, &at);
	expect_accept_x(next(h, PPME_SOCKET_ACCEPT_5_X, &at), s2, 0, 7);
	/* The server's view is the client's, reversed. */
	pn_fd_tuple(tup2, s1, 0);
	EXPECT(memcmp(tup1, tup2, t1) == 0);

	e = next(h, PPME_SOCKET_SHUTDOWN_E, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, c1);
		EXPECT_PARAM_INT(e, 1, PPM_SHUTDOWN_HOW_SHUT_WR);
	}
	e = next(h, PPME_SOCKET_SHUTDOWN_X, &at);
	if (e)
		EXPECT_PARAM_INT(e, 0, 0);
	e = next(h, PPME_SOCKET_SHUTDOWN_E, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, c2);
		EXPECT_PARAM_INT(e, 1, PPM_SHUTDOWN_HOW_SHUT_RDWR);
	}
	close(s1);
	close(s2);
	close(c1);
	close(c2);
	close(srv);
}

/* A closed port refuses; bad and non-socket fds fail before any socket is read. */
static void test_failures(struct harness *h)
{
	uint16_t port = pn_free_port(AF_INET, SOCK_STREAM);
	struct sockaddr_in closed = pn_in4("127.0.0.1", port);
	struct sockaddr_in local;
	socklen_t llen = sizeof(local);
	uint8_t tup[64];
	size_t tlen;
	int c, busy, dup_, file, at = 0;
	struct hevt *e;

	harness__drain(h, -1);
	c = socket(AF_INET, SOCK_STREAM, 0);
	EXPECT(connect(c, (void *)&closed, sizeof(closed)) == -1 && errno == ECONNREFUSED);
	getsockname(c, (void *)&local, &llen);
	connect(BAD_FD, (void *)&closed, sizeof(closed));
	file = open("/proc/self/cmdline", O_RDONLY);
	connect(file, (void *)&closed, sizeof(closed));
	busy = socket(AF_INET, SOCK_STREAM, 0);
	bind(busy, (void *)&closed, sizeof(closed));
	listen(busy, 1);
	dup_ = socket(AF_INET, SOCK_STREAM, 0);
	EXPECT(bind(dup_, (void *)&closed, sizeof(closed)) == -1 && errno == EADDRINUSE);
	syscall(SYS_accept4, BAD_FD, NULL, NULL, 0);
	listen(BAD_FD, 3);
	shutdown(file, SHUT_RD);
	harness__drain(h, me);

	/* Refused: the local end as the socket has it after the failure (getsockname
	 * reads the same fields), the remote end as asked. */
	tlen = pn_tuple_bytes(tup, (void *)&local, (void *)&closed);
	expect_connect(h, &at, c, (void *)&closed, -ECONNREFUSED, tup, tlen);
	expect_connect(h, &at, BAD_FD, (void *)&closed, -EBADF, NULL, 0);
	expect_connect(h, &at, file, (void *)&closed, -ENOTSOCK, NULL, 0);
	expect_bind(h, &at, busy, 0, (void *)&closed);
	expect_bind(h, &at, dup_, -EADDRINUSE, (void *)&closed);
	e = next(h, PPME_SOCKET_ACCEPT4_5_E, &at);
	if (e)
		EXPECT_PARAM_INT(e, 0, 0);
	expect_accept_x(next(h, PPME_SOCKET_ACCEPT4_5_X, &at), -EBADF, 0, 0);
	expect_listen(h, &at, BAD_FD, 3, -EBADF);
	e = next(h, PPME_SOCKET_SHUTDOWN_E, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, file);
		EXPECT_PARAM_INT(e, 1, PPM_SHUTDOWN_HOW_SHUT_RD);
	}
	e = next(h, PPME_SOCKET_SHUTDOWN_X, &at);
	if (e)
		EXPECT_PARAM_INT(e, 0, -ENOTSOCK);
	close(c);
	close(busy);
	close(dup_);
	close(file);
}

/* A unix stream pair: family 1, kernel socket pointers, the path. The client's
 * connect tuple is peer -> self; the server's accept tuple self -> peer, so the
 * pointers match crosswise. */
static void test_unix(struct harness *h, const char *dir)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	uint64_t cp[2], sp[2];
	int srv, c, s, at = 0;
	struct hevt *e;
	size_t plen;

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%.80s/pn.sock", dir);
	plen = strlen(sun.sun_path) + 1;
	harness__drain(h, -1);
	srv = socket(AF_UNIX, SOCK_STREAM, 0);
	bind(srv, (void *)&sun, sizeof(sun));
	listen(srv, 2);
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	EXPECT(connect(c, (void *)&sun, sizeof(sun)) == 0);
	s = accept(srv, NULL, NULL);
	harness__drain(h, me);

	expect_socket(h, &at, AF_UNIX, SOCK_STREAM, 0, srv);
	e = next(h, PPME_SOCKET_BIND_X, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, 0);
		EXPECT(e->p.len[1] == 1 + plen && e->p.val[1][0] == 1);
		EXPECT(e->p.len[1] == 1 + plen && !memcmp(e->p.val[1] + 1, sun.sun_path, plen));
	}
	expect_socket(h, &at, AF_UNIX, SOCK_STREAM, 0, c);
	e = next(h, PPME_SOCKET_CONNECT_E, &at);
	if (e)
		EXPECT(e->p.len[1] == 1 + plen && !memcmp(e->p.val[1] + 1, sun.sun_path, plen));
	e = next(h, PPME_SOCKET_CONNECT_X, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, 0);
		EXPECT(e->p.len[1] == 17 + plen);
		if (e->p.len[1] == 17 + plen) {
			EXPECT(e->p.val[1][0] == 1);
			memcpy(cp, e->p.val[1] + 1, 16);
			EXPECT(!memcmp(e->p.val[1] + 17, sun.sun_path, plen));
		}
	}
	e = harness__find(h, PPME_SOCKET_ACCEPT_5_X, &at);
	EXPECT(e != NULL);
	if (e) {
		hevt__expect_header(e, PPME_SOCKET_ACCEPT_5_X, me);
		EXPECT_PARAM_INT(e, 0, s);
		EXPECT(e->p.len[1] == 17 + plen);
		if (e->p.len[1] == 17 + plen) {
			memcpy(sp, e->p.val[1] + 1, 16);
			EXPECT(!memcmp(e->p.val[1] + 17, sun.sun_path, plen));
			EXPECT(cp[0] && cp[1] && cp[0] == sp[0] && cp[1] == sp[1]);
		}
		EXPECT_PARAM_INT(e, 3, 0);
		EXPECT_PARAM_INT(e, 4, 2);
	}
	close(s);
	close(c);
	close(srv);
	unlink(sun.sun_path);
}

int main(void)
{
	char dir[PATH_MAX];
	struct harness *h;

	me = pn_gettid();
	pn_tmpdir(dir, sizeof(dir));
	h = pn_open(256, socket_calls);
	test_tcp(h, AF_INET);
	test_tcp(h, AF_INET6);
	test_failures(h);
	test_unix(h, dir);
	harness__close(h);
	rmdir(dir);
	return harness__report("procnet_socket");
}
