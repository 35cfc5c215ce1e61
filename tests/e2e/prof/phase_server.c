/* A test server with phases of known length per request (tests/e2e/
 * test_profile.sh): for each HTTP request on 127.0.0.1:PORT it spins on CPU
 * for SPIN_MS of its thread's CPU time in phase_spin, sleeps 30 ms
 * (nanosleep), waits about 25 ms on a mutex another thread holds, writes and
 * fsyncs 256 KiB of FILE, with REDIS_PORT sends Redis on 127.0.0.1 a PING
 * (one connection, kept), then answers; with ping-first, one PING before it
 * serves any. Each phase's own measure goes to LOG,
 * one line per request, for the test to hold the agent's breakdown against:
 *   tid holder_tid redis_ns, then 8 marks, each "wall cpu rq after"
 * the marks: the read's return, the sleep's start and end, the mutex wait's,
 * the file's (its open, write, fsync and close), the answer's write's
 * return; wall: CLOCK_MONOTONIC, cpu: the thread's CPU clock, rq: the time
 * it waited on a run queue so far, the kernel's own count (run_delay in
 * /proc/thread-self/schedstat); after: CLOCK_MONOTONIC again, read last
 * (so [wall, after] holds the reads of cpu and rq, and an interrupt between
 * them, which this kernel charges to the thread's CPU clock); redis_ns: the wall time of the call (0
 * without it), which holds its network wait. Each phase's off-CPU time is
 * its wall time less its time on CPU and run-queue wait; the thread's CPU
 * clock leaves out the time a VM's host took while the thread ran (steal),
 * so the test takes the time blocked from the kernel's sched_switch and
 * sched_wakeup, and holds the CPU clock under the time on CPU. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SPIN_MS 20
#define SLEEP_MS 30
#define HOLD_MS 25

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static sem_t go, locked;
static volatile pid_t holder_tid;

static uint64_t clk(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The calling thread's time waiting on a run queue so far (the kernel's
 * sched_info run_delay), 0 where unreadable. */
static uint64_t run_delay(void)
{
	unsigned long long on = 0, wait = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (f) {
		if (fscanf(f, "%llu %llu", &on, &wait) != 2)
			wait = 0;
		fclose(f);
	}
	return wait;
}

/* One reading of the thread's clocks, the kernel's own counts. */
struct mark {
	uint64_t wall, cpu, rq, after;
};

static struct mark mark(void)
{
	struct mark m = { clk(CLOCK_MONOTONIC), clk(CLOCK_THREAD_CPUTIME_ID), run_delay(), 0 };

	m.after = clk(CLOCK_MONOTONIC);

	return m;
}

/* The on-CPU phase the profile's stacks should name. */
__attribute__((noinline)) void phase_spin(uint64_t ns)
{
	uint64_t end = clk(CLOCK_THREAD_CPUTIME_ID) + ns;
	volatile uint64_t x = 0;

	/* the clock read is a syscall, traced: enough work between reads that
	 * most samples land here, not in it (whose callers' frames lack
	 * frame pointers, so a stack from there skips this function) */
	while (clk(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 50000; i++)
			x += (uint64_t)i * x + 1;
}

static void *holder(void *arg)
{
	struct timespec hold = { 0, HOLD_MS * 1000000L };

	(void)arg;
	holder_tid = (pid_t)syscall(SYS_gettid);
	for (;;) {
		sem_wait(&go);
		pthread_mutex_lock(&mu);
		sem_post(&locked);
		nanosleep(&hold, NULL);
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

/* A PING to Redis on PORT and its +PONG, on one connection kept open. */
static uint64_t redis_ping(int port)
{
	static int fd = -1;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				 .sin_port = htons((uint16_t)port) };
	uint64_t t = clk(CLOCK_MONOTONIC);
	char got[16];
	size_t n = 0;

	if (fd < 0) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
			perror("phase_server: redis");
			exit(1);
		}
		t = clk(CLOCK_MONOTONIC);
	}
	if (write(fd, "PING\r\n", 6) != 6) {
		perror("phase_server: redis");
		exit(1);
	}
	while (n < 7) {
		ssize_t k = read(fd, got + n, 7 - n);

		if (k <= 0) {
			perror("phase_server: redis");
			exit(1);
		}
		n += (size_t)k;
	}
	return clk(CLOCK_MONOTONIC) - t;
}

int main(int argc, char **argv)
{
	static char buf[262144];
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timespec nap = { 0, SLEEP_MS * 1000000L };
	const char *ans = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
	pthread_t th;
	FILE *log;
	int ls, one = 1;

	int redis = argc > 4 ? atoi(argv[4]) : 0;

	if (argc < 4 || argc > 6 || (argc == 6 && strcmp(argv[5], "ping-first"))) {
		fprintf(stderr, "usage: phase_server PORT FILE LOG [REDIS_PORT [ping-first]]\n");
		return 2;
	}
	a.sin_port = htons((uint16_t)atoi(argv[1]));
	log = fopen(argv[3], "w");
	ls = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (!log || ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 16)) {
		perror("phase_server");
		return 1;
	}
	sem_init(&go, 0, 0);
	sem_init(&locked, 0, 0);
	pthread_create(&th, NULL, holder, NULL);
	memset(buf, 'x', sizeof(buf));
	/* ping-first: a client's request before any served (its thread is let
	 * go, then followed again as it serves: test_profile_roles.sh) */
	if (redis && argc == 6)
		redis_ping(redis);
	for (;;) {
		int c = accept(ls, NULL, NULL);
		char req[4096];
		ssize_t n;

		if (c < 0)
			continue;
		while ((n = read(c, req, sizeof(req))) > 0) {
			struct mark m[8];
			uint64_t redis_ns = 0;
			int fd;

			m[0] = mark();
			phase_spin(SPIN_MS * 1000000ull);
			m[1] = mark();
			nanosleep(&nap, NULL);
			m[2] = mark();
			sem_post(&go);
			m[3] = mark();
			sem_wait(&locked);
			pthread_mutex_lock(&mu);
			m[4] = mark();
			pthread_mutex_unlock(&mu);
			/* the open too: truncating the last request's pages may wait */
			m[5] = mark();
			fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600);
			if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf) || fsync(fd))
				perror("phase_server: fsync");
			close(fd);
			m[6] = mark();
			if (redis)
				redis_ns = redis_ping(redis);
			if (write(c, ans, strlen(ans)) < 0)
				break;
			/* after the answer: the agent's span ends at its write's return */
			m[7] = mark();
			fprintf(log, "%ld %d %llu", (long)syscall(SYS_gettid), (int)holder_tid,
				(unsigned long long)redis_ns);
			for (int i = 0; i < 8; i++)
				fprintf(log, " %llu %llu %llu %llu", (unsigned long long)m[i].wall,
					(unsigned long long)m[i].cpu, (unsigned long long)m[i].rq,
					(unsigned long long)m[i].after);
			fputc('\n', log);
			fflush(log);
		}
		close(c);
	}
}
