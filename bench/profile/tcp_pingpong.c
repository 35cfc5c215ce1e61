/* A context-switch storm through TCP on loopback: THREADS pairs of threads
 * bounce one byte back and forth for SECS seconds, so each round trip is two
 * wakeups, two switches and four socket syscalls. Request mode captures the
 * socket I/O, so with --profile its threads are followed: the storm that
 * profiling's scheduler programs cost most on. Prints "round trips/s N".
 * Usage: tcp_pingpong [SECS [PAIRS]] */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static atomic_int stop;
static atomic_ullong trips;

static void *bounce(void *arg)
{
	int fd = (int)(long)arg;
	char c = 'x';

	while (read(fd, &c, 1) == 1 && write(fd, &c, 1) == 1)
		;
	return NULL;
}

static void *lead(void *arg)
{
	int fd = (int)(long)arg;
	unsigned long long n = 0;
	char c = 'x';

	while (!atomic_load(&stop) && write(fd, &c, 1) == 1 && read(fd, &c, 1) == 1)
		n++;
	atomic_fetch_add(&trips, n);
	shutdown(fd, SHUT_RDWR);
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 5;
	int pairs = argc > 2 ? atoi(argv[2]) : 1, one = 1, ls;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	pthread_t th[128];
	struct timespec t0, t1;

	if (pairs < 1 || pairs > 64)
		return 2;
	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 64) ||
	    getsockname(ls, (struct sockaddr *)&a, &al)) {
		perror("tcp_pingpong");
		return 1;
	}
	for (int i = 0; i < pairs; i++) {
		int c = socket(AF_INET, SOCK_STREAM, 0), s;

		if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)) ||
		    (s = accept(ls, NULL, NULL)) < 0) {
			perror("tcp_pingpong");
			return 1;
		}
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		pthread_create(&th[2 * i], NULL, bounce, (void *)(long)s);
		pthread_create(&th[2 * i + 1], NULL, lead, (void *)(long)c);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	usleep((useconds_t)(secs * 1e6));
	atomic_store(&stop, 1);
	for (int i = 0; i < pairs; i++)
		pthread_join(th[2 * i + 1], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("round trips/s %.0f\n", (double)atomic_load(&trips) /
	       ((double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9));
	return 0;
}
