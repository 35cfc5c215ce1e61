/* Recent slices per thread (recent.h) and a slow request's timeline
 * (timeline.h): the window a request asks for, a ring that wrapped, the
 * table's bound and deletions; the JSON's fields read back with json-c, and
 * the SVG read back as XML by python's parser (argv[1]: python3, "" none)
 * with its labels escaped. */
#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recent.h"
#include "timeline.h"
#include "t_check.h"

static struct prof_batch batch(uint64_t tid, uint64_t from, unsigned n, uint64_t step)
{
	struct prof_batch b = { .tid = tid, .from = from, .n = n };

	for (unsigned i = 0; i < n; i++)
		b.s[i] = (struct prof_slice_rec){ .start = from + i * step, .dur = step / 2,
						  .kind = PROF_SLICE_SLEEP };
	b.to = from + n * step;
	return b;
}

static void test_recent(void)
{
	struct prof_recent *r = prof_recent__new();
	struct prof_slice_rec out[PROF_RECENT_SLICES];
	struct prof_recent_counters c;
	bool whole;
	size_t n;

	CHECK(r != NULL);
	if (!r)
		return;
	/* 3 batches of 16: slices at 1000 + 100 k, each 50 long */
	for (unsigned i = 0; i < 3; i++) {
		struct prof_batch b = batch(5, 1000 + i * 1600, 16, 100);

		prof_recent__batch(r, &b, NULL);
	}
	/* 1220..1530 overlaps the slices at 1200, 1300, 1400, 1500 (1500 + 50 >
	 * 1530 > 1500), not 1100 (it ends at 1150) */
	n = prof_recent__window(r, 5, 1220, 1530, out, NULL, 16, &whole);
	CHECK_INT(n, 4);
	CHECK(whole);
	CHECK_INT(out[0].start, 1200);
	CHECK_INT(out[3].start, 1500);
	/* names kept with their slices: a long one by its end */
	{
		struct prof_batch b = batch(11, 5000, 2, 100);
		char names[2][PROF_RECENT_NAME];
		const char *in[2] = { "/var/lib/a/very/long/directory/name/that/goes/on/file.dat",
				      NULL };

		prof_recent__batch(r, &b, in);
		CHECK_INT(prof_recent__window(r, 11, 0, 10000, out, names, 2, &whole), 2);
		CHECK_STR(names[0], "/a/very/long/directory/name/that/goes/on/file.dat" + 2);
		CHECK_INT(strlen(names[0]), PROF_RECENT_NAME - 1);
		CHECK_STR(names[1], "");
		prof_recent__forget(r, 11);
	}
	/* more than N overlap: not whole */
	n = prof_recent__window(r, 5, 0, 100000, out, NULL, 10, &whole);
	CHECK_INT(n, 10);
	CHECK(!whole);
	n = prof_recent__window(r, 6, 0, 100000, out, NULL, 10, &whole);	/* not kept */
	CHECK_INT(n, 0);
	CHECK(!whole);
	/* the ring wraps: the oldest go, a window reaching them is not whole */
	for (unsigned i = 0; i < PROF_RECENT_SLICES / 16; i++) {
		struct prof_batch b = batch(5, 100000 + i * 1600, 16, 100);

		prof_recent__batch(r, &b, NULL);
	}
	n = prof_recent__window(r, 5, 1000, 200000, out, NULL, PROF_RECENT_SLICES, &whole);
	CHECK_INT(n, PROF_RECENT_SLICES);
	CHECK(!whole);
	CHECK_INT(out[0].start, 100000);
	n = prof_recent__window(r, 5, 100000, 200000, out, NULL, PROF_RECENT_SLICES, &whole);
	CHECK(whole);
	/* a thread's exit: gone, and its ring serves another */
	prof_recent__forget(r, 5);
	n = prof_recent__window(r, 5, 0, 1000000, out, NULL, 10, &whole);
	CHECK_INT(n, 0);
	/* the bound: 3/4 of the slots, then counted; all found after deletions */
	for (uint64_t t = 1; t <= PROF_RECENT_THREADS; t++) {
		struct prof_batch b = batch(t * 7919, 10, 1, 10);

		prof_recent__batch(r, &b, NULL);
	}
	prof_recent__counters(r, &c);
	CHECK_INT(c.n_threads, PROF_RECENT_THREADS / 4 * 3);
	CHECK_INT(c.n_full, PROF_RECENT_THREADS - PROF_RECENT_THREADS / 4 * 3);
	for (uint64_t t = 1; t <= PROF_RECENT_THREADS / 4 * 3; t += 2)
		prof_recent__forget(r, t * 7919);
	for (uint64_t t = 2; t <= PROF_RECENT_THREADS / 4 * 3; t += 2) {
		n = prof_recent__window(r, t * 7919, 0, 100, out, NULL, 4, &whole);
		if (n != 1) {
			CHECK_INT(n, 1);
			break;
		}
	}
	/* freed rings are handed out again */
	{
		struct prof_batch b = batch(3, 10, 2, 10);

		prof_recent__batch(r, &b, NULL);
		CHECK_INT(prof_recent__window(r, 3, 0, 100, out, NULL, 4, &whole), 2);
	}
	prof_recent__free(r);
}

