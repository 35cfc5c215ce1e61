/* Request mode's Go TLS probes (driver_config.tls, driver/tls_go.bpf.c) on a
 * Go program built here with Debian's golang (tests/live/go/tlspair.go, argv:
 * the default executable, then a PIE): one crypto/tls connection to itself
 * over 127.0.0.1, a round of known (*Conn).Read and Write calls on both ends,
 * then a plain TCP connection on the numbers the TLS sockets left. The
 * program is a child process, stepped by lines on its stdin, so that each
 * step's events are drained alone. exit_only is forced on, as in test_tls.
 * - driver__go_tls_attach refuses a driver without tls (not loaded, or
 *   loaded without it: -EINVAL), a Read without RETs (-EINVAL), an address
 *   past the cookie's 48 bits (-ERANGE), a missing file, and a RET past the
 *   file's end once a first one is on: each leaves no probe behind
 *   (driver__go_tls_files and this process's perf event fds unchanged);
 * - on each program file it returns 0, counts the file, and holds one perf
 *   event per probe (each function's entry, each RET of Read);
 * - four runs: each program attached while it runs (after its handshakes)
 *   and run again once attached (started after the attach: the probes are
 *   on the file), its ends' goroutines locked to their threads (tids
 *   printed) or free (any thread of the process), snaplen 80 or 512; in each:
 * - the handshakes (no probed call) arrive as plain socket I/O on both
 *   sockets, and no TLS event;
 * - in the round each end gets exactly one TLS_READ or TLS_WRITE pair per
 *   call, in call order, both frames in one record with one stamp inside
 *   the round, from the end's locked thread or a thread of the program: fd
 *   the end's socket, size the buffer's length, res the bytes moved, data
 *   exactly their first snaplen bytes; a 300-byte record read as 120, 100
 *   (from crypto/tls's buffer, no syscall) and 80; a 40000-byte Write (three
 *   records, three write(2)s) read as 16384, 16384, 7232; a Write (sent at
 *   its entry) stamped before the Read that takes its bytes in (sent at its
 *   RET); no other TLS event anywhere; no plain socket I/O of the program
 *   (the ciphertext stays in the kernel: n_tls_cipher grows by at least one
 *   per record written and per Read that waited for one); n_tls_nofd does
 *   not grow; both sockets' closes arrive;
 * - the plain connection takes the same fd numbers and its I/O arrives as
 *   plain read and write events with every field (the closes unmarked the
 *   numbers): no TLS event, n_tls_cipher and n_tls_nofd unchanged;
 * - a fifth run leaves its TLS sockets open and dup2s the plain ones over
 *   their numbers (no close for the driver to see): the plain I/O on those
 *   numbers arrives all the same (a mark holds only for its socket's file);
 * - driver__detach takes the probes off (driver__go_tls_files 0, their perf
 *   event fds closed). */
#include <dirent.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <time.h>

#include "go_bin.h"
#include "load_watch.h"
#include "procnet/pn_test.h"
#include "tls_live.h"

static const int tls_calls[] = {
	SYS_read, SYS_write, SYS_recvfrom, SYS_sendto, SYS_readv, SYS_writev,
	SYS_recvmsg, SYS_sendmsg, SYS_close, -1,
};

#define MASK_NET ((1u << PPM_AF_INET) | (1u << PPM_AF_INET6))
#define RING_PAGES 1024
#define SNAPLEN 80
#define SNAPLEN_BIG 512
#define LINE_MS 10000		/* the longest a step of the program may take */
#define RECORD 16384		/* a TLS record's plaintext at most */
/* the round's messages, as tlspair.go's fill(len, seed) makes them */
#define A_LEN 100		/* client -> server */
#define B_LEN 300		/* server -> client, read as 120, 100, 80 */
#define C_LEN 40000		/* client -> server, three records */
#define D_LEN 50		/* server -> client */
#define P_LEN 64		/* plain, client -> server */
#define Q_LEN 32		/* plain, server -> client */
#define NCALLS 6		/* per end */
/* records written (1 + 1 + 3 + 1) and Reads that waited for one (the
 * server's first and first of C, the client's first and last) */
#define ROUND_CIPHER_MIN (6 + 4)
#define MAX_TASKS 256

