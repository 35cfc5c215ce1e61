/* storm.c: a connect storm on loopback, the load of connect_storm.sh.
 *   storm server PORT [THREADS]
 *       accepts on 127.0.0.1:PORT; per connection: read the request (up to
 *       64 bytes), write a 16-byte reply, close (the server closes first,
 *       as an HTTP/1.0 server does, so its end waits in TIME_WAIT). Runs
 *       until killed.
 *   storm client PORT SECS [THREADS]
 *       each thread, for SECS seconds: connect, write a 16-byte request,
 *       read the reply to the server's FIN, close. Prints the connections
 *       that got their whole reply and their rate: "N conns, R conns/s".
 * Each names its threads (storm-server, storm-client) for the agent's
 * per-process metrics. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MSG 16

static struct sockaddr_in addr = { .sin_family = AF_INET };
static atomic_int stop;
static atomic_llong done, failed;

static void *serve(void *arg)
{
	int ls = (int)(long)arg;
	char buf[64], reply[MSG];

	memset(reply, 'r', sizeof(reply));
	for (;;) {
		int fd = accept(ls, NULL, NULL);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE)
				continue;
			perror("accept");
			exit(1);
		}
		/* a client that went away counts itself as failed */
		if (read(fd, buf, sizeof(buf)) > 0)
			send(fd, reply, sizeof(reply), MSG_NOSIGNAL);
		close(fd);
	}
	return NULL;
}

/* One connection: 1 if the whole reply came before the server's FIN. */
static int one(void)
{
	char req[MSG], buf[64];
	int fd = socket(AF_INET, SOCK_STREAM, 0), got = 0;
	ssize_t n;

	if (fd < 0)
		return 0;
	memset(req, 'q', sizeof(req));
	if (!connect(fd, (struct sockaddr *)&addr, sizeof(addr)) &&
	    send(fd, req, sizeof(req), MSG_NOSIGNAL) == sizeof(req))
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			got += (int)n;
	close(fd);
	return got == MSG;
}

static void *client(void *arg)
{
	long long ok = 0, bad = 0;

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		one() ? ok++ : bad++;
	atomic_fetch_add(&done, ok);
	atomic_fetch_add(&failed, bad);
	return NULL;
}

/* The threads of FN; the client's run SECS seconds and their count is printed. */
static int run(void *(*fn)(void *), long arg, int nt, int secs)
{
	struct timespec t0, t1;
	pthread_t t[64];
	double s;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < nt; i++)
		if (pthread_create(&t[i], NULL, fn, (void *)arg))
			return 1;
	if (fn == serve)
		for (;;)
			pause();
	sleep((unsigned)secs);
	atomic_store(&stop, 1);
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("%lld conns, %.0f conns/s, %lld failed\n", (long long)atomic_load(&done),
	       (double)atomic_load(&done) / s, (long long)atomic_load(&failed));
	return 0;
}

int main(int argc, char **argv)
{
	int srv = argc > 2 && !strcmp(argv[1], "server");
	int cli = argc > 3 && !strcmp(argv[1], "client");
	int nt = argc > 3 + cli ? atoi(argv[3 + cli]) : 2, secs = cli ? atoi(argv[3]) : 0;
	int ls, on = 1;

	if ((!srv && !cli) || nt < 1 || nt > 64 || (cli && secs < 1)) {
		fprintf(stderr, "usage: storm server PORT [THREADS] | storm client PORT SECS [THREADS]\n");
		return 2;
	}
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	addr.sin_port = htons((unsigned short)atoi(argv[2]));
	prctl(PR_SET_NAME, srv ? "storm-server" : "storm-client");
	if (cli)
		return run(client, 0, nt, secs);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) ||
	    bind(ls, (struct sockaddr *)&addr, sizeof(addr)) || listen(ls, 4096)) {
		perror("storm server");
		return 1;
	}
	return run(serve, ls, nt, 0);
}
