/* stdout on a pipe: the reader going away is fatal with -EPIPE, whether seen
 * by a write or while idle (POLLERR); a reader that stops reading leaves the
 * writer blocked in write(), and output__close still keeps its deadline. fd 1
 * is the pipe's during each test; messages go to stderr. */
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

int main(int argc, char **argv)
{
	test_init(argc, argv);
	saved_stdout = dup(STDOUT_FILENO);
	test_epipe(false);
	test_epipe(true);
	test_stalled_pipe();
	close(saved_stdout);
	return t_report();
}
