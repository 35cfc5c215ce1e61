/* poll, ppoll, select and epoll_wait on the real driver: every param of both
 * events (fd lists with their requested and returned events, timeouts, the
 * signal mask), the 16-fd cap, and failing calls. */
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/select.h>

#include "wait_live.h"

/* An FDLIST param: u16 count, then per fd an s64 fd and u16 flags. */
struct fdlist {
	uint8_t b[2 + 16 * 10];
	size_t len;
};

static void fdlist__init(struct fdlist *l)
{
	memset(l, 0, sizeof(*l));
	l->len = 2;
}

static void fdlist__add(struct fdlist *l, int64_t fd, uint16_t flags)
{
	memcpy(l->b + l->len, &fd, 8);
	memcpy(l->b + l->len + 8, &flags, 2);
	l->len += 10;
	l->b[0]++;
}

static int pipefd[2];

/* The calls checked, each made with syscall(); check_ppoll also finds no second
 * ppoll event. */
static const int wait_poll_calls[] = { SYS_poll, SYS_ppoll, SYS_select, SYS_epoll_wait, -1 };

/* poll(FDS, N, TIMEOUT) on the pipe, checked against the PPM flags expected at
 * enter (WANT_E) and exit (WANT_X). */
static void check_poll(struct harness *h, struct pollfd *fds, unsigned n, int timeout,
		       const struct fdlist *want_e, const struct fdlist *want_x, long want_res)
{
	struct hevt *e, *x;
	long r;

	r = wait__call(h, SYS_poll, (unsigned long)fds, n, timeout, 0, 0, 0);
	EXPECT(r == want_res);
	e = wait__pair(h, PPME_SYSCALL_POLL_E, 1, timeout, &x);
	if (!e)
		return;
	EXPECT_PARAM_BUF(e, 0, want_e->b, want_e->len);
	EXPECT_PARAM_INT(e, 1, timeout);
	EXPECT_PARAM_INT(x, 0, want_res);
	EXPECT_PARAM_BUF(x, 1, want_x->b, want_x->len);
}

