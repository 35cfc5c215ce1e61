/* Helpers of the output tests: checks, numbered lines, loopback listeners and a
 * reader thread that collects what an output sends (slowly, stalled, or
 * closing its connection and listener midway). */
#ifndef OUTPUT_TEST_UTIL_H
#define OUTPUT_TEST_UTIL_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "output.h"

#include "t_check.h"	/* tests/unit/common */
#include "t_sched.h"

/* Timing bounds are looser under valgrind (the meson test passes --slow). */
static int slow_factor = 1;

static inline void test_init(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--slow"))
		slow_factor = 4;
	/* a hung test fails instead of blocking the suite */
	alarm(55);
	setvbuf(stdout, NULL, _IOLBF, 0);
}

static inline uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static inline void msleep(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Line N of a test: "line N " and a padding whose length depends on N, so a
 * cut or merged line never passes for a whole one. */
static inline size_t make_line(char *buf, size_t size, unsigned n)
{
	int len = snprintf(buf, size, "line %u ", n);
	unsigned pad = (n * 37) % 151;

	for (unsigned i = 0; i < pad && (size_t)len + 2 < size; i++)
		buf[len++] = (char)('a' + (n + i) % 26);
	buf[len++] = '\n';
	return (size_t)len;
}

/* Is [P, P+LEN) (newline excluded) line N? */
static inline bool is_line(const char *p, size_t len, unsigned n)
{
	char want[256];
	size_t wlen = make_line(want, sizeof(want), n);

	return len == wlen - 1 && !memcmp(p, want, len);
}

/* The number of a line "line N ...", or -1. */
static inline long line_number(const char *p, size_t len)
{
	char *end;
	long n;

	if (len < 6 || memcmp(p, "line ", 5))
		return -1;
	n = strtol(p + 5, &end, 10);
	return end > p + 5 ? n : -1;
}

/* Pushes line N once the queue has room for it: a test that wants no drops
 * must not retry a push that failed (that line was counted as dropped). */
static inline void push_wait(struct output *o, unsigned n)
{
	struct output_stats st;
	char line[256];
	size_t len = make_line(line, sizeof(line), n);

	/* room for the record twice over: at the end of the buffer a record
	 * that does not fit also takes the rest of it (the wrap) */
	for (;;) {
		output__stats(o, &st);
		if (st.queue_bytes + 2 * (len + 32) <= st.queue_capacity)
			break;
		output__kick(o);
		usleep(100);
	}
	output__push(o, line, len, n);
}

/* Polls COND every 5 ms for at most MS ms. */
#define WAIT_FOR(cond, ms) do { \
	uint64_t _end = now_ms() + (uint64_t)(ms) * slow_factor; \
	while (!(cond) && now_ms() < _end) \
		msleep(5); \
} while (0)

static inline int tcp_socket_bound(int *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)*port) };
	socklen_t len = sizeof(sin);
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		perror("bind");
		exit(2);
	}
	getsockname(fd, (struct sockaddr *)&sin, &len);
	*port = ntohs(sin.sin_port);
	return fd;
}

/* A listening TCP socket on 127.0.0.1:*PORT (0: any; *PORT gets it). */
static inline int tcp_listen(int *port)
{
	int fd = tcp_socket_bound(port);

	listen(fd, 16);
	return fd;
}

static inline int unix_bind(const char *path, int type)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		perror("bind");
		exit(2);
	}
	if (type == SOCK_STREAM)
		listen(fd, 16);
	return fd;
}

/* Notices an output gave, one line each. */
struct notices {
	pthread_mutex_t mu;
	char text[8192];
	int n;
};

static inline void notices__add(void *arg, const struct output *o, int level, const char *msg)
{
	struct notices *ns = arg;

	pthread_mutex_lock(&ns->mu);
	ns->n++;
	snprintf(ns->text + strlen(ns->text), sizeof(ns->text) - strlen(ns->text), "%d %s\n",
		 level, msg);
	pthread_mutex_unlock(&ns->mu);
}

static inline bool notices__has(struct notices *ns, const char *s)
{
	bool has;

	pthread_mutex_lock(&ns->mu);
	has = strstr(ns->text, s) != NULL;
	pthread_mutex_unlock(&ns->mu);
	return has;
}

static inline void notices__init(struct notices *ns)
{
	memset(ns, 0, sizeof(*ns));
	pthread_mutex_init(&ns->mu, NULL);
}

#define READER_MAX_CONNS 32

/* A thread that accepts on LFD and reads everything sent, one connection at a
 * time. */
struct reader {
	int lfd;
	int port;			/* tcp: to listen again after a gap */
	int delay_us;			/* sleep between reads: a slow reader */
	size_t chunk;			/* bytes per read (0: 64 KiB) */
	bool stall;			/* accept, never read */
	size_t close_after;		/* close conn and listener after this many bytes... */
	atomic_bool relisten;		/* ...and listen again once the test sets this */
	pthread_mutex_t mu;
	char *data;
	size_t len, cap;
	size_t conn_start[READER_MAX_CONNS];
	int nconn;
	atomic_bool stop;
	pthread_t th;
};

static inline void reader__append(struct reader *r, const char *p, size_t n)
{
	pthread_mutex_lock(&r->mu);
	if (r->len + n > r->cap) {
		r->cap = (r->len + n) * 2;
		r->data = realloc(r->data, r->cap);
	}
	memcpy(r->data + r->len, p, n);
	r->len += n;
	pthread_mutex_unlock(&r->mu);
}