static char msg_a[A_LEN], msg_b[B_LEN], msg_c[C_LEN], msg_d[D_LEN], msg_p[P_LEN], msg_q[Q_LEN];

static void die(const char *what)
{
	fprintf(stderr, "%s failed: %s\n", what, strerror(errno));
	exit(1);
}

/* Event times: the driver's epoch ns (boot clock + its offset). */
static uint64_t now__ns(struct harness *h)
{
	struct timespec t;

	clock_gettime(CLOCK_BOOTTIME, &t);
	return driver__boot_time(harness__driver(h)) + t.tv_sec * 1000000000ull + t.tv_nsec;
}

static struct driver_counters counters__get(struct harness *h)
{
	struct driver_counters tot = { 0 };

	EXPECT(driver__counters(harness__driver(h), NULL, 0, &tot) > 0);
	return tot;
}

/* ---- the Go program, a child stepped through its stdin ---- */

struct child {
	pid_t pid;
	int in, out;		/* its stdin, its stdout */
	char buf[1024];
	size_t len;
	bool failed;		/* a step it did not finish: no more waiting */
};

static void child__start(struct child *c, const char *prog, bool lock, bool dup)
{
	int in[2], out[2];

	memset(c, 0, sizeof(*c));
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		die("pipe2");
	c->pid = fork();
	if (c->pid < 0)
		die("fork");
	if (c->pid == 0) {
		/* ends with the test, whatever happens to it */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
			_exit(127);
		execl(prog, prog, lock ? "-lock" : "-free", dup ? "-dup" : "-close", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->in = in[1];
	c->out = out[0];
}

/* The child's next line into LINE (without its newline): 0, or -1 after
 * LINE_MS or at its end. */
static int child__line(struct child *c, char *line, size_t size)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		char *nl = memchr(c->buf, '\n', c->len);
		struct pollfd p = { .fd = c->out, .events = POLLIN };
		long left;
		ssize_t n;

		if (nl) {
			size_t k = (size_t)(nl - c->buf);

			snprintf(line, size, "%.*s", (int)k, c->buf);
			memmove(c->buf, nl + 1, c->len - k - 1);
			c->len -= k + 1;
			return 0;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		left = LINE_MS - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (c->failed || left <= 0 || c->len == sizeof(c->buf) ||
		    poll(&p, 1, (int)left) <= 0) {
			fprintf(stderr, "  no line from the Go program in %d ms\n", LINE_MS);
			c->failed = true;
			return -1;
		}
		n = read(c->out, c->buf + c->len, sizeof(c->buf) - c->len);
		if (n <= 0) {
			fprintf(stderr, "  the Go program's output ended\n");
			c->failed = true;
			return -1;
		}
		c->len += (size_t)n;
	}
}

static void child__say(struct child *c, const char *line)
{
	size_t n = strlen(line);

	if (write(c->in, line, n) != (ssize_t)n || write(c->in, "\n", 1) != 1)
		fprintf(stderr, "  writing \"%s\" to the Go program: %s\n", line, strerror(errno));
}

/* Says exit, waits for its end (killed after LINE_MS, or 200 ms after a
 * step it failed): its wait status. */
static int child__end(struct child *c)
{
	int status = -1;

	if (c->pid <= 0)
		return -1;
	child__say(c, "exit");
	for (int ms = 0;; ms += 10) {
		if (waitpid(c->pid, &status, WNOHANG) == c->pid)
			goto reaped;
		if (ms >= (c->failed ? 200 : LINE_MS))
			break;
		usleep(10000);
	}
	fprintf(stderr, "  the Go program did not end: killed\n");
	kill(c->pid, SIGKILL);
	waitpid(c->pid, &status, 0);
	status = -1;
reaped:
	close(c->in);
	close(c->out);
	c->pid = 0;
	return status;
}

/* ---- the program's threads ---- */

struct tasks {
	int64_t tid[MAX_TASKS];
	int n;
};

/* The threads of process PID now. */
static void tasks__read(struct tasks *t, pid_t pid)
{
	char path[64];
	struct dirent *de;
	DIR *dir;

	t->n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((de = readdir(dir)) && t->n < MAX_TASKS)
		if (de->d_name[0] != '.')
			t->tid[t->n++] = strtoll(de->d_name, NULL, 10);
	closedir(dir);
}

static bool tasks__has(const struct tasks *t, int64_t tid)
{
	for (int i = 0; i < t->n; i++)
		if (t->tid[i] == tid)
			return true;
	return false;
}

/* ---- events ---- */

static bool tls__is(uint16_t type)
{
	return type == PPME_TLS_READ_E || type == PPME_TLS_READ_X || type == PPME_TLS_WRITE_E ||
	       type == PPME_TLS_WRITE_X;
}

/* ... and their exit events. */
static bool sock_io_x__is(uint16_t type)
{
	return (type & 1) && sock_io__is(type - 1);
}

/* The exit frame sent in the same ring record as enter event E, or NULL. */
static struct hevt *pair__exit(struct harness *h, const struct hevt *e)
{
	for (int i = 0; i < harness__count(h); i++) {
		struct hevt *x = harness__get(h, i);

		if (x->cpu == e->cpu && x->rec == e->rec && x->hdr.type == e->hdr.type + 1 &&
		    x->hdr.tid == e->hdr.tid)
			return x;
	}
	return NULL;
}

/* Drained enter events of the program (threads T) of TYPE on FD. */
static int fd__count(struct harness *h, const struct tasks *t, bool (*is)(uint16_t), int fd)
{
	int n = 0;

	for (int i = 0; i < harness__count(h); i++) {
		struct hevt *e = harness__get(h, i);

		n += tasks__has(t, e->hdr.tid) && is(e->hdr.type) && hevt__int(e, 0) == fd;
	}
	return n;
}

static bool close__is(uint16_t type)
{
	return type == PPME_SYSCALL_CLOSE_E;
}

/* FD closed once by the program (threads T), successfully. */
static void close__check(struct harness *h, const struct tasks *t, int fd)
{
	int from = 0;
	struct hevt *e, *x;

	EXPECT(fd__count(h, t, close__is, fd) == 1);
	while ((e = pn_find_arg0(h, PPME_SYSCALL_CLOSE_E, fd, &from)))
		if (tasks__has(t, e->hdr.tid))
			break;
	x = e ? pair__exit(h, e) : NULL;
	EXPECT(x != NULL);
	if (x) {
		hevt__expect_header(e, PPME_SYSCALL_CLOSE_E, e->hdr.tid);
		hevt__expect_header(x, PPME_SYSCALL_CLOSE_X, e->hdr.tid);
		EXPECT_PARAM_INT(x, 0, 0);
	}
}

static bool write__is(uint16_t type)
{
	return type == PPME_SYSCALL_WRITE_E;
}

/* Drained events of TYPE (all processes when T is NULL). */
static int type__count(struct harness *h, const struct tasks *t, bool (*is)(uint16_t))
{
	int n = 0;

	for (int i = 0; i < harness__count(h); i++) {
		struct hevt *e = harness__get(h, i);

		n += (!t || tasks__has(t, e->hdr.tid)) && is(e->hdr.type);
	}
	return n;
}

/* One probed call as its event pair must tell it. */
struct want {
	uint16_t type;		/* PPME_TLS_READ_E or PPME_TLS_WRITE_E */
	uint32_t size;		/* the buffer's length */
	const char *data;	/* the plaintext it moved */
	uint32_t moved;
};

static const struct want cli_wants[NCALLS] = {
	{ PPME_TLS_WRITE_E, A_LEN, msg_a, A_LEN },
	{ PPME_TLS_READ_E, 120, msg_b, 120 },
	{ PPME_TLS_READ_E, 100, msg_b + 120, 100 },	/* from crypto/tls's buffer */
	{ PPME_TLS_READ_E, 4096, msg_b + 220, 80 },	/* the record's rest */
	{ PPME_TLS_WRITE_E, C_LEN, msg_c, C_LEN },
	{ PPME_TLS_READ_E, 4096, msg_d, D_LEN },
};

static const struct want srv_wants[NCALLS] = {
	{ PPME_TLS_READ_E, 4096, msg_a, A_LEN },
	{ PPME_TLS_WRITE_E, B_LEN, msg_b, B_LEN },
	{ PPME_TLS_READ_E, 20000, msg_c, RECORD },
	{ PPME_TLS_READ_E, 20000, msg_c + RECORD, RECORD },
	{ PPME_TLS_READ_E, 20000, msg_c + 2 * RECORD, C_LEN - 2 * RECORD },
	{ PPME_TLS_WRITE_E, D_LEN, msg_d, D_LEN },
};

/* One run of the program: what it printed, how it runs. */
struct run {
	const char *name;
	bool lock;		/* its ends' goroutines locked to their threads */
	bool dup;		/* the TLS sockets not closed: their numbers dup2'd over */
	uint32_t snaplen;
	pid_t pid;
	int cli, srv;		/* the TLS sockets */
	int64_t cli_tid, srv_tid;	/* with lock */
	int pcli, psrv;		/* the plain sockets */
	uint64_t t0, t1;	/* the round's bounds */
};

/* The program's TLS pairs on FD (its end, whose thread is TID with lock)
 * are exactly W, in order, inside the round; every field checked. Their
 * stamps into TS (0 for a call not found). */
static void end__check(struct harness *h, const struct run *r, const struct tasks *t,
		       const char *end, int fd, int64_t tid, const struct want *w, uint64_t *ts)
{
	uint64_t last = r->t0;
	int k = 0;

	memset(ts, 0, NCALLS * sizeof(*ts));
	for (int i = 0; i < harness__count(h); i++) {
		struct hevt *e = harness__get(h, i), *x;
		uint32_t cut;

		if ((e->hdr.type != PPME_TLS_READ_E && e->hdr.type != PPME_TLS_WRITE_E) ||
		    !tasks__has(t, e->hdr.tid) || hevt__int(e, 0) != fd)
			continue;
		if (k == NCALLS) {
			EXPECT(!"a TLS pair past the end's calls");
			fprintf(stderr, "  %s: extra event %u, size %lld\n", end, e->hdr.type,
				(long long)hevt__int(e, 1));
			continue;
		}
		x = pair__exit(h, e);
		EXPECT(e->hdr.type == w[k].type && x != NULL);
		if (e->hdr.type != w[k].type || !x) {
			fprintf(stderr, "  %s call %d: want event %u, got %u (exit frame %s)\n", end,
				k, w[k].type, e->hdr.type, x ? "found" : "missing");
			k++;
			continue;
		}
		cut = w[k].moved < r->snaplen ? w[k].moved : r->snaplen;
		hevt__expect_header(e, w[k].type, r->lock ? tid : (int64_t)e->hdr.tid);
		hevt__expect_header(x, w[k].type + 1, e->hdr.tid);
		EXPECT(!e->rebuilt && !x->rebuilt);
		EXPECT(e->hdr.ts == x->hdr.ts && e->hdr.ts >= last && e->hdr.ts <= r->t1);
		last = ts[k] = e->hdr.ts;
		EXPECT_PARAM_INT(e, 0, fd);
		EXPECT_PARAM_INT(e, 1, w[k].size);
		EXPECT_PARAM_INT(x, 0, w[k].moved);
		EXPECT_PARAM_BYTES(x, 1, w[k].data, cut);
		if (hevt__int(e, 1) != w[k].size || hevt__int(x, 0) != w[k].moved)
			fprintf(stderr, "  %s call %d: size %lld res %lld, want %u %u\n", end, k,
				(long long)hevt__int(e, 1), (long long)hevt__int(x, 0),
				w[k].size, w[k].moved);
		k++;
	}
	EXPECT(k == NCALLS);
	if (k != NCALLS)
		fprintf(stderr, "  %s: %d TLS pairs, want %d\n", end, k, NCALLS);
}

/* ---- the steps of a run ---- */

/* Starts the program, reads its ready line: its handshakes done. */
static int run__start(struct child *c, struct run *r, const char *prog)
{
	char line[256];

	child__start(c, prog, r->lock, r->dup);
	if (child__line(c, line, sizeof(line)) ||
	    sscanf(line, "ready %d %d %d %" SCNd64 " %" SCNd64, &r->pid, &r->cli, &r->srv,
		   &r->cli_tid, &r->srv_tid) != 5) {
		fprintf(stderr, "  %s: want a ready line\n", r->name);
		c->failed = true;
		return -1;
	}
	EXPECT(r->pid == c->pid);
	EXPECT(r->cli >= 0 && r->srv >= 0 && r->cli != r->srv);
	EXPECT(r->lock ? r->cli_tid > 0 && r->srv_tid > 0 && r->cli_tid != r->srv_tid
		       : r->cli_tid == 0 && r->srv_tid == 0);
	return 0;
}

/* The handshakes: plain socket I/O on both sockets, no TLS event. */
static void run__handshake(struct harness *h, const struct run *r)
{
	struct tasks t;
	int cli, srv;

	harness__drain(h, -1);
	tasks__read(&t, r->pid);
	cli = fd__count(h, &t, sock_io__is, r->cli);
	srv = fd__count(h, &t, sock_io__is, r->srv);
	fprintf(stderr, "%s: pid %d (%d threads), sockets %d %d; handshake: %d client and %d "
		"server socket I/O events\n", r->name, r->pid, t.n, r->cli, r->srv, cli, srv);
	EXPECT(t.n > 0 && tasks__has(&t, r->pid));
	EXPECT(!r->lock || (tasks__has(&t, r->cli_tid) && tasks__has(&t, r->srv_tid)));
	EXPECT(cli >= 2 && srv >= 2);
	EXPECT(type__count(h, NULL, tls__is) == 0);
}

/* The round: each call one TLS pair, the ciphertext counted; both closes. */
static void run__round(struct harness *h, struct child *c, struct run *r)
{
	static const int moved[2 * NCALLS] = {
		A_LEN, 120, 100, 80, C_LEN, D_LEN, A_LEN, B_LEN, RECORD, RECORD,
		C_LEN - 2 * RECORD, D_LEN,
	};
	struct driver_counters before, after;
	uint64_t cts[NCALLS], sts[NCALLS];
	char line[256], *p = line + 5;
	struct tasks t;
	int ok;

	harness__drain(h, -1);
	before = counters__get(h);
	r->t0 = now__ns(h);
	child__say(c, "round");
	ok = !child__line(c, line, sizeof(line)) && !strncmp(line, "round", 5);
	r->t1 = now__ns(h);
	after = counters__get(h);
	harness__drain(h, -1);
	tasks__read(&t, r->pid);
	EXPECT(ok);
	c->failed |= !ok;
	/* the program's own view: each call moved what the test expects */
	for (int i = 0; i < 2 * NCALLS && ok; i++) {
		char *end;
		long v = strtol(p, &end, 10);

		EXPECT(end != p && v == moved[i]);
		if (end == p || v != moved[i])
			fprintf(stderr, "  call %d moved %ld, want %d: %s\n", i, v, moved[i], line);
		p = end;
	}
	fprintf(stderr, "%s round, snaplen %u: %d TLS events, %d of the program's socket I/O; "
		"n_tls_cipher +%llu, n_tls_nofd +%llu\n", r->name, r->snaplen,
		type__count(h, NULL, tls__is), type__count(h, &t, sock_io__is),
		(unsigned long long)(after.n_tls_cipher - before.n_tls_cipher),
		(unsigned long long)(after.n_tls_nofd - before.n_tls_nofd));
	end__check(h, r, &t, "client", r->cli, r->cli_tid, cli_wants, cts);
	end__check(h, r, &t, "server", r->srv, r->srv_tid, srv_wants, sts);
	/* a Write is sent at its entry, a Read at its return: each message's
	 * Write comes before the Read that takes it in */
	EXPECT(cts[0] && cts[0] < sts[0]);
	EXPECT(sts[1] && sts[1] < cts[1]);
	EXPECT(cts[4] && cts[4] < sts[2]);
	EXPECT(sts[5] && sts[5] < cts[5]);
	/* nothing else: every TLS event is one of those pairs */
	EXPECT(type__count(h, NULL, tls__is) == 4 * NCALLS);
	/* the ciphertext stays in the kernel: none of the sockets' I/O, and
	 * none of the program's at all (its pipes are no socket) */
	EXPECT(fd__count(h, &t, sock_io__is, r->cli) == 0);
	EXPECT(fd__count(h, &t, sock_io__is, r->srv) == 0);
	EXPECT(type__count(h, &t, sock_io__is) == 0 && type__count(h, &t, sock_io_x__is) == 0);
	EXPECT(after.n_tls_cipher - before.n_tls_cipher >= ROUND_CIPHER_MIN);
	EXPECT(after.n_tls_nofd == before.n_tls_nofd);
	if (r->dup) {
		/* left open, to be replaced by dup2 */
		EXPECT(fd__count(h, &t, close__is, r->cli) == 0);
		EXPECT(fd__count(h, &t, close__is, r->srv) == 0);
		return;
	}
	/* both sockets closed (close_notify sent: ciphertext too) */
	close__check(h, &t, r->cli);
	close__check(h, &t, r->srv);
}

/* The plain reads of FD (as io.ReadFull makes them: each asks for the
 * rest) moved exactly the LEN bytes WANT; an EAGAIN (Go's poller) may come
 * first. 1 when they did. */
static int plain__reads(struct harness *h, const struct tasks *t, int fd, const char *want,
			uint32_t len)
{
	uint32_t got = 0;
	int reads = 0;

	for (int i = 0; i < harness__count(h); i++) {
		struct hevt *e = harness__get(h, i), *x;
		int64_t res;

		if (e->hdr.type != PPME_SYSCALL_READ_E || !tasks__has(t, e->hdr.tid) ||
		    hevt__int(e, 0) != fd)
			continue;
		reads++;
		x = pair__exit(h, e);
		EXPECT(x != NULL && got < len);
		if (!x || got >= len)
			continue;
		hevt__expect_header(e, PPME_SYSCALL_READ_E, e->hdr.tid);
		hevt__expect_header(x, PPME_SYSCALL_READ_X, e->hdr.tid);
		EXPECT_PARAM_INT(e, 1, len - got);
		res = hevt__int(x, 0);
		EXPECT(res == -EAGAIN || (res > 0 && res <= len - got));
		if (res == -EAGAIN) {
			EXPECT_PARAM_EMPTY(x, 1);
		} else if (res > 0 && res <= len - got) {
			EXPECT_PARAM_BYTES(x, 1, want + got, (size_t)res);
			got += (uint32_t)res;
		}
	}
	EXPECT(got == len);
	if (got != len)
		fprintf(stderr, "  plain reads of fd %d: %u bytes in %d reads, want %u\n", fd, got,
			reads, len);
	return got == len;
}

/* The one plain write of FD: LEN bytes of WANT. */
static void plain__write(struct harness *h, const struct tasks *t, int fd, const char *want,
			 uint32_t len)
{
	struct hevt *e, *x;
	int from = 0;

	while ((e = pn_find_arg0(h, PPME_SYSCALL_WRITE_E, fd, &from)))
		if (tasks__has(t, e->hdr.tid))
			break;
	EXPECT(e != NULL);
	if (!e) {
		fprintf(stderr, "  no plain write on fd %d\n", fd);
		return;
	}
	x = pair__exit(h, e);
	EXPECT(x != NULL);
	if (!x)
		return;
	hevt__expect_header(e, PPME_SYSCALL_WRITE_E, e->hdr.tid);
	hevt__expect_header(x, PPME_SYSCALL_WRITE_X, e->hdr.tid);
	EXPECT_PARAM_INT(e, 1, len);
	EXPECT_PARAM_INT(x, 0, len);
	EXPECT_PARAM_BYTES(x, 1, want, len);
	EXPECT(fd__count(h, t, write__is, fd) == 1);
}

/* The plain connection on the numbers the TLS sockets left: its I/O sent
 * as plain events, nothing counted as ciphertext. */
static void run__plain(struct harness *h, struct child *c, struct run *r)
{
	struct driver_counters before, after;
	int res[4] = { 0 }, ok;
	char line[256];
	struct tasks t;

	harness__drain(h, -1);
	before = counters__get(h);
	child__say(c, "plain");
	ok = !child__line(c, line, sizeof(line)) &&
	     sscanf(line, "plain %d %d %d %d %d %d", &r->pcli, &r->psrv, &res[0], &res[1],
		    &res[2], &res[3]) == 6;
	after = counters__get(h);
	harness__drain(h, -1);
	tasks__read(&t, r->pid);
	EXPECT(ok);
	if (!ok)
		return;
	fprintf(stderr, "%s plain: sockets %d %d; %d and %d socket I/O events; "
		"n_tls_cipher +%llu, n_tls_nofd +%llu\n", r->name, r->pcli, r->psrv,
		fd__count(h, &t, sock_io__is, r->pcli), fd__count(h, &t, sock_io__is, r->psrv),
		(unsigned long long)(after.n_tls_cipher - before.n_tls_cipher),
		(unsigned long long)(after.n_tls_nofd - before.n_tls_nofd));
	EXPECT(res[0] == P_LEN && res[1] == P_LEN && res[2] == Q_LEN && res[3] == Q_LEN);
	/* the kernel gives the lowest numbers: the TLS sockets'; which end
	 * gets which is the goroutines' order (the dial's socket() or the
	 * accept first), not the kernel's to say */
	EXPECT((r->pcli == r->cli && r->psrv == r->srv) || (r->pcli == r->srv && r->psrv == r->cli));
	plain__write(h, &t, r->pcli, msg_p, P_LEN);
	plain__reads(h, &t, r->psrv, msg_p, P_LEN);
	plain__write(h, &t, r->psrv, msg_q, Q_LEN);
	plain__reads(h, &t, r->pcli, msg_q, Q_LEN);
	EXPECT(type__count(h, NULL, tls__is) == 0);
	EXPECT(after.n_tls_cipher == before.n_tls_cipher);
	EXPECT(after.n_tls_nofd == before.n_tls_nofd);
}

/* ---- attaching ---- */

/* G as the driver takes it (userspace/agent/tls_watch.c's go__attach). */
static struct driver_go_tls go__tls(const struct go_bin *g)
{
	return (struct driver_go_tls){
		.read = { g->read.vaddr, g->read.off, g->read.rets, g->read.nrets },
		.write = { g->write.vaddr, g->write.off, g->write.rets, g->write.nrets },
		.itab_tcp = g->itab_tcp,
		.itab_unix = g->itab_unix,
	};
}

/* The probes a program's attach puts on: each function's entry, and
 * Read's RETs (a Write is sent at its entry). */
static int go__probes(const struct go_bin *g)
{
	return (int)(g->read.nrets + 2);
}

static void go__read(const char *path, struct go_bin *g)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		die(path);
	err = go_bin__read(fd, g);
	close(fd);
	if (err) {
		fprintf(stderr, "go_bin__read %s: %s\n", path, strerror(-err));
		exit(1);
	}
	fprintf(stderr, "%s: %s, Read at %#llx (%u RETs), Write at %#llx (%u RETs), "
		"TCPConn itab %#llx\n", path, g->version, (unsigned long long)g->read.vaddr,
		g->read.nrets, (unsigned long long)g->write.vaddr, g->write.nrets,
		(unsigned long long)g->itab_tcp);
}

