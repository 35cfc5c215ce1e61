/* stdout on a pipe: the reader going away is fatal with -EPIPE, whether seen
 * by a write or while idle (POLLERR); a reader that stops reading leaves the
 * writer blocked in write(), and output__close still keeps its deadline. What
 * the pipe holds after a close at the deadline is whole lines, in order, as
 * many as were counted emitted: with a stalled reader, a slow one, and lines
 * longer than PIPE_BUF. fd 1 is the pipe's during each test; messages go to
 * stderr. */
#include "util.h"

static int saved_stdout;

/* fd 1 becomes a new pipe's write end; its read end is returned. */
static int stdout_to_pipe(void)
{
	int p[2];

	if (pipe(p)) {
		perror("pipe");
		exit(2);
	}
	fflush(stdout);
	dup2(p[1], STDOUT_FILENO);
	close(p[1]);
	return p[0];
}

static void stdout_restore(void)
{
	dup2(saved_stdout, STDOUT_FILENO);
}

static void test_epipe(bool idle)
{
	struct output_opts opts = { 0 };
	struct output_stats st;
	struct output *o;
	char err[256], line[256], buf[256];
	size_t len = make_line(line, sizeof(line), 1);
	int rfd = stdout_to_pipe();

	o = output__open("stdout", &opts, err, sizeof(err));
	CHECK(o != NULL);
	CHECK_EQ(output__kind(o), OUTPUT_STDOUT);
	output__push(o, line, len, 1);
	output__kick(o);
	CHECK_EQ(read(rfd, buf, sizeof(buf)), (ssize_t)len);
	/* the reader goes away */
	close(rfd);
	if (idle) {
		WAIT_FOR((output__stats(o, &st), st.fatal), 1000);
	} else {
		uint64_t end = now_ms() + 2000u * (unsigned)slow_factor;

		do {
			output__push(o, line, len, 1);
			output__kick(o);
			msleep(1);
			output__stats(o, &st);
		} while (!st.fatal && now_ms() < end);
	}
	CHECK(st.fatal);
	CHECK_EQ(st.error, -EPIPE);
	CHECK(!st.connected);
	/* fatal: what comes now is dropped, not queued up */
	output__push(o, line, len, 1);
	output__kick(o);
	WAIT_FOR((output__stats(o, &st), st.queue_lines == 0), 1000);
	CHECK_EQ(st.queue_lines, 0);
	output__close(o, now_ms() + 200, &st);
	stdout_restore();
	print_stats(idle ? "stdout idle" : "stdout write", &st);
	CHECK(accounted(&st));
	CHECK(st.drop_error > 0);
	CHECK_EQ(st.emitted, 1);
	/* idle, only poll() could tell (writing, a write or a tick's poll may) */
	if (idle)
		CHECK_EQ(st.write_errors, 0);
}

/* Line N of LEN bytes (newline included): "line N " padded with letters. */
static size_t make_long_line(char *buf, size_t len, unsigned n)
{
	size_t at = (size_t)snprintf(buf, len, "line %u ", n);

	while (at < len - 1) {
		buf[at] = (char)('a' + (n + at) % 26);
		at++;
	}
	buf[at++] = '\n';
	return at;
}

/* A reader of the pipe's read end: DELAY_US between reads of CHUNK bytes,
 * until the write end is closed; everything read kept in BUF. */
struct pipe_reader {
	pthread_t th;
	int fd;
	int delay_us;
	size_t chunk;
	char *buf;
	size_t len, cap;
};

static void *pipe_reader__main(void *arg)
{
	struct pipe_reader *r = arg;

	for (;;) {
		ssize_t n;

		if (r->len + r->chunk > r->cap) {
			r->cap = r->cap * 2 + r->chunk;
			r->buf = realloc(r->buf, r->cap);
		}
		n = read(r->fd, r->buf + r->len, r->chunk);
		if (n <= 0)
			break;
		r->len += (size_t)n;
		if (r->delay_us)
			usleep((useconds_t)r->delay_us);
	}
	return NULL;
}

/* Reads what is left in FD (the write end closed) after R's bytes, if any. */
static void pipe_drain(int fd, struct pipe_reader *r)
{
	r->fd = fd;
	r->delay_us = 0;
	r->chunk = 65536;
	pipe_reader__main(r);
}

/* BUF holds lines FIRST, FIRST+1, ... each whole (LONG: make_long_line's of
 * that length), nothing after the last newline: how many. -1 if not. */
static long whole_lines(const char *buf, size_t len, unsigned first, size_t long_len)
{
	char want[16384];
	size_t at = 0;
	long n = 0;

	while (at < len) {
		const char *nl = memchr(buf + at, '\n', len - at);
		size_t wlen;

		if (!nl)
			return -1;
		wlen = long_len ? make_long_line(want, long_len, first + (unsigned)n)
				: make_line(want, sizeof(want), first + (unsigned)n);
		if ((size_t)(nl + 1 - (buf + at)) != wlen || memcmp(buf + at, want, wlen))
			return -1;
		at += wlen;
		n++;
	}
	return n;
}