static inline size_t reader__len(struct reader *r)
{
	size_t len;

	pthread_mutex_lock(&r->mu);
	len = r->len;
	pthread_mutex_unlock(&r->mu);
	return len;
}

static inline void *reader__main(void *arg)
{
	struct reader *r = arg;
	size_t chunk = r->chunk ? r->chunk : 64 << 10;
	char *buf = malloc(chunk);
	int cfd = -1;

	while (!atomic_load(&r->stop)) {
		struct pollfd p = { .fd = cfd >= 0 ? cfd : r->lfd, .events = POLLIN };
		ssize_t n;

		if (cfd >= 0 && r->stall) {
			msleep(10);
			continue;
		}
		if (poll(&p, 1, 20) <= 0)
			continue;
		if (cfd < 0) {
			cfd = accept(r->lfd, NULL, NULL);
			if (cfd >= 0 && r->nconn < READER_MAX_CONNS) {
				pthread_mutex_lock(&r->mu);
				r->conn_start[r->nconn++] = r->len;
				pthread_mutex_unlock(&r->mu);
			}
			continue;
		}
		n = read(cfd, buf, chunk);
		if (n <= 0) {
			close(cfd);
			cfd = -1;
			continue;
		}
		reader__append(r, buf, (size_t)n);
		if (r->close_after && r->len >= r->close_after) {
			/* the collector goes away, and comes back later */
			r->close_after = 0;
			close(cfd);
			cfd = -1;
			close(r->lfd);
			while (!atomic_load(&r->relisten) && !atomic_load(&r->stop))
				msleep(5);
			r->lfd = tcp_listen(&r->port);
		}
		if (r->delay_us)
			usleep((useconds_t)r->delay_us);
	}
	if (cfd >= 0)
		close(cfd);
	free(buf);
	return NULL;
}

static inline void reader__start(struct reader *r)
{
	pthread_mutex_init(&r->mu, NULL);
	pthread_create(&r->th, NULL, reader__main, r);
}

static inline void reader__stop(struct reader *r)
{
	atomic_store(&r->stop, true);
	pthread_join(r->th, NULL);
	close(r->lfd);
}

static inline void reader__free(struct reader *r)
{
	free(r->data);
	pthread_mutex_destroy(&r->mu);
}

/* Checks the lines in [P, P+LEN): complete, numbered upwards without repeats.
 * Markers (lines starting "agent: " or "{\"agent.drop\"") add their count to
 * *MARKED and must cover the numbers skipped since the line before: exactly
 * when STRICT (no other loss possible), at least otherwise. Returns the lines,
 * -1 on the first bad one. */
static inline long check_lines(const char *p, size_t len, long *last, uint64_t *marked,
			       uint64_t *markers, bool strict)
{
	const char *end = p + len;
	uint64_t pending = 0;
	long lines = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		long n;
		unsigned long long count;

		if (!nl) {
			fprintf(stderr, "cut line at the end: '%.*s'\n", (int)(end - p), p);
			return -1;
		}
		/* sscanf only on a copy of the line: on the buffer it would take
		 * strlen of all the rest each time */
		char copy[512];
		size_t clen = (size_t)(nl - p) < sizeof(copy) - 1 ? (size_t)(nl - p) : sizeof(copy) - 1;

		memcpy(copy, p, clen);
		copy[clen] = 0;
		if ((copy[0] == 'a' || copy[0] == '{') &&
		    (sscanf(copy, "agent: %llu events dropped for this output (queue full)", &count) == 1 ||
		     sscanf(copy, "{\"agent.drop\":{\"output\":\"%*[^\"]\",\"reason\":\"queue full\","
			    "\"count\":%llu}}", &count) == 1)) {
			if (pending) {
				fprintf(stderr, "two markers in a row\n");
				return -1;
			}
			pending = count;
			*marked += count;
			(*markers)++;
			p = nl + 1;
			continue;
		}
		n = line_number(p, (size_t)(nl - p));
		if (n < 0 || !is_line(p, (size_t)(nl - p), (unsigned)n) || n <= *last) {
			fprintf(stderr, "bad line after %ld: '%.*s'\n", *last, (int)(nl - p), p);
			return -1;
		}
		if ((strict && (uint64_t)(n - *last - 1) != pending) ||
		    (uint64_t)(n - *last - 1) < pending) {
			fprintf(stderr, "marker says %llu dropped, lines %ld..%ld missing\n",
				(unsigned long long)pending, *last + 1, n - 1);
			return -1;
		}
		pending = 0;
		*last = n;
		lines++;
		p = nl + 1;
	}
	return lines;
}

/* queued == emitted + drop_error + drop_exit + queue_lines */
static inline bool accounted(const struct output_stats *st)
{
	return st->queued == st->emitted + st->drop_error + st->drop_exit + st->queue_lines;
}

static inline void print_stats(const char *what, const struct output_stats *st)
{
	printf("%s: queued %llu emitted %llu drops full %llu error %llu exit %llu, markers %llu, "
	       "write errors %llu, connects %llu, connect failures %llu, queue %llu lines %llu B\n",
	       what, (unsigned long long)st->queued, (unsigned long long)st->emitted,
	       (unsigned long long)st->drop_queue_full, (unsigned long long)st->drop_error,
	       (unsigned long long)st->drop_exit, (unsigned long long)st->markers,
	       (unsigned long long)st->write_errors, (unsigned long long)st->connects,
	       (unsigned long long)st->connect_failures, (unsigned long long)st->queue_lines,
	       (unsigned long long)st->queue_bytes);
}

#endif
