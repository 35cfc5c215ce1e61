/* Request mode's kernel filter (driver_config.sock_families): the same I/O on a
 * pipe, a regular file, TCP over 127.0.0.1, an AF_UNIX socketpair and UDP over
 * ::1, plus splice into a socket and out of a file, under several masks set on
 * one loaded driver. Exactly the calls on wanted sockets arrive, in order, every
 * param checked; with mask 0 everything does. */
#include <sys/uio.h>

#include "procnet/pn_test.h"

static const int sock_only_calls[] = {
	SYS_read, SYS_write, SYS_sendto, SYS_recvfrom, SYS_splice, -1,
};

#define BUF 64
#define FAM(af) (1u << (af))
#define MASK_NET (FAM(PPM_AF_INET) | FAM(PPM_AF_INET6))

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

static void tcp__open(struct ends *x)
{
	struct sockaddr_in a = pn_in4("127.0.0.1", 0);
	socklen_t alen = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	x->tcp_cli = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || x->tcp_cli < 0 || bind(l, (void *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (void *)&a, &alen) || connect(x->tcp_cli, (void *)&a, sizeof(a)) ||
	    (x->tcp_srv = accept(l, NULL, NULL)) < 0) {
		perror("tcp loopback");
		exit(1);
	}
	close(l);
}

static void ends__open(struct ends *x, const char *path)
{
	tcp__open(x);
	x->udp_srv_a = pn_in6("::1", pn_free_port(AF_INET6, SOCK_DGRAM));
	x->udp_cli_a = pn_in6("::1", pn_free_port(AF_INET6, SOCK_DGRAM));
	x->udp_srv = socket(AF_INET6, SOCK_DGRAM, 0);
	x->udp_cli = socket(AF_INET6, SOCK_DGRAM, 0);
	x->file = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (pipe(x->pipe) || socketpair(AF_UNIX, SOCK_STREAM, 0, x->unx) || x->file < 0 ||
	    bind(x->udp_srv, (void *)&x->udp_srv_a, sizeof(x->udp_srv_a)) ||
	    bind(x->udp_cli, (void *)&x->udp_cli_a, sizeof(x->udp_cli_a))) {
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
	*e = *at < harness__count(h) ? harness__get(h, *at) : NULL;
	*x = *at + 1 < harness__count(h) ? harness__get(h, *at + 1) : NULL;
	EXPECT(*e && (*e)->hdr.type == type && *x && (*x)->hdr.type == type + 1);
	if (!*e || (*e)->hdr.type != type || !*x || (*x)->hdr.type != type + 1) {
		fprintf(stderr, "  want event %u at %d of %d (got %d)\n", type, *at,
			harness__count(h), *e ? (*e)->hdr.type : -1);
		return 0;
	}
	hevt__expect_header(*e, type, me);
	hevt__expect_header(*x, type + 1, me);
	*at += 2;
	return 1;
}

/* read or write (TYPE) of LEN bytes DATA on FD, when channel C is wanted. */
static void expect_rw(struct harness *h, int *at, uint32_t mask, enum chan c, uint16_t type,
		      int fd, const char *data, int64_t len)
{
	struct hevt *e, *x;

	if (!wanted(mask, c) || !pair(h, at, type, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, fd);
	EXPECT_PARAM_INT(e, 1, type == PPME_SYSCALL_READ_E ? BUF : len);
	EXPECT_PARAM_INT(x, 0, len);
	EXPECT_PARAM_BYTES(x, 1, data, (size_t)len);
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

/* One round under MASK: the wanted calls' events, in order, and nothing else. */
static void round__check(struct harness *h, struct ends *x, uint32_t mask)
{
	uint8_t tup[64];
	size_t tlen = pn_tuple_bytes(tup, (void *)&x->udp_cli_a, (void *)&x->udp_srv_a);
	struct hevt *e, *r;
	int at = 0;

	harness__drain(h, -1);
	round__run(x);
	harness__drain(h, me);
	fprintf(stderr, "mask 0x%x: %d events\n", mask, harness__count(h));

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
	if (wanted(mask, C_UDP6) && pair(h, &at, PPME_SOCKET_SENDTO_E, &e, &r)) {
		EXPECT_PARAM_INT(e, 0, x->udp_cli);
		EXPECT_PARAM_INT(e, 1, 10);
		EXPECT_PARAM_BYTES(e, 2, tup, tlen);
		EXPECT_PARAM_INT(r, 0, 10);
		EXPECT_PARAM_BYTES(r, 1, "udp6 query", 10);
	}
	if (wanted(mask, C_UDP6) && pair(h, &at, PPME_SOCKET_RECVFROM_E, &e, &r)) {
		EXPECT_PARAM_INT(e, 0, x->udp_srv);
		EXPECT_PARAM_INT(e, 1, BUF);
		EXPECT_PARAM_INT(r, 0, 10);
		EXPECT_PARAM_BYTES(r, 1, "udp6 query", 10);
		EXPECT_PARAM_BYTES(r, 2, tup, tlen);	/* inbound: the sender first */
	}
	expect_rw(h, &at, mask, C_PIPE, PPME_SYSCALL_WRITE_E, x->pipe[1], "spliced", 7);
	/* splice: either end a wanted socket (here its fd_out) */
	if (wanted(mask, C_PIPE) || wanted(mask, C_TCP))
		expect_splice(h, &at, x->pipe[0], x->tcp_cli, 7);
	expect_rw(h, &at, mask, C_TCP, PPME_SYSCALL_READ_E, x->tcp_srv, "spliced", 7);
	if (wanted(mask, C_FILE))
		expect_splice(h, &at, x->file, x->pipe[1], 10);
	expect_rw(h, &at, mask, C_PIPE, PPME_SYSCALL_READ_E, x->pipe[0], "file bytes", 10);
	EXPECT(at == harness__count(h));
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

	ends__close(&x);
	unlink(path);
	rmdir(dir);
	harness__close(h);
	return harness__report("sock_only");
}
