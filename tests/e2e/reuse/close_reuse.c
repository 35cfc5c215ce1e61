/* An fd number reused while its close() still runs, made on purpose:
 * close_reuse FILE PORT ROUNDS [GATE], FILE on slowfs (slowfs.c: its close()
 * takes SLOWFS_DELAY_MS in the FUSE flush, after, given GATE, waiting until
 * that directory exists: this program makes it once the round's first
 * exchange is done), PORT a free TCP port on 127.0.0.1.
 * Each round, thread T2 opens FILE (fd N, the lowest free number) and closes
 * it. The kernel frees N at the start of close(), before the slow flush, so
 * T1 (main), once it sees N free, accept()s a waiting loopback connection and
 * gets N while T2's close() still runs; then it serves one HTTP/1.1 request
 * on it, still before that close() returns, and one more after. A tracer that orders events by
 * syscall exit sees the accept of N, and its traffic, before the close of N.
 * Prints one line a round and "reused K of ROUNDS"; exits 0 when every round
 * reused N while the close ran, 1 when not, 2 when a call failed. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WAIT_FREE_MS 5000
#define WATCHDOG_S 30

static const char http__answer[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

struct closer {
	const char *file;
	int fd;
	pid_t tid;
	sem_t opened;
	atomic_int closed;
};

static void die(const char *call)
{
	int e = errno;

	fprintf(stderr, "close_reuse: %s: %s (errno %d)\n", call, strerror(e), e);
	exit(2);
}

static void watchdog__fire(int sig)
{
	static const char msg[] = "close_reuse: watchdog: a round took over 30 s\n";

	ssize_t n = write(2, msg, sizeof(msg) - 1);

	(void)sig;
	(void)n;
	_exit(2);
}

static struct sockaddr_in loopback(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

static int listener__open(int port)
{
	struct sockaddr_in a = loopback(port);
	int one = 1;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket");
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		die("setsockopt SO_REUSEADDR");
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)))
		die("bind 127.0.0.1");
	if (listen(fd, 8))
		die("listen");
	return fd;
}

/* The connection completes in the listener's backlog: accept() will not wait. */
static int client__connect(int port)
{
	struct sockaddr_in a = loopback(port);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket");
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)))
		die("connect 127.0.0.1");
	return fd;
}

/* T2: open (fd N), tell T1 which number, then the slow close. */
static void *closer__run(void *arg)
{
	struct closer *c = arg;

	c->tid = gettid();
	c->fd = open(c->file, O_RDONLY);
	if (c->fd < 0)
		die("open FILE");
	sem_post(&c->opened);
	if (close(c->fd))
		die("close");
	atomic_store(&c->closed, 1);
	return NULL;
}

static void ms__sleep(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* Polls rather than guesses: N is free once close() has begun. Sleeping
 * before the first look leaves a fast close (a FUSE round trip without the
 * delay takes tens of microseconds) the time to finish, so that only a slow
 * close is caught running: with SLOWFS_DELAY_MS=0 the rounds say "no". */
static void fd__wait_free(int n)
{
	for (int ms = 0; ms < WAIT_FREE_MS; ms++) {
		ms__sleep(1);
		if (fcntl(n, F_GETFD) == -1 && errno == EBADF)
			return;
	}
	fprintf(stderr, "close_reuse: fcntl F_GETFD: fd %d still open after %d ms\n", n,
		WAIT_FREE_MS);
	exit(2);
}

static void fd__write_all(int fd, const char *buf, size_t len, const char *call)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die(call);
		buf += n;
		len -= (size_t)n;
	}
}

