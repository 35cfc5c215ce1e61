/* Request mode's compact socket I/O (driver_config.sock_compact, with
 * sock_families and exit-only capture): on TCP over 127.0.0.1 and ::1, read,
 * recvfrom, readv, write, sendto, writev and sendfile that moved bytes each
 * arrive as one SOCK_RECV_X or SOCK_SEND_X event, no enter event: header,
 * res, fd, the syscall's number, the bytes moved (cut at the snaplen;
 * none for sendfile) and the connection's TCP state (retransmits up to the
 * socket's TCP_INFO count after the calls, an srtt measured: the handshake
 * gave one to both ends; 0 and 0 on UDP), checked for each. What keeps its own pair, in order
 * among them: sendto and recvfrom naming an address (the pair's tuple can
 * name a socket's peer to the fd table), sendmsg and recvmsg, UDP's sendto
 * and recvfrom over ::1 (the fd table follows their addresses). A read that
 * failed and one that got 0 bytes stay in the kernel, counted in
 * n_sock_empty (the pairing reads no such call); so do a pipe's I/O and a
 * Unix socket's (not wanted families). HTTP/2's capture goes on: a connection
 * that began with the client preface has its later buffers taken up to
 * h2_snaplen, not the snaplen, on both ends; and a server's 101 to h2c,
 * written by writev with HTTP/2 bytes after it and read with them, is whole
 * on both ends (copied again once it marks the fd). Nothing is dropped. With
 * sys_enter attached (not exit-only) the setting does nothing: the same calls
 * come as their own pairs.
 *
 * On the syscalls' own tracepoints (not live-raw-exit), read, readv, write
 * and writev are taken at the socket tracepoints (driver_load_info.sock_tps):
 * there every such call on a wanted socket that moved bytes is compact (a
 * connected UDP socket's write and read too), and 20000 pipe writes and reads run no BPF program of ours (bpf_stats:
 * the dispatcher's and the socket programs' runs grow by less than that
 * while they run). So is sendfile on this kernel (sock_tp_sendfile), whose
 * 10000 sendfiles from a file into a pipe run none either, and whose 1 MiB
 * sendfile to a socket comes as several events adding up to its bytes. There
 * the families cannot go back to every fd (driver__set_sock_families(0) is
 * refused). */
#include <bpf/bpf.h>
#include <fcntl.h>
#include <pthread.h>
#include <netinet/tcp.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <time.h>

#include "sock_compact_live.h"

static const int compact_calls[] = {
	SYS_read, SYS_write, SYS_readv, SYS_writev, SYS_sendto, SYS_recvfrom, SYS_sendmsg,
	SYS_recvmsg, SYS_sendfile, -1,
};

#define SNAP 64
#define H2SNAP 4096
#define BUF 256
#define BIG 200		/* > SNAP */
#define H2_BODY 1000	/* > SNAP, < H2SNAP */
#define H2_PREFACE "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
/* its h2c within the test's 64-byte snaplen: h2c is looked for in the bytes copied */
#define UP_101 "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n"
#define UP_LEN (sizeof(UP_101) - 1 + H2_BODY)

struct ends {
	int cli, srv, cli6, srv6, h2c, h2s, upc, ups, udp_cli, udp_srv, pipe[2], unx[2], file;
	struct sockaddr_in6 udp_srv_a, udp_cli_a;
};

static int64_t me;
static bool eo, sock_tps, tp_sendfile;
static char big[BIG], h2body[H2_BODY], up_all[UP_LEN];

/* A connected TCP pair over ::1. */
static void tcp6__pair(int *cli, int *srv)
{
	struct sockaddr_in6 a = pn_in6("::1", 0);
	socklen_t alen = sizeof(a);
	int l = socket(AF_INET6, SOCK_STREAM, 0);

	*cli = socket(AF_INET6, SOCK_STREAM, 0);
	if (l < 0 || *cli < 0 || bind(l, (void *)&a, alen) || listen(l, 1) ||
	    getsockname(l, (void *)&a, &alen) || connect(*cli, (void *)&a, alen) ||
	    (*srv = accept(l, NULL, NULL)) < 0) {
		perror("tcp pair over ::1");
		exit(1);
	}
	close(l);
}

