/* The ordered merge of several CPU rings, the order window and the waits. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

#include "t_check.h"
#include "t_sched.h"
#include "memring.h"
#include "ringset.h"

#define NR 4

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

static struct ringset *open_set(struct memring *m, int n, uint32_t pages, uint64_t start,
				enum ring_mode mode, const struct ringset_opts *o)
{
	struct ringset *s = ringset__new(o);

	CHECK(s != NULL);
	for (int i = 0; i < n; i++) {
		struct ring *r;

		CHECK(memring__open(&m[i], pages, start + i * 1000 * 8) == 0);
		r = ring__map(m[i].fd, pages, mode);
		CHECK(r != NULL);
		/* CPU ids need not be dense. */
		CHECK(ringset__add(s, r, 3 * i) == 0);
	}
	return s;
}

struct seen {
	uint64_t ts;
	uint16_t cpu;
	uint32_t len;
};

/* Random interleaving: each event goes to a random ring, timestamps grow over all
 * rings (with ties), many rounds over wrap points and 2^32. Returns how many
 * events were delivered into OUT. */
static int run_merge(enum ring_mode mode, struct seen *out, int max, int *written)
{
	struct memring m[NR];
	struct capture_event ev;
	struct capture_stats st;
	struct ringset *s = open_set(m, NR, 2, (1ull << 32) - 3 * 8192, mode, NULL);
	uint64_t ts = 1000, last = 0;
	int n = 0, bad_order = 0, bad_content = 0, bad_cpu = 0, err;

	*written = 0;
	srand(7);
	for (int round = 0; round < 300; round++) {
		int k = rand() % 60;

		for (int j = 0; j < k; j++) {
			int i = rand() % NR;
			uint32_t len = 26 + rand() % 500, len2 = 0;
			uint8_t f[1200];

			ts += rand() % 3;	/* ties across rings happen */
			frame__make(f, len, ts, 3 * i);
			/* A third are pairs: two frames with one timestamp in one
			 * sample, as exit-only capture sends a syscall. */
			if (rand() % 3 == 0) {
				len2 = 26 + rand() % 500;
				frame__make(f + len, len2, ts, 3 * i);
			}
			if (memring__sample(&m[i], f, len + len2) == 0)
				*written += len2 ? 2 : 1;
		}
		for (int i = 0; i < NR; i++)
			memring__publish(&m[i]);
		while ((err = ringset__next(s, &ev, 0)) == 0) {
			if (ev.frame->ts < last)
				bad_order++;
			last = ev.frame->ts;
			if (ev.frame->tid != ev.cpu)
				bad_cpu++;
			if (!frame__check(ev.frame, ev.frame->len, ev.frame->ts, ev.frame->tid))
				bad_content++;
			if (n < max)
				out[n] = (struct seen){ ev.frame->ts, ev.cpu, ev.frame->len };
			n++;
		}
		CHECK_EQ(err, -EAGAIN);
	}
	CHECK_EQ(bad_order, 0);
	CHECK_EQ(bad_cpu, 0);
	CHECK_EQ(bad_content, 0);
	CHECK_EQ(n, *written);
	CHECK(ringset__stats(s, &st) == 0);
	CHECK_EQ(st.total.n_evts, n);
	CHECK_EQ(st.ncpus, 3 * (NR - 1) + 1);
	CHECK_EQ(st.cpu[1].n_evts, 0);
	CHECK_EQ(st.cpu[0].n_evts + st.cpu[3].n_evts + st.cpu[6].n_evts + st.cpu[9].n_evts, n);
	CHECK(!strcmp(st.mode, ring__mode_name(mode)));
	CHECK_EQ(st.total.n_corrupt, 0);
	for (int i = 0; i < NR; i++) {
		CHECK_EQ(memring__tail(&m[i]), m[i].head);
		CHECK(m[i].head > (1ull << 32));
	}
	ringset__free(s);
	for (int i = 0; i < NR; i++)
		memring__close(&m[i]);
	return n;
}

static void test_merge_modes(void)
{
	static struct seen a[20000], b[20000];
	int wa, wb, na = run_merge(RING_DOUBLE, a, 20000, &wa);
	int nb = run_merge(RING_SLACK_COPY, b, 20000, &wb);

	CHECK(na > 4000 && na <= 20000);
	CHECK_EQ(na, nb);
	CHECK(!memcmp(a, b, na * sizeof(a[0])));
}

struct fake_clock {
	uint64_t now;
};

static uint64_t fake_now(void *ctx)
{
	return ((struct fake_clock *)ctx)->now;
}

