/* Request mode's kernel filter (driver_config.sock_families): the same I/O on a
 * pipe, a regular file, TCP over 127.0.0.1, an AF_UNIX socketpair and UDP over
 * ::1, plus splice into a socket and out of a file, under several masks set on
 * one loaded driver. Exactly the calls on wanted sockets arrive, in order, every
 * param checked; with mask 0 everything does. Within each round, peeks (recvfrom
 * and recvmsg with MSG_PEEK) on TCP, the socketpair and UDP: on a wanted socket
 * they stay in the kernel, each judgement counted in n_peeks (twice a call with
 * sys_enter attached, its enter and exit judged apart; once in exit-only
 * capture), while the plain reads that then take the bytes arrive; on a socket
 * of another family they stay for that reason, uncounted; with mask 0 they
 * arrive with the peeked bytes and n_peeks stays.
 * Then quiet_socks, on the same load: TCP pairs over 127.0.0.1, ::1 and a
 * v4-mapped ::ffff:127.0.0.1, their client ends keyed in rounds (none; the ::1
 * server end, a wrong key for its client; the IPv4 and v4-mapped clients; all
 * three; none again, each removal once 0 then -ENOENT), with a splice from a
 * pipe into the IPv4 client. In exit-only capture a keyed end's calls stay in
 * the kernel, each counted once in n_quiet, and exactly the others arrive, in
 * order, every param checked; without exit-only every call arrives and n_quiet
 * stays 0. Last, the table's bound: SOCK_QUIET_MAX ends, then -E2BIG. */
#include <sys/uio.h>

#include "procnet/pn_test.h"

static const int sock_only_calls[] = {
	SYS_read, SYS_write, SYS_sendto, SYS_recvfrom, SYS_recvmsg, SYS_splice, -1,
};

#define BUF 64
#define FAM(af) (1u << (af))
#define MASK_NET (FAM(PPM_AF_INET) | FAM(PPM_AF_INET6))
/* What a stream's peeks see: its plain reads take PEEK_HALF bytes each. */
#define PEEK_DATA "peeked bytes"
#define PEEK_LEN 12
#define PEEK_HALF 6
#define UDP_PEEK "udp6 peek"

/* Where each call's fd leads; a family of -1 is no socket. */
enum chan { C_PIPE, C_FILE, C_TCP, C_UNIX, C_UDP6, C_N };
static const int chan_family[C_N] = { -1, -1, PPM_AF_INET, PPM_AF_UNIX, PPM_AF_INET6 };

struct ends {
	int pipe[2], file, tcp_cli, tcp_srv, unx[2], udp_cli, udp_srv;
	struct sockaddr_in6 udp_cli_a, udp_srv_a;
};

static int64_t me;

static int wanted(uint32_t mask, enum chan c)
{
	return !mask || (chan_family[c] >= 0 && ((mask >> chan_family[c]) & 1));
}

/* A connected TCP pair over loopback address IP of FAMILY (an AF_INET6 socket
 * may name a v4-mapped address: it is then left dual-stack). Exits on failure. */
static void tcp__pair(int family, const char *ip, int *cli, int *srv)
{
	struct sockaddr_storage a = { 0 };
	socklen_t alen = family == AF_INET ? sizeof(struct sockaddr_in)
					   : sizeof(struct sockaddr_in6);
	int l = socket(family, SOCK_STREAM, 0), off = 0;

	if (family == AF_INET)
		*(struct sockaddr_in *)&a = pn_in4(ip, 0);
	else
		*(struct sockaddr_in6 *)&a = pn_in6(ip, 0);
	*cli = socket(family, SOCK_STREAM, 0);
	if (l < 0 || *cli < 0 || (family == AF_INET6 &&
				  setsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off))) ||
	    bind(l, (void *)&a, alen) || listen(l, 1) || getsockname(l, (void *)&a, &alen) ||
	    connect(*cli, (void *)&a, alen) || (*srv = accept(l, NULL, NULL)) < 0) {
		fprintf(stderr, "tcp pair over %s: %s\n", ip, strerror(errno));
		exit(1);
	}
	close(l);
}

