/* Request mode's closes of no socket (driver_config.file_closes,
 * file_fds.bpf.h), loaded as request mode loads them: open and openat not
 * captured (their events stay in the kernel), close and the calls that move
 * fds captured. In exit-only capture a close whose fd is no socket when the
 * close begins stays in the kernel, counted in n_file_closes, and every
 * close of a socket arrives, every param checked:
 * - a TCP socket's arrives, a pipe's stay in the kernel;
 * - a file's fd that dup2 or dup3 put a socket on, or that close_range ended
 *   and a socketpair took: those closes arrive;
 * - a dup of a file (F_DUPFD) is a file: both closes stay in the kernel;
 * - a forked child's close of a file its parent opened, and a CLONE_FILES
 *   child's, stay in the kernel; the parent's socket that then takes the
 *   CLONE_FILES child's number closes as a socket;
 * - a file opened before the capture began, fds past 2048, an eventfd, a
 *   memfd, an epoll fd and a timerfd: kept, whatever made them;
 * - after exec, a socketpair's fd where a close-on-exec file was: arrives.
 * Without exit-only capture the setting does nothing: every close arrives and
 * n_file_closes stays 0.
 * Then all of it again with sock_compact on (request mode without -w): on the
 * syscalls' own tracepoints close_enter sends the closes itself
 * (driver_load_info.close_at_enter), the same events as the exit sends;
 * 10000 file closes run no exit program (bpf_stats), and TCP sockets' socket()
 * calls stay in the kernel. A close of a number with no file arrives with
 * -EBADF in both. Where close_enter cannot be attached (no_close_enter), close
 * goes back on its exit tracepoint and every close arrives. */
#include <sched.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <sys/wait.h>

#include <bpf/bpf.h>

#include "procnet/pn_test.h"

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1U << 1)
#endif

static const int calls[] = {
	SYS_close, SYS_socket, SYS_socketpair, SYS_dup2, SYS_dup3, SYS_fcntl,
	SYS_close_range, -1,
};

#define ROUNDS 200	/* opens and closes of the counting phase */

static int64_t me;
static bool eo;
static bool compact;	/* sock_compact: a TCP socket's socket() stays in the kernel */
static bool at_enter;	/* driver_load_info.close_at_enter */

