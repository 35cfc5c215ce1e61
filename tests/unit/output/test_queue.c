/* The queue alone: records in order and intact across many wrap-arounds, full
 * and oversized records refused, byte and line counts; then a producer and a
 * consumer thread at full speed. Also the URL parser's answers. */
#include <errno.h>
#include <sched.h>

#include "queue.h"
#include "url.h"
#include "util.h"

/* Record I: length and bytes both follow from I. */
static size_t rec_make(char *buf, unsigned i)
{
	size_t len = (i * 7919u) % 301;

	for (size_t k = 0; k < len; k++)
		buf[k] = (char)(i + k);
	return len;
}

static bool rec_is(const struct queue_rec *rec, unsigned i)
{
	char want[512];
	size_t len = rec_make(want, i);

	return rec->len == len && rec->ts_ns == i && !memcmp(queue__data(rec), want, len);
}

/* Pops one record; false when empty or wrong. */
static bool pop(struct queue *q, unsigned want)
{
	uint64_t pos = queue__tail(q);
	const struct queue_rec *rec = queue__peek(q, &pos, queue__head(q));

	if (!rec || !rec_is(rec, want))
		return false;
	queue__release(q, queue__after(pos, rec), rec->kind == QUEUE_LINE);
	return true;
}

static void test_wraps(void)
{
	struct queue q;
	char buf[512];
	unsigned in = 0, out = 0, refused = 0;
	bool ok = true;

	CHECK_EQ(queue__init(&q, 1000), 0);
	CHECK_EQ(queue__capacity(&q), 4096);
	/* bursts of pushes until full, then some pops: the head and tail go
	 * round the 4 KiB buffer many times, stopping at every offset */
	for (int round = 0; round < 20000 && ok; round++) {
		int burst = round % 13;

		for (int k = 0; k < burst; k++) {
			size_t len = rec_make(buf, in);

			if (queue__push(&q, QUEUE_LINE, in, buf, len, 1)) {
				refused++;
				break;
			}
			in++;
		}
		CHECK(queue__bytes(&q) <= 4096);
		for (int k = 0; k < (round % 11) && out < in; k++)
			ok = ok && pop(&q, out++);
		if (queue__lines(&q) != in - out)
			ok = false;
	}
	while (ok && out < in)
		ok = pop(&q, out++);
	CHECK(ok);
	CHECK(in > 50000);
	CHECK(refused > 0);
	CHECK_EQ(queue__bytes(&q), 0);
	CHECK_EQ(queue__lines(&q), 0);
	printf("queue: %u records through a 4 KiB queue, %u refused when full\n", in, refused);

	/* a record over half the queue never fits, even when empty */
	CHECK_EQ(queue__push(&q, QUEUE_LINE, 0, buf, 2048, 1), -ENOBUFS);
	CHECK_EQ(queue__push(&q, QUEUE_LINE, 0, buf, 2048 - 16, 1), 0);
	/* a marker is no line */
	CHECK_EQ(queue__push(&q, QUEUE_MARKER, 0, "m\n", 2, 0), 0);
	CHECK_EQ(queue__lines(&q), 1);
	queue__fini(&q);
}

struct spsc {
	struct queue q;
	unsigned n;
	bool ok;
};

static void *producer(void *arg)
{
	struct spsc *t = arg;
	char buf[512];

	for (unsigned i = 0; i < t->n;) {
		size_t len = rec_make(buf, i);

		if (!queue__push(&t->q, QUEUE_LINE, i, buf, len, 1))
			i++;
		else
			sched_yield();	/* valgrind runs one thread at a time */
	}
	return NULL;
}

static void test_threads(void)
{
	struct spsc t = { .n = slow_factor > 1 ? 20000 : 1000000, .ok = true };
	pthread_t th;
	unsigned out = 0;

	CHECK_EQ(queue__init(&t.q, 8192), 0);
	pthread_create(&th, NULL, producer, &t);
	while (out < t.n && t.ok) {
		uint64_t head = queue__head(&t.q), pos = queue__tail(&t.q), lines = 0;
		const struct queue_rec *rec;

		/* a batch at a time, as the writer does */
		while ((rec = queue__peek(&t.q, &pos, head))) {
			if (!rec_is(rec, out)) {
				t.ok = false;
				break;
			}
			out++;
			lines++;
			pos = queue__after(pos, rec);
		}
		queue__release(&t.q, pos, lines);
		if (!lines)
			sched_yield();
	}
	pthread_join(th, NULL);
	CHECK(t.ok);
	CHECK_EQ(out, t.n);
	CHECK_EQ(queue__lines(&t.q), 0);
	queue__fini(&t.q);
}