static void ends__open(struct ends *x, const char *path)
{
	tcp__pair(AF_INET, "127.0.0.1", &x->tcp_cli, &x->tcp_srv);
	x->udp_srv_a = pn_in6("::1", 0);
	x->udp_cli_a = pn_in6("::1", 0);
	x->udp_srv = pn_udp_bind(AF_INET6, &x->udp_srv_a, sizeof(x->udp_srv_a));
	x->udp_cli = pn_udp_bind(AF_INET6, &x->udp_cli_a, sizeof(x->udp_cli_a));
	x->file = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (pipe(x->pipe) || socketpair(AF_UNIX, SOCK_STREAM, 0, x->unx) || x->file < 0 ||
	    x->udp_srv < 0 || x->udp_cli < 0) {
		perror("test ends");
		exit(1);
	}
}

static void ends__close(struct ends *x)
{
	int fds[] = { x->pipe[0], x->pipe[1], x->file, x->tcp_cli, x->tcp_srv,
		      x->unx[0], x->unx[1], x->udp_cli, x->udp_srv };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		close(fds[i]);
}

/* recvmsg on FD into one BUF-byte buffer, the sender's address into FROM
 * (NULL: none asked for). */
static ssize_t recvmsg1(int fd, char *buf, struct sockaddr_in6 *from, int flags)
{
	struct iovec iov = { buf, BUF };
	struct msghdr m = { .msg_name = from, .msg_namelen = from ? sizeof(*from) : 0,
			    .msg_iov = &iov, .msg_iovlen = 1 };

	return recvmsg(fd, &m, flags);
}

/* A stream's peeks: WFD writes PEEK_DATA; RFD peeks at 1 byte by recvfrom
 * (nginx's look at a TLS port) and at all of it by recvmsg, then takes one half
 * by a plain recvfrom and the other by a plain recvmsg. */
static void peek__stream(int wfd, int rfd)
{
	char buf[BUF];

	EXPECT(write(wfd, PEEK_DATA, PEEK_LEN) == PEEK_LEN);
	EXPECT(recvfrom(rfd, buf, 1, MSG_PEEK, NULL, NULL) == 1 && buf[0] == 'p');
	EXPECT(recvmsg1(rfd, buf, NULL, MSG_PEEK) == PEEK_LEN &&
	       memcmp(buf, PEEK_DATA, PEEK_LEN) == 0);
	EXPECT(recvfrom(rfd, buf, PEEK_HALF, 0, NULL, NULL) == PEEK_HALF);
	EXPECT(recvmsg1(rfd, buf, NULL, 0) == PEEK_LEN - PEEK_HALF);
}

/* A datagram's: peeked at by recvfrom and recvmsg, both asking for the sender,
 * then taken by a plain recvmsg. */
static void peek__udp(struct ends *x)
{
	struct sockaddr_in6 from;
	socklen_t flen = sizeof(from);
	char buf[BUF];

	EXPECT(sendto(x->udp_cli, UDP_PEEK, 9, 0, (void *)&x->udp_srv_a,
		      sizeof(x->udp_srv_a)) == 9);
	EXPECT(recvfrom(x->udp_srv, buf, BUF, MSG_PEEK, (void *)&from, &flen) == 9);
	EXPECT(recvmsg1(x->udp_srv, buf, &from, MSG_PEEK) == 9);
	EXPECT(recvmsg1(x->udp_srv, buf, &from, 0) == 9);
}

/* The calls of one round, in the order the checks walk them. */
static void round__run(struct ends *x)
{
	struct sockaddr_in6 from;
	socklen_t flen = sizeof(from);
	char buf[BUF];
	loff_t off = 0;

	EXPECT(write(x->pipe[1], "pipe bytes", 10) == 10);
	EXPECT(read(x->pipe[0], buf, BUF) == 10);
	EXPECT(write(x->file, "file bytes", 10) == 10);
	lseek(x->file, 0, SEEK_SET);
	EXPECT(read(x->file, buf, BUF) == 10);
	EXPECT(write(x->tcp_cli, "GET / HTTP/1.1\r\n\r\n", 18) == 18);
	EXPECT(read(x->tcp_srv, buf, BUF) == 18);
	EXPECT(write(x->unx[0], "unix bytes", 10) == 10);
	EXPECT(read(x->unx[1], buf, BUF) == 10);
	EXPECT(sendto(x->udp_cli, "udp6 query", 10, 0, (void *)&x->udp_srv_a,
		      sizeof(x->udp_srv_a)) == 10);
	EXPECT(recvfrom(x->udp_srv, buf, BUF, 0, (void *)&from, &flen) == 10);
	peek__stream(x->tcp_cli, x->tcp_srv);
	peek__stream(x->unx[0], x->unx[1]);
	peek__udp(x);
	/* a pipe into a socket (a proxy's second half), then a file into a pipe */
	EXPECT(write(x->pipe[1], "spliced", 7) == 7);
	EXPECT(splice(x->pipe[0], NULL, x->tcp_cli, NULL, 7, 0) == 7);
	EXPECT(read(x->tcp_srv, buf, BUF) == 7);
	EXPECT(splice(x->file, &off, x->pipe[1], NULL, 10, 0) == 10);
	EXPECT(read(x->pipe[0], buf, BUF) == 10);
	lseek(x->file, 0, SEEK_SET);
}

