/* files.c: THREADS threads (argument 2) each open a file read-only and close
 * it, for SECS seconds (argument 1), and the count of pairs made is printed
 * (the CPU they took is the caller's to measure). The file: argument 3. */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static const char *path;
static atomic_int stop;
static atomic_llong pairs;

static void *storm(void *arg)
{
	long long n = 0;

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		int fd = open(path, O_RDONLY);

		if (fd < 0) {
			perror(path);
			exit(1);
		}
		close(fd);
		n++;
	}
	atomic_fetch_add(&pairs, n);
	return NULL;
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 5, nt = argc > 2 ? atoi(argv[2]) : 2;
	pthread_t t[64];

	path = argc > 3 ? argv[3] : "/etc/hostname";
	if (nt < 1 || nt > 64 || secs < 1)
		return 2;
	for (int i = 0; i < nt; i++)
		pthread_create(&t[i], NULL, storm, NULL);
	sleep((unsigned)secs);
	atomic_store(&stop, 1);
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	printf("%lld\n", (long long)atomic_load(&pairs));
	return 0;
}
