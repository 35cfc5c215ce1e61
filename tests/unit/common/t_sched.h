/* Upper bounds on elapsed time in the unit tests ("close keeps its deadline",
 * "a lone line goes out within 400 ms"), judged without the time the
 * scheduler kept the test's threads from running: on a loaded machine that
 * time is the machine's, not the code's, and the kernel counts it per thread
 * (run_delay, the second field of /proc/self/task/TID/schedstat). Summed over
 * the threads, so where several waited at once more is taken out than the
 * path measured lost: the bound then errs toward passing, never toward a
 * failure the code did not cause. Lower bounds need none of this (a busy
 * machine only makes waits longer). */
#ifndef UNIT_T_SCHED_H
#define UNIT_T_SCHED_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The nanoseconds this process's threads have waited runnable for a CPU. */
static inline uint64_t t_cpu_wait_ns(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	uint64_t sum = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[300];
		unsigned long long run, wait;
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;	/* the thread ended meanwhile */
		if (fscanf(f, "%llu %llu", &run, &wait) == 2)
			sum += wait;
		fclose(f);
	}
	closedir(d);
	return sum;
}

/* A stopwatch: CLOCK_MONOTONIC, less the CPU waits since it started. */
struct t_watch {
	uint64_t t0_ns, w0_ns;
};

static inline uint64_t t_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void t_watch_start(struct t_watch *w)
{
	w->w0_ns = t_cpu_wait_ns();
	w->t0_ns = t_mono_ns();
}

/* Milliseconds since t_watch_start, less the CPU waits since (at least 0). */
static inline uint64_t t_watch_ms(const struct t_watch *w)
{
	uint64_t elapsed = t_mono_ns() - w->t0_ns, waited = t_cpu_wait_ns() - w->w0_ns;

	return elapsed > waited ? (elapsed - waited) / 1000000 : 0;
}

#endif