static void put(struct memring *m, uint64_t ts, uint64_t tid)
{
	uint8_t f[64];

	frame__make(f, 40, ts, tid);
	CHECK(memring__sample(m, f, 40) == 0);
	memring__publish(m);
}

/* An event is held back until every ring without pending events has been read
 * after its ts + window: a late event of another CPU that is older goes first. */
static void test_order_window(void)
{
	struct fake_clock clk = { .now = 1050 };
	struct ringset_opts o = { .order_window_ns = 100, .clock_ns = fake_now, .clock_ctx = &clk };
	struct memring m[2];
	struct capture_event ev;
	struct ringset *s = open_set(m, 2, 1, 0, RING_AUTO, &o);

	put(&m[1], 1000, 3);
	/* Ring 0 was read at 1050: it could still get an event from 950 on. */
	CHECK_EQ(ringset__next(s, &ev, 0), -EAGAIN);
	/* An event of CPU 0 that was on its way, older than the held one. */
	put(&m[0], 990, 0);
	CHECK(ringset__next(s, &ev, 0) == 0 && ev.frame->ts == 990 && ev.cpu == 0);
	CHECK_EQ(ringset__next(s, &ev, 0), -EAGAIN);
	clk.now = 1100;
	CHECK(ringset__next(s, &ev, 0) == 0 && ev.frame->ts == 1000 && ev.cpu == 3);
	CHECK_EQ(ringset__next(s, &ev, 0), -EAGAIN);
	/* Once the window has passed, events flow in order. */
	put(&m[0], 1060, 0);
	put(&m[1], 1050, 3);
	put(&m[1], 1070, 3);
	clk.now = 2000;
	CHECK(ringset__next(s, &ev, 0) == 0 && ev.frame->ts == 1050);
	CHECK(ringset__next(s, &ev, 0) == 0 && ev.frame->ts == 1060);
	CHECK(ringset__next(s, &ev, 0) == 0 && ev.frame->ts == 1070);
	CHECK_EQ(ringset__next(s, &ev, 0), -EAGAIN);
	/* An event older than one already handed out (its producer was preempted
	 * for longer than the window) still comes out, and is counted. */
	static struct capture_stats st;
	put(&m[0], 1065, 0);
	CHECK(ringset__next(s, &ev, 0) == 0 && ev.frame->ts == 1065);
	CHECK(ringset__stats(s, &st) == 0 && st.total.n_reordered == 1);
	/* Just past the clock: held. Far in the future (garbage or a skewed
	 * clock): not held, or the stream would stall behind it. */
	put(&m[1], 2050, 3);
	CHECK_EQ(ringset__next(s, &ev, 0), -EAGAIN);
	put(&m[0], 1999, 0);
	CHECK(ringset__next(s, &ev, 0) == 0 && ev.frame->ts == 1999);
	clk.now = 2150;
	CHECK(ringset__next(s, &ev, 0) == 0 && ev.frame->ts == 2050);
	put(&m[0], 2150 + 2000000000ull, 0);
	CHECK(ringset__next(s, &ev, 0) == 0 && ev.frame->ts == 2150 + 2000000000ull);
	CHECK_EQ(ringset__next(s, &ev, 0), -EAGAIN);
	ringset__free(s);
	memring__close(&m[0]);
	memring__close(&m[1]);
}

static void test_timeout(void)
{
	struct memring m[2];
	struct capture_event ev;
	struct ringset *s = open_set(m, 2, 1, 0, RING_AUTO, NULL);
	uint64_t t0 = mono_ms(), dt;
	struct t_watch w;

	t_watch_start(&w);
	CHECK_EQ(ringset__next(s, &ev, 50), -EAGAIN);
	dt = mono_ms() - t0;
	CHECK(dt >= 50 && t_watch_ms(&w) < 1000);
	ringset__free(s);
	memring__close(&m[0]);
	memring__close(&m[1]);
}

struct late_writer {
	struct memring *m;
	int delay_ms;
};

static void *write_late(void *arg)
{
	struct late_writer *w = arg;
	struct timespec d = { 0, w->delay_ms * 1000000L };

	nanosleep(&d, NULL);
	put(w->m, 77, 0);
	return NULL;
}