static void expect_close_res(struct harness *h, int *at, int64_t tid, int fd, int64_t res)
{
	struct hevt *e, *x;

	if (!pn_pair(h, at, PPME_SYSCALL_CLOSE_E, tid, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, fd);
	EXPECT_PARAM_INT(x, 0, res);
	/* sent at its enter: the exit event is stamped as the enter is */
	if (at_enter)
		EXPECT(x->hdr.ts == e->hdr.ts);
	else
		EXPECT(x->hdr.ts >= e->hdr.ts);
}

static void expect_close(struct harness *h, int *at, int64_t tid, int fd)
{
	expect_close_res(h, at, tid, fd, 0);
}

/* Without exit-only capture every close arrives, ld.so's of the libraries an
 * exec'd image maps among them: the closes at *AT, skipped. */
static void skip_closes(struct harness *h, int *at, int64_t tid)
{
	struct hevt *e, *x;

	while (!eo && *at + 1 < harness__count(h) &&
	       harness__get(h, *at)->hdr.type == PPME_SYSCALL_CLOSE_E)
		pn_pair(h, at, PPME_SYSCALL_CLOSE_E, tid, &e, &x);
}

/* A child's last event: its procexit. */
static void expect_procexit(struct harness *h, int *at, int64_t tid)
{
	struct hevt *e = *at < harness__count(h) ? harness__get(h, *at) : NULL;

	EXPECT(e && e->hdr.type == PPME_PROCEXIT_1_E);
	if (!e || e->hdr.type != PPME_PROCEXIT_1_E)
		return;
	hevt__expect_header(e, PPME_PROCEXIT_1_E, tid);
	(*at)++;
}

static void expect_socket(struct harness *h, int *at, int fd)
{
	struct hevt *e, *x;

	/* the compact path keeps a TCP socket's socket() (n_tcp_sockets) */
	if (compact && eo)
		return;
	if (!pn_pair(h, at, PPME_SOCKET_SOCKET_E, me, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, PPM_AF_INET);
	EXPECT_PARAM_INT(x, 0, fd);
}

/* dup2 and dup3 are the same events (sysdig's DUP pair): the old fd, the
 * result */
static void expect_dup(struct harness *h, int *at, int oldfd, int newfd)
{
	struct hevt *e, *x;

	if (!pn_pair(h, at, PPME_SYSCALL_DUP_E, me, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, oldfd);
	EXPECT_PARAM_INT(x, 0, newfd);
}

static uint64_t kept__count(struct harness *h)
{
	struct driver_counters tot = { 0 };

	EXPECT(driver__counters(harness__driver(h), NULL, 0, &tot) > 0);
	return tot.n_file_closes;
}

static int file__open(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	return fd;
}

static int tcp__socket(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0) {
		perror("socket");
		exit(1);
	}
	return fd;
}

/* Opens and closes a file ROUNDS times: no event of this thread in exit-only
 * capture, ROUNDS closes otherwise; the kept count grows by at least ROUNDS
 * (other processes' kept closes are counted too), and not at all without
 * exit-only capture. */
static void phase__count(struct harness *h, const char *path)
{
	uint64_t before, after;
	int fds[ROUNDS], at = 0;

	harness__drain(h, -1);
	before = kept__count(h);
	for (int i = 0; i < ROUNDS; i++) {
		fds[i] = file__open(path);
		EXPECT(close(fds[i]) == 0);
	}
	after = kept__count(h);
	harness__drain(h, me);
	fprintf(stderr, "count: %d events, n_file_closes +%llu\n", harness__count(h),
		(unsigned long long)(after - before));
	if (eo) {
		EXPECT(after - before >= ROUNDS);
	} else {
		EXPECT(after == 0);
		for (int i = 0; i < ROUNDS; i++)
			expect_close(h, &at, me, fds[i]);
	}
	EXPECT(at == harness__count(h));
}

/* A socket's close arrives; a pipe's is a file's. */
static void phase__sockets(struct harness *h)
{
	int s, p[2], at = 0;

	harness__drain(h, -1);
	s = tcp__socket();
	EXPECT(close(s) == 0);
	EXPECT(pipe(p) == 0);
	EXPECT(close(p[0]) == 0);
	EXPECT(close(p[1]) == 0);
	harness__drain(h, me);
	fprintf(stderr, "sockets: %d events\n", harness__count(h));
	expect_socket(h, &at, s);
	expect_close(h, &at, me, s);
	if (!eo) {
		expect_close(h, &at, me, p[0]);
		expect_close(h, &at, me, p[1]);
	}
	EXPECT(at == harness__count(h));
}

/* A file's fd ended by dup2, dup3 or close_range, a socket there after. */
static void phase__moved(struct harness *h, const char *path)
{
	struct hevt *e, *x;
	int f, s, sp[2], at = 0;

	/* dup2, then dup3: the socket onto the file's fd */
	for (int three = 0; three < 2; three++) {
		harness__drain(h, -1);
		at = 0;
		f = file__open(path);
		s = tcp__socket();
		EXPECT((three ? dup3(s, f, O_CLOEXEC) : dup2(s, f)) == f);
		EXPECT(close(f) == 0);
		EXPECT(close(s) == 0);
		harness__drain(h, me);
		fprintf(stderr, "dup%d: %d events\n", three ? 3 : 2, harness__count(h));
		expect_socket(h, &at, s);
		expect_dup(h, &at, s, f);
		expect_close(h, &at, me, f);
		expect_close(h, &at, me, s);
		EXPECT(at == harness__count(h));
	}

	/* close_range: a socketpair takes the lowest free fd, the file's */
	harness__drain(h, -1);
	at = 0;
	f = file__open(path);
	EXPECT(syscall(SYS_close_range, f, f, 0) == 0);
	EXPECT(socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == 0);
	EXPECT(sp[0] == f);
	EXPECT(close(sp[0]) == 0);
	EXPECT(close(sp[1]) == 0);
	harness__drain(h, me);
	fprintf(stderr, "close_range: %d events\n", harness__count(h));
	if (pn_pair(h, &at, PPME_SYSCALL_CLOSE_RANGE_E, me, &e, &x)) {
		EXPECT_PARAM_INT(x, 0, 0);
		EXPECT_PARAM_INT(x, 1, f);
		EXPECT_PARAM_INT(x, 2, f);
		EXPECT_PARAM_INT(x, 3, 0);
	}
	if (pn_pair(h, &at, PPME_SOCKET_SOCKETPAIR_E, me, &e, &x)) {
		EXPECT_PARAM_INT(x, 0, 0);
		EXPECT_PARAM_INT(x, 1, sp[0]);
		EXPECT_PARAM_INT(x, 2, sp[1]);
	}
	expect_close(h, &at, me, sp[0]);
	expect_close(h, &at, me, sp[1]);
	EXPECT(at == harness__count(h));
}

/* A dup of a file by fcntl is a file: both closes stay in the kernel. */
static void phase__dupfd(struct harness *h, const char *path)
{
	struct hevt *e, *x;
	int f, g, at = 0;

	harness__drain(h, -1);
	f = file__open(path);
	g = fcntl(f, F_DUPFD_CLOEXEC, 0);
	EXPECT(g >= 0);
	EXPECT(close(g) == 0);
	EXPECT(close(f) == 0);
	harness__drain(h, me);
	fprintf(stderr, "F_DUPFD: %d events\n", harness__count(h));
	if (pn_pair(h, &at, PPME_SYSCALL_FCNTL_E, me, &e, &x)) {
		EXPECT_PARAM_INT(e, 0, f);
		EXPECT_PARAM_INT(x, 0, g);
	}
	if (!eo) {
		expect_close(h, &at, me, g);
		expect_close(h, &at, me, f);
	}
	EXPECT(at == harness__count(h));
}

/* A child made by clone with FLAGS (0: a fork) closes F, a file, and exits:
 * its close arrives without exit-only capture only, then its procexit.
 * Before, the rings are drained; after, only the child's events were kept. */
static void child__closes(struct harness *h, unsigned long flags, int f, const char *what)
{
	int st, at = 0;
	pid_t c;

	harness__drain(h, -1);
	c = (pid_t)syscall(SYS_clone, flags | SIGCHLD, 0, NULL, NULL, 0);
	if (c == 0)
		_exit(close(f) == 0 ? 0 : 1);
	EXPECT(c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	harness__drain(h, c);
	fprintf(stderr, "%s: child %d events\n", what, harness__count(h));
	if (!eo)
		expect_close(h, &at, c, f);
	expect_procexit(h, &at, c);
	EXPECT(at == harness__count(h));
}

/* A forked child's close of its parent's file is a file's close too, and so
 * is the parent's own. */
static void phase__fork(struct harness *h, const char *path)
{
	int f, at = 0;

	f = file__open(path);
	child__closes(h, 0, f, "fork");
	EXPECT(close(f) == 0);
	harness__drain(h, me);
	fprintf(stderr, "fork: parent %d events\n", harness__count(h));
	if (!eo)
		expect_close(h, &at, me, f);
	EXPECT(at == harness__count(h));
}

/* A child sharing the fd table (clone with CLONE_FILES, another process)
 * closes its parent's file; the parent's socket on that number then closes
 * as a socket. */
static void phase__shared(struct harness *h, const char *path)
{
	int f, s, at = 0;

	f = file__open(path);
	child__closes(h, CLONE_FILES, f, "CLONE_FILES");
	s = tcp__socket();
	EXPECT(s == f);
	EXPECT(close(s) == 0);
	harness__drain(h, me);
	fprintf(stderr, "CLONE_FILES: parent %d events\n", harness__count(h));
	expect_socket(h, &at, s);
	expect_close(h, &at, me, s);
	EXPECT(at == harness__count(h));
}

/* No limit on the numbers: files opened until one is past 2048, all kept. */
#define HIGH_FD 2048
static void phase__high(struct harness *h, const char *path)
{
	static int fds[HIGH_FD + 64];
	struct rlimit rl;
	int n = 0, at = 0;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < HIGH_FD + 64) {
		rl.rlim_cur = HIGH_FD + 64;
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur;
		EXPECT(setrlimit(RLIMIT_NOFILE, &rl) == 0);
	}
	harness__drain(h, -1);
	do
		fds[n] = file__open(path);
	while (fds[n++] < HIGH_FD && n < (int)(sizeof(fds) / sizeof(fds[0])));
	EXPECT(fds[n - 1] >= HIGH_FD);
	for (int i = n - 1; i >= 0; i--)
		EXPECT(close(fds[i]) == 0);
	harness__drain(h, me);
	fprintf(stderr, "high: %d opened, the last fd %d: %d events\n", n, fds[n - 1],
		harness__count(h));
	for (int i = n - 1; i >= 0; i--)
		if (!eo)
			expect_close(h, &at, me, fds[i]);
	EXPECT(at == harness__count(h));
}

/* Whatever made the fd: a file opened before the capture (EARLY), an
 * eventfd, a memfd, an epoll fd and a timerfd close in the kernel; the kept
 * count grows by at least the five. */
static void phase__kinds(struct harness *h, int early)
{
	int fds[5], at = 0;
	uint64_t before, after;

	harness__drain(h, -1);
	before = kept__count(h);
	fds[0] = early;
	fds[1] = eventfd(0, 0);
	fds[2] = memfd_create("kinds", 0);
	fds[3] = epoll_create1(0);
	fds[4] = timerfd_create(CLOCK_MONOTONIC, 0);
	for (int i = 0; i < 5; i++) {
		EXPECT(fds[i] >= 0);
		EXPECT(close(fds[i]) == 0);
	}
	after = kept__count(h);
	harness__drain(h, me);
	fprintf(stderr, "kinds: %d events, n_file_closes +%llu\n", harness__count(h),
		(unsigned long long)(after - before));
	if (eo)
		EXPECT(after - before >= 5);
	for (int i = 0; i < 5; i++)
		if (!eo)
			expect_close(h, &at, me, fds[i]);
	EXPECT(at == harness__count(h));
}

/* close() of a number with no file: it fails with EBADF, and arrives so. */
static void phase__ebadf(struct harness *h, const char *path)
{
	int f, at = 0;

	f = file__open(path);
	EXPECT(close(f) == 0);
	harness__drain(h, -1);
	EXPECT(close(f) == -1 && errno == EBADF);
	harness__drain(h, me);
	fprintf(stderr, "EBADF: %d events\n", harness__count(h));
	expect_close_res(h, &at, me, f, -EBADF);
	EXPECT(at == harness__count(h));
}

/* The runs of the exit dispatcher (bpf_stats on). */
static int exit_runs(const char *name, int fd, void *arg)
{
	struct bpf_prog_info info = { 0 };
	uint32_t len = sizeof(info);

	if (!strcmp(name, "sys_exit_eo") && !bpf_obj_get_info_by_fd(fd, &info, &len))
		*(uint64_t *)arg += info.run_cnt;
	return 0;
}

#define RUN_CLOSES 10000

/* close_at_enter: RUN_CLOSES closes of files and sockets, close turned off
 * and on again before, run no exit program (other processes' wanted calls may run it meanwhile, a few; on
 * close's exit tracepoint each close would run it once), and the socket's
 * closes all arrive. */
static void phase__runs(struct harness *h, const char *path)
{
	uint64_t r0 = 0, r1 = 0;
	int n = 0, socks = 0, at = 0;

	/* close turned off and on again gets no exit tracepoint either */
	EXPECT(driver__set_syscall(harness__driver(h), SYS_close, false) == 0);
	EXPECT(driver__set_syscall(harness__driver(h), SYS_close, true) == 0);
	harness__drain(h, -1);
	driver__for_each_program(harness__driver(h), exit_runs, &r0);
	for (int i = 0; i < RUN_CLOSES; i++) {
		int f = i % 100 ? file__open(path) : tcp__socket();

		n += close(f) == 0;
		socks += !(i % 100);
	}
	driver__for_each_program(harness__driver(h), exit_runs, &r1);
	harness__drain(h, me);
	fprintf(stderr, "runs: %llu exit runs over %d closes, %d events\n",
		(unsigned long long)(r1 - r0), RUN_CLOSES, harness__count(h));
	EXPECT(n == RUN_CLOSES);
	EXPECT(r1 >= r0 && r1 - r0 < RUN_CLOSES / 10);
	for (int i = 0; i < socks; i++) {
		struct hevt *e, *x;

		if (pn_pair(h, &at, PPME_SYSCALL_CLOSE_E, me, &e, &x))
			EXPECT_PARAM_INT(x, 0, 0);
	}
	EXPECT(at == harness__count(h));
}

/* close_enter not attached: close's exit tracepoint is back, and with no
 * note every close is sent, a file's too. */
static void phase__fallback(struct harness *h, const char *path)
{
	int f, s, at = 0;

	harness__drain(h, -1);
	f = file__open(path);
	EXPECT(close(f) == 0);
	s = tcp__socket();
	EXPECT(close(s) == 0);
	harness__drain(h, me);
	fprintf(stderr, "fallback: %d events\n", harness__count(h));
	expect_close(h, &at, me, f);
	expect_socket(h, &at, s);
	expect_close(h, &at, me, s);
	EXPECT(at == harness__count(h));
}

/* The new image of phase__exec's child: a socketpair takes fd 3, where its
 * old image's close-on-exec file was. */
static int exec_child(void)
{
	int sp[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp))
		return 3;
	close(sp[0]);
	close(sp[1]);
	return sp[0] == 3 ? 0 : 2;
}

/* After exec the socketpair on the number of the old image's close-on-exec
 * file closes as a socket. */
static void phase__exec(struct harness *h, const char *path)
{
	struct hevt *e, *x;
	int st, at = 0;
	pid_t c;

	harness__drain(h, -1);
	c = fork();
	if (c == 0) {
		char *argv[] = { "test_file_closes", "exec-child", NULL };
		int f;

		/* fd 3 the lowest free, in this image and the next */
		if (syscall(SYS_close_range, 3, ~0U, 0))
			_exit(4);
		f = open(path, O_RDONLY | O_CLOEXEC);
		if (f != 3)
			_exit(5);
		execv("/proc/self/exe", argv);
		_exit(6);
	}
	EXPECT(c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st));
	EXPECT(WEXITSTATUS(st) == 0);
	harness__drain(h, c);
	fprintf(stderr, "exec: child %d events\n", harness__count(h));
	if (pn_pair(h, &at, PPME_SYSCALL_CLOSE_RANGE_E, c, &e, &x)) {
		EXPECT_PARAM_INT(x, 0, 0);
		EXPECT_PARAM_INT(x, 1, 3);
	}
	skip_closes(h, &at, c);
	if (pn_pair(h, &at, PPME_SOCKET_SOCKETPAIR_E, c, &e, &x)) {
		EXPECT_PARAM_INT(e, 0, PPM_AF_UNIX);
		EXPECT_PARAM_INT(x, 0, 0);
		EXPECT_PARAM_INT(x, 1, 3);
		EXPECT_PARAM_INT(x, 2, 4);
	}
	expect_close(h, &at, c, 3);
	expect_close(h, &at, c, 4);
	expect_procexit(h, &at, c);
	EXPECT(at == harness__count(h));
}

