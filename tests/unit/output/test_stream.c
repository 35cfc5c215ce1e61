/* tcp:// to a listener thread: every line once and in order (IPv4 and IPv6);
 * a collector that goes away and comes back (reconnect with backoff, failures
 * counted, no fragment at the start of the new connection); a reader that
 * never reads (output__close keeps its deadline). */
#include <netinet/in.h>

#include "util.h"

/* Pushes lines FROM..TO-1, waiting for room rather than dropping. */
static void push_all(struct output *o, unsigned from, unsigned to)
{
	for (unsigned i = from; i < to; i++)
		push_wait(o, i);
}

static void test_in_order(const char *host, int family)
{
	struct reader r = { 0 };
	struct output_opts opts = { .queue_bytes = 256 << 10 };
	struct output_stats st;
	struct notices ns;
	struct output *o;
	char url[128], err[256], want[160];
	uint64_t marked = 0, markers = 0;
	long last = -1;
	unsigned n = slow_factor > 1 ? 10000 : 50000;

	if (family == AF_INET6) {
		struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
		socklen_t len = sizeof(sin6);

		r.lfd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (r.lfd < 0 || bind(r.lfd, (struct sockaddr *)&sin6, sizeof(sin6))) {
			printf("tcp %s: no IPv6 loopback here, skipped\n", host);
			if (r.lfd >= 0)
				close(r.lfd);
			return;
		}
		getsockname(r.lfd, (struct sockaddr *)&sin6, &len);
		r.port = ntohs(sin6.sin6_port);
		listen(r.lfd, 4);
	} else {
		r.lfd = tcp_listen(&r.port);
	}
	reader__start(&r);
	notices__init(&ns);
	opts.notice = notices__add;
	opts.notice_arg = &ns;
	snprintf(url, sizeof(url), "tcp://%s:%d", host, r.port);
	o = output__open(url, &opts, err, sizeof(err));
	CHECK(o != NULL);
	if (!o) {
		fprintf(stderr, "%s\n", err);
		reader__stop(&r);
		reader__free(&r);
		return;
	}
	push_all(o, 0, n);
	output__close(o, now_ms() + 20000, &st);
	print_stats(url, &st);
	WAIT_FOR(reader__len(&r) >= st.bytes, 2000);
	reader__stop(&r);
	CHECK_EQ(reader__len(&r), st.bytes);
	CHECK_EQ(check_lines(r.data, r.len, &last, &marked, &markers, true), n);
	CHECK_EQ(last, n - 1);
	CHECK_EQ(markers, 0);
	CHECK_EQ(st.queued, n);
	CHECK_EQ(st.emitted, n);
	CHECK_EQ(st.drop_queue_full + st.drop_error + st.drop_exit, 0);
	CHECK_EQ(st.connects, 1);
	CHECK_EQ(r.nconn, 1);
	CHECK(accounted(&st));
	snprintf(want, sizeof(want), "0 connected to %s\n", url);
	CHECK(notices__has(&ns, want));
	reader__free(&r);
}

