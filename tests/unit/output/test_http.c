/* http:// outputs against a minimal HTTP/1.1 server thread (headers, a
 * Content-Length body, keep-alive, scripted status codes): batches of at most
 * batch_bytes, one connection reused, a lone line sent after batch_ms; 500s
 * retried without loss or repeat; a 400 batch dropped and counted; a server
 * that never answers or is down does not hold output__close past its deadline. */
#include <strings.h>

#include "util.h"

struct server {
	int lfd, port;
	int script[8];		/* status of the first requests, then 200 */
	int nscript;
	bool mute;		/* reads requests, never answers */
	pthread_mutex_t mu;
	char *body;		/* bodies answered 2xx, in order */
	size_t len, cap, max_body;
	int requests, conns, bad_headers;
	atomic_bool stop;
	pthread_t th;
};

/* Reads into BUF until it holds N bytes; false at EOF, error or stop. */
static bool srv_read(struct server *s, int fd, char *buf, size_t *have, size_t n)
{
	while (*have < n) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t got;

		if (atomic_load(&s->stop))
			return false;
		if (poll(&p, 1, 20) <= 0)
			continue;
		got = read(fd, buf + *have, n - *have);
		if (got <= 0)
			return false;
		*have += (size_t)got;
	}
	return true;
}

/* One request on FD: false when the connection is done. */
static bool srv_request(struct server *s, int fd, char *buf, size_t cap, size_t *have)
{
	char *end, *cl, reply[128];
	size_t hlen, blen;
	int status;

	/* headers, a byte at a time past what is there: simple, small requests */
	while (!(end = memmem(buf, *have, "\r\n\r\n", 4)))
		if (*have + 1 >= cap || !srv_read(s, fd, buf, have, *have + 1))
			return false;
	hlen = (size_t)(end - buf) + 4;
	buf[hlen - 1] = 0;
	cl = strcasestr(buf, "\r\nContent-Length:");
	blen = cl ? strtoul(cl + 17, NULL, 10) : 0;
	pthread_mutex_lock(&s->mu);
	if (strncmp(buf, "POST /ingest HTTP/1.1\r\n", 23) ||
	    !strcasestr(buf, "\r\nContent-Type: application/x-ndjson\r\n"))
		s->bad_headers++;
	pthread_mutex_unlock(&s->mu);
	if (hlen + blen > cap || !srv_read(s, fd, buf, have, hlen + blen))
		return false;
	pthread_mutex_lock(&s->mu);
	status = s->requests < s->nscript ? s->script[s->requests] : 200;
	s->requests++;
	if (blen > s->max_body)
		s->max_body = blen;
	if (status / 100 == 2 && !s->mute) {
		if (s->len + blen > s->cap) {
			s->cap = (s->len + blen) * 2;
			s->body = realloc(s->body, s->cap);
		}
		memcpy(s->body + s->len, buf + hlen, blen);
		s->len += blen;
	}
	pthread_mutex_unlock(&s->mu);
	memmove(buf, buf + hlen + blen, *have - hlen - blen);
	*have -= hlen + blen;
	if (s->mute) {
		while (!atomic_load(&s->stop))
			msleep(10);
		return false;
	}
	snprintf(reply, sizeof(reply), "HTTP/1.1 %d X\r\nContent-Length: 0\r\n\r\n", status);
	return write(fd, reply, strlen(reply)) == (ssize_t)strlen(reply);
}

static void *srv_main(void *arg)
{
	struct server *s = arg;
	size_t cap = 4 << 20, have;
	char *buf = malloc(cap);

	while (!atomic_load(&s->stop)) {
		struct pollfd p = { .fd = s->lfd, .events = POLLIN };
		int fd;

		if (poll(&p, 1, 20) <= 0)
			continue;
		fd = accept(s->lfd, NULL, NULL);
		if (fd < 0)
			continue;
		pthread_mutex_lock(&s->mu);
		s->conns++;
		pthread_mutex_unlock(&s->mu);
		have = 0;
		while (srv_request(s, fd, buf, cap, &have))
			;
		close(fd);
	}
	free(buf);
	return NULL;
}