/* PATH probed: counted, one perf event per probe. */
static void phase__attach(struct harness *h, const char *path, const struct go_bin *g)
{
	struct driver *d = harness__driver(h);
	struct driver_go_tls t = go__tls(g);
	uint32_t files = driver__go_tls_files(d);
	int fds = perf_fds__count();

	EXPECT(driver__go_tls_attach(d, path, &t) == 0);
	EXPECT(driver__go_tls_files(d) == files + 1);
	EXPECT(perf_fds__count() == fds + go__probes(g));
}

/* Refused attaches leave nothing behind. */
static void phase__refused(struct harness *h, const char *path, const struct go_bin *g)
{
	struct driver *d = harness__driver(h);
	int fds = perf_fds__count(), err;
	uint32_t past_end[2] = { g->read.rets[0], 1u << 30 };
	struct driver_go_tls t;

	t = go__tls(g);
	t.read.nrets = 0;
	EXPECT(driver__go_tls_attach(d, path, &t) == -EINVAL);
	t = go__tls(g);
	t.write.vaddr |= 1ull << GO_COOKIE_SLOT_SHIFT;
	EXPECT(driver__go_tls_attach(d, path, &t) == -ERANGE);
	t = go__tls(g);
	EXPECT(driver__go_tls_attach(d, "/nonexistent/tlspair", &t) < 0);
	/* Read's first RET probe goes on, its second, past the file's end,
	 * fails: the first comes off again */
	t = go__tls(g);
	t.read.rets = past_end;
	t.read.nrets = 2;
	err = driver__go_tls_attach(d, path, &t);
	fprintf(stderr, "a probe past the file's end: %d (%s)\n", err, strerror(-err));
	EXPECT(err < 0);
	EXPECT(driver__go_tls_files(d) == 0);
	EXPECT(perf_fds__count() == fds);
}