static void test_reconnect(void)
{
	struct reader r = { .delay_us = 300, .chunk = 4096, .close_after = 300 << 10 };
	struct output_opts opts = { .queue_bytes = 1 << 20 };
	struct output_stats st;
	struct notices ns;
	struct output *o;
	char url[64], err[256], line[256];
	uint64_t marked = 0, markers = 0, end;
	long last = -1, lines = 0;
	unsigned i = 0;

	r.lfd = tcp_listen(&r.port);
	reader__start(&r);
	notices__init(&ns);
	opts.notice = notices__add;
	opts.notice_arg = &ns;
	snprintf(url, sizeof(url), "tcp://127.0.0.1:%d", r.port);
	o = output__open(url, &opts, err, sizeof(err));
	CHECK(o != NULL);
	/* a steady flow of lines while the collector goes away and comes back:
	 * it listens again once the output failed to connect (its stats say
	 * so), and the flow ends once the collector accepted again (a bound of
	 * 30 s, not a time the steps must fit in) */
	end = now_ms() + 30000;
	while (now_ms() < end) {
		for (int k = 0; k < 20; k++, i++)
			output__push(o, line, make_line(line, sizeof(line), i), i);
		usleep(1000);
		output__stats(o, &st);
		if (st.connect_failures >= 1)
			atomic_store(&r.relisten, true);
		pthread_mutex_lock(&r.mu);
		bool again = r.nconn >= 2;
		pthread_mutex_unlock(&r.mu);
		if (again)
			break;
	}
	output__close(o, now_ms() + 20000, &st);
	print_stats("reconnect", &st);
	WAIT_FOR(reader__len(&r) >= st.bytes, 3000);
	reader__stop(&r);
	printf("reconnect: %d connections, %zu bytes read\n", r.nconn, r.len);
	CHECK(r.nconn >= 2);
	/* each connection alone: complete lines from its first byte, numbers
	 * only going up across connections (lost ones allowed, no repeats) */
	for (int c = 0; c < r.nconn; c++) {
		size_t from = r.conn_start[c], to = c + 1 < r.nconn ? r.conn_start[c + 1] : r.len;
		long got;

		/* the collector closing with bytes in flight may have read only
		 * the start of its last line: cut there by it, not by us */
		while (c + 1 < r.nconn && to > from && r.data[to - 1] != '\n')
			to--;
		got = check_lines(r.data + from, to - from, &last, &marked, &markers, false);

		CHECK(got >= 0);
		if (c > 0)
			CHECK(got > 0);
		lines += got;
	}
	CHECK(st.connects >= 2);
	CHECK(st.connect_failures >= 1);
	CHECK((uint64_t)lines <= st.emitted);
	CHECK_EQ(st.queued + st.drop_queue_full, i);
	CHECK(markers <= st.markers);
	CHECK(accounted(&st));
	CHECK(notices__has(&ns, "lost"));
	CHECK(notices__has(&ns, "retrying with backoff"));
	printf("%s", ns.text);
	reader__free(&r);
}

static void test_stalled(void)
{
	struct reader r = { .stall = true };
	struct output_opts opts = { .queue_bytes = 1 << 20 };
	struct output_stats st;
	struct output *o;
	char url[64], err[256], line[256];
	uint64_t t0, dt, end;
	struct t_watch w;
	unsigned i = 0;

	r.lfd = tcp_listen(&r.port);
	reader__start(&r);
	snprintf(url, sizeof(url), "tcp://127.0.0.1:%d", r.port);
	o = output__open(url, &opts, err, sizeof(err));
	CHECK(o != NULL);
	/* fill the socket buffers and then the queue */
	end = now_ms() + 10000;
	do {
		for (int k = 0; k < 1000; k++, i++)
			output__push(o, line, make_line(line, sizeof(line), i), i);
		output__stats(o, &st);
		usleep(1000);
	} while (st.drop_queue_full < 1000 && now_ms() < end);
	t0 = now_ms();
	t_watch_start(&w);
	output__close(o, t0 + 300, &st);
	dt = now_ms() - t0;
	print_stats("stalled", &st);
	printf("stalled: close took %llu ms\n", (unsigned long long)dt);
	CHECK(dt >= 290);
	CHECK(t_watch_ms(&w) < 1000u * (unsigned)slow_factor);
	CHECK(st.drop_exit > 0);
	CHECK_EQ(st.emitted + st.drop_exit + st.drop_error, st.queued);
	CHECK_EQ(st.queue_lines, 0);
	reader__stop(&r);
	reader__free(&r);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	test_in_order("127.0.0.1", AF_INET);
	test_in_order("[::1]", AF_INET6);
	test_in_order("localhost", AF_INET);
	test_reconnect();
	test_stalled();
	return t_report();
}