static void test_poll(struct harness *h)
{
	struct pollfd fds[20];
	struct fdlist we, wx;
	struct rlimit rl;

	/* Readable read end, writable write end, a negative fd (skipped by the
	 * kernel), a closed fd (POLLNVAL). */
	fds[0] = (struct pollfd){ pipefd[0], POLLIN | POLLPRI | POLLRDHUP | POLLRDNORM, 0 };
	fds[1] = (struct pollfd){ pipefd[1], POLLOUT | POLLWRNORM | POLLWRBAND | POLLRDBAND, 0 };
	fds[2] = (struct pollfd){ -1, POLLIN, 0 };
	fds[3] = (struct pollfd){ 9999, POLLIN, 0 };
	fdlist__init(&we);
	fdlist__add(&we, pipefd[0], PPM_POLL_FLAGS_POLLIN | PPM_POLL_FLAGS_POLLPRI |
					    PPM_POLL_FLAGS_POLLRDHUP | PPM_POLL_FLAGS_POLLRDNORM);
	fdlist__add(&we, pipefd[1], PPM_POLL_FLAGS_POLLOUT | PPM_POLL_FLAGS_POLLWRNORM |
					    PPM_POLL_FLAGS_POLLWRBAND | PPM_POLL_FLAGS_POLLRDBAND);
	fdlist__add(&we, -1, PPM_POLL_FLAGS_POLLIN);
	fdlist__add(&we, 9999, PPM_POLL_FLAGS_POLLIN);
	fdlist__init(&wx);
	fdlist__add(&wx, pipefd[0], PPM_POLL_FLAGS_POLLIN | PPM_POLL_FLAGS_POLLRDNORM);
	fdlist__add(&wx, pipefd[1], PPM_POLL_FLAGS_POLLOUT | PPM_POLL_FLAGS_POLLWRNORM);
	fdlist__add(&wx, -1, 0);
	fdlist__add(&wx, 9999, PPM_POLL_FLAGS_POLLNVAL);
	check_poll(h, fds, 4, 0, &we, &wx, 3);
	/* A timeout kept as the int it is (negative: forever; a ready fd returns). */
	check_poll(h, fds, 4, -7, &we, &wx, 3);

	/* 20 fds: the lists stop at 16. */
	fdlist__init(&we);
	fdlist__init(&wx);
	for (int i = 0; i < 20; i++) {
		fds[i] = (struct pollfd){ pipefd[1], POLLOUT, 0 };
		if (i < 16) {
			fdlist__add(&we, pipefd[1], PPM_POLL_FLAGS_POLLOUT);
			fdlist__add(&wx, pipefd[1], PPM_POLL_FLAGS_POLLOUT);
		}
	}
	check_poll(h, fds, 20, 3, &we, &wx, 20);

	/* No fds: an empty list (the count alone). */
	fdlist__init(&we);
	check_poll(h, NULL, 0, 1, &we, &we, 0);
	/* Failing: an unreadable array (EFAULT): empty lists. */
	check_poll(h, (struct pollfd *)8, 1, 2, &we, &we, -EFAULT);
	/* Failing: more fds than RLIMIT_NOFILE (EINVAL); the array is still read. */
	fds[0] = (struct pollfd){ pipefd[0], POLLIN, 0 };
	fdlist__init(&we);
	fdlist__add(&we, pipefd[0], PPM_POLL_FLAGS_POLLIN);
	for (int i = 1; i < 16; i++) {
		fds[i] = fds[0];
		fdlist__add(&we, pipefd[0], PPM_POLL_FLAGS_POLLIN);
	}
	fdlist__init(&wx);
	for (int i = 0; i < 16; i++)
		fdlist__add(&wx, pipefd[0], 0);
	/* The kernel checks the count before reading: 16 readable entries do. */
	EXPECT(getrlimit(RLIMIT_NOFILE, &rl) == 0);
	check_poll(h, fds, rl.rlim_cur + 1, 4, &we, &wx, -EINVAL);
}

static void check_ppoll(struct harness *h, struct pollfd *fds, unsigned n, const struct timespec *ts,
			const sigset_t *mask, size_t setsize, const struct fdlist *want_e,
			const struct fdlist *want_x, long want_res)
{
	uint64_t want_ts = ts ? (uint64_t)ts->tv_sec * 1000000000ULL + ts->tv_nsec : UINT64_MAX;
	uint32_t want_mask;
	struct hevt *e, *x;
	long r;
	int at = 0;

	r = wait__call(h, SYS_ppoll, (unsigned long)fds, n, (unsigned long)ts,
		       (unsigned long)mask, setsize, 0);
	EXPECT(r == want_res);
	e = harness__find(h, PPME_SYSCALL_PPOLL_E, &at);
	EXPECT(e != NULL);
	if (!e)
		return;
	hevt__expect_header(e, PPME_SYSCALL_PPOLL_E, live__tid());
	x = live__next(h, e, PPME_SYSCALL_PPOLL_X);
	EXPECT(x != NULL);
	if (!x)
		return;
	hevt__expect_header(x, PPME_SYSCALL_PPOLL_X, live__tid());
	EXPECT_PARAM_BUF(e, 0, want_e->b, want_e->len);
	/* exit-only: read after the call, which left the time remaining there */
	if (harness__exit_only() && want_ts != (uint64_t)-1)
		EXPECT((uint64_t)hevt__int(e, 1) <= want_ts);
	else
		EXPECT_PARAM_INT(e, 1, want_ts);
	/* The first 32 signals of the mask, as a u32. */
	want_mask = mask ? (uint32_t)*(const uint64_t *)mask : 0;
	EXPECT_PARAM_BUF(e, 2, &want_mask, sizeof(want_mask));
	EXPECT_PARAM_INT(x, 0, want_res);
	EXPECT_PARAM_BUF(x, 1, want_x->b, want_x->len);
	EXPECT(harness__find(h, PPME_SYSCALL_PPOLL_E, &at) == NULL);
}