static void ends__open(struct ends *x)
{
	x->udp_srv_a = pn_in6("::1", 0);
	x->udp_cli_a = pn_in6("::1", 0);
	x->udp_srv = pn_udp_bind(AF_INET6, &x->udp_srv_a, sizeof(x->udp_srv_a));
	x->udp_cli = pn_udp_bind(AF_INET6, &x->udp_cli_a, sizeof(x->udp_cli_a));
	/* sendfile's source: a file in memory, no directory to clean */
	x->file = memfd_create("sock_compact", 0);
	if (pn_tcp_pair4(&x->cli, &x->srv) || pn_tcp_pair4(&x->h2c, &x->h2s) ||
	    pn_tcp_pair4(&x->upc, &x->ups) || pipe(x->pipe) ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, x->unx) || x->file < 0 || x->udp_srv < 0 ||
	    x->udp_cli < 0 || write(x->file, "file bytes", 10) != 10) {
		perror("test ends");
		exit(1);
	}
	tcp6__pair(&x->cli6, &x->srv6);
	for (int i = 0; i < BIG; i++)
		big[i] = (char)('a' + i % 26);
	for (int i = 0; i < H2_BODY; i++)
		h2body[i] = (char)('A' + i % 26);
	memcpy(up_all, UP_101, sizeof(UP_101) - 1);
	memcpy(up_all + sizeof(UP_101) - 1, h2body, H2_BODY);
}

static void ends__close(struct ends *x)
{
	int fds[] = { x->cli, x->srv, x->cli6, x->srv6, x->h2c, x->h2s, x->upc, x->ups,
		      x->udp_cli, x->udp_srv,
		      x->pipe[0], x->pipe[1], x->unx[0], x->unx[1], x->file };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		close(fds[i]);
}

/* The calls, in the order the checks walk them. */
static void calls__run(void *arg)
{
	struct ends *x = arg;
	char buf[BUF], b1[4], b2[BUF], up_got[UP_LEN];
	struct iovec upv[2] = { { UP_101, sizeof(UP_101) - 1 }, { h2body, H2_BODY } };
	struct iovec wv[2] = { { "abc", 3 }, { "defg", 4 } };
	struct iovec rv[2] = { { b1, sizeof(b1) }, { b2, sizeof(b2) } };
	struct iovec mv = { buf, BUF };
	struct msghdr m = { .msg_iov = &mv, .msg_iovlen = 1 };
	struct sockaddr_in6 from;
	socklen_t flen = sizeof(from);
	off_t off = 0;

	EXPECT(write(x->cli, "GET / HTTP/1.1\r\n\r\n", 18) == 18);
	EXPECT(read(x->srv, buf, BUF) == 18);
	EXPECT(sendto(x->srv, "HTTP/1.1 200 OK\r\n", 17, 0, NULL, 0) == 17);
	EXPECT(recvfrom(x->cli, buf, BUF, 0, NULL, NULL) == 17);
	EXPECT(writev(x->cli, wv, 2) == 7);
	EXPECT(readv(x->srv, rv, 2) == 7);
	EXPECT(sendfile(x->srv, x->file, &off, 10) == 10);
	EXPECT(read(x->cli, buf, BUF) == 10);
	EXPECT(write(x->cli, big, BIG) == BIG);
	EXPECT(recv(x->srv, buf, BIG, MSG_WAITALL) == BIG);
	/* kept as pairs: sendto and recvfrom naming an address, the msg calls,
	 * UDP, a failed read, a read of 0 bytes */
	EXPECT(sendto(x->cli, "addr", 4, 0, (void *)&x->udp_srv_a, sizeof(x->udp_srv_a)) == 4);
	EXPECT(recvfrom(x->srv, buf, BUF, 0, (void *)&from, &flen) == 4);
	flen = sizeof(from);
	mv.iov_len = 5;
	EXPECT(sendmsg(x->cli, &m, 0) == 5);
	mv.iov_len = BUF;
	EXPECT(recvmsg(x->srv, &m, 0) == 5);
	EXPECT(sendto(x->udp_cli, "udp q", 5, 0, (void *)&x->udp_srv_a,
		      sizeof(x->udp_srv_a)) == 5);
	EXPECT(recvfrom(x->udp_srv, buf, BUF, 0, (void *)&from, &flen) == 5);
	/* a connected UDP socket's write and read */
	EXPECT(connect(x->udp_cli, (void *)&x->udp_srv_a, sizeof(x->udp_srv_a)) == 0);
	EXPECT(write(x->udp_cli, "udp w", 5) == 5);
	EXPECT(read(x->udp_srv, buf, BUF) == 5);
	fcntl(x->srv, F_SETFL, O_NONBLOCK);
	EXPECT(read(x->srv, buf, BUF) == -1 && errno == EAGAIN);
	/* not wanted: a pipe, a Unix socket */
	EXPECT(write(x->pipe[1], "pipe", 4) == 4);
	EXPECT(read(x->pipe[0], buf, BUF) == 4);
	EXPECT(write(x->unx[0], "unix", 4) == 4);
	EXPECT(read(x->unx[1], buf, BUF) == 4);
	/* ::1 */
	EXPECT(write(x->cli6, "v6 bytes", 8) == 8);
	EXPECT(read(x->srv6, buf, BUF) == 8);
	/* HTTP/2: the preface marks both ends for h2_snaplen */
	EXPECT(write(x->h2c, H2_PREFACE, 24) == 24);
	EXPECT(recv(x->h2s, buf, 24, MSG_WAITALL) == 24);
	EXPECT(write(x->h2s, h2body, H2_BODY) == H2_BODY);
	EXPECT(recv(x->h2c, b2, BUF, MSG_WAITALL) == BUF);
	EXPECT(recv(x->h2c, buf, BIG, MSG_WAITALL) == BIG);
	/* h2c's upgrade: the 101 and the response after it in one buffer */
	EXPECT(writev(x->ups, upv, 2) == (ssize_t)UP_LEN);
	EXPECT(recv(x->upc, up_got, UP_LEN, MSG_WAITALL) == (ssize_t)UP_LEN);
	shutdown(x->cli, SHUT_WR);
	EXPECT(read(x->srv, buf, BUF) == 0);
}