static void srv_start(struct server *s)
{
	s->lfd = tcp_listen(&s->port);
	pthread_mutex_init(&s->mu, NULL);
	pthread_create(&s->th, NULL, srv_main, s);
}

static void srv_stop(struct server *s)
{
	atomic_store(&s->stop, true);
	pthread_join(s->th, NULL);
	close(s->lfd);
}

static int srv_requests(struct server *s)
{
	int n;

	pthread_mutex_lock(&s->mu);
	n = s->requests;
	pthread_mutex_unlock(&s->mu);
	return n;
}

static struct output *open_http(struct server *s, struct output_opts *opts, struct notices *ns,
				char *url, size_t size)
{
	char err[256];
	struct output *o;

	notices__init(ns);
	opts->notice = notices__add;
	opts->notice_arg = ns;
	snprintf(url, size, "http://127.0.0.1:%d/ingest", s->port);
	o = output__open(url, opts, err, sizeof(err));
	if (!o)
		fprintf(stderr, "%s\n", err);
	CHECK(o != NULL);
	return o;
}

static void push_range(struct output *o, unsigned from, unsigned to)
{
	for (unsigned i = from; i < to; i++)
		push_wait(o, i);
}

static void test_batches(void)
{
	struct server s = { 0 };
	struct output_opts opts = { .queue_bytes = 256 << 10, .batch_bytes = 4096 };
	struct output_stats st;
	struct notices ns;
	struct output *o;
	char url[128];
	uint64_t marked = 0, markers = 0;
	long last = -1;
	unsigned n = 5000;

	srv_start(&s);
	o = open_http(&s, &opts, &ns, url, sizeof(url));
	push_range(o, 0, n);
	output__close(o, now_ms() + 20000, &st);
	srv_stop(&s);
	print_stats("http", &st);
	printf("http: %d requests on %d connections, largest body %zu\n", s.requests, s.conns,
	       s.max_body);
	CHECK_EQ(check_lines(s.body, s.len, &last, &marked, &markers, true), n);
	CHECK_EQ(st.emitted, n);
	CHECK_EQ(st.bytes, s.len);
	CHECK(accounted(&st));
	CHECK(s.requests > 50);
	CHECK(s.max_body <= 4096);
	CHECK_EQ(s.conns, 1);
	CHECK_EQ(st.connects, 1);
	CHECK_EQ(s.bad_headers, 0);
	CHECK(notices__has(&ns, "0 connected to http://127.0.0.1:"));
	free(s.body);
}

/* A lone line waits batch_ms, not more (nor much less). */
static void test_age(void)
{
	struct server s = { 0 };
	struct output_opts opts = { .batch_ms = 300 };
	struct output_stats st;
	struct notices ns;
	struct output *o;
	struct t_watch w;
	char url[128];
	uint64_t t0, dt;

	srv_start(&s);
	o = open_http(&s, &opts, &ns, url, sizeof(url));
	msleep(50);
	t0 = now_ms();
	t_watch_start(&w);
	push_range(o, 0, 1);
	WAIT_FOR(srv_requests(&s) >= 1, 2000);
	dt = now_ms() - t0;
	printf("http: a lone line was sent after %llu ms (batch_ms 300)\n", (unsigned long long)dt);
	CHECK(dt >= 250);
	CHECK(t_watch_ms(&w) < 800u * (unsigned)slow_factor);
	output__close(o, now_ms() + 20000, &st);
	srv_stop(&s);
	CHECK_EQ(st.emitted, 1);
	free(s.body);
}