/* Without tls: -EINVAL, from a driver not loaded and one loaded without it. */
static void check__needs_tls(const char *path, const struct go_bin *g)
{
	struct driver_config cfg = { 0 };
	static const int one[] = { SYS_getppid, -1 };
	struct driver_go_tls t = go__tls(g);
	struct driver *d = driver__open();
	int fds = perf_fds__count();

	EXPECT(d != NULL);
	if (!d)
		return;
	EXPECT(driver__go_tls_attach(d, path, &t) == -EINVAL);
	cfg.exit_only = true;
	cfg.syscalls = harness__only(one);
	EXPECT(driver__configure(d, &cfg) == 0);
	EXPECT(load_watch__load(d) == 0);
	EXPECT(driver__go_tls_attach(d, path, &t) == -EINVAL);
	EXPECT(driver__go_tls_files(d) == 0 && perf_fds__count() == fds);
	driver__close(d);
}

/* driver__detach takes the probes off with the rest. */
static void phase__detach(struct harness *h, int probes)
{
	struct driver *d = harness__driver(h);
	int fds = perf_fds__count();

	driver__detach(d);
	EXPECT(driver__go_tls_files(d) == 0);
	EXPECT(perf_fds__count() <= fds - probes);
}

/* One run of PROG, attached (PATH, G) once it runs when ATTACH. */
static void run(struct harness *h, struct run *r, const char *prog, const struct go_bin *g,
		bool attach)
{
	struct child c;

	EXPECT(driver__set_snaplen(harness__driver(h), r->snaplen) == 0);
	harness__drain(h, -1);
	if (run__start(&c, r, prog) == 0) {
		run__handshake(h, r);
		if (attach)
			phase__attach(h, prog, g);
		run__round(h, &c, r);
		if (!c.failed)
			run__plain(h, &c, r);
	} else {
		EXPECT(!"the program started");
	}
	EXPECT(child__end(&c) == 0);
	EXPECT(harness__lost(h) == 0);
}

