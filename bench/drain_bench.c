/* How fast capture__next drains full per-CPU rings on one core: memfd rings filled
 * the way the kernel fills perf rings, events alternating between CPUs (the
 * merge's worst case), read in both mapping modes, with and without the order
 * window. No root needed. Usage: drain_bench [ncpus [ring_mib]] */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "capture.h"
#include "memring.h"
#include "ringset.h"

#define MAX_RINGS 16

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Event sizes like a syscall stream: generic enter/exit pairs, now and then a
 * bigger event with a path or buffer. */
static uint32_t event_len(uint64_t i)
{
	if (i % 16 == 15)
		return 180;
	return i & 1 ? 30 : 34;
}

/* Fills every ring until one is full; ts interleave across rings. Returns the
 * number of events written. */
static uint64_t fill(struct memring *m, int n)
{
	uint8_t f[256];
	uint64_t ts = 1, total = 0;

	for (;;) {
		for (int i = 0; i < n; i++) {
			uint32_t len = event_len(ts);

			frame__make(f, len, ts, i);
			if (memring__sample(&m[i], f, len))
				goto done;
			ts++;
			total++;
		}
	}
done:
	for (int i = 0; i < n; i++)
		memring__publish(&m[i]);
	return total;
}

static void run(struct memring *m, int n, uint32_t pages, enum ring_mode mode, bool window)
{
	struct ringset_opts o = { .order_window_ns = window ? 2000000 : 0 };
	struct ringset *s = ringset__new(&o);
	struct capture_event ev;
	struct capture_stats st;
	struct capture *c;
	double best = 1e30;
	uint64_t events = 0, bytes = 0;

	for (int i = 0; i < n; i++) {
		struct ring *r = ring__map(m[i].fd, pages, mode);

		if (!r || ringset__add(s, r, i)) {
			fprintf(stderr, "ring__map: %s\n", strerror(errno));
			exit(1);
		}
	}
	c = capture__open_engine(&ringset_engine_ops, s);
	for (int round = 0; round < 5; round++) {
		uint64_t want = fill(m, n), got = 0, sum = 0;
		double t0 = now(), dt;

		while (capture__next(c, &ev, 0) == 0) {
			/* Touch the event as a consumer would. */
			sum += ev.frame->len + ev.frame->type;
			got++;
		}
		dt = now() - t0;
		if (got != want) {
			fprintf(stderr, "drained %llu of %llu events\n", (unsigned long long)got,
				(unsigned long long)want);
			exit(1);
		}
		if (dt < best)
			best = dt;
		events = got;
		bytes = sum;
	}
	capture__stats(c, &st);
	printf("%-10s window %-3s: %6.2f M events/s, %5.0f MB/s (%llu events per drain, "
	       "corrupt %llu)\n", ring__mode_name(mode), window ? "on" : "off",
	       events / best / 1e6, bytes / best / 1e6, (unsigned long long)events,
	       (unsigned long long)st.total.n_corrupt);
	capture__close(c);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	uint32_t mib = argc > 2 ? atoi(argv[2]) : 64;
	uint32_t pages = mib * 256;
	struct memring m[MAX_RINGS];
	cpu_set_t one;

	if (n < 1 || n > MAX_RINGS || !pages || (pages & (pages - 1))) {
		fprintf(stderr, "usage: drain_bench [ncpus (1..16) [ring MiB, a power of two]]\n");
		return 2;
	}
	/* One core does all the reading. */
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof(one), &one);
	for (int i = 0; i < n; i++) {
		if (memring__open(&m[i], pages, (1ull << 32) - 4096 * i)) {
			perror("memfd ring");
			return 1;
		}
	}
	printf("drain of %d full %u MiB rings through capture__next, one core:\n", n, mib);
	run(m, n, pages, RING_DOUBLE, false);
	run(m, n, pages, RING_SLACK_COPY, false);
	run(m, n, pages, RING_DOUBLE, true);
	run(m, n, pages, RING_SLACK_COPY, true);
	for (int i = 0; i < n; i++)
		memring__close(&m[i]);
	return 0;
}
