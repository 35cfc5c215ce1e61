/* Live capture figures (root): events/s the capture layer delivers from a syscall
 * storm on every CPU; what a syscall costs with no probe, with the agent's driver
 * capturing everything, and with a floor probe (bench/floor.bpf.c) drained the
 * same way, and the ratio of the added costs; the process's RSS without the rings.
 * Usage: capture_bench [seconds] */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>

#include "capture.h"
#include "perf.h"
#include "ringset.h"
#include "floor.skel.h"

#define WORK_CPU 1
#define DRAIN_CPU 0
#define ROUNDS 15

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ---- workloads, run in a child process (the agent never captures itself) ---- */

enum work { WORK_GETPPID, WORK_FILEIO };

static const char *work_name[] = { "getppid", "open/read/write/close" };
static const char *io_path = "/tmp/capture_bench.dat";

/* One round of the workload: N iterations. */
static void work_round(enum work w, long n)
{
	char buf[64] = "capture bench data ..........................................";

	for (long i = 0; i < n; i++) {
		if (w == WORK_GETPPID) {
			syscall(SYS_getppid);
		} else {
			int fd = syscall(SYS_openat, AT_FDCWD, io_path, O_RDWR);

			syscall(SYS_read, fd, buf, sizeof(buf));
			syscall(SYS_write, fd, buf, sizeof(buf));
			syscall(SYS_close, fd);
		}
	}
}

struct timing {
	double best, median;	/* ns per iteration */
};

/* Runs the workload on WORK_CPU in a child: ROUNDS timed rounds, best and median. */
static struct timing measure(enum work w)
{
	long n = w == WORK_GETPPID ? 200000 : 40000;
	struct timing t = {0};
	int p[2], status;
	pid_t pid;

	if (pipe(p))
		exit(1);
	pid = fork();
	if (pid == 0) {
		double ns[ROUNDS];

		pin(WORK_CPU);
		work_round(w, n / 10);	/* warm up */
		for (int r = 0; r < ROUNDS; r++) {
			double t0 = now();

			work_round(w, n);
			ns[r] = (now() - t0) * 1e9 / n;
		}
		qsort(ns, ROUNDS, sizeof(ns[0]), cmp_double);
		t.best = ns[0];
		t.median = ns[ROUNDS / 2];
		_exit(write(p[1], &t, sizeof(t)) == sizeof(t) ? 0 : 1);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &t, sizeof(t)) != sizeof(t))
		exit(1);
	close(p[0]);
	waitpid(pid, &status, 0);
	return t;
}

/* ---- a consumer thread draining a capture, as the agent does ---- */

struct drainer {
	struct capture *c;
	pthread_t th;
	volatile int stop;
	uint64_t events;
};

static void *drain(void *arg)
{
	struct drainer *d = arg;
	struct capture_event ev;
	uint64_t sum = 0;

	pin(DRAIN_CPU);
	while (!d->stop) {
		if (capture__next(d->c, &ev, 50) == 0) {
			sum += ev.frame->type;
			d->events++;
		}
	}
	return (void *)(uintptr_t)sum;
}

static void drainer__start(struct drainer *d, struct capture *c)
{
	memset(d, 0, sizeof(*d));
	d->c = c;
	if (pthread_create(&d->th, NULL, drain, d))
		exit(1);
}

static void drainer__stop(struct drainer *d)
{
	d->stop = 1;
	pthread_join(d->th, NULL);
}

/* ---- the floor probe, read through the same ring code ---- */