int main(int argc, char **argv)
{
	struct driver_config cfg = { 0 };
	struct go_bin g, gpie;
	struct harness *h;
	struct run r1 = { .name = "default, attached while it runs, locked", .lock = true,
			  .snaplen = SNAPLEN };
	struct run r2 = { .name = "PIE, attached while it runs, free", .snaplen = SNAPLEN_BIG };
	struct run r3 = { .name = "default, started once attached, free",
			  .snaplen = SNAPLEN_BIG };
	struct run r4 = { .name = "PIE, started once attached, locked", .lock = true,
			  .snaplen = SNAPLEN };
	struct run r5 = { .name = "default, started once attached, locked, its TLS sockets "
			  "replaced by dup2 (no close)", .lock = true, .dup = true,
			  .snaplen = SNAPLEN_BIG };

	if (argc != 3) {
		fprintf(stderr, "usage: test_tls_go TLSPAIR TLSPAIR_PIE\n");
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	msg__fill(msg_a, A_LEN, 1);
	msg__fill(msg_b, B_LEN, 2);
	msg__fill(msg_c, C_LEN, 3);
	msg__fill(msg_d, D_LEN, 4);
	msg__fill(msg_p, P_LEN, 5);
	msg__fill(msg_q, Q_LEN, 6);
	if (geteuid() == 0 && !driver__exit_only_supported()) {
		fprintf(stderr, "no exit-only capture on this kernel: Go TLS probes not tried\n");
		return harness__report("tls_go");
	}
	if (!harness__exit_only())
		fprintf(stderr, "exit_only forced on: the TLS probes need it\n");
	cfg.exit_only = true;
	cfg.tls = true;
	cfg.snaplen = SNAPLEN;
	cfg.sock_families = MASK_NET;
	cfg.syscalls = harness__only(tls_calls);
	h = harness__open(RING_PAGES, &cfg);
	go__read(argv[1], &g);
	go__read(argv[2], &gpie);
	check__needs_tls(argv[1], &g);
	phase__refused(h, argv[1], &g);

	run(h, &r1, argv[1], &g, true);
	run(h, &r2, argv[2], &gpie, true);
	EXPECT(driver__go_tls_files(harness__driver(h)) == 2);
	run(h, &r3, argv[1], &g, false);
	run(h, &r4, argv[2], &gpie, false);
	run(h, &r5, argv[1], &g, false);
	phase__detach(h, go__probes(&g) + go__probes(&gpie));

	harness__close(h);
	return harness__report("tls_go");
}
