/* The -C/-G/-W file series (capfile_cycle) and the writer's safety: sysdig's
 * names, sizes and times, each file starting with the state, 0600 files, a
 * symlink at the target refused and its target untouched. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capfile.h"
#include "t_check.h"
#include "frame_builder.h"
#include "inspect.h"

static char tmpdir[] = "/tmp/test_capfile_cycle.XXXXXX";
#define SEC 1000000000ull
#define T0 (1700000000ull * SEC)

static uint32_t close_frame(uint8_t *buf, uint64_t ts, int64_t fd)
{
	struct frame_builder fb;

	fb__begin(&fb, buf, 256, PPME_SYSCALL_CLOSE_E, 100, ts);
	fb__u64(&fb, (uint64_t)fd);
	return fb__end(&fb, 0);
}

static struct inspector *source(void)
{
	struct inspector_opts io = { .no_proc_scan = true, .no_proc_lookup = true };
	struct inspector *in = inspector__new(&io);
	struct thread_info *t = inspector__add_thread(in, 100, 100);

	snprintf(t->comm, sizeof(t->comm), "worker");
	return in;
}

static int n_states;

static int write_state(struct capfile_writer *w, void *ctx)
{
	n_states++;
	return capfile_writer__state(w, ctx, NULL);
}

static bool exists(const char *name)
{
	char p[4200];

	snprintf(p, sizeof(p), "%s/%s", tmpdir, name);
	return access(p, F_OK) == 0;
}

static off_t size_of(const char *name)
{
	char p[4200];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", tmpdir, name);
	return stat(p, &st) ? -1 : st.st_size;
}

/* Events, threads from the lists, and whether thread 100 is named. */
static void replay(const char *name, uint64_t *n, uint64_t *threads, bool *named)
{
	struct inspector_opts io = { .no_proc_scan = true, .no_proc_lookup = true };
	struct inspector *in = inspector__new(&io);
	struct capfile_import imp = { 0 };
	struct capfile_error err;
	struct capture_event ev;
	struct thread_info *t;
	struct capture *c;
	char p[4200];

	snprintf(p, sizeof(p), "%s/%s", tmpdir, name);
	*n = 0;
	c = capture__open_file_state(p, &err, in, &imp);
	while (c && capture__next(c, &ev, 0) == 0)
		(*n)++;
	t = thread_table__find(inspector__threads(in), 100);
	*named = t && !strcmp(t->comm, "worker");
	*threads = imp.n_threads;
	capture__close(c);
	inspector__free(in);
}

/* Writes N events of ts T0 + i * STEP through a cycle of O. */
static int run(struct capfile_cycle_opts *o, struct inspector *in, int n, uint64_t step,
	       uint64_t *files)
{
	static uint8_t frame[256];
	struct capfile_cycle *c;
	int err = 0;

	n_states = 0;
	c = capfile_cycle__open(o, write_state, in);
	if (!c)
		return -errno;
	err = capfile_writer__state(capfile_cycle__writer(c), in, NULL);
	for (int i = 0; i < n && !err; i++) {
		uint64_t ts = T0 + i * step;

		close_frame(frame, ts, i);
		if ((err = capfile_cycle__consider(c, ts)) > 0)
			err = 0;
		if (!err)
			err = capfile_writer__write(capfile_cycle__writer(c), 0,
						    (const struct ppm_evt_hdr *)frame);
	}
	*files = capfile_cycle__files(c);
	return capfile_cycle__close(c) ?: err;
}

/* -C 1 -W 3: "cap0".."cap2", the name reused; each about 10^6 bytes and each
 * with the state. */
static void test_size(struct inspector *in, bool gzip)
{
	char base[4200];
	struct capfile_cycle_opts o = { .path = base, .gzip = gzip,
					.rollover_bytes = 1000000, .file_limit = 3 };
	uint64_t files, n, threads;
	bool named;

	snprintf(base, sizeof(base), "%s/size%d.scap", tmpdir, gzip);
	/* a close event block is 52 bytes: 100000 of them make 5.2 MB, 6 files */
	CHECK_EQ(run(&o, in, gzip ? 1000000 : 100000, 1000, &files), 0);
	CHECK(files >= 4);
	if (!gzip)
		CHECK_EQ(files, 6);
	CHECK_EQ(n_states, files - 1);
	for (int i = 0; i < 3; i++) {
		char name[64];

		snprintf(name, sizeof(name), "size%d.scap%d", gzip, i);
		CHECK(exists(name));
		if (!gzip && i != (int)((files - 1) % 3)) {
			/* full files: just over 10^6 bytes (checked before each event) */
			CHECK(size_of(name) > 1000000 && size_of(name) <= 1000000 + 52);
		}
		replay(name, &n, &threads, &named);
		CHECK(n > 0);
		CHECK_EQ(threads, 1);
		CHECK(named);
	}
	CHECK(!exists(gzip ? "size1.scap3" : "size0.scap3"));
}