static void check_bad_url(const char *url, const char *msg)
{
	struct output_url u;
	char err[512] = "";
	int ret = output_url__parse(&u, url, err, sizeof(err));

	CHECK_EQ(ret, -EINVAL);
	if (!strstr(err, msg)) {
		fprintf(stderr, "%s: '%s' does not say '%s'\n", url, err, msg);
		CHECK(false);
	}
	output_url__fini(&u);
}

static void check_url(const char *url, enum output_kind kind, const char *host,
		      const char *port, const char *path)
{
	struct output_url u;
	char err[512] = "";

	CHECK_EQ(output_url__parse(&u, url, err, sizeof(err)), 0);
	CHECK_EQ(u.kind, kind);
	CHECK(!host || (u.host && !strcmp(u.host, host)));
	CHECK(!port || (u.port && !strcmp(u.port, port)));
	CHECK(!path || (u.path && !strcmp(u.path, path)));
	output_url__fini(&u);
}

static void test_urls(void)
{
	char err[512];
	struct output *o;

	check_url("stdout", OUTPUT_STDOUT, NULL, NULL, NULL);
	check_url("-", OUTPUT_STDOUT, NULL, NULL, NULL);
	check_url("file:/tmp/x.log", OUTPUT_FILE, NULL, NULL, "/tmp/x.log");
	check_url("tcp://localhost:9000", OUTPUT_TCP, "localhost", "9000", NULL);
	check_url("tcp://[::1]:9000", OUTPUT_TCP, "::1", "9000", NULL);
	check_url("unix:/run/c.sock", OUTPUT_UNIX, NULL, NULL, "/run/c.sock");
	check_url("http://h/ingest", OUTPUT_HTTP, NULL, NULL, NULL);
	check_url("https://h:8443/a?b=c", OUTPUT_HTTP, NULL, NULL, NULL);
	check_url("http://[::1]:8080/", OUTPUT_HTTP, NULL, NULL, NULL);
	check_url("syslog", OUTPUT_SYSLOG, NULL, NULL, "/dev/log");
	check_url("syslog:/tmp/log.sock", OUTPUT_SYSLOG, NULL, NULL, "/tmp/log.sock");
	check_url("syslog://10.0.0.1:514", OUTPUT_SYSLOG_TCP, "10.0.0.1", "514", NULL);

	check_bad_url("ftp://x", "unknown output 'ftp://x': use stdout, file:PATH, tcp://HOST:PORT, "
		      "unix:PATH, http(s)://HOST[:PORT]/PATH, syslog, syslog:PATH or syslog://HOST:PORT");
	check_bad_url("stdout2", "unknown output");
	check_bad_url("tcp://host", "tcp:// needs HOST:PORT");
	check_bad_url("tcp://:80", "host is empty");
	check_bad_url("tcp://h:0", "port '0' is not a number from 1 to 65535");
	check_bad_url("tcp://h:65536", "1 to 65535");
	check_bad_url("tcp://h:8x", "1 to 65535");
	check_bad_url("tcp://h:80/x", "no path");
	check_bad_url("tcp://::1:80", "brackets");
	check_bad_url("tcp://[::1]", "HOST:PORT");
	check_bad_url("syslog://h", "syslog:// needs HOST:PORT");
	check_bad_url("file:", "needs a path");
	check_bad_url("unix:", "needs a path");
	check_bad_url("syslog:", "needs a path");
	check_bad_url("http://", "needs a host");
	check_bad_url("http://h:99999/", "1 to 65535");
	check_bad_url("unix:/tmp/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		      "at most 107 bytes");

	/* output__open: the same message, errno EINVAL */
	errno = 0;
	o = output__open("tcp://nohost", NULL, err, sizeof(err));
	CHECK(!o);
	CHECK_EQ(errno, EINVAL);
	CHECK(strstr(err, "tcp:// needs HOST:PORT") != NULL);
	/* a file that cannot be opened fails the open */
	errno = 0;
	o = output__open("file:/nonexistent-dir/x.log", NULL, err, sizeof(err));
	CHECK(!o);
	CHECK_EQ(errno, ENOENT);
	CHECK(strstr(err, "/nonexistent-dir/x.log") && strstr(err, "No such file"));
	/* an unreachable peer does not */
	o = output__open("tcp://127.0.0.1:1", NULL, err, sizeof(err));
	CHECK(o != NULL);
	CHECK_EQ(output__kind(o), OUTPUT_TCP);
	CHECK(!strcmp(output__url(o), "tcp://127.0.0.1:1"));
	output__close(o, now_ms() + 100, NULL);
	output__close(NULL, 0, NULL);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	test_wraps();
	test_threads();
	test_urls();
	return t_report();
}