int main(int argc, char **argv)
{
	struct driver_config cfg = pn_capture_self;
	char dir[PATH_MAX], path[PATH_MAX + 8];
	struct harness *h;
	int f, early, stats;

	if (argc > 1 && !strcmp(argv[1], "exec-child"))
		return exec_child();
	me = pn_gettid();
	eo = harness__exit_only();
	pn_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/file", dir);
	f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	EXPECT(f >= 0 && write(f, "x", 1) == 1 && close(f) == 0);
	/* before the capture: no call of the run made it */
	early = file__open(path);
	cfg.syscalls = harness__only(calls);
	cfg.sock_families = (1u << PPM_AF_INET) | (1u << PPM_AF_INET6);
	cfg.file_closes = true;
	stats = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats < 0 && geteuid() == 0) {
		fprintf(stderr, "bpf_enable_stats: %s\n", strerror(errno));
		return 1;
	}
	for (int pass = 0; pass < 2; pass++) {
		struct driver_load_info li;

		compact = cfg.sock_compact = pass == 1;
		h = harness__open(256, &cfg);
		EXPECT(driver__load_info(harness__driver(h), &li, false) == 0);
		at_enter = li.close_at_enter;
		fprintf(stderr, "pass %d: sock_compact %d, close_at_enter %d\n", pass, compact,
			at_enter);
		/* on this kernel: wherever the syscalls' own tracepoints serve */
		EXPECT(at_enter == (compact && eo && !harness__raw_exit()));
		phase__count(h, path);
		phase__sockets(h);
		phase__moved(h, path);
		phase__dupfd(h, path);
		phase__fork(h, path);
		phase__shared(h, path);
		phase__high(h, path);
		phase__kinds(h, early);
		phase__exec(h, path);
		phase__ebadf(h, path);
		if (at_enter && stats >= 0)
			phase__runs(h, path);
		harness__close(h);
		if (!pass) {
			/* the next pass's early file */
			early = file__open(path);
		}
	}
	/* close_enter could not be attached: the closes go back to the exit */
	if (eo) {
		struct driver_load_info li;

		cfg.no_close_enter = true;
		h = harness__open(256, &cfg);
		EXPECT(driver__load_info(harness__driver(h), &li, false) == 0);
		EXPECT(li.close_began == -EPERM && !li.close_at_enter);
		at_enter = false;
		phase__fallback(h, path);
		harness__close(h);
	}
	if (stats >= 0)
		close(stats);
	unlink(path);
	rmdir(dir);
	return harness__report("file_closes");
}