struct floor_probe {
	struct floor *skel;
	struct capture *c;
	int fds[CAPTURE_MAX_CPUS];
	int nfds;
};

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int floor__start(struct floor_probe *f)
{
	bool online[CAPTURE_MAX_CPUS] = {0};
	struct ringset_opts o = { .order_window_ns = 2000000 };
	struct ringset *s;
	int err, map;

	memset(f, 0, sizeof(*f));
	f->skel = floor__open();
	if (!f->skel)
		return -errno;
	f->skel->rodata->boot_time = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_BOOTTIME);
	bpf_map__set_max_entries(f->skel->maps.floor_events, libbpf_num_possible_cpus());
	err = floor__load(f->skel);
	if (err)
		return err;
	map = bpf_map__fd(f->skel->maps.floor_events);
	s = ringset__new(&o);
	if (!s)
		return -errno;
	perf__online_cpus(online, CAPTURE_MAX_CPUS);
	for (int cpu = 0; cpu < CAPTURE_MAX_CPUS; cpu++) {
		struct ring *r;
		int fd;

		if (!online[cpu])
			continue;
		/* The same ring size and wakeup batch as the live engine's defaults. */
		fd = perf__open_bpf_output(cpu, 2048 * 4096 / 4);
		if (fd < 0)
			return fd;
		f->fds[f->nfds++] = fd;
		r = ring__map(fd, 2048, RING_AUTO);
		if (!r)
			return -errno;
		if (ringset__add(s, r, cpu) || bpf_map_update_elem(map, &cpu, &fd, BPF_ANY) ||
		    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
			return -EIO;
	}
	f->c = capture__open_engine(&ringset_engine_ops, s);
	if (!f->c)
		return -errno;
	return floor__attach(f->skel);
}

static void floor__stop(struct floor_probe *f)
{
	floor__destroy(f->skel);
	capture__close(f->c);
	for (int i = 0; i < f->nfds; i++)
		close(f->fds[i]);
}

/* ---- RSS without the perf rings ---- */

/* Sums Rss over /proc/self/smaps but for the perf event mappings (the rings),
 * and the size of those. */
static void rss_kib(uint64_t *rest, uint64_t *rings)
{
	char line[512];
	bool ring = false;
	FILE *f = fopen("/proc/self/smaps", "re");
	unsigned long long kib;

	*rest = *rings = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b;
		char perms[8];

		/* A mapping's first line: "start-end perms offset dev inode [path]". */
		if (sscanf(line, "%lx-%lx %7s", &a, &b, perms) == 3) {
			ring = strstr(line, "[perf_event]") != NULL;
			continue;
		}
		if (!ring && sscanf(line, "Rss: %llu kB", &kib) == 1)
			*rest += kib;
		if (ring && sscanf(line, "Size: %llu kB", &kib) == 1)
			*rings += kib;
	}
	fclose(f);
}

/* ---- the figures ---- */

/* getppid on every CPU for SECONDS, paced so that all CPUs together make RATE
 * events/s (0: as fast as they can), while this thread reads the stream. */
static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void storm(int seconds, double rate, bool window)
{
	struct capture_live_opts o = { .order_window_us = window ? 0 : UINT32_MAX };
	struct capture_event ev;
	struct capture_stats st;
	struct capture *c = capture__open_live(&o);
	double cpu0;
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pid_t pids[CAPTURE_MAX_CPUS];
	uint64_t events = 0, drops;
	double t0, t_end, dt;

	if (!c) {
		fprintf(stderr, "capture__open_live: %s\n", strerror(errno));
		exit(1);
	}
	if (ncpu > CAPTURE_MAX_CPUS)
		ncpu = CAPTURE_MAX_CPUS;
	t0 = now();
	cpu0 = thread_cpu();
	t_end = t0 + seconds;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		pids[cpu] = fork();
		if (pids[cpu] == 0) {
			/* Two events (enter, exit) per call. */
			double per_s = rate / 2 / ncpu, start = now(), t;
			long calls = 0;

			pin(cpu);
			while ((t = now()) < t_end) {
				double ahead = rate ? calls / per_s - (t - start) : 0;

				if (ahead > 100e-6) {
					struct timespec d = { 0, (long)(ahead * 1e9) };

					nanosleep(&d, NULL);
					continue;
				}
				work_round(WORK_GETPPID, 100);
				calls += 100;
			}
			_exit(0);
		}
	}
	/* Read until the storm is over and the rings are drained. */
	while (now() < t_end || capture__next(c, &ev, 0) == 0) {
		if (capture__next(c, &ev, 10) == 0)
			events++;
	}
	dt = now() - t0;
	cpu0 = thread_cpu() - cpu0;
	for (int cpu = 0; cpu < ncpu; cpu++)
		waitpid(pids[cpu], NULL, 0);
	capture__stats(c, &st);
	drops = st.total.drv_drops_buffer + st.total.n_lost;
	printf("getppid storm on %d CPUs for %d s, ", ncpu, seconds);
	if (rate)
		printf("paced to %.1f M events/s", rate / 1e6);
	else
		printf("unpaced");
	printf(", one unpinned reader (%s, order window %s):\n"
	       "  %.2f M events/s delivered, %llu events, %llu dropped (%.3f%%), "
	       "reader busy %.0f%% of a CPU\n", st.mode, window ? "on" : "off",
	       events / dt / 1e6, (unsigned long long)events, (unsigned long long)drops,
	       100.0 * drops / (events + drops + 1), 100 * cpu0 / dt);
	capture__close(c);
}