static const char *str(struct json_object *o, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v) : "";
}

static int64_t num(struct json_object *o, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(o, k, &v) ? json_object_get_int64(v) : -12345;
}

static void test_timeline(const char *python)
{
	struct prof_tl_slice s[3] = {
		{ .start = 1000100, .dur = 30000, .kind = PROF_SLICE_SLEEP, .syscall = "nanosleep",
		  .fd = -1 },
		{ .start = 1040000, .dur = 25000, .kind = PROF_SLICE_LOCK, .syscall = "futex",
		  .fd = -1, .futex = 0x7f00aa, .waker = 77, .waker_name = "holder<&>" },
		{ .start = 1070000, .dur = 5000, .kind = PROF_SLICE_FILE, .syscall = "fsync",
		  .fd = 5, .fd_name = "/tmp/a \"b\".dat" },
	};
	struct prof_tl_call c = { .id = 9, .start = 1080000, .dur = 300, .proto = "redis",
				  .what = "PING", .peer = "127.0.0.1:6379", .status = -1 };
	struct prof_timeline t = { .id = 8, .title = "http GET /work 200",
				   .thread = "srv[1/2] host", .start = 1000000, .end = 1100000,
				   .whole = true, .oncpu = 40000, .s = s, .n = 3, .calls = &c,
				   .ncalls = 1 };
	struct json_object *o = prof_timeline__json(&t), *a, *x;
	char path[] = "/tmp/test_timeline.XXXXXX";
	int fd;
	FILE *f;

	t.t[PROF_SLICE_SLEEP] = 30000;
	CHECK(o != NULL);
	if (!o)
		return;
	CHECK_INT(num(o, "start"), 1000000);
	CHECK(json_object_object_get_ex(o, "slices", &a) && json_object_array_length(a) == 3);
	x = json_object_array_get_idx(a, 1);
	CHECK_INT(num(x, "offset"), 40000);
	CHECK_INT(num(x, "dur"), 25000);
	CHECK_STR(str(x, "state"), "off");
	CHECK_STR(str(x, "reason"), "lock");
	CHECK_STR(str(x, "syscall"), "futex");
	CHECK_STR(str(x, "futex"), "0x7f00aa");
	CHECK_INT(num(x, "waker.tid"), 77);
	CHECK_STR(str(x, "waker.name"), "holder<&>");
	CHECK_INT(num(x, "fd"), -12345);		/* no fd: no key */
	x = json_object_array_get_idx(a, 2);
	CHECK_INT(num(x, "fd"), 5);
	CHECK_STR(str(x, "fd.name"), "/tmp/a \"b\".dat");
	CHECK(json_object_object_get_ex(o, "calls", &a) && json_object_array_length(a) == 1);
	x = json_object_array_get_idx(a, 0);
	CHECK_INT(num(x, "req.id"), 9);
	CHECK_INT(num(x, "offset"), 80000);
	CHECK_STR(str(x, "protocol"), "redis");
	CHECK_INT(num(x, "status"), -12345);		/* none: no key */
	json_object_put(o);

	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	f = fdopen(fd, "w");
	CHECK_INT(prof_timeline__svg(&t, f), 0);
	fclose(f);
	if (python && *python) {
		char cmd[512];

		/* well-formed XML, with the labels read back unescaped */
		snprintf(cmd, sizeof(cmd), "%s -c \"import sys, xml.etree.ElementTree as E; "
			 "t = ''.join(E.parse(sys.argv[1]).getroot().itertext()); "
			 "assert 'holder<&>' in t and 'fd 5 /tmp/a ' in t and 'b' in t and "
			 "'redis PING' in t, t\" %s", python, path);
		CHECK_INT(system(cmd), 0);
	} else {
		printf("python3 not given: the SVG's XML check is skipped\n");
	}
	unlink(path);
}

int main(int argc, char **argv)
{
	test_recent();
	test_timeline(argc > 1 ? argv[1] : NULL);
	return t_report();
}
