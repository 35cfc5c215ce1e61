/* The metrics server over real sockets on 127.0.0.1 (no root): what /metrics and
 * /healthz answer, 404/405, a busy port, bad addresses, and clients that never
 * send or never read, which must not hold up publish or stop. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "metrics.h"
#include "t_check.h"
#include "t_sched.h"

#define PROM_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct resp {
	int status;
	char type[128];
	char allow[64];
	char *body;
	size_t body_len;
	char *raw;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int connect_to(int family, uint16_t port)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len;
	int fd;

	if (family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_loopback;
		s6->sin6_port = htons(port);
		len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		s4->sin_port = htons(port);
		len = sizeof(*s4);
	}
	fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&ss, len)) {
		close(fd);
		return -1;
	}
	return fd;
}

static void header(const char *raw, const char *name, char *out, size_t n)
{
	size_t nl = strlen(name);
	const char *p = strstr(raw, "\r\n"), *end = strstr(raw, "\r\n\r\n");

	out[0] = '\0';
	while (p && p < end) {
		p += 2;
		if (strncasecmp(p, name, nl) == 0 && p[nl] == ':') {
			const char *v = p + nl + 1, *e = strstr(v, "\r\n");

			while (*v == ' ')
				v++;
			snprintf(out, n, "%.*s", (int)(e - v), v);
			return;
		}
		p = strstr(p, "\r\n");
	}
}

/* Sends REQ to 127.0.0.1:PORT (or ::1) and reads the reply to EOF, waiting at most
 * 3 s for each read. Returns 0 with R filled, -1 on any failure. */
static int http_at(int family, uint16_t port, const char *req, struct resp *r)
{
	size_t cap = 65536, len = 0, sent = 0, rl = strlen(req);
	char *buf = malloc(cap), *sep;
	int fd = connect_to(family, port);

	memset(r, 0, sizeof(*r));
	if (fd < 0 || !buf)
		goto fail;
	while (sent < rl) {
		ssize_t n = send(fd, req + sent, rl - sent, MSG_NOSIGNAL);

		if (n <= 0)
			goto fail;
		sent += (size_t)n;
	}
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 20000) != 1)	/* a bound for a server that never answers */
			goto fail;
		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				goto fail;
			buf = nb;
			cap *= 2;
		}
		n = recv(fd, buf + len, cap - len - 1, 0);
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	close(fd);
	sep = strstr(buf, "\r\n\r\n");
	if (!sep || sscanf(buf, "HTTP/1.%*d %d", &r->status) != 1) {
		free(buf);
		return -1;
	}
	header(buf, "Content-Type", r->type, sizeof(r->type));
	header(buf, "Allow", r->allow, sizeof(r->allow));
	r->raw = buf;
	r->body = sep + 4;
	r->body_len = len - (size_t)(r->body - buf);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return -1;
}

static int http(uint16_t port, const char *req, struct resp *r)
{
	return http_at(AF_INET, port, req, r);
}

static int get(uint16_t port, const char *path, struct resp *r)
{
	char req[256];

	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		 path);
	return http(port, req, r);
}

/* GET PATH and check status and body. */
static void check_get(uint16_t port, const char *path, int status, const char *body)
{
	struct resp r;

	if (get(port, path, &r)) {
		t_failed++;
		fprintf(stderr, "GET %s failed\n", path);
		return;
	}
	CHECK_INT(r.status, status);
	if (body)
		CHECK_STR(r.body, body);
	free(r.raw);
}

/* GET /healthz with STALE_MS of staleness set, the last publish made between
 * P0 and P1 (CLOCK_MONOTONIC, the server's clock too): the age the server sees
 * lies between our readings around the GET and the publish, so the answer is
 * judged against that span, not against a sleep: 200 "ok" while the span is
 * under STALE_MS, 503 "no update for N s" once past it, N its whole seconds;
 * where the span straddles STALE_MS, either. */
static void check_health_age(uint16_t port, double p0, double p1, unsigned int stale_ms)
{
	double g0 = now_s(), g1, lo, hi;
	long long n;
	struct resp r;

	if (get(port, "/healthz", &r)) {
		t_failed++;
		fprintf(stderr, "GET /healthz failed\n");
		return;
	}
	g1 = now_s();
	/* the server's whole ms are within 1 of the age either way: its
	 * elapsed_ms truncates the nanoseconds' difference toward zero, which
	 * rounds up when that difference is negative */
	lo = (g0 - p1) * 1000 - 1;
	hi = (g1 - p0) * 1000 + 1;
	if (r.status == 200) {
		CHECK(lo < stale_ms);
		CHECK_STR(r.body, "ok\n");
	} else {
		CHECK_INT(r.status, 503);
		CHECK(hi >= stale_ms);
		CHECK(sscanf(r.body, "no update for %lld s", &n) == 1 &&
		      n >= (long long)(lo / 1000) && n <= (long long)(hi / 1000));
		if (n < (long long)(lo / 1000) || n > (long long)(hi / 1000))
			fprintf(stderr, "healthz said %.*s for an age of %.0f to %.0f ms\n",
				(int)strcspn(r.body, "\n"), r.body, lo, hi);
	}
	free(r.raw);
}