/* The enter event of TYPE at *AT and its exit right after it, both of this
 * thread (only this thread's events are kept, and it makes nothing between). */
static int pair(struct harness *h, int *at, uint16_t type, struct hevt **e, struct hevt **x)
{
	return pn_pair(h, at, type, me, e, x);
}

/* read or write (TYPE) of LEN bytes DATA on FD. */
static void expect_io(struct harness *h, int *at, uint16_t type, int fd, const char *data,
		      int64_t len)
{
	struct hevt *e, *x;

	if (!pair(h, at, type, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, fd);
	EXPECT_PARAM_INT(e, 1, type == PPME_SYSCALL_READ_E ? BUF : len);
	EXPECT_PARAM_INT(x, 0, len);
	EXPECT_PARAM_BYTES(x, 1, data, (size_t)len);
}

/* The same when channel C is wanted under MASK. */
static void expect_rw(struct harness *h, int *at, uint32_t mask, enum chan c, uint16_t type,
		      int fd, const char *data, int64_t len)
{
	if (wanted(mask, c))
		expect_io(h, at, type, fd, data, len);
}

/* sendto on FD of LEN bytes DATA to the tuple TUP (TLEN bytes). */
static void expect_sendto(struct harness *h, int *at, int fd, const char *data, int64_t len,
			  const void *tup, size_t tlen)
{
	struct hevt *e, *x;

	if (!pair(h, at, PPME_SOCKET_SENDTO_E, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, fd);
	EXPECT_PARAM_INT(e, 1, len);
	EXPECT_PARAM_BYTES(e, 2, tup, tlen);
	EXPECT_PARAM_INT(x, 0, len);
	EXPECT_PARAM_BYTES(x, 1, data, (size_t)len);
}

/* recvfrom on FD asking SIZE bytes, that got LEN bytes DATA from the sender of
 * tuple TUP (TLEN bytes; 0: no address asked for). */
static void expect_recvfrom(struct harness *h, int *at, int fd, int64_t size, const char *data,
			    int64_t len, const void *tup, size_t tlen)
{
	struct hevt *e, *x;

	if (!pair(h, at, PPME_SOCKET_RECVFROM_E, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, fd);
	EXPECT_PARAM_INT(e, 1, size);
	EXPECT_PARAM_INT(x, 0, len);
	EXPECT_PARAM_BYTES(x, 1, data, (size_t)len);
	EXPECT_PARAM_BYTES(x, 2, tup, tlen);	/* inbound: the sender first */
}

/* The same for recvmsg1 (one BUF-byte buffer). */
static void expect_recvmsg(struct harness *h, int *at, int fd, const char *data, int64_t len,
			   const void *tup, size_t tlen)
{
	struct hevt *e, *x;

	if (!pair(h, at, PPME_SOCKET_RECVMSG_E, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, fd);
	EXPECT_PARAM_INT(x, 0, len);
	EXPECT_PARAM_INT(x, 1, BUF);
	EXPECT_PARAM_BYTES(x, 2, data, (size_t)len);
	EXPECT_PARAM_BYTES(x, 3, tup, tlen);
}

/* peek__stream's events on channel C (writer WFD, reader RFD) under MASK.
 * Returns how many of its calls are peeks request mode keeps and counts. */
static uint64_t peek__check_stream(struct harness *h, int *at, uint32_t mask, enum chan c,
				   int wfd, int rfd)
{
	if (!wanted(mask, c))
		return 0;
	expect_io(h, at, PPME_SYSCALL_WRITE_E, wfd, PEEK_DATA, PEEK_LEN);
	if (!mask) {
		expect_recvfrom(h, at, rfd, 1, PEEK_DATA, 1, "", 0);
		expect_recvmsg(h, at, rfd, PEEK_DATA, PEEK_LEN, "", 0);
	}
	expect_recvfrom(h, at, rfd, PEEK_HALF, PEEK_DATA, PEEK_HALF, "", 0);
	expect_recvmsg(h, at, rfd, PEEK_DATA + PEEK_HALF, PEEK_LEN - PEEK_HALF, "", 0);
	return mask ? 2 : 0;
}

/* peek__udp's, the same. */
static uint64_t peek__check_udp(struct harness *h, int *at, uint32_t mask, struct ends *x,
				const void *tup, size_t tlen)
{
	if (!wanted(mask, C_UDP6))
		return 0;
	expect_sendto(h, at, x->udp_cli, UDP_PEEK, 9, tup, tlen);
	if (!mask) {
		expect_recvfrom(h, at, x->udp_srv, BUF, UDP_PEEK, 9, tup, tlen);
		expect_recvmsg(h, at, x->udp_srv, UDP_PEEK, 9, tup, tlen);
	}
	expect_recvmsg(h, at, x->udp_srv, UDP_PEEK, 9, tup, tlen);
	return mask ? 2 : 0;
}

/* The driver's counters, summed over CPUs. */
static struct driver_counters counters(struct harness *h)
{
	struct driver_counters tot = { 0 };

	EXPECT(driver__counters(harness__driver(h), NULL, 0, &tot) > 0);
	return tot;
}

static void expect_splice(struct harness *h, int *at, int in, int out, int64_t len)
{
	struct hevt *e, *x;

	if (!pair(h, at, PPME_SYSCALL_SPLICE_E, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, in);
	EXPECT_PARAM_INT(e, 1, out);
	EXPECT_PARAM_INT(e, 2, len);
	EXPECT_PARAM_INT(e, 3, 0);
	EXPECT_PARAM_INT(x, 0, len);
}

/* One round under MASK: the wanted calls' events, in order, and nothing else;
 * each peek kept in the kernel counted in n_peeks once per program that judged
 * it (sys_enter's and sys_exit's, or exit-only capture's one). */
static void round__check(struct harness *h, struct ends *x, uint32_t mask)
{
	uint8_t tup[64];
	size_t tlen = pn_tuple_bytes(tup, (void *)&x->udp_cli_a, (void *)&x->udp_srv_a);
	uint64_t before, after, peeks = 0;
	int at = 0;

	harness__drain(h, -1);
	before = counters(h).n_peeks;
	round__run(x);
	after = counters(h).n_peeks;
	harness__drain(h, me);

	expect_rw(h, &at, mask, C_PIPE, PPME_SYSCALL_WRITE_E, x->pipe[1], "pipe bytes", 10);
	expect_rw(h, &at, mask, C_PIPE, PPME_SYSCALL_READ_E, x->pipe[0], "pipe bytes", 10);
	expect_rw(h, &at, mask, C_FILE, PPME_SYSCALL_WRITE_E, x->file, "file bytes", 10);
	expect_rw(h, &at, mask, C_FILE, PPME_SYSCALL_READ_E, x->file, "file bytes", 10);
	expect_rw(h, &at, mask, C_TCP, PPME_SYSCALL_WRITE_E, x->tcp_cli,
		  "GET / HTTP/1.1\r\n\r\n", 18);
	expect_rw(h, &at, mask, C_TCP, PPME_SYSCALL_READ_E, x->tcp_srv,
		  "GET / HTTP/1.1\r\n\r\n", 18);
	expect_rw(h, &at, mask, C_UNIX, PPME_SYSCALL_WRITE_E, x->unx[0], "unix bytes", 10);
	expect_rw(h, &at, mask, C_UNIX, PPME_SYSCALL_READ_E, x->unx[1], "unix bytes", 10);
	if (wanted(mask, C_UDP6)) {
		expect_sendto(h, &at, x->udp_cli, "udp6 query", 10, tup, tlen);
		expect_recvfrom(h, &at, x->udp_srv, BUF, "udp6 query", 10, tup, tlen);
	}
	peeks += peek__check_stream(h, &at, mask, C_TCP, x->tcp_cli, x->tcp_srv);
	peeks += peek__check_stream(h, &at, mask, C_UNIX, x->unx[0], x->unx[1]);
	peeks += peek__check_udp(h, &at, mask, x, tup, tlen);
	expect_rw(h, &at, mask, C_PIPE, PPME_SYSCALL_WRITE_E, x->pipe[1], "spliced", 7);
	/* splice: either end a wanted socket (here its fd_out) */
	if (wanted(mask, C_PIPE) || wanted(mask, C_TCP))
		expect_splice(h, &at, x->pipe[0], x->tcp_cli, 7);
	expect_rw(h, &at, mask, C_TCP, PPME_SYSCALL_READ_E, x->tcp_srv, "spliced", 7);
	if (wanted(mask, C_FILE))
		expect_splice(h, &at, x->file, x->pipe[1], 10);
	expect_rw(h, &at, mask, C_PIPE, PPME_SYSCALL_READ_E, x->pipe[0], "file bytes", 10);
	/* with sys_enter attached, its program and sys_exit's judge each apart */
	if (!harness__exit_only())
		peeks *= 2;
	fprintf(stderr, "mask 0x%x: %d events, n_peeks +%llu (want +%llu)\n", mask,
		harness__count(h), (unsigned long long)(after - before),
		(unsigned long long)peeks);
	EXPECT(at == harness__count(h));
	EXPECT(after - before == peeks);
}

/* The quiet phase (quiet_socks): three TCP pairs, under MASK_NET. */
enum qpair { Q_V4, Q_V6, Q_MAPPED, Q_N };
static const int q_family[Q_N] = { AF_INET, AF_INET6, AF_INET6 };
static const char *const q_ip[Q_N] = { "127.0.0.1", "::1", "::ffff:127.0.0.1" };
static const char *const q_req[Q_N] = { "GET /v4 HTTP/1.1\r\n\r\n", "GET /v6 HTTP/1.1\r\n\r\n",
					"GET /mapped HTTP/1.1\r\n\r\n" };
static const char *const q_resp[Q_N] = { "HTTP/1.1 200 v4\r\n\r\n", "HTTP/1.1 200 v6\r\n\r\n",
					 "HTTP/1.1 200 mapped\r\n\r\n" };

struct qends {
	int cli[Q_N], srv[Q_N];
	struct sock_quiet_key cli_key[Q_N], srv_key[Q_N];
};

/* Which ends' tuples are in quiet_socks during a round. */
struct qkeys {
	bool cli[Q_N], srv[Q_N];
};

/* Address SS as a key's family, address and port (v4-mapped as IPv4). */
static void key__addr(const struct sockaddr_storage *ss, uint8_t *family, uint8_t addr[16],
		      uint16_t *port)
{
	const struct sockaddr_in *in = (const void *)ss;
	const struct sockaddr_in6 *in6 = (const void *)ss;

	if (ss->ss_family == AF_INET) {
		*family = PPM_AF_INET;
		memcpy(addr, &in->sin_addr, 4);
		*port = ntohs(in->sin_port);
		return;
	}
	*port = ntohs(in6->sin6_port);
	if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
		*family = PPM_AF_INET;
		memcpy(addr, &in6->sin6_addr.s6_addr[12], 4);
	} else {
		*family = PPM_AF_INET6;
		memcpy(addr, &in6->sin6_addr, 16);
	}
}

/* FD's own tuple as a quiet_socks key, as userspace's fd table would give it. */
static void key__of_fd(struct sock_quiet_key *k, int fd)
{
	struct sockaddr_storage l, r;
	socklen_t ll = sizeof(l), rl = sizeof(r);
	uint8_t rfam;

	memset(k, 0, sizeof(*k));
	if (getsockname(fd, (void *)&l, &ll) || getpeername(fd, (void *)&r, &rl)) {
		perror("quiet key");
		exit(1);
	}
	k->l4proto = IPPROTO_TCP;
	key__addr(&l, &k->family, k->laddr, &k->lport);
	key__addr(&r, &rfam, k->raddr, &k->rport);
}

static void qends__open(struct qends *q)
{
	for (int i = 0; i < Q_N; i++) {
		tcp__pair(q_family[i], q_ip[i], &q->cli[i], &q->srv[i]);
		key__of_fd(&q->cli_key[i], q->cli[i]);
		key__of_fd(&q->srv_key[i], q->srv[i]);
	}
}

static void qends__close(struct qends *q)
{
	for (int i = 0; i < Q_N; i++) {
		close(q->cli[i]);
		close(q->srv[i]);
	}
}

/* The calls of one quiet round, in the order the checks walk them. */
static void qround__run(struct qends *q, struct ends *x)
{
	char buf[BUF];
	int i;

	for (i = 0; i < Q_N; i++)
		EXPECT(write(q->cli[i], q_req[i], strlen(q_req[i])) == (ssize_t)strlen(q_req[i]));
	for (i = 0; i < Q_N; i++)
		EXPECT(read(q->srv[i], buf, BUF) == (ssize_t)strlen(q_req[i]));
	for (i = 0; i < Q_N; i++)
		EXPECT(write(q->srv[i], q_resp[i], strlen(q_resp[i])) == (ssize_t)strlen(q_resp[i]));
	for (i = 0; i < Q_N; i++)
		EXPECT(read(q->cli[i], buf, BUF) == (ssize_t)strlen(q_resp[i]));
	/* a pipe (never wanted) into the IPv4 client: quiet or sent by the socket alone */
	EXPECT(write(x->pipe[1], "spliced", 7) == 7);
	EXPECT(splice(x->pipe[0], NULL, q->cli[Q_V4], NULL, 7, 0) == 7);
	EXPECT(read(q->srv[Q_V4], buf, BUF) == 7);
}

/* One read or write: 1 when it stays in the kernel (QUIET), else its events
 * are checked and 0. */
static int qio(struct harness *h, int *at, bool quiet, uint16_t type, int fd, const char *data)
{
	if (quiet)
		return 1;
	expect_io(h, at, type, fd, data, (int64_t)strlen(data));
	return 0;
}

static uint64_t quiet__count(struct harness *h)
{
	return counters(h).n_quiet;
}

/* One round with the keys K in quiet_socks: in exit-only capture the calls on
 * a keyed end stay in the kernel, each counted once in n_quiet, and exactly
 * the others arrive, in order; elsewhere a key does nothing. */
static void qround__check(struct harness *h, struct qends *q, struct ends *x,
			  const struct qkeys *k, const char *name)
{
	bool eo = harness__exit_only();
	uint64_t before, after, want = 0;
	int at = 0, i;

	harness__drain(h, -1);
	before = quiet__count(h);
	qround__run(q, x);
	after = quiet__count(h);
	harness__drain(h, me);
	for (i = 0; i < Q_N; i++)
		want += qio(h, &at, eo && k->cli[i], PPME_SYSCALL_WRITE_E, q->cli[i], q_req[i]);
	for (i = 0; i < Q_N; i++)
		want += qio(h, &at, eo && k->srv[i], PPME_SYSCALL_READ_E, q->srv[i], q_req[i]);
	for (i = 0; i < Q_N; i++)
		want += qio(h, &at, eo && k->srv[i], PPME_SYSCALL_WRITE_E, q->srv[i], q_resp[i]);
	for (i = 0; i < Q_N; i++)
		want += qio(h, &at, eo && k->cli[i], PPME_SYSCALL_READ_E, q->cli[i], q_resp[i]);
	/* the pipe write is no socket's: never sent, never counted */
	if (eo && k->cli[Q_V4])
		want++;
	else
		expect_splice(h, &at, x->pipe[0], q->cli[Q_V4], 7);
	want += qio(h, &at, eo && k->srv[Q_V4], PPME_SYSCALL_READ_E, q->srv[Q_V4], "spliced");
	fprintf(stderr, "quiet %s: %d events, n_quiet +%llu (want +%llu)\n", name,
		harness__count(h), (unsigned long long)(after - before),
		(unsigned long long)want);
	EXPECT(at == harness__count(h));
	EXPECT(after - before == want);
}

/* Adds (ON) or removes the client-end keys of pairs P and R (Q_N: none),
 * each call returning WANT. */
static void qkeys__set(struct harness *h, struct qends *q, struct qkeys *k, int p, int r,
		       bool on, int want)
{
	int pairs[] = { p, r };

	for (int i = 0; i < 2; i++) {
		if (pairs[i] == Q_N)
			continue;
		EXPECT(driver__sock_quiet(harness__driver(h), &q->cli_key[pairs[i]], on) == want);
		k->cli[pairs[i]] = on;
	}
}

static void quiet__phase(struct harness *h, struct ends *x)
{
	struct driver *d = harness__driver(h);
	struct qkeys k = { 0 };
	struct qends q;

	EXPECT(driver__set_sock_families(d, MASK_NET) == 0);
	qends__open(&q);
	EXPECT(quiet__count(h) == 0);
	qround__check(h, &q, x, &k, "no key");

	/* a wrong key, the server end's tuple of the ::1 pair: the kernel sees
	 * it as that end's own, so it hides the server end, never the client */
	EXPECT(driver__sock_quiet(d, &q.srv_key[Q_V6], true) == 0);
	k.srv[Q_V6] = true;
	qround__check(h, &q, x, &k, "::1 server end");
	EXPECT(driver__sock_quiet(d, &q.srv_key[Q_V6], false) == 0);
	k.srv[Q_V6] = false;

	qkeys__set(h, &q, &k, Q_V4, Q_MAPPED, true, 0);
	qround__check(h, &q, x, &k, "127.0.0.1 and v4-mapped clients");
	qkeys__set(h, &q, &k, Q_V6, Q_N, true, 0);
	qround__check(h, &q, x, &k, "all three clients");
	qkeys__set(h, &q, &k, Q_V4, Q_MAPPED, false, 0);
	qkeys__set(h, &q, &k, Q_V6, Q_N, false, 0);
	qkeys__set(h, &q, &k, Q_V4, Q_MAPPED, false, -ENOENT);
	qkeys__set(h, &q, &k, Q_V6, Q_N, false, -ENOENT);
	qround__check(h, &q, x, &k, "keys removed");
	qends__close(&q);
}

/* The table holds SOCK_QUIET_MAX ends: one more is refused with -E2BIG (the
 * agent counts it and keeps that connection quiet itself), an end already in
 * is still updated, and a removal makes room again. */
_Static_assert(SOCK_QUIET_MAX <= 65536, "one key per local port");

static void quiet__full(struct harness *h)
{
	struct driver *d = harness__driver(h);
	struct sock_quiet_key k = { .family = PPM_AF_INET, .l4proto = IPPROTO_TCP,
				    .rport = 9 };
	int bad = 0;

	k.laddr[0] = 10;
	for (uint32_t i = 0; i < SOCK_QUIET_MAX; i++) {
		k.lport = (uint16_t)i;
		bad += driver__sock_quiet(d, &k, true) != 0;
	}
	EXPECT(bad == 0);
	k.lport = 0;
	k.laddr[3] = 1;
	EXPECT(driver__sock_quiet(d, &k, true) == -E2BIG);
	k.laddr[3] = 0;
	EXPECT(driver__sock_quiet(d, &k, true) == 0);	/* in already */
	EXPECT(driver__sock_quiet(d, &k, false) == 0);
	k.laddr[3] = 1;
	EXPECT(driver__sock_quiet(d, &k, true) == 0);
	EXPECT(driver__sock_quiet(d, &k, false) == 0);
	k.laddr[3] = 0;
	for (uint32_t i = 1; i < SOCK_QUIET_MAX; i++) {
		k.lport = (uint16_t)i;
		bad += driver__sock_quiet(d, &k, false) != 0;
	}
	EXPECT(bad == 0);
}

int main(void)
{
	struct driver_config cfg = pn_capture_self;
	char dir[PATH_MAX], path[PATH_MAX + 8];
	struct harness *h;
	struct ends x;

	me = pn_gettid();
	/* one load: the mask starts from the config, then changes while it runs */
	cfg.syscalls = harness__only(sock_only_calls);
	cfg.sock_families = MASK_NET;
	h = harness__open(256, &cfg);
	pn_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/file", dir);
	ends__open(&x, path);

	round__check(h, &x, MASK_NET);
	EXPECT(driver__set_sock_families(harness__driver(h), MASK_NET | FAM(PPM_AF_UNIX)) == 0);
	round__check(h, &x, MASK_NET | FAM(PPM_AF_UNIX));
	EXPECT(driver__set_sock_families(harness__driver(h), FAM(PPM_AF_INET)) == 0);
	round__check(h, &x, FAM(PPM_AF_INET));
	EXPECT(driver__set_sock_families(harness__driver(h), 0) == 0);
	round__check(h, &x, 0);
	quiet__phase(h, &x);
	quiet__full(h);

	ends__close(&x);
	unlink(path);
	rmdir(dir);
	harness__close(h);
	return harness__report("sock_only");
}