static void test_stalled_pipe(void)
{
	struct output_opts opts = { 0 };
	struct output_stats st;
	struct output *o;
	char err[256], line[256];
	int rfd = stdout_to_pipe();
	struct t_watch w;
	uint64_t t0, dt;

	o = output__open("-", &opts, err, sizeof(err));
	CHECK(o != NULL);
	/* more than the pipe holds: the writer blocks in write() */
	for (unsigned i = 0; i < 5000; i++)
		output__push(o, line, make_line(line, sizeof(line), i), i);
	output__kick(o);
	msleep(200);
	t0 = now_ms();
	t_watch_start(&w);
	output__close(o, t0 + 300, &st);
	dt = now_ms() - t0;
	stdout_restore();
	{
		struct pipe_reader r = { 0 };
		long whole;

		pipe_drain(rfd, &r);
		whole = whole_lines(r.buf, r.len, 0, 0);
		printf("stdout stalled: the pipe held %zu bytes, %ld whole lines\n", r.len, whole);
		/* the write the deadline interrupted left no part of a line */
		CHECK_EQ(whole, (long)st.emitted);
		free(r.buf);
	}
	close(rfd);
	print_stats("stdout stalled", &st);
	printf("stdout stalled: close took %llu ms\n", (unsigned long long)dt);
	CHECK(dt >= 290);
	CHECK(t_watch_ms(&w) < 1000u * (unsigned)slow_factor);
	CHECK(st.emitted > 0);
	CHECK(st.drop_exit > 0);
	CHECK(!st.fatal);
	CHECK_EQ(st.emitted + st.drop_exit, st.queued);
	CHECK(accounted(&st));
}

/* A reader that takes CHUNK bytes every DELAY_US while the output closes with
 * lines still queued (LONG_LEN: lines of that length, else make_line's): the
 * lines it read and those left in the pipe are whole and in order, and as many
 * as were counted emitted. */
static void test_slow_reader(const char *what, unsigned lines, size_t long_len, int delay_us,
			     size_t chunk)
{
	struct output_opts opts = { 0 };
	struct pipe_reader r = { .delay_us = delay_us, .chunk = chunk };
	struct output_stats st;
	struct output *o;
	char err[256], *line = malloc(16384);
	long whole;

	r.fd = stdout_to_pipe();
	o = output__open("-", &opts, err, sizeof(err));
	CHECK(o != NULL);
	pthread_create(&r.th, NULL, pipe_reader__main, &r);
	for (unsigned i = 0; i < lines; i++) {
		size_t len = long_len ? make_long_line(line, long_len, i)
				      : make_line(line, 16384, i);

		output__push(o, line, len, i);
	}
	output__kick(o);
	msleep(100);
	output__close(o, now_ms() + 200, &st);
	/* the reader sees the end once fd 1 lets go of the pipe */
	stdout_restore();
	pthread_join(r.th, NULL);
	close(r.fd);
	whole = whole_lines(r.buf, r.len, 0, long_len);
	print_stats(what, &st);
	printf("%s: read %zu bytes, %ld whole lines\n", what, r.len, whole);
	CHECK_EQ(whole, (long)st.emitted);
	CHECK(st.emitted > 0);
	CHECK(st.drop_exit > 0);
	CHECK_EQ(st.emitted + st.drop_exit, st.queued);
	CHECK(accounted(&st));
	free(r.buf);
	free(line);
}

/* Lines longer than PIPE_BUF, the reader stalled: a line is begun only when
 * the pipe can take it whole. */
static void test_stalled_long_lines(void)
{
	struct output_opts opts = { 0 };
	struct pipe_reader r = { 0 };
	struct output_stats st;
	struct output *o;
	char err[256], *line = malloc(16384);
	int rfd = stdout_to_pipe();
	long whole;

	o = output__open("-", &opts, err, sizeof(err));
	CHECK(o != NULL);
	for (unsigned i = 0; i < 100; i++)
		output__push(o, line, make_long_line(line, 6000, i), i);
	output__kick(o);
	msleep(200);
	output__close(o, now_ms() + 200, &st);
	stdout_restore();
	pipe_drain(rfd, &r);
	close(rfd);
	whole = whole_lines(r.buf, r.len, 0, 6000);
	print_stats("stdout stalled, long lines", &st);
	printf("stdout stalled, long lines: the pipe held %zu bytes, %ld whole lines\n", r.len, whole);
	CHECK_EQ(whole, (long)st.emitted);
	CHECK(st.emitted > 0);
	CHECK_EQ(st.emitted + st.drop_exit, st.queued);
	CHECK_EQ(st.write_errors, 0);
	free(r.buf);
	free(line);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	saved_stdout = dup(STDOUT_FILENO);
	test_epipe(false);
	test_epipe(true);
	test_stalled_pipe();
	test_stalled_long_lines();
	/* a slow reader of short lines, and of long ones */
	test_slow_reader("stdout slow reader", 200000, 0, 500, 1000);
	test_slow_reader("stdout slow reader, long lines", 2000, 6000, 500, 3000);
	close(saved_stdout);
	return t_report();
}
