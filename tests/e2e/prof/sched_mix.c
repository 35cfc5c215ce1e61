/* A workload for tests/e2e/test_profile_host: THREADS threads (more than the
 * machine's CPUs, so that they wait on the run queue) each go ROUNDS times
 * through 15 ms on CPU, a 10 ms nanosleep, a barrier all of them meet at (a
 * futex wait) and a small write with its fsync. Every thread, the main one
 * too, is created and exits inside the tracers' windows: the test starts it
 * once they run. Prints its pid, then each thread's tid, its time on CPU
 * and its run delay by the kernel's count and the wall time its nanosleeps
 * took, from before each call to after it (ns), as it ends: no thread can be
 * blocked in them for longer.
 * Usage: sched_mix FILE [THREADS [ROUNDS]] */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_barrier_t meet;
static const char *path;
static int rounds = 6;

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The calling thread's time on CPU and its run delay (ns), as the kernel
 * keeps them (sched_info, /proc/thread-self/schedstat's first two), and
 * NAPS; the run delay is -1 when the file cannot be read. */
static void say_end(long long naps)
{
	long long on = cpu_ns(), rd = -1;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (f) {
		long long ran;

		if (fscanf(f, "%lld %lld", &ran, &rd) != 2)
			rd = -1;
		fclose(f);
	}
	printf("%ld %lld %lld %lld\n", (long)syscall(SYS_gettid), on, rd, naps);
}

static void *worker(void *arg)
{
	char buf[4096] = { 0 };
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
	long long naps = 0;

	(void)arg;
	if (fd < 0)
		return NULL;
	for (int r = 0; r < rounds; r++) {
		long long until = cpu_ns() + 15000000LL, t;
		struct timespec nap = { 0, 10000000L };

		while (cpu_ns() < until)
			;
		t = mono_ns();
		nanosleep(&nap, NULL);
		naps += mono_ns() - t;
		pthread_barrier_wait(&meet);
		if (write(fd, buf, sizeof(buf)) < 0 || fsync(fd) < 0)
			break;
	}
	close(fd);
	say_end(naps);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 4;
	pthread_t t[64];

	if (argc < 2 || n < 1 || n > 64) {
		fprintf(stderr, "usage: sched_mix FILE [THREADS [ROUNDS]]\n");
		return 2;
	}
	path = argv[1];
	if (argc > 3)
		rounds = atoi(argv[3]);
	printf("%d\n", (int)getpid());
	fflush(stdout);
	pthread_barrier_init(&meet, NULL, (unsigned)n);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	say_end(0);
	return 0;
}