/* Reads until done(buf, len) says the message is whole. */
static size_t fd__read_until(int fd, char *buf, size_t cap, int (*done)(const char *, size_t),
			     const char *call)
{
	size_t len = 0;

	while (!done(buf, len)) {
		ssize_t n = read(fd, buf + len, cap - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = ECONNRESET;
		if (n <= 0 || len + (size_t)n >= cap - 1) {
			if (n > 0)
				errno = EMSGSIZE;
			die(call);
		}
		len += (size_t)n;
		buf[len] = 0;
	}
	return len;
}

static int http__request_done(const char *buf, size_t len)
{
	return len && strstr(buf, "\r\n\r\n");
}

/* The answer's header ends in "\r\n\r\n", then its 2 body bytes. */
static int http__answer_done(const char *buf, size_t len)
{
	const char *end = len ? strstr(buf, "\r\n\r\n") : NULL;

	return end && (size_t)(end + 4 - buf) + 2 <= len;
}

/* One GET from the client, served on the accepted fd, the answer read back. */
static void http__exchange(int client, int server, int round, const char *tail)
{
	char req[128], buf[512];
	int n = snprintf(req, sizeof(req), "GET /round%d%s HTTP/1.1\r\nHost: close-reuse\r\n\r\n",
			 round, tail);

	fd__write_all(client, req, (size_t)n, "write request");
	fd__read_until(server, buf, sizeof(buf), http__request_done, "read request");
	fd__write_all(server, http__answer, sizeof(http__answer) - 1, "write answer");
	if (fd__read_until(client, buf, sizeof(buf), http__answer_done, "read answer") !=
		    sizeof(http__answer) - 1 ||
	    strcmp(buf, http__answer)) {
		fprintf(stderr, "close_reuse: round %d: unexpected answer\n", round);
		exit(2);
	}
}

/* Every fd a round makes is closed by its end, so N is the same each round. */
static int round__run(int listener, int port, int round, const char *file, const char *gate)
{
	struct closer c = { .file = file, .fd = -1 };
	pthread_t t2;
	int client, a, reused, during;

	alarm(WATCHDOG_S);
	client = client__connect(port);
	if (sem_init(&c.opened, 0, 0))
		die("sem_init");
	errno = pthread_create(&t2, NULL, closer__run, &c);
	if (errno)
		die("pthread_create");
	while (sem_wait(&c.opened) && errno == EINTR)
		;
	fd__wait_free(c.fd);
	a = accept4(listener, NULL, NULL, 0);
	if (a < 0)
		die("accept4");
	reused = a == c.fd && !atomic_load(&c.closed);
	http__exchange(client, a, round, "");
	during = reused && !atomic_load(&c.closed);
	/* the close may end now (a directory: no fd of ours is made) */
	if (gate && mkdir(gate, 0700))
		die("mkdir GATE");
	errno = pthread_join(t2, NULL);
	if (errno)
		die("pthread_join");
	/* and one after it returned: a tracer that took that close for this
	 * socket's has lost the socket by now */
	http__exchange(client, a, round, "/after");
	if (a != c.fd)
		fprintf(stderr, "close_reuse: round %d: accept gave fd %d, not %d\n", round, a, c.fd);
	printf("round %d: fd %d closed by tid %d reused by accept in tid %d while the close ran: %s; "
	       "exchange done before the close returned: %s\n",
	       round, c.fd, (int)c.tid, (int)gettid(), reused ? "yes" : "no", during ? "yes" : "no");
	fflush(stdout);
	close(a);
	close(client);
	sem_destroy(&c.opened);
	return reused && during;
}

int main(int argc, char **argv)
{
	int port, rounds, listener, k = 0;

	if (argc < 4 || argc > 5 || (port = atoi(argv[2])) <= 0 || port > 65535 ||
	    (rounds = atoi(argv[3])) <= 0) {
		fprintf(stderr, "usage: close_reuse FILE PORT ROUNDS [GATE]\n");
		return 2;
	}
	signal(SIGALRM, watchdog__fire);
	listener = listener__open(port);
	for (int i = 1; i <= rounds; i++)
		k += round__run(listener, port, i, argv[1], argc == 5 ? argv[4] : NULL);
	alarm(0);
	close(listener);
	printf("reused %d of %d\n", k, rounds);
	return k == rounds ? 0 : 1;
}