static void test_metrics(void)
{
	struct metrics_server *m;
	char err[256] = "";
	struct resp r;
	uint16_t port;
	sigset_t before, after;

	pthread_sigmask(SIG_SETMASK, NULL, &before);
	m = metrics_server__start("127.0.0.1:0", err, sizeof(err));
	CHECK(m != NULL);
	if (!m) {
		fprintf(stderr, "start: %s\n", err);
		return;
	}
	/* the caller's signal mask is as it was */
	pthread_sigmask(SIG_SETMASK, NULL, &after);
	CHECK(sigismember(&after, SIGINT) == sigismember(&before, SIGINT));
	CHECK(sigismember(&after, SIGTERM) == sigismember(&before, SIGTERM));
	port = metrics_server__port(m);
	CHECK(port != 0);

	/* nothing published yet: an empty exposition */
	CHECK_INT(get(port, "/metrics", &r), 0);
	CHECK_INT(r.status, 200);
	CHECK_INT(r.body_len, 0);
	CHECK_STR(r.type, PROM_TYPE);
	free(r.raw);

	CHECK_INT(metrics_server__publish(m, "a_total 1\n", 10), 0);
	CHECK_INT(get(port, "/metrics", &r), 0);
	CHECK_INT(r.status, 200);
	CHECK_STR(r.type, PROM_TYPE);
	CHECK_STR(r.body, "a_total 1\n");
	free(r.raw);
	/* only LEN bytes are taken */
	CHECK_INT(metrics_server__publish(m, "b 2\nrest", 4), 0);
	check_get(port, "/metrics", 200, "b 2\n");
	check_get(port, "/metrics?name=x", 200, "b 2\n");

	CHECK_INT(http(port, "HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		       &r), 0);
	CHECK_INT(r.status, 200);
	CHECK_INT(r.body_len, 0);
	CHECK_STR(r.type, PROM_TYPE);
	free(r.raw);

	/* a large text arrives whole */
	size_t big = 3 << 20;
	char *text = malloc(big);

	for (size_t i = 0; i < big; i++)
		text[i] = (i % 64 == 63) ? '\n' : (char)('a' + i % 26);
	CHECK_INT(metrics_server__publish(m, text, big), 0);
	CHECK_INT(get(port, "/metrics", &r), 0);
	CHECK_INT(r.body_len, big);
	CHECK(r.body_len == big && memcmp(r.body, text, big) == 0);
	free(r.raw);
	free(text);

	CHECK_INT(metrics_server__publish(m, NULL, 0), 0);
	check_get(port, "/metrics", 200, "");
	CHECK_INT(metrics_server__publish(m, NULL, 1), -EINVAL);
	CHECK_INT(metrics_server__publish(NULL, "x", 1), -EINVAL);

	/* 404, 405 */
	check_get(port, "/", 404, NULL);
	check_get(port, "/metrics/", 404, NULL);
	check_get(port, "/healthz/x", 404, NULL);
	CHECK_INT(http(port, "POST /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
			     "Content-Length: 5\r\n\r\nhello", &r), 0);
	CHECK_INT(r.status, 405);
	CHECK_STR(r.allow, "GET, HEAD");
	free(r.raw);
	CHECK_INT(http(port, "DELETE /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		       &r), 0);
	CHECK_INT(r.status, 405);
	free(r.raw);
	/* not HTTP at all: MHD answers 400 or closes, and keeps serving */
	if (http(port, "garbage\r\n\r\n", &r) == 0) {
		CHECK_INT(r.status, 400);
		free(r.raw);
	}
	check_get(port, "/metrics", 200, "");
	metrics_server__stop(m);
}

static void test_health(void)
{
	struct metrics_server *m = metrics_server__start("127.0.0.1:0", NULL, 0);
	struct resp r;
	uint16_t port;
	double p0, p1;

	CHECK(m != NULL);
	if (!m)
		return;
	port = metrics_server__port(m);
	check_get(port, "/healthz", 503, "capture not started\n");
	metrics_server__set_running(m, true);
	check_get(port, "/healthz", 503, "no metrics published yet\n");
	CHECK_INT(metrics_server__publish(m, "x 1\n", 4), 0);
	CHECK_INT(get(port, "/healthz", &r), 0);
	CHECK_INT(r.status, 200);
	CHECK_STR(r.body, "ok\n");
	CHECK_STR(r.type, "text/plain; charset=utf-8");
	free(r.raw);
	metrics_server__set_running(m, false);
	check_get(port, "/healthz", 503, "capture stopped\n");
	/* /metrics still serves the last text while capture is stopped */
	check_get(port, "/metrics", 200, "x 1\n");
	metrics_server__set_running(m, true);
	check_get(port, "/healthz", 200, "ok\n");

	/* staleness: on a quiet machine 200, then "0 s" after 250 ms past a
	 * 150 ms bound, "1 s" after 1150 ms past a 1000 ms one, then 200 again */
	metrics_server__set_stale_ms(m, 150);
	p0 = now_s();
	CHECK_INT(metrics_server__publish(m, "x 1\n", 4), 0);
	p1 = now_s();
	check_health_age(port, p0, p1, 150);
	usleep(250 * 1000);
	check_health_age(port, p0, p1, 150);
	metrics_server__set_stale_ms(m, 1000);
	usleep(900 * 1000);
	check_health_age(port, p0, p1, 1000);
	p0 = now_s();
	CHECK_INT(metrics_server__publish(m, "x 2\n", 4), 0);
	p1 = now_s();
	check_health_age(port, p0, p1, 1000);
	metrics_server__set_stale_ms(m, 0);
	usleep(1100 * 1000);
	check_get(port, "/healthz", 200, "ok\n");
	metrics_server__set_running(m, false);
	check_get(port, "/healthz", 503, "capture stopped\n");
	CHECK_INT(http(port, "HEAD /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		       &r), 0);
	CHECK_INT(r.status, 503);
	CHECK_INT(r.body_len, 0);
	free(r.raw);
	metrics_server__stop(m);
}

static void test_errors(void)
{
	static const char *const bad[] = { "1.2.3.4", "x:80", ":70000", "[::1]", "", "::1:80",
					   "localhost:", "[::1]:99999" };
	struct metrics_server *m, *m2;
	char addr[64], err[256], want[128];

	m = metrics_server__start("127.0.0.1:0", err, sizeof(err));
	CHECK(m != NULL);
	if (!m)
		return;
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", metrics_server__port(m));
	err[0] = '\0';
	errno = 0;
	m2 = metrics_server__start(addr, err, sizeof(err));
	CHECK(m2 == NULL);
	CHECK_INT(errno, EADDRINUSE);
	snprintf(want, sizeof(want), "cannot listen on %s: %s", addr, strerror(EADDRINUSE));
	CHECK_STR(err, want);
	metrics_server__stop(m2);
	/* no message buffer is fine */
	errno = 0;
	CHECK(metrics_server__start(addr, NULL, 0) == NULL);
	CHECK_INT(errno, EADDRINUSE);
	metrics_server__stop(m);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		errno = 0;
		m = metrics_server__start(bad[i], err, sizeof(err));
		CHECK(m == NULL);
		CHECK_INT(errno, EINVAL);
		snprintf(want, sizeof(want), "invalid listen address \"%s\": ", bad[i]);
		if (strncmp(err, want, strlen(want)) != 0) {
			t_failed++;
			fprintf(stderr, "%s: message \"%s\"\n", bad[i], err);
		}
		metrics_server__stop(m);
	}
	errno = 0;
	CHECK(metrics_server__start(NULL, err, sizeof(err)) == NULL);
	CHECK_INT(errno, EINVAL);
	/* a message longer than the buffer is cut, still terminated */
	CHECK(metrics_server__start("nosuchhost:1", err, 8) == NULL);
	CHECK_INT(strlen(err), 7);
	metrics_server__stop(NULL);
	CHECK_INT(metrics_server__port(NULL), 0);
}

/* Clients that connect and never send, or ask for a big text and never read. */
static void test_stuck_clients(void)
{
	struct metrics_server *m = metrics_server__start("127.0.0.1:0", NULL, 0);
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	size_t big = 4 << 20;	/* more than the sockets buffer */
	char *text = malloc(big);
	int idle[4], slow[4];
	struct t_watch w;
	double t;
	uint16_t port;

	CHECK(m != NULL && text != NULL);
	if (!m || !text) {
		free(text);
		metrics_server__stop(m);
		return;
	}
	port = metrics_server__port(m);
	memset(text, 'x', big);
	text[big - 1] = '\n';
	CHECK_INT(metrics_server__publish(m, text, big), 0);
	for (int i = 0; i < 4; i++) {
		idle[i] = connect_to(AF_INET, port);
		slow[i] = connect_to(AF_INET, port);
		CHECK(idle[i] >= 0 && slow[i] >= 0);
		if (slow[i] >= 0)
			CHECK_INT(send(slow[i], req, sizeof(req) - 1, MSG_NOSIGNAL), sizeof(req) - 1);
	}
	usleep(200 * 1000);
	t_watch_start(&w);
	for (int i = 0; i < 10; i++)
		CHECK_INT(metrics_server__publish(m, text, big), 0);
	CHECK_INT(metrics_server__publish(m, "small 1\n", 8), 0);
	CHECK(t_watch_ms(&w) < 1000);	/* (t_sched.h: less the waits for a CPU) */
	/* others are still served meanwhile */
	check_get(port, "/metrics", 200, "small 1\n");
	check_get(port, "/healthz", 503, NULL);
	t_watch_start(&w);
	t = now_s();
	metrics_server__stop(m);
	t = now_s() - t;
	if (t >= 1.0)
		fprintf(stderr, "stop took %.2f s\n", t);
	CHECK(t_watch_ms(&w) < 1000);
	for (int i = 0; i < 4; i++) {
		if (idle[i] >= 0)
			close(idle[i]);
		if (slow[i] >= 0)
			close(slow[i]);
	}
	free(text);
}

/* Publishing from another thread while clients read: every body is one whole text. */
struct pub_arg {
	struct metrics_server *m;
	int stop;
	int errors;
};

static void *publisher(void *p)
{
	struct pub_arg *a = p;
	size_t len = 100000;
	char *text = malloc(len);

	for (int v = 0; !__atomic_load_n(&a->stop, __ATOMIC_RELAXED) && text; v++) {
		memset(text, 'a' + v % 26, len - 1);
		text[len - 1] = '\n';
		if (metrics_server__publish(a->m, text, len))
			a->errors++;
		usleep(1000);
	}
	free(text);
	return NULL;
}

static void test_concurrent(void)
{
	struct pub_arg a = { .m = metrics_server__start("127.0.0.1:0", NULL, 0) };
	pthread_t th;
	struct resp r;
	int torn = 0, got = 0;

	CHECK(a.m != NULL);
	if (!a.m)
		return;
	CHECK_INT(metrics_server__publish(a.m, "zzzz\n", 5), 0);
	pthread_create(&th, NULL, publisher, &a);
	for (int i = 0; i < 50; i++) {
		if (get(metrics_server__port(a.m), "/metrics", &r))
			continue;
		got++;
		if (r.body_len != 5 && r.body_len != 100000)
			torn++;
		for (size_t j = 1; j + 1 < r.body_len; j++)
			if (r.body[j] != r.body[0]) {
				torn++;
				break;
			}
		free(r.raw);
	}
	__atomic_store_n(&a.stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	CHECK_INT(got, 50);
	CHECK_INT(torn, 0);
	CHECK_INT(a.errors, 0);
	metrics_server__stop(a.m);
}

/* ":PORT" serves IPv4 and IPv6; "[::1]:PORT" IPv6. Skipped without IPv6 loopback. */
static void test_ipv6(void)
{
	struct metrics_server *m;
	struct resp r;
	char err[256];
	int fd = socket(AF_INET6, SOCK_STREAM, 0);
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };

	if (fd < 0 || bind(fd, (struct sockaddr *)&s6, sizeof(s6))) {
		printf("no IPv6 loopback here: IPv6 not checked\n");
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	m = metrics_server__start(":0", err, sizeof(err));
	CHECK(m != NULL);
	if (m) {
		CHECK_INT(metrics_server__publish(m, "v 6\n", 4), 0);
		check_get(metrics_server__port(m), "/metrics", 200, "v 6\n");
		CHECK_INT(http_at(AF_INET6, metrics_server__port(m),
				  "GET /metrics HTTP/1.0\r\n\r\n", &r), 0);
		CHECK_STR(r.body, "v 6\n");
		free(r.raw);
		metrics_server__stop(m);
	}
	m = metrics_server__start("[::1]:0", err, sizeof(err));
	CHECK(m != NULL);
	if (m) {
		CHECK_INT(http_at(AF_INET6, metrics_server__port(m),
				  "GET /healthz HTTP/1.0\r\n\r\n", &r), 0);
		CHECK_INT(r.status, 503);
		free(r.raw);
		metrics_server__stop(m);
	}
}

int main(void)
{
	test_metrics();
	test_health();
	test_errors();
	test_stuck_clients();
	test_concurrent();
	test_ipv6();
	return t_report();
}
