/* Request mode's HTTP/2 capture (driver_config.h2_snaplen, driver/h2.bpf.h),
 * on TCP connections over 127.0.0.1 made here, with a snaplen of 64:
 * - driver__configure refuses an h2_snaplen above H2_SNAPLEN_MAX (-EINVAL)
 *   and takes H2_SNAPLEN_MAX itself;
 * - h2_snaplen 20000: for each family of calls (write/read, sendto/recvfrom,
 *   sendmsg/recvmsg, writev/readv) a fresh connection whose client sends a
 *   200-byte opening that begins with HTTP/2's preface by that family's call,
 *   the server taking it by its counterpart (the vector calls split it so
 *   that the preface spans iovecs): both events whole, as the buffer that
 *   marks the fd is copied again up to h2_snaplen. Then, by the same calls,
 *   12000 bytes from
 *   the client and 12000 back from the server arrive whole on both ends (the
 *   client marked by its write, the server by its read), and 30000 bytes from
 *   the client are cut at 20000 exactly on both ends;
 * - beside each, a control connection opening with "GET / HTTP/1.1": its
 *   12000-byte buffers stay cut at the snaplen both ways;
 * - h2_snaplen 0: the same connections, every buffer cut at the snaplen;
 * - h2_snaplen H2_SNAPLEN_MAX (write/read only): 64000 bytes arrive whole
 *   both ways, no frame dropped as too big;
 * - a marked connection closed, a new one gets its fd numbers: its buffers
 *   are cut at the snaplen (the close unmarked them);
 * - h2c's upgrade: a server's 101 naming h2c marks both ends, its own
 *   200-byte buffer whole (a client's read of it often holds the HTTP/2
 *   response too); a 101 to WebSocket and a 200 naming h2c mark neither and
 *   are cut at the snaplen;
 * - Redis pipelines, by every family: 12 SETs in one buffer, 12 GET replies,
 *   20 SET replies, 8 error replies, 12 integer replies mark the fds of the
 *   ends that moved them, whole; binary bytes after a '+' (with "\r\n" in
 *   them), a status line followed by "GET /", one SET of
 *   a 240-byte value (one message) and two SETs whose first one's headers go
 *   past the snaplen mark nothing (with h2_snaplen 0: all cut);
 * - PostgreSQL batches, the same way: 12 Bind and Execute pairs and a Sync,
 *   the server's 12 BindComplete and CommandComplete pairs and its
 *   ReadyForQuery mark; one 205-byte Query, a Parse whose end lies past the
 *   snaplen, and a ReadyForQuery followed by text mark nothing;
 * each transfer's events are exactly the two pairs of this thread, in order,
 * every param checked (fd, size, res, data length and bytes), and no frame of
 * the driver was dropped as too big meanwhile. */
#include <sys/uio.h>

#include "procnet/pn_test.h"

static const int h2_calls[] = {
	SYS_read, SYS_write, SYS_sendto, SYS_recvfrom, SYS_sendmsg, SYS_recvmsg,
	SYS_readv, SYS_writev, SYS_close, -1,
};

#define SNAPLEN 64
#define H2_SNAP 20000
#define OPEN_LEN 200		/* a connection's first buffer */
#define BIG 12000		/* under H2_SNAP: whole on a marked fd */
#define HUGE 30000		/* over it: cut there */
/* A read or write exit frame is its header, two lengths, an 8-byte res and
 * the data: with this much data still under PPM_MAX_EVENT_SIZE, past which
 * a frame is dropped (n_drops_scratch). */
#define MAX_WHOLE 64000
#define RBUF (1 << 17)		/* what a receive call offers */
#define SPLIT 5			/* the first iovec: shorter than the preface's 8 looked-at bytes */

/* The calls a transfer goes by: a sending one and its receiving counterpart. */
enum fam { F_RW, F_TO, F_MSG, F_IOV, F_N };
static const char *const fam_name[F_N] = { "write/read", "sendto/recvfrom",
					   "sendmsg/recvmsg", "writev/readv" };

static const char preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
static const char http1[] = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";
/* h2c's upgrade (RFC 7540 3.2): the server's 101 names h2c; HTTP/2 follows */
static const char up_101[] = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: H2c\r\n\r\n";
static const char ws_101[] = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n";
static const char ok_h2c[] = "HTTP/1.1 200 OK\r\nUpgrade: h2c\r\n\r\n";

