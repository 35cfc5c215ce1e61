/* A syscall storm of known size for the drop-accounting test: THREADS threads
 * each make N tkill(own tid, 0) calls (signal 0: nothing is sent). tkill has
 * its own event type, and glibc uses tgkill instead, so nothing else on the
 * host makes these events. With "getresgid" last, getresgid calls instead:
 * their own event type too, and exit-only capture leaves their enter event
 * out (one frame per call, the enter event rebuilt by the reader). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long per_thread;
static int use_getresgid;

static void *storm(void *arg)
{
	long tid = syscall(SYS_gettid);
	gid_t r, e, s;

	for (long i = 0; i < per_thread; i++) {
		if (use_getresgid)
			syscall(SYS_getresgid, &r, &e, &s);
		else
			syscall(SYS_tkill, tid, 0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	int n;

	use_getresgid = argc == 4 && !strcmp(argv[3], "getresgid");
	if ((argc != 3 && !use_getresgid) || (per_thread = atol(argv[1])) <= 0 || (n = atoi(argv[2])) <= 0 || n > 64) {
		fprintf(stderr, "usage: storm CALLS_PER_THREAD THREADS [getresgid]\n");
		return 2;
	}
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, storm, NULL))
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