static void overhead(enum work w)
{
	struct timing base, agent, flo;
	struct drainer d;
	struct floor_probe f;
	struct capture_stats st;
	struct capture *c;
	int err;

	base = measure(w);

	c = capture__open_live(NULL);
	if (!c) {
		fprintf(stderr, "capture__open_live: %s\n", strerror(errno));
		exit(1);
	}
	drainer__start(&d, c);
	agent = measure(w);
	drainer__stop(&d);
	capture__stats(c, &st);
	if (w == WORK_GETPPID) {
		uint64_t rest, rings;

		rss_kib(&rest, &rings);
		printf("RSS with the agent's capture open and drained: %.1f MiB without the "
		       "rings (%.1f MiB of rings mapped)\n", rest / 1024.0, rings / 1024.0);
	}
	capture__close(c);
	printf("%s: agent drops %llu (ring) + %llu (lost), %llu events read\n", work_name[w],
	       (unsigned long long)st.total.drv_drops_buffer,
	       (unsigned long long)st.total.n_lost, (unsigned long long)d.events);

	err = floor__start(&f);
	if (err) {
		fprintf(stderr, "floor probe: %s\n", strerror(-err));
		exit(1);
	}
	drainer__start(&d, f.c);
	flo = measure(w);
	drainer__stop(&d);
	capture__stats(f.c, &st);
	floor__stop(&f);

	printf("%s, ns per iteration (best / median of %d rounds):\n"
	       "  no probe %8.1f / %8.1f\n  floor    %8.1f / %8.1f  (+%.1f)\n"
	       "  agent    %8.1f / %8.1f  (+%.1f)\n"
	       "  overhead ratio agent/floor: %.2f (best), %.2f (median)  %s\n",
	       work_name[w], ROUNDS, base.best, base.median, flo.best, flo.median,
	       flo.best - base.best, agent.best, agent.median, agent.best - base.best,
	       (agent.best - base.best) / (flo.best - base.best),
	       (agent.median - base.median) / (flo.median - base.median),
	       /* The target is on the cheapest call; the mix also pays for decoding
	        * (paths and buffers read from user memory), which the floor skips. */
	       w == 0 ? "[target <= 1.5]" : "[no target: decoding work the floor skips]");
}

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 3;
	int fd;

	if (geteuid() != 0) {
		fprintf(stderr, "capture_bench needs root (it loads BPF programs)\n");
		return 1;
	}
	fd = open(io_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, io_path, 16) != 16) {
		perror(io_path);
		return 1;
	}
	close(fd);
	storm(seconds, 3e6, true);
	storm(seconds, 3e6, false);
	storm(seconds, 0, true);
	storm(seconds, 0, false);
	overhead(WORK_GETPPID);
	overhead(WORK_FILEIO);
	unlink(io_path);
	return 0;
}
