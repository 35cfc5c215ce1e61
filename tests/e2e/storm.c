/* A syscall storm of known size for the drop-accounting test: THREADS threads
 * each make N tkill(own tid, 0) calls (signal 0: nothing is sent). tkill has
 * its own event type, and glibc uses tgkill instead, so nothing else on the
 * host makes these events. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static long per_thread;

static void *storm(void *arg)
{
	long tid = syscall(SYS_gettid);

	for (long i = 0; i < per_thread; i++)
		syscall(SYS_tkill, tid, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	int n;

	if (argc != 3 || (per_thread = atol(argv[1])) <= 0 || (n = atoi(argv[2])) <= 0 || n > 64) {
		fprintf(stderr, "usage: storm CALLS_PER_THREAD THREADS\n");
		return 2;
	}
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, storm, NULL))
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
