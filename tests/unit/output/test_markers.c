/* Drop markers and the accounting invariant: a queue that fills while the
 * collector is down gets one marker with the number dropped, before the next
 * line, once there is room again (text and JSON); a fast producer into a 16
 * KiB queue read slowly over a unix socket loses lines only to "queue full",
 * each loss reported by a marker, and every line pushed is counted once. */
#include "util.h"

static void test_marker_once(bool json)
{
	struct reader r = { 0 };
	struct output_opts opts = { .queue_bytes = 4096, .json = json };
	struct output_stats st;
	struct notices ns;
	struct output *o;
	char url[64], err[256], line[256], want[256];
	uint64_t marked = 0, markers = 0, dropped;
	unsigned i, fitted = 0;
	long last = -1;
	const char *cannot, *again;

	/* bound, not listening: connecting is refused until listen() */
	r.lfd = tcp_socket_bound(&r.port);
	notices__init(&ns);
	opts.notice = notices__add;
	opts.notice_arg = &ns;
	snprintf(url, sizeof(url), "tcp://127.0.0.1:%d", r.port);
	o = output__open(url, &opts, err, sizeof(err));
	CHECK(o != NULL);
	for (i = 0; i < 100; i++)
		fitted += output__push(o, line, make_line(line, sizeof(line), i), i) == 0;
	output__stats(o, &st);
	dropped = 100 - fitted;
	CHECK(fitted > 10);
	CHECK(dropped > 10);
	CHECK_EQ(st.drop_queue_full, dropped);
	CHECK_EQ(st.queued, fitted);
	/* let a few connects fail, then the collector comes up */
	msleep(350);
	listen(r.lfd, 4);
	reader__start(&r);
	WAIT_FOR((output__stats(o, &st), st.queue_lines == 0), 3000);
	CHECK_EQ(st.queue_lines, 0);
	CHECK_EQ(st.markers, 0);
	/* the marker goes before the next line, then not again */
	output__push(o, line, make_line(line, sizeof(line), 100), 100);
	output__push(o, line, make_line(line, sizeof(line), 101), 101);
	output__close(o, now_ms() + 20000, &st);
	print_stats(json ? "marker json" : "marker text", &st);
	WAIT_FOR(reader__len(&r) >= st.bytes, 2000);
	reader__stop(&r);
	CHECK_EQ(check_lines(r.data, r.len, &last, &marked, &markers, true), fitted + 2);
	CHECK_EQ(markers, 1);
	CHECK_EQ(marked, dropped);
	CHECK_EQ(st.markers, 1);
	CHECK_EQ(st.emitted, fitted + 2);
	CHECK_EQ(st.queued, fitted + 2);
	CHECK(accounted(&st));
	if (json)
		snprintf(want, sizeof(want), "\n{\"agent.drop\":{\"output\":\"%s\",\"reason\":"
			 "\"queue full\",\"count\":%llu}}\nline 100 ", url, (unsigned long long)dropped);
	else
		snprintf(want, sizeof(want), "\nagent: %llu events dropped for this output "
			 "(queue full)\nline 100 ", (unsigned long long)dropped);
	CHECK(r.data && memmem(r.data, r.len, want, strlen(want)));
	/* a run of refused connects is told once, the recovery once */
	CHECK(st.connect_failures >= 2);
	cannot = strstr(ns.text, "1 cannot connect to ");
	CHECK(cannot && !strstr(cannot + 3, "cannot connect"));
	CHECK(cannot && strstr(cannot, "Connection refused; retrying with backoff\n"));
	again = strstr(ns.text, "0 connected to ");
	CHECK(again && again > cannot);
	reader__free(&r);
}

static void test_accounting(void)
{
	struct reader r = { .delay_us = 100, .chunk = 512 };
	struct output_opts opts = { .queue_bytes = 16384 };
	struct output_stats st, fin;
	struct output *o;
	char path[64], url[80], err[256], line[256];
	uint64_t marked = 0, markers = 0;
	unsigned n = 100000;
	long last = -1, lines;

	snprintf(path, sizeof(path), "/tmp/output-test-%d.sock", (int)getpid());
	r.lfd = unix_bind(path, SOCK_STREAM);
	reader__start(&r);
	snprintf(url, sizeof(url), "unix:%s", path);
	o = output__open(url, &opts, err, sizeof(err));
	CHECK(o != NULL);
	/* in bursts faster than the reader: the queue fills, drains a little,
	 * fills again, its records wrapping round many times */
	for (unsigned i = 0; i < n; i++) {
		output__push(o, line, make_line(line, sizeof(line), i), i);
		if (i % 200 == 199)
			usleep(200);
	}
	WAIT_FOR((output__stats(o, &st), st.queue_lines == 0), 20000);
	/* the drops since the last marker get theirs with this line */
	output__push(o, line, make_line(line, sizeof(line), n), n);
	WAIT_FOR((output__stats(o, &st), st.queue_lines == 0), 5000);
	print_stats("accounting", &st);
	CHECK(accounted(&st));
	CHECK_EQ(st.queued + st.drop_queue_full, n + 1);
	CHECK(st.drop_queue_full > 0);
	CHECK(st.markers > 0);
	output__close(o, now_ms() + 20000, &fin);
	CHECK(accounted(&fin));
	CHECK_EQ(fin.drop_exit, 0);
	CHECK_EQ(fin.drop_error, 0);
	CHECK_EQ(fin.emitted, st.queued);
	WAIT_FOR(reader__len(&r) >= fin.bytes, 5000);
	reader__stop(&r);
	CHECK_EQ(r.len, fin.bytes);
	lines = check_lines(r.data, r.len, &last, &marked, &markers, true);
	CHECK_EQ(lines, fin.emitted);
	CHECK_EQ(last, n);
	CHECK_EQ(markers, fin.markers);
	CHECK_EQ(marked, fin.drop_queue_full);
	unlink(path);
	reader__free(&r);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	test_marker_once(false);
	test_marker_once(true);
	test_accounting();
	return t_report();
}