static int64_t me;
static char h2_open[OPEN_LEN], h1_open[OPEN_LEN], big_a[MAX_WHOLE], big_b[MAX_WHOLE];
static char up_open[OPEN_LEN], ws_open[OPEN_LEN], ok_open[OPEN_LEN];
static char huge[HUGE], rbuf[RBUF];

/* LEN bytes of a pattern of its own for each SEED. */
static void msg__fill(char *buf, size_t len, int seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = 'A' + (char)((i * 7 + (size_t)seed * 13) % 58);
}

/* A connection's opening: HEAD, then frame-like bytes up to OPEN_LEN. */
static void msg__opening(char *buf, const char *head, int seed)
{
	msg__fill(buf, OPEN_LEN, seed);
	memcpy(buf, head, strlen(head));
}

struct conn {
	int cli, srv;
};

/* A connected TCP pair over 127.0.0.1. Socket buffers large enough that each
 * send completes before its receive, which then takes it all in one call; a
 * receive that never comes fails a call, not the whole test by timeout. */
static void conn__open(struct conn *c)
{
	struct sockaddr_in a = pn_in4("127.0.0.1", 0);
	struct timeval limit = { .tv_sec = 10 };
	socklen_t alen = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0), size = 1 << 20, ok = 1;

	c->cli = socket(AF_INET, SOCK_STREAM, 0);
	for (int i = 0; i < 2; i++) {
		int fd = i ? c->cli : l;

		ok &= fd >= 0 && !setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)) &&
		      !setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)) &&
		      !setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
	}
	/* the accepted end inherits the listener's options */
	if (!ok || bind(l, (void *)&a, alen) || listen(l, 1) || getsockname(l, (void *)&a, &alen) ||
	    connect(c->cli, (void *)&a, alen) || (c->srv = accept(l, NULL, NULL)) < 0) {
		fprintf(stderr, "tcp pair over 127.0.0.1: %s\n", strerror(errno));
		exit(1);
	}
	close(l);
}

static void conn__close(struct conn *c)
{
	close(c->cli);
	close(c->srv);
}

/* LEN bytes of DATA as three iovecs, the first SPLIT bytes long. */
static void iov__split(struct iovec *v, const char *data, size_t len)
{
	size_t mid = (len - SPLIT) / 2;

	v[0] = (struct iovec){ (void *)data, SPLIT };
	v[1] = (struct iovec){ (void *)(data + SPLIT), mid };
	v[2] = (struct iovec){ (void *)(data + SPLIT + mid), len - SPLIT - mid };
}

/* FAM's sending call on FD with LEN bytes of DATA. */
static ssize_t io__send(enum fam fam, int fd, const char *data, size_t len)
{
	struct iovec v[3];
	struct msghdr m = { .msg_iov = v, .msg_iovlen = 3 };

	iov__split(v, data, len);
	switch (fam) {
	case F_RW:
		return write(fd, data, len);
	case F_TO:
		return sendto(fd, data, len, 0, NULL, 0);
	case F_MSG:
		return sendmsg(fd, &m, 0);
	default:
		return writev(fd, v, 3);
	}
}

/* FAM's receiving call on FD into rbuf, offering RBUF bytes (the vector
 * calls as two iovecs, the first SPLIT bytes long). */
static ssize_t io__recv(enum fam fam, int fd)
{
	struct iovec v[2] = { { rbuf, SPLIT }, { rbuf + SPLIT, RBUF - SPLIT } };
	struct msghdr m = { .msg_iov = v, .msg_iovlen = 2 };

	switch (fam) {
	case F_RW:
		return read(fd, rbuf, RBUF);
	case F_TO:
		return recvfrom(fd, rbuf, RBUF, 0, NULL, NULL);
	case F_MSG:
		return recvmsg(fd, &m, 0);
	default:
		return readv(fd, v, 2);
	}
}

static const uint16_t send_type[F_N] = { PPME_SYSCALL_WRITE_E, PPME_SOCKET_SENDTO_E,
					 PPME_SOCKET_SENDMSG_E, PPME_SYSCALL_WRITEV_E };
static const uint16_t recv_type[F_N] = { PPME_SYSCALL_READ_E, PPME_SOCKET_RECVFROM_E,
					 PPME_SOCKET_RECVMSG_E, PPME_SYSCALL_READV_E };

/* The sending call's pair: FD, LEN bytes of DATA, kept up to CUT. Connected
 * sends name no address: their tuple is empty. */
