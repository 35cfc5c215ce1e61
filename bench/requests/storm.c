/* storm.c: THREADS threads (argument 3) each make syscalls of KIND (argument
 * 1) for SECS seconds (argument 2), and the count made is printed (the CPU
 * they took is the caller's to measure):
 *   files   open a file (argument 4) read-only and close it: pairs counted;
 *   others  getppid, fstat of an open file, a futex wake nobody waits for
 *           and sched_yield, none of which request mode sends: calls. */
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *path;
static atomic_int stop;
static atomic_llong made;

static long long files(void)
{
	long long n = 0;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		int fd = open(path, O_RDONLY);

		if (fd < 0) {
			perror(path);
			exit(1);
		}
		close(fd);
		n++;
	}
	return n;
}

static long long others(void)
{
	int fd = open("/dev/null", O_RDONLY), word = 0;
	long long n = 0;
	struct stat st;

	if (fd < 0) {
		perror("/dev/null");
		exit(1);
	}
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		syscall(SYS_getppid);
		syscall(SYS_fstat, fd, &st);
		syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		syscall(SYS_sched_yield);
		n += 4;
	}
	close(fd);
	return n;
}

static void *storm(void *arg)
{
	atomic_fetch_add(&made, arg ? others() : files());
	return NULL;
}

int main(int argc, char **argv)
{
	int secs = argc > 2 ? atoi(argv[2]) : 5, nt = argc > 3 ? atoi(argv[3]) : 2;
	void *kind = argc > 1 && !strcmp(argv[1], "others") ? (void *)1 : NULL;
	pthread_t t[64];

	path = argc > 4 ? argv[4] : "/etc/hostname";
	if (argc < 2 || (!kind && strcmp(argv[1], "files")) || nt < 1 || nt > 64 || secs < 1)
		return 2;
	for (int i = 0; i < nt; i++)
		pthread_create(&t[i], NULL, storm, kind);
	sleep((unsigned)secs);
	atomic_store(&stop, 1);
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	printf("%lld\n", (long long)atomic_load(&made));
	return 0;
}