/* -C 1 with -W 10 pads to two digits; without -W no padding. */
static void test_names(struct inspector *in)
{
	char base[4200];
	struct capfile_cycle_opts o = { .path = base, .rollover_bytes = 1000000,
					.file_limit = 10 };
	uint64_t files;

	snprintf(base, sizeof(base), "%s/w10-", tmpdir);
	CHECK_EQ(run(&o, in, 50000, 1000, &files), 0);
	CHECK_EQ(files, 3);
	CHECK(exists("w10-00") && exists("w10-01") && exists("w10-02") && !exists("w10-0"));
	snprintf(base, sizeof(base), "%s/now-", tmpdir);
	o.file_limit = 0;
	CHECK_EQ(run(&o, in, 50000, 1000, &files), 0);
	CHECK(exists("now-0") && exists("now-1") && exists("now-2") && !exists("now-00"));
	/* neither -C nor -G: the name itself */
	snprintf(base, sizeof(base), "%s/one.scap", tmpdir);
	o.rollover_bytes = 0;
	CHECK_EQ(run(&o, in, 50000, 1000, &files), 0);
	CHECK_EQ(files, 1);
	CHECK(exists("one.scap"));
}

/* -G 1 over 3.5 s of event time: a file per second, "g0".."g3"; with -W 2 the
 * names wrap; with a strftime pattern and -W 2 only the last two remain. */
static void test_seconds(struct inspector *in)
{
	char base[4200], name[64];
	struct capfile_cycle_opts o = { .path = base, .seconds = 1 };
	uint64_t files, n, threads, total = 0;
	bool named;
	struct tm tm;
	time_t t;

	snprintf(base, sizeof(base), "%s/g", tmpdir);
	o.start_ts = T0;
	CHECK_EQ(run(&o, in, 3500, 1000000, &files), 0);	/* 1 ms apart */
	CHECK_EQ(files, 4);
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "g%d", i);
		replay(name, &n, &threads, &named);
		CHECK_EQ(n, i < 3 ? 1000 : 500);
		CHECK(named);
		total += n;
	}
	CHECK_EQ(total, 3500);
	snprintf(base, sizeof(base), "%s/gw", tmpdir);
	o.file_limit = 2;
	CHECK_EQ(run(&o, in, 3500, 1000000, &files), 0);
	CHECK(exists("gw0") && exists("gw1") && !exists("gw2"));
	snprintf(base, sizeof(base), "%s/t-%%H%%M%%S.scap", tmpdir);
	CHECK_EQ(run(&o, in, 3500, 1000000, &files), 0);
	CHECK_EQ(files, 4);
	for (int i = 0; i < 4; i++) {
		t = (time_t)(T0 / SEC) + i;
		localtime_r(&t, &tm);
		strftime(name, sizeof(name), "t-%H%M%S.scap", &tm);
		CHECK(exists(name) == (i >= 2));
	}
	/* a replay (start_ts 0): the first event starts the clock */
	snprintf(base, sizeof(base), "%s/r", tmpdir);
	o.start_ts = 0;
	o.file_limit = 0;
	CHECK_EQ(run(&o, in, 2500, 1000000, &files), 0);
	CHECK_EQ(files, 3);
}

/* 0600, a symlink at the target refused and its target untouched, no
 * temporary file left behind. */
static void test_safety(struct inspector *in)
{
	char path[4200], link[4200], victim[4200];
	struct capfile_writer *w;
	struct stat st;
	char buf[16] = { 0 };
	int fd;

	snprintf(path, sizeof(path), "%s/safe.scap", tmpdir);
	w = capfile_writer__open(path, false);
	CHECK(w != NULL);
	CHECK(capfile_writer__state(w, in, NULL) == 0);
	CHECK(!exists("safe.scap"));	/* written under a temporary name */
	CHECK_EQ(capfile_writer__close(w), 0);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
	snprintf(victim, sizeof(victim), "%s/victim", tmpdir);
	snprintf(link, sizeof(link), "%s/link.scap", tmpdir);
	fd = open(victim, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && write(fd, "secret", 6) == 6);
	close(fd);
	CHECK(symlink(victim, link) == 0);
	errno = 0;
	w = capfile_writer__open(link, true);
	CHECK(w == NULL && errno == ELOOP);
	capfile_writer__close(w);
	fd = open(victim, O_RDONLY);
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf)) == 6 && !strcmp(buf, "secret"));
	close(fd);
	CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
	/* an existing file is replaced, not written in place: its mode goes 0600 */
	CHECK(chmod(path, 0644) == 0);
	w = capfile_writer__open(path, false);
	CHECK_EQ(capfile_writer__close(w), 0);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
	/* a device is written as it is, not replaced */
	w = capfile_writer__open("/dev/null", false);
	CHECK(w != NULL);
	CHECK_EQ(capfile_writer__close(w), 0);
	CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
}

int main(void)
{
	struct inspector *in;

	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	in = source();
	test_size(in, false);
	test_size(in, true);
	test_names(in);
	test_seconds(in);
	test_safety(in);
	inspector__free(in);
	return t_finish(tmpdir);
}