static void test_ppoll(struct harness *h)
{
	struct pollfd fds[2] = { { pipefd[0], POLLIN, 0 }, { pipefd[1], POLLOUT, 0 } };
	struct timespec ts = { 1, 500 };
	struct fdlist we, wx;
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGTERM);
	fdlist__init(&we);
	fdlist__add(&we, pipefd[0], PPM_POLL_FLAGS_POLLIN);
	fdlist__add(&we, pipefd[1], PPM_POLL_FLAGS_POLLOUT);
	fdlist__init(&wx);
	fdlist__add(&wx, pipefd[0], PPM_POLL_FLAGS_POLLIN);
	fdlist__add(&wx, pipefd[1], PPM_POLL_FLAGS_POLLOUT);
	check_ppoll(h, fds, 2, &ts, &mask, 8, &we, &wx, 2);
	/* No timespec (forever, sent as -1) and no mask (0). */
	check_ppoll(h, fds, 2, NULL, NULL, 8, &we, &wx, 2);
	/* Failing: a bad sigsetsize (EINVAL) before anything is polled. */
	fdlist__init(&wx);
	fdlist__add(&wx, pipefd[0], 0);
	fdlist__add(&wx, pipefd[1], 0);
	fds[0].revents = fds[1].revents = 0;
	check_ppoll(h, fds, 2, &ts, &mask, 3, &we, &wx, -EINVAL);
}

static void test_select(struct harness *h)
{
	struct timeval tv = { 0, 0 };
	struct hevt *e, *x;
	fd_set rd;
	long r;

	FD_ZERO(&rd);
	FD_SET(pipefd[0], &rd);
	r = wait__call(h, SYS_select, pipefd[0] + 1, (unsigned long)&rd, 0, 0, (unsigned long)&tv,
		       0);
	EXPECT(r == 1);
	e = wait__last_pair(h, PPME_SYSCALL_SELECT_E, &x);
	if (e)
		EXPECT_PARAM_INT(x, 0, 1);

	/* Failing: a negative nfds (EINVAL). */
	r = wait__call(h, SYS_select, -1, (unsigned long)&rd, 0, 0, (unsigned long)&tv, 0);
	EXPECT(r == -EINVAL);
	e = wait__last_pair(h, PPME_SYSCALL_SELECT_E, &x);
	if (e)
		EXPECT_PARAM_INT(x, 0, -EINVAL);
}

static void check_epoll_wait(struct harness *h, int ep, int maxevents, long want)
{
	struct epoll_event evs[8];
	struct hevt *e, *x;
	long r;

	r = wait__call(h, SYS_epoll_wait, ep, (unsigned long)evs, maxevents, 0, 0, 0);
	EXPECT(r == want);
	e = wait__pair(h, PPME_SYSCALL_EPOLLWAIT_E, 0, maxevents, &x);
	if (!e)
		return;
	EXPECT_PARAM_INT(e, 0, maxevents);
	EXPECT_PARAM_INT(x, 0, want);
}

static void test_epoll_wait(struct harness *h)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(0);

	EXPECT(epoll_ctl(ep, EPOLL_CTL_ADD, pipefd[0], &ev) == 0);
	check_epoll_wait(h, ep, 8, 1);
	/* Failing: no room for events (EINVAL), a negative count (EINVAL), not an
	 * epoll fd (EINVAL), a closed fd (EBADF). */
	check_epoll_wait(h, ep, 0, -EINVAL);
	check_epoll_wait(h, ep, -3, -EINVAL);
	check_epoll_wait(h, pipefd[0], 5, -EINVAL);
	check_epoll_wait(h, 9999, 6, -EBADF);
	close(ep);
}

int main(void)
{
	struct harness *h = live__open(256, wait_poll_calls);

	if (pipe(pipefd) || write(pipefd[1], "x", 1) != 1)
		return 1;
	test_poll(h);
	test_ppoll(h);
	test_select(h);
	test_epoll_wait(h);
	harness__close(h);
	return harness__report("wait_poll");
}