static void test_retry_5xx(void)
{
	struct server s = { .script = { 500, 503, 500 }, .nscript = 3 };
	struct output_opts opts = { 0 };
	struct output_stats st;
	struct notices ns;
	struct output *o;
	char url[128], want[256];
	uint64_t marked = 0, markers = 0;
	long last = -1;
	unsigned n = 300;

	srv_start(&s);
	o = open_http(&s, &opts, &ns, url, sizeof(url));
	push_range(o, 0, n);
	output__kick(o);
	WAIT_FOR((output__stats(o, &st), st.emitted == n), 5000);
	output__close(o, now_ms() + 20000, &st);
	srv_stop(&s);
	print_stats("http 5xx", &st);
	CHECK_EQ(check_lines(s.body, s.len, &last, &marked, &markers, true), n);
	CHECK_EQ(st.emitted, n);
	CHECK_EQ(st.write_errors, 3);
	CHECK_EQ(st.drop_error + st.drop_exit, 0);
	CHECK_EQ(s.requests, 4);
	snprintf(want, sizeof(want), "1 POST to %s failed: HTTP 500; retrying with backoff\n", url);
	CHECK(notices__has(&ns, want));
	/* one notice for the run of failures, one for the recovery */
	CHECK_EQ(ns.n, 2);
	printf("%s", ns.text);
	free(s.body);
}

static void test_drop_4xx(void)
{
	struct server s = { .script = { 400 }, .nscript = 1 };
	struct output_opts opts = { 0 };
	struct output_stats st;
	struct notices ns;
	struct output *o;
	char url[128];
	uint64_t marked = 0, markers = 0;
	long last = -1, lines;

	srv_start(&s);
	o = open_http(&s, &opts, &ns, url, sizeof(url));
	push_range(o, 0, 10);
	output__kick(o);
	WAIT_FOR(srv_requests(&s) >= 1, 2000);
	push_range(o, 10, 20);
	output__close(o, now_ms() + 20000, &st);
	srv_stop(&s);
	print_stats("http 4xx", &st);
	lines = check_lines(s.body, s.len, &last, &marked, &markers, false);
	CHECK_EQ(lines, st.emitted);
	CHECK_EQ(last, 19);
	CHECK(st.drop_error >= 1);
	CHECK_EQ(st.emitted + st.drop_error, 20);
	CHECK_EQ(st.drop_exit, 0);
	CHECK(accounted(&st));
	CHECK(notices__has(&ns, "refuses batches (HTTP 400)"));
	free(s.body);
}

static void test_close_deadline(bool mute)
{
	struct server s = { .mute = mute };
	struct output_opts opts = { 0 };
	struct output_stats st;
	struct notices ns;
	struct output *o;
	struct t_watch w;
	char url[128];
	uint64_t t0, dt;

	if (mute) {
		srv_start(&s);
	} else {
		/* nobody listens there */
		s.lfd = tcp_socket_bound(&s.port);
	}
	o = open_http(&s, &opts, &ns, url, sizeof(url));
	push_range(o, 0, 10);
	output__kick(o);
	/* until the writer is where close must cut it, not for a time: down,
	 * it failed to connect and said so; mute, its POST was read, and it
	 * waits for an answer that never comes */
	if (mute)
		WAIT_FOR(srv_requests(&s) >= 1, 5000);
	else
		WAIT_FOR((output__stats(o, &st), st.connect_failures >= 1 &&
			  notices__has(&ns, "retrying with backoff")), 5000);
	output__stats(o, &st);
	if (mute)
		CHECK(srv_requests(&s) >= 1);
	if (!mute) {
		CHECK(st.connect_failures >= 1);
		CHECK(!st.connected);
		CHECK(notices__has(&ns, "retrying with backoff"));
	}
	t0 = now_ms();
	t_watch_start(&w);
	output__close(o, t0 + 300, &st);
	dt = now_ms() - t0;
	printf("http %s: close took %llu ms\n", mute ? "mute server" : "server down",
	       (unsigned long long)dt);
	CHECK(t_watch_ms(&w) < 1000u * (unsigned)slow_factor);
	CHECK_EQ(st.drop_exit, 10);
	CHECK(accounted(&st));
	if (mute)
		srv_stop(&s);
	else
		close(s.lfd);
	free(s.body);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	test_batches();
	test_age();
	test_retry_5xx();
	test_drop_4xx();
	test_close_deadline(true);
	test_close_deadline(false);
	return t_report();
}