/* A wait ends when data comes, well before the timeout. */
static void test_wakeup(void)
{
	struct memring m[2];
	struct capture_event ev;
	struct ringset *s = open_set(m, 2, 1, 0, RING_AUTO, NULL);
	struct late_writer w = { &m[0], 30 };
	uint64_t t0 = mono_ms(), dt;
	struct t_watch sw;
	pthread_t th;

	t_watch_start(&sw);
	CHECK(pthread_create(&th, NULL, write_late, &w) == 0);
	CHECK(ringset__next(s, &ev, 5000) == 0 && ev.frame->ts == 77);
	dt = mono_ms() - t0;
	CHECK(dt >= 25 && t_watch_ms(&sw) < 1000);
	pthread_join(th, NULL);
	ringset__free(s);
	memring__close(&m[0]);
	memring__close(&m[1]);
}

static uint64_t mono_ns(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* An event inside the order window is waited out no sooner than the
 * back-off's minimum (README, Engines: the reader wakes every 1 to 30 ms,
 * never sooner), not by a wake at the window's end 2 ms on. */
static void test_window_wait(void)
{
	struct memring m[2];
	struct capture_event ev;
	struct ringset_opts o = { .order_window_ns = 2000000, .clock_ns = mono_ns,
				  .backoff_min_us = 30000, .backoff_max_us = 60000 };
	struct ringset *s = open_set(m, 2, 1, 0, RING_AUTO, &o);
	uint64_t t0 = mono_ms(), dt;
	struct t_watch w;

	t_watch_start(&w);
	put(&m[0], mono_ns(NULL), 0);
	CHECK(ringset__next(s, &ev, 5000) == 0);
	dt = mono_ms() - t0;
	CHECK(dt >= 25 && t_watch_ms(&w) < 1000);
	ringset__free(s);
	memring__close(&m[0]);
	memring__close(&m[1]);
}

static volatile sig_atomic_t got_signal;

static void on_alarm(int sig)
{
	got_signal = 1;
}

/* A signal during a wait forever ends it with -EINTR; with the caller's mask, a
 * signal that came while blocked is delivered by the wait itself. */
static void test_signals(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct itimerval it = { .it_value = { 0, 40000 } };
	struct memring m[2];
	struct capture_event ev;
	struct ringset *s = open_set(m, 2, 1, 0, RING_AUTO, NULL);
	sigset_t block, old;
	struct t_watch w;

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	t_watch_start(&w);
	CHECK_EQ(ringset__next(s, &ev, -1), -EINTR);
	CHECK(got_signal);
	CHECK(t_watch_ms(&w) < 1000);

	got_signal = 0;
	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	raise(SIGALRM);	/* pending: only the wait's mask lets it in */
	CHECK(!got_signal);
	ringset__set_sigmask(s, &old);
	t_watch_start(&w);
	CHECK_EQ(ringset__next(s, &ev, 3000), -EINTR);
	CHECK(got_signal);
	CHECK(t_watch_ms(&w) < 1000);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	ringset__free(s);
	memring__close(&m[0]);
	memring__close(&m[1]);
}

/* The set as a capture engine behind the public API. */
static void test_engine(void)
{
	struct memring m[2];
	struct capture_event ev;
	struct capture_stats st;
	struct ringset *s = open_set(m, 2, 1, 0, RING_SLACK_COPY, NULL);
	struct capture *c = capture__open_engine(&ringset_engine_ops, s);
	sigset_t none;

	CHECK(c != NULL);
	put(&m[1], 5, 3);
	put(&m[0], 6, 0);
	CHECK(memring__lost(&m[0], 9) == 0);
	memring__publish(&m[0]);
	CHECK(capture__next(c, &ev, 0) == 0 && ev.frame->ts == 5 && ev.cpu == 3 && ev.len >= 40);
	CHECK(capture__next(c, &ev, 0) == 0 && ev.frame->ts == 6 && ev.cpu == 0);
	CHECK_EQ(capture__next(c, &ev, 0), -EAGAIN);
	CHECK(capture__stats(c, &st) == 0);
	CHECK_EQ(st.total.n_evts, 2);
	CHECK_EQ(st.total.n_bytes, 80);
	CHECK_EQ(st.total.n_lost, 9);
	CHECK_EQ(st.cpu[0].n_lost, 9);
	CHECK_EQ(st.ncpus, 4);
	CHECK(!strcmp(st.mode, "slack-copy"));
	CHECK(capture__driver(c) == NULL);
	sigemptyset(&none);
	CHECK_EQ(capture__set_sigmask(c, &none), 0);
	capture__close(c);	/* frees the set */
	capture__close(NULL);
	memring__close(&m[0]);
	memring__close(&m[1]);
}

int main(void)
{
	test_merge_modes();
	test_order_window();
	test_window_wait();
	test_timeout();
	test_wakeup();
	test_signals();
	test_engine();
	return t_report();
}