/* The next kept event: compact event TYPE of syscall NR on FD that moved
 * RES bytes, DATA (LEN of them) captured. */
static void expect_compact(struct harness *h, int *at, uint16_t type, long nr, int fd,
			   int64_t res, const void *data, size_t len)
{
	sock_compact__expect(h, at, type, nr, fd, res, data, len, me);
}

/* The next two kept events: TYPE's enter and exit, their first params
 * ENTER0 and EXIT0 (the fd and the result). */
static void expect_pair(struct harness *h, int *at, uint16_t type, int64_t enter0, int64_t exit0)
{
	struct hevt *e, *x;

	if (!pn_pair(h, at, type, me, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, enter0);
	EXPECT_PARAM_INT(x, 0, exit0);
}

/* A call that moved bytes on TCP: compact in exit-only capture, else its
 * own pair (enter: the fd; exit: the result). */
static void expect_io(struct harness *h, int *at, uint16_t pair_type, long nr, int fd,
		      int64_t res, const void *data, size_t len)
{
	bool send = nr == SYS_write || nr == SYS_writev || nr == SYS_sendto || nr == SYS_sendfile;

	if (eo)
		expect_compact(h, at, send ? PPME_SOCK_SEND_X : PPME_SOCK_RECV_X, nr, fd, res,
			       data, len);
	else
		expect_pair(h, at, pair_type, fd, res);
}

/* A call the socket tracepoints take (sock_tps) that is no compact call on
 * the syscall's own: compact there, else its own pair. */
static void expect_tp_io(struct harness *h, int *at, uint16_t pair_type, long nr, int fd,
			 int64_t res, const void *data, size_t len)
{
	bool send = nr == SYS_write || nr == SYS_writev;

	if (sock_tps)
		expect_compact(h, at, send ? PPME_SOCK_SEND_X : PPME_SOCK_RECV_X, nr, fd, res,
			       data, len);
	else
		expect_pair(h, at, pair_type, fd, res);
}

static void calls__check(struct harness *h, struct ends *x)
{
	uint8_t tup[64];
	size_t tlen = pn_tuple_bytes(tup, (void *)&x->udp_cli_a, (void *)&x->udp_srv_a);
	struct driver_counters c0 = { 0 }, c1 = { 0 };
	struct hevt *e, *xe;
	int at = 0, compact = 0;

	sock_compact__run(h, calls__run, x, &c0, &c1, me);
	for (int i = 0; i < harness__count(h); i++) {
		uint16_t t = harness__get(h, i)->hdr.type;

		compact += t == PPME_SOCK_RECV_X || t == PPME_SOCK_SEND_X;
	}
	EXPECT(compact == (sock_tps ? 21 : eo ? 19 : 0));

	expect_io(h, &at, PPME_SYSCALL_WRITE_E, SYS_write, x->cli, 18, "GET / HTTP/1.1\r\n\r\n", 18);
	expect_io(h, &at, PPME_SYSCALL_READ_E, SYS_read, x->srv, 18, "GET / HTTP/1.1\r\n\r\n", 18);
	expect_io(h, &at, PPME_SOCKET_SENDTO_E, SYS_sendto, x->srv, 17, "HTTP/1.1 200 OK\r\n", 17);
	expect_io(h, &at, PPME_SOCKET_RECVFROM_E, SYS_recvfrom, x->cli, 17,
		  "HTTP/1.1 200 OK\r\n", 17);
	expect_io(h, &at, PPME_SYSCALL_WRITEV_E, SYS_writev, x->cli, 7, "abcdefg", 7);
	expect_io(h, &at, PPME_SYSCALL_READV_E, SYS_readv, x->srv, 7, "abcdefg", 7);
	if (eo) {
		expect_compact(h, &at, PPME_SOCK_SEND_X, SYS_sendfile, x->srv, 10, "", 0);
	} else if (pn_pair(h, &at, PPME_SYSCALL_SENDFILE_E, me, &e, &xe)) {
		EXPECT_PARAM_INT(e, 0, x->srv);
		EXPECT_PARAM_INT(e, 1, x->file);
		EXPECT_PARAM_INT(xe, 0, 10);
	}
	expect_io(h, &at, PPME_SYSCALL_READ_E, SYS_read, x->cli, 10, "file bytes", 10);
	expect_io(h, &at, PPME_SYSCALL_WRITE_E, SYS_write, x->cli, BIG, big, SNAP);
	expect_io(h, &at, PPME_SOCKET_RECVFROM_E, SYS_recvfrom, x->srv, BIG, big, SNAP);
	expect_pair(h, &at, PPME_SOCKET_SENDTO_E, x->cli, 4);
	expect_pair(h, &at, PPME_SOCKET_RECVFROM_E, x->srv, 4);
	expect_pair(h, &at, PPME_SOCKET_SENDMSG_E, x->cli, 5);
	expect_pair(h, &at, PPME_SOCKET_RECVMSG_E, x->srv, 5);
	if (pn_pair(h, &at, PPME_SOCKET_SENDTO_E, me, &e, &xe)) {
		EXPECT_PARAM_INT(e, 0, x->udp_cli);
		EXPECT_PARAM_BYTES(e, 2, tup, tlen);
		EXPECT_PARAM_INT(xe, 0, 5);
		EXPECT_PARAM_BYTES(xe, 1, "udp q", 5);
	}
	if (pn_pair(h, &at, PPME_SOCKET_RECVFROM_E, me, &e, &xe)) {
		EXPECT_PARAM_INT(e, 0, x->udp_srv);
		EXPECT_PARAM_INT(xe, 0, 5);
		EXPECT_PARAM_BYTES(xe, 1, "udp q", 5);
		EXPECT_PARAM_BYTES(xe, 2, tup, tlen);
	}
	expect_tp_io(h, &at, PPME_SYSCALL_WRITE_E, SYS_write, x->udp_cli, 5, "udp w", 5);
	expect_tp_io(h, &at, PPME_SYSCALL_READ_E, SYS_read, x->udp_srv, 5, "udp w", 5);
	/* a failed read: in the kernel on the compact path (n_sock_empty) */
	if (!eo)
		expect_pair(h, &at, PPME_SYSCALL_READ_E, x->srv, -EAGAIN);
	expect_io(h, &at, PPME_SYSCALL_WRITE_E, SYS_write, x->cli6, 8, "v6 bytes", 8);
	expect_io(h, &at, PPME_SYSCALL_READ_E, SYS_read, x->srv6, 8, "v6 bytes", 8);
	expect_io(h, &at, PPME_SYSCALL_WRITE_E, SYS_write, x->h2c, 24, H2_PREFACE, 24);
	expect_io(h, &at, PPME_SOCKET_RECVFROM_E, SYS_recvfrom, x->h2s, 24, H2_PREFACE, 24);
	expect_io(h, &at, PPME_SYSCALL_WRITE_E, SYS_write, x->h2s, H2_BODY, h2body, H2_BODY);
	expect_io(h, &at, PPME_SOCKET_RECVFROM_E, SYS_recvfrom, x->h2c, BUF, h2body, BUF);
	expect_io(h, &at, PPME_SOCKET_RECVFROM_E, SYS_recvfrom, x->h2c, BIG, h2body + BUF, BIG);
	expect_io(h, &at, PPME_SYSCALL_WRITEV_E, SYS_writev, x->ups, UP_LEN, up_all, UP_LEN);
	expect_io(h, &at, PPME_SOCKET_RECVFROM_E, SYS_recvfrom, x->upc, UP_LEN, up_all, UP_LEN);
	/* a read of 0 bytes: the same */
	if (!eo)
		expect_pair(h, &at, PPME_SYSCALL_READ_E, x->srv, 0);
	EXPECT(at == harness__count(h));
	if (at != harness__count(h))
		fprintf(stderr, "  %d events of this thread, %d expected\n", harness__count(h), at);
	/* the two empty reads counted (other processes' too), or none */
	if (eo)
		EXPECT(c1.n_sock_empty >= c0.n_sock_empty + 2);
	else
		EXPECT(c1.n_sock_empty == 0);
	/* nothing dropped */
	EXPECT(c1.n_drops_buffer == c0.n_drops_buffer && c1.n_drops_bug == c0.n_drops_bug &&
	       c1.n_drops_scratch == c0.n_drops_scratch && c1.n_drops_pf == c0.n_drops_pf);
	EXPECT(harness__lost(h) == 0);
}

/* The runs of our programs on the exit side: the dispatcher's and the
 * socket tracepoints' (bpf_stats on). */
static int add_runs(const char *name, int fd, void *arg)
{
	struct bpf_prog_info info = { 0 };
	uint32_t len = sizeof(info);

	if ((!strcmp(name, "sys_exit_eo") || !strncmp(name, "socktp_", 7)) &&
	    !bpf_obj_get_info_by_fd(fd, &info, &len))
		*(uint64_t *)arg += info.run_cnt;
	return 0;
}

#define PIPE_CALLS 10000

/* sock_tps: a pipe's writes and reads run none of them, nor (tp_sendfile)
 * a sendfile from a file into the pipe. Other processes' socket calls may
 * run them meanwhile, a few; PIPE_CALLS calls on the syscalls' own
 * tracepoints would run the dispatcher once each. */
static void pipes__check(struct harness *h, struct ends *x)
{
	uint64_t r0 = 0, r1 = 0;
	char c;
	int n = 0, sf = 0;

	driver__for_each_program(harness__driver(h), add_runs, &r0);
	for (int i = 0; i < PIPE_CALLS; i++)
		n += write(x->pipe[1], "p", 1) == 1 && read(x->pipe[0], &c, 1) == 1;
	for (int i = 0; i < PIPE_CALLS && tp_sendfile; i++) {
		off_t off = 0;

		sf += sendfile(x->pipe[1], x->file, &off, 1) == 1 && read(x->pipe[0], &c, 1) == 1;
	}
	driver__for_each_program(harness__driver(h), add_runs, &r1);
	EXPECT(n == PIPE_CALLS && sf == (tp_sendfile ? PIPE_CALLS : 0));
	EXPECT(r1 >= r0 && r1 - r0 < PIPE_CALLS);
	if (r1 - r0 >= PIPE_CALLS)
		fprintf(stderr, "  %llu runs over %d pipe calls\n", (unsigned long long)(r1 - r0),
			2 * PIPE_CALLS + 2 * sf);
}

#define SF_BIG (1 << 20)

struct sf_reader {
	int fd;
	size_t got;
};

static void *sf__read(void *arg)
{
	struct sf_reader *r = arg;
	static char b[65536];
	ssize_t n;

	while (r->got < SF_BIG && (n = read(r->fd, b, sizeof(b))) > 0)
		r->got += (size_t)n;
	return NULL;
}

/* A sendfile of 1 MiB from a file to a socket, another thread reading the
 * other end. In exit-only capture its compact events add up to the bytes it
 * sent, and nothing else of this thread comes. Where tp_sendfile takes it at
 * sock_send_length there is one event per batch of pages the kernel handed
 * the socket (splice's pipe holds 16 pages at most, so more than one), at
 * its exit one for the call; else its pair says the same. */
static void sendfile__big(struct harness *h, struct ends *x)
{
	struct sf_reader r = { x->cli, 0 };
	int f = memfd_create("sock_compact_big", 0), n = 0, other = 0;
	int64_t sum = 0, sent = 0;
	off_t off = 0;
	pthread_t t;

	EXPECT(f >= 0 && ftruncate(f, SF_BIG) == 0);
	harness__drain(h, -1);
	EXPECT(pthread_create(&t, NULL, sf__read, &r) == 0);
	while (sent < SF_BIG) {
		ssize_t k = sendfile(x->srv, f, &off, SF_BIG - (size_t)sent);

		if (k <= 0)
			break;
		sent += k;
	}
	pthread_join(t, NULL);
	EXPECT(sent == SF_BIG && r.got == SF_BIG);
	harness__drain(h, me);
	for (int i = 0; i < harness__count(h); i++) {
		struct hevt *e = harness__get(h, i);

		if (eo && e->hdr.type == PPME_SOCK_SEND_X && hevt__int(e, 1) == x->srv &&
		    hevt__int(e, 2) == SYS_sendfile && hevt__int(e, 0) > 0) {
			sum += hevt__int(e, 0);
			n++;
		} else if (!eo && e->hdr.type == PPME_SYSCALL_SENDFILE_X) {
			sum += hevt__int(e, 0);
			n++;
		} else if (eo || e->hdr.type != PPME_SYSCALL_SENDFILE_E) {
			other++;
		}
	}
	fprintf(stderr, "sendfile of %d bytes: %d events adding up to %lld, %d others\n", SF_BIG,
		n, (long long)sum, other);
	EXPECT(sum == SF_BIG && other == 0);
	EXPECT(tp_sendfile ? n > 1 : n >= 1);
	close(f);
}

int main(void)
{
	struct driver_config cfg = pn_capture_self;
	struct driver_load_info li = { 0 };
	struct harness *h;
	struct ends x;
	int stats;

	me = pn_gettid();
	cfg.syscalls = harness__only(compact_calls);
	cfg.sock_families = (1u << PPM_AF_INET) | (1u << PPM_AF_INET6);
	cfg.sock_compact = true;
	cfg.snaplen = SNAP;
	cfg.snaplen_given = true;
	cfg.h2_snaplen = H2SNAP;
	stats = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats < 0 && geteuid() == 0) {
		fprintf(stderr, "bpf_enable_stats: %s\n", strerror(errno));
		return 1;
	}
	h = harness__open(256, &cfg);
	eo = harness__exit_only();
	EXPECT(driver__load_info(harness__driver(h), &li, false) == 0);
	sock_tps = li.sock_tps;
	tp_sendfile = li.sock_tp_sendfile;
	/* this kernel has both socket tracepoints (5.19): taken wherever the
	 * syscalls' own are; and it sends sendfile's pages by sock_sendmsg
	 * (6.5) */
	EXPECT(driver__has_sock_tps());
	EXPECT(sock_tps == (eo && !harness__raw_exit()));
	EXPECT(tp_sendfile == sock_tps);
	EXPECT(!sock_tps || li.sock_compact);
	ends__open(&x);
	calls__check(h, &x);
	if (sock_tps && stats >= 0)
		pipes__check(h, &x);
	sendfile__big(h, &x);
	/* every fd's I/O cannot come back where the socket tracepoints serve */
	EXPECT(driver__set_sock_families(harness__driver(h), 0) == (sock_tps ? -EOPNOTSUPP : 0));
	if (stats >= 0)
		close(stats);
	ends__close(&x);
	harness__close(h);
	return harness__report("sock_compact");
}
