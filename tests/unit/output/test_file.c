/* file: outputs: every line once, in order, none cut, across a logrotate
 * (rename, then output__reopen: the following lines go to the new file);
 * mode 0600; a lone line is written within the writer's tick without a kick. */
#include <fcntl.h>
#include <sys/stat.h>

#include "util.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, n;

	*len = 0;
	if (!f)
		return NULL;
	do {
		if (*len + 65536 > cap) {
			cap = (*len + 65536) * 2;
			buf = realloc(buf, cap);
		}
		n = fread(buf + *len, 1, 65536, f);
		*len += n;
	} while (n > 0);
	fclose(f);
	return buf;
}

static void test_rotate(const char *dir)
{
	struct output_opts opts = { .queue_bytes = 64 << 10 };
	struct output_stats st;
	struct output *o;
	struct stat sb;
	char path[256], rotated[256], url[300], err[256];
	uint64_t marked = 0, markers = 0;
	unsigned n = 200000;
	size_t len1, len2;
	char *d1, *d2;
	long last = -1, l1, l2;

	snprintf(path, sizeof(path), "%s/agent.log", dir);
	snprintf(rotated, sizeof(rotated), "%s/agent.log.1", dir);
	snprintf(url, sizeof(url), "file:%s", path);
	o = output__open(url, &opts, err, sizeof(err));
	CHECK(o != NULL);
	for (unsigned i = 0; i < n; i++) {
		if (i == n / 2) {
			rename(path, rotated);
			output__reopen(o);
		}
		push_wait(o, i);
	}
	output__close(o, now_ms() + 20000, &st);
	print_stats("file", &st);
	d1 = slurp(rotated, &len1);
	d2 = slurp(path, &len2);
	CHECK(d1 && d2);
	l1 = check_lines(d1, len1, &last, &marked, &markers, true);
	l2 = check_lines(d2, len2, &last, &marked, &markers, true);
	printf("file: %ld lines before the rotation, %ld after\n", l1, l2);
	CHECK(l1 > 0);
	CHECK(l2 > 0);
	CHECK_EQ(l1 + l2, n);
	CHECK_EQ(last, n - 1);
	CHECK_EQ(st.emitted, n);
	CHECK_EQ(st.connects, 2);
	CHECK_EQ(st.write_errors, 0);
	CHECK_EQ(st.bytes, len1 + len2);
	CHECK(accounted(&st));
	CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600);
	free(d1);
	free(d2);
	unlink(path);
	unlink(rotated);
}

/* Not a batch's worth and no kick: the writer's tick writes it anyway. */
static void test_tick(const char *dir)
{
	struct output_opts opts = { 0 };
	struct output *o;
	struct stat sb;
	char path[256], url[300], err[256], line[256];
	size_t len = make_line(line, sizeof(line), 7);
	struct t_watch w;
	uint64_t t0;

	snprintf(path, sizeof(path), "%s/tick.log", dir);
	snprintf(url, sizeof(url), "file:%s", path);
	o = output__open(url, &opts, err, sizeof(err));
	CHECK(o != NULL);
	msleep(50);
	t0 = now_ms();
	t_watch_start(&w);
	output__push(o, line, len, 7);
	WAIT_FOR(stat(path, &sb) == 0 && (size_t)sb.st_size == len, 1000);
	printf("tick: a lone line written after %llu ms\n", (unsigned long long)(now_ms() - t0));
	CHECK((size_t)sb.st_size == len);
	CHECK(t_watch_ms(&w) < 400u * (unsigned)slow_factor);
	/* a kick, and the next one goes at once */
	t0 = now_ms();
	output__push(o, line, len, 7);
	output__kick(o);
	WAIT_FOR(stat(path, &sb) == 0 && (size_t)sb.st_size == 2 * len, 1000);
	CHECK((size_t)sb.st_size == 2 * len);
	printf("tick: a kicked line written after %llu ms\n", (unsigned long long)(now_ms() - t0));
	output__close(o, now_ms() + 1000, NULL);
	unlink(path);
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/output-test-XXXXXX";

	test_init(argc, argv);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	test_rotate(dir);
	test_tick(dir);
	rmdir(dir);
	return t_report();
}