static void expect__send(struct harness *h, int *at, enum fam fam, int fd, const char *data,
			 int64_t len, size_t cut)
{
	struct hevt *e, *x;

	if (!pn_pair(h, at, send_type[fam], me, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, fd);
	EXPECT_PARAM_INT(e, 1, len);
	if (fam == F_TO || fam == F_MSG)
		EXPECT_PARAM_EMPTY(e, 2);
	EXPECT_PARAM_INT(x, 0, len);
	EXPECT_PARAM_BYTES(x, 1, data, cut);
}

/* The receiving call's pair: FD, LEN bytes of DATA got of RBUF offered, kept
 * up to CUT; no address asked for, so no tuple. */
static void expect__recv(struct harness *h, int *at, enum fam fam, int fd, const char *data,
			 int64_t len, size_t cut)
{
	struct hevt *e, *x;

	if (!pn_pair(h, at, recv_type[fam], me, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, fd);
	EXPECT_PARAM_INT(x, 0, len);
	switch (fam) {
	case F_RW:
		EXPECT_PARAM_INT(e, 1, RBUF);
		EXPECT_PARAM_BYTES(x, 1, data, cut);
		break;
	case F_TO:
		EXPECT_PARAM_INT(e, 1, RBUF);
		EXPECT_PARAM_BYTES(x, 1, data, cut);
		EXPECT_PARAM_EMPTY(x, 2);
		break;
	case F_MSG:
		EXPECT_PARAM_INT(x, 1, RBUF);	/* the iovecs' total */
		EXPECT_PARAM_BYTES(x, 2, data, cut);
		EXPECT_PARAM_EMPTY(x, 3);
		break;
	default:
		EXPECT_PARAM_INT(x, 1, len);	/* capped at res, as sysdig */
		EXPECT_PARAM_BYTES(x, 2, data, cut);
		break;
	}
}

static uint64_t drops__scratch(struct harness *h)
{
	struct driver_counters tot = { 0 };

	EXPECT(driver__counters(harness__driver(h), NULL, 0, &tot) > 0);
	return tot.n_drops_scratch;
}

/* LEN bytes of DATA from FROM to TO by FAM's calls: exactly their two pairs
 * arrive, both with the data cut at SNAP, and no frame was too big. */
static void xfer__check(struct harness *h, enum fam fam, int from, int to, const char *data,
			size_t len, uint32_t snap)
{
	size_t cut = len < snap ? len : snap;
	int at = 0, failed = harness_failures;
	uint64_t drops;
	ssize_t sent, got;

	harness__drain(h, -1);
	drops = drops__scratch(h);
	sent = io__send(fam, from, data, len);
	got = io__recv(fam, to);
	harness__drain(h, me);
	EXPECT(sent == (ssize_t)len && got == (ssize_t)len && !memcmp(rbuf, data, len));
	EXPECT(drops__scratch(h) == drops);
	expect__send(h, &at, fam, from, data, len, cut);
	expect__recv(h, &at, fam, to, data, len, cut);
	EXPECT(at == harness__count(h));
	if (at != harness__count(h) || sent != (ssize_t)len || got != (ssize_t)len ||
	    harness_failures != failed)
		fprintf(stderr, "  %s of %zu bytes (fd %d to %d, snap %u): sent %zd, got %zd, "
			"%d events\n", fam_name[fam], len, from, to, snap, sent, got,
			harness__count(h));
}

/* Under a driver whose marked fds are cut at H2 (the snaplen when it marks
 * none), per family: a preface connection and a control one, all open at
 * once (phase__reuse checks what a close does to a mark). */
static void phase__families(struct harness *h, uint32_t h2)
{
	struct conn pri[F_N], ctl[F_N];

	for (int f = 0; f < F_N; f++) {
		conn__open(&pri[f]);
		conn__open(&ctl[f]);
	}
	for (int f = 0; f < F_N; f++) {
		/* the opening itself: copied again once its fd is marked */
		xfer__check(h, f, pri[f].cli, pri[f].srv, h2_open, OPEN_LEN, h2);
		xfer__check(h, f, pri[f].cli, pri[f].srv, big_a, BIG, h2);
		xfer__check(h, f, pri[f].srv, pri[f].cli, big_b, BIG, h2);
		xfer__check(h, f, pri[f].cli, pri[f].srv, huge, HUGE, h2);

		xfer__check(h, f, ctl[f].cli, ctl[f].srv, h1_open, OPEN_LEN, SNAPLEN);
		xfer__check(h, f, ctl[f].cli, ctl[f].srv, big_a, BIG, SNAPLEN);
		xfer__check(h, f, ctl[f].srv, ctl[f].cli, big_b, BIG, SNAPLEN);
	}
	for (int f = 0; f < F_N; f++) {
		conn__close(&pri[f]);
		conn__close(&ctl[f]);
	}
}

/* A driver capturing this process with the snaplen and H2 as h2_snaplen. */
static struct harness *h2__open(uint32_t h2)
{
	struct driver_config cfg = pn_capture_self;

	cfg.syscalls = harness__only(h2_calls);
	cfg.snaplen = SNAPLEN;
	cfg.h2_snaplen = h2;
	return harness__open(256, &cfg);
}

/* h2_snaplen at most H2_SNAPLEN_MAX: refused above, before any load. */
static void check__limit(void)
{
	struct driver_config cfg = pn_capture_self;
	struct driver *d = driver__open();

	EXPECT(d != NULL);
	if (!d)
		return;
	cfg.h2_snaplen = H2_SNAPLEN_MAX + 1;
	EXPECT(driver__configure(d, &cfg) == -EINVAL);
	cfg.h2_snaplen = H2_SNAPLEN_MAX;
	EXPECT(driver__configure(d, &cfg) == 0);
	driver__close(d);
}

/* h2_snaplen at its bound: the largest buffer a frame holds whole. */
static void phase__max(struct harness *h)
{
	struct conn c;

	conn__open(&c);
	xfer__check(h, F_RW, c.cli, c.srv, h2_open, OPEN_LEN, H2_SNAPLEN_MAX);
	xfer__check(h, F_RW, c.cli, c.srv, big_a, MAX_WHOLE, H2_SNAPLEN_MAX);
	xfer__check(h, F_RW, c.srv, c.cli, big_b, MAX_WHOLE, H2_SNAPLEN_MAX);
	conn__close(&c);
}

/* A marked connection closed: the next one on its fd numbers is cut at the
 * snaplen again. */
static void phase__reuse(struct harness *h)
{
	struct conn c, d;

	conn__open(&c);
	xfer__check(h, F_RW, c.cli, c.srv, h2_open, OPEN_LEN, H2_SNAP);
	xfer__check(h, F_RW, c.cli, c.srv, big_a, BIG, H2_SNAP);
	conn__close(&c);
	conn__open(&d);
	EXPECT(d.cli == c.cli || d.cli == c.srv);
	EXPECT(d.srv == c.cli || d.srv == c.srv);
	xfer__check(h, F_RW, d.cli, d.srv, h1_open, OPEN_LEN, SNAPLEN);
	xfer__check(h, F_RW, d.cli, d.srv, big_a, BIG, SNAPLEN);
	xfer__check(h, F_RW, d.srv, d.cli, big_b, BIG, SNAPLEN);
	conn__close(&d);
}

/* A server's 101 to h2c marks both ends, the writer's and the reader's, and
 * is itself whole: then their buffers are whole. A 101 to another protocol
 * (WebSocket) and a 200 that names h2c mark neither and stay cut. */
static void phase__upgrade(struct harness *h, uint32_t h2)
{
	static const struct {
		const char *open;
		bool marks;
	} cases[] = { { up_open, true }, { ws_open, false }, { ok_open, false } };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t snap = cases[i].marks ? h2 : SNAPLEN;
		struct conn c;

		conn__open(&c);
		xfer__check(h, F_RW, c.cli, c.srv, h1_open, OPEN_LEN, SNAPLEN);
		xfer__check(h, F_RW, c.srv, c.cli, cases[i].open, OPEN_LEN, snap);
		xfer__check(h, F_RW, c.srv, c.cli, big_b, BIG, snap);
		xfer__check(h, F_RW, c.cli, c.srv, big_a, BIG, snap);
		conn__close(&c);
	}
}

/* Redis pipelines (driver/resp.bpf.h): a buffer that starts with a whole RESP
 * message and goes on past it, cut at the snaplen, marks its fd (and is
 * itself whole); one message alone, however long, or one whose headers the
 * snaplen cut, does not. */
#define RESP_LONG 240
static char resp_cmds[512], resp_bulks[256], resp_oks[128], resp_one[RESP_LONG + 64];
static char resp_hidden[256], resp_errs[256], resp_ints[128];
static size_t resp_cmds_len, resp_bulks_len, resp_oks_len, resp_one_len, resp_hidden_len;
static size_t resp_errs_len, resp_ints_len;
/* not pipelines: binary bytes after a '+' with a '\n' in them (a random
 * file's read), a status line followed by a byte that starts no message */
static char resp_binary[200], resp_then_text[200];
static const size_t resp_binary_len = sizeof(resp_binary), resp_then_text_len = sizeof(resp_then_text);

static size_t resp__repeat(char *buf, size_t size, const char *msg, int n)
{
	size_t len = 0, m = strlen(msg);

	for (int i = 0; i < n && len + m <= size; i++, len += m)
		memcpy(buf + len, msg, m);
	return len;
}

static void resp__build(void)
{
	int n;

	/* 12 SETs (29 bytes each): a pipeline as redis-benchmark -P writes it */
	resp_cmds_len = resp__repeat(resp_cmds, sizeof(resp_cmds),
				     "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n", 12);
	/* 12 GET replies, 20 SET replies */
	resp_bulks_len = resp__repeat(resp_bulks, sizeof(resp_bulks), "$3\r\nabc\r\n", 12);
	resp_oks_len = resp__repeat(resp_oks, sizeof(resp_oks), "+OK\r\n", 20);
	/* 8 error replies, 12 INCR replies */
	resp_errs_len = resp__repeat(resp_errs, sizeof(resp_errs), "-ERR wrong kind\r\n", 8);
	resp_ints_len = resp__repeat(resp_ints, sizeof(resp_ints), ":12345\r\n", 12);
	for (size_t i = 0; i < sizeof(resp_binary); i++)
		resp_binary[i] = (char)(0x80 + i % 0x80);
	memcpy(resp_binary, "+\x01\x9c\r\n", 5);
	msg__fill(resp_then_text, sizeof(resp_then_text), 11);
	memcpy(resp_then_text, "+OK\r\nGET / HTTP/1.1\r\n", 21);
	/* one SET of a 240-byte value: one message, longer than the snaplen */
	n = snprintf(resp_one, sizeof(resp_one), "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%d\r\n",
		     RESP_LONG);
	msg__fill(resp_one + n, RESP_LONG, 9);
	memcpy(resp_one + n + RESP_LONG, "\r\n", 2);
	resp_one_len = (size_t)n + RESP_LONG + 2;
	/* two SETs whose first one's last header lies past the snaplen (64) */
	n = snprintf(resp_hidden, sizeof(resp_hidden), "*3\r\n$3\r\nSET\r\n$60\r\n");
	msg__fill(resp_hidden + n, 60, 10);
	n += 60;
	n += snprintf(resp_hidden + n, sizeof(resp_hidden) - (size_t)n,
		      "\r\n$1\r\nv\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n");
	resp_hidden_len = (size_t)n;
}

/* PostgreSQL batches (driver/pgwire.bpf.h): a buffer that starts with a
 * whole typed message followed by another type byte, cut at the snaplen,
 * marks its fd; one message alone, however long, one whose end lies past
 * the snaplen, or one followed by a byte that starts no message, does not. */
static char pg_batch[512], pg_answers[512], pg_one[256], pg_hidden[256], pg_then_text[200];
static size_t pg_batch_len, pg_answers_len, pg_one_len, pg_hidden_len;
static const size_t pg_then_text_len = sizeof(pg_then_text);

/* Appends to BUF at *AT a message of TYPE with BODY of LEN bytes. */
static void pg__msg(char *buf, size_t *at, char type, const char *body, size_t len)
{
	uint32_t l = htonl((uint32_t)len + 4);

	buf[(*at)++] = type;
	memcpy(buf + *at, &l, 4);
	memcpy(buf + *at + 4, body, len);
	*at += 4 + len;
}

static void pg__build(void)
{
	char sql[200];

	/* psycopg's executemany: Bind and Execute of a prepared statement,
	 * twelve times, then Sync; the server's BindComplete and
	 * CommandComplete for each, then ReadyForQuery */
	for (int i = 0; i < 12; i++) {
		pg__msg(pg_batch, &pg_batch_len, 'B', "\0s\0\0\0\0\0\0\0", 9);
		pg__msg(pg_batch, &pg_batch_len, 'E', "\0\0\0\0\0", 5);
		pg__msg(pg_answers, &pg_answers_len, '2', "", 0);
		pg__msg(pg_answers, &pg_answers_len, 'C', "INSERT 0 1", 11);
	}
	pg__msg(pg_batch, &pg_batch_len, 'S', "", 0);
	pg__msg(pg_answers, &pg_answers_len, 'Z', "I", 1);
	/* one Query of 200 bytes */
	msg__fill(sql, sizeof(sql), 12);
	sql[sizeof(sql) - 1] = '\0';
	pg__msg(pg_one, &pg_one_len, 'Q', sql, sizeof(sql));
	/* a Parse of 80 bytes, past the snaplen (64), then Bind, Execute, Sync */
	pg__msg(pg_hidden, &pg_hidden_len, 'P', sql, 75);
	pg__msg(pg_hidden, &pg_hidden_len, 'B', "\0s\0\0\0\0\0\0\0", 9);
	pg__msg(pg_hidden, &pg_hidden_len, 'E', "\0\0\0\0\0", 5);
	pg__msg(pg_hidden, &pg_hidden_len, 'S', "", 0);
	/* ReadyForQuery, then text ('h' starts no message) */
	msg__fill(pg_then_text, sizeof(pg_then_text), 13);
	memcpy(pg_then_text, "Z\0\0\0\x05Ihello, world", 19);
}

/* Under a driver whose marked fds are cut at H2 (the snaplen when it marks
 * none): each opening on a fresh connection, then BIG bytes both ways, cut
 * at H2 where the opening marked the fds and at the snaplen where not. */
static void phase__resp(struct harness *h, uint32_t h2)
{
	static const struct {
		const char *buf;
		const size_t *len;
		bool from_srv, marks;
	} cases[] = {
		{ resp_cmds, &resp_cmds_len, false, true },
		{ resp_bulks, &resp_bulks_len, true, true },
		{ resp_oks, &resp_oks_len, true, true },
		{ resp_errs, &resp_errs_len, true, true },
		{ resp_ints, &resp_ints_len, true, true },
		{ resp_binary, &resp_binary_len, true, false },
		{ resp_then_text, &resp_then_text_len, true, false },
		{ resp_one, &resp_one_len, false, false },
		{ resp_hidden, &resp_hidden_len, false, false },
		{ pg_batch, &pg_batch_len, false, true },
		{ pg_answers, &pg_answers_len, true, true },
		{ pg_one, &pg_one_len, false, false },
		{ pg_hidden, &pg_hidden_len, false, false },
		{ pg_then_text, &pg_then_text_len, true, false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t snap = cases[i].marks ? h2 : SNAPLEN;
		struct conn c;

		for (int f = 0; f < F_N; f++) {
			conn__open(&c);
			if (cases[i].from_srv)
				xfer__check(h, f, c.srv, c.cli, cases[i].buf, *cases[i].len, snap);
			else
				xfer__check(h, f, c.cli, c.srv, cases[i].buf, *cases[i].len, snap);
			xfer__check(h, f, c.cli, c.srv, big_a, BIG, snap);
			xfer__check(h, f, c.srv, c.cli, big_b, BIG, snap);
			conn__close(&c);
		}
	}
}

int main(void)
{
	struct harness *h;

	me = pn_gettid();
	check__limit();
	msg__opening(h2_open, preface, 1);
	msg__opening(h1_open, http1, 2);
	msg__opening(up_open, up_101, 6);
	msg__opening(ws_open, ws_101, 7);
	msg__opening(ok_open, ok_h2c, 8);
	msg__fill(big_a, sizeof(big_a), 3);
	msg__fill(big_b, sizeof(big_b), 4);
	msg__fill(huge, sizeof(huge), 5);
	resp__build();
	pg__build();

	h = h2__open(H2_SNAP);
	phase__families(h, H2_SNAP);
	phase__reuse(h);
	phase__upgrade(h, H2_SNAP);
	phase__resp(h, H2_SNAP);
	harness__close(h);
	fprintf(stderr, "h2_snaplen %u: %d checks, %d failed so far\n", H2_SNAP, harness_checks,
		harness_failures);

	h = h2__open(0);
	phase__families(h, SNAPLEN);
	phase__upgrade(h, SNAPLEN);
	phase__resp(h, SNAPLEN);
	harness__close(h);
	fprintf(stderr, "h2_snaplen 0: %d checks, %d failed so far\n", harness_checks,
		harness_failures);

	h = h2__open(H2_SNAPLEN_MAX);
	phase__max(h);
	harness__close(h);
	return harness__report("h2_snap");
}
