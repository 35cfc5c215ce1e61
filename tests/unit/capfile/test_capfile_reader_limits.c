/* The reader's bounds on untrusted files: a crafted file whose fd lists claim
 * millions of fds is read within CAPFILE_STATE_MAX (plus one list block) of
 * memory, the entries past the caps counted; gzip errors are named as gzip
 * errors, cut-short files as truncated. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capfile.h"
#include "capfile_int.h"
#include "t_check.h"
#include "frame_builder.h"
#include "inspect.h"

static char tmpdir[] = "/tmp/test_capfile_limits.XXXXXX";

static struct inspector *new_inspector(void)
{
	struct inspector_opts io = { .no_proc_scan = true, .no_proc_lookup = true };

	return inspector__new(&io);
}

/* An fd list block body for tid 100: N file fds numbered from FIRST, each
 * entry 23 bytes (length, fd, ino, type, empty name). */
static uint8_t *fd_list(uint32_t n, uint64_t first, size_t *len)
{
	uint8_t *b = malloc(8 + (size_t)n * 23), *p = b;
	uint64_t tid = 100;

	memcpy(p, &tid, 8), p += 8;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t elen = 23;
		uint64_t fd = first + i;
		uint16_t nlen = 0;

		memcpy(p, &elen, 4), p += 4;
		memcpy(p, &fd, 8), p += 8;
		memcpy(p, &fd, 8), p += 8;
		*p++ = SFD_FILE;
		memcpy(p, &nlen, 2), p += 2;
	}
	*len = (size_t)(p - b);
	return b;
}

static void put_event(struct capfile_writer *w, uint64_t ts)
{
	uint8_t frame[256];
	struct frame_builder fb;

	fb__begin(&fb, frame, sizeof(frame), PPME_SYSCALL_CLOSE_E, 100, ts);
	fb__u64(&fb, 3);
	fb__end(&fb, 0);
	CHECK_EQ(capfile_writer__write(w, 0, (const struct ppm_evt_hdr *)frame), 0);
}

static long maxrss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* A process list of one thread, then fd lists of 2^20 + 16 and 4 x 2^20 fds:
 * the first block is cut at CAPFILE_LIST_ENTRIES_MAX, the rest stop at
 * CAPFILE_STATE_MAX; the event after them is read. */
static void test_fd_flood(void)
{
	struct inspector *src = new_inspector(), *in = new_inspector();
	struct capfile_import imp = { 0 };
	struct capfile_error err;
	struct capture_event ev;
	struct capfile_writer *w;
	struct capture *c;
	char path[4200];
	uint64_t next = 0;
	long before;
	int n = 0;

	snprintf(inspector__add_thread(src, 100, 100)->comm, 16, "flood");
	snprintf(path, sizeof(path), "%s/flood.scap", tmpdir);
	w = capfile_writer__open(path, false);
	CHECK(w && capfile_writer__state(w, src, NULL) == 0);
	for (int i = 0; w && i < 5; i++) {
		uint32_t k = CAPFILE_LIST_ENTRIES_MAX + (i == 0 ? 16 : 0);
		size_t len;
		uint8_t *body = fd_list(k, next, &len);

		next += k;
		CHECK_EQ(capfile_writer__block(w, CAPFILE_BLOCK_FDL_V2, body, len), 0);
		free(body);
	}
	if (w)
		put_event(w, 1700000000000000000ull);
	CHECK_EQ(capfile_writer__close(w), 0);
	inspector__free(src);

	before = maxrss_kb();
	c = capture__open_file_state(path, &err, in, &imp);
	CHECK(c != NULL);
	while (c && capture__next(c, &ev, 0) == 0)
		n++;
	CHECK_EQ(n, 1);
	CHECK_EQ(imp.n_threads, 1);
	CHECK(imp.n_fds > CAPFILE_LIST_ENTRIES_MAX && imp.n_fds < next);
	CHECK_EQ(imp.n_fds + imp.n_capped, next);
	CHECK(imp.state_bytes <= CAPFILE_STATE_MAX);
	CHECK_EQ(imp.n_bad_lists, 0);
	/* the bound: the state, one list block being read, buffers */
	CHECK(maxrss_kb() - before < (long)((CAPFILE_STATE_MAX + CAPFILE_LIST_MAX) >> 10) + 32768);
	printf("fd flood: %llu fds kept, %llu skipped, state %llu MiB, max RSS %ld MiB\n",
	       (unsigned long long)imp.n_fds, (unsigned long long)imp.n_capped,
	       (unsigned long long)(imp.state_bytes >> 20), maxrss_kb() >> 10);
	capture__close(c);
	inspector__free(in);
	unlink(path);
}

/* Reads PATH to its end: the message. */
static void read_all(const char *path, struct capfile_error *err, int *n, int *rc)
{
	struct capture_event ev;
	struct capture *c = capture__open_file(path, err);

	*n = 0;
	*rc = c ? 0 : -errno;
	while (c && (*rc = capture__next(c, &ev, 0)) == 0)
		(*n)++;
	capture__close(c);
}

static void rewrite(const char *from, const char *to, long keep, long flip)
{
	FILE *f = fopen(from, "rb"), *g = fopen(to, "wb");
	long i = 0;
	int ch;

	while (f && g && (ch = fgetc(f)) != EOF && (keep < 0 || i < keep)) {
		fputc(i == flip ? ch ^ 0xff : ch, g);
		i++;
	}
	if (f)
		fclose(f);
	if (g)
		fclose(g);
}

static void test_gzip_errors(void)
{
	char gz[4200], bad[4200];
	struct capfile_error err;
	struct capfile_writer *w;
	struct stat st;
	int n, rc;

	snprintf(gz, sizeof(gz), "%s/ok.scap.gz", tmpdir);
	snprintf(bad, sizeof(bad), "%s/bad.scap.gz", tmpdir);
	w = capfile_writer__open(gz, true);
	for (int i = 0; w && i < 2000; i++)
		put_event(w, 1700000000000000000ull + i);
	CHECK_EQ(capfile_writer__close(w), 0);
	CHECK(stat(gz, &st) == 0);

	/* the CRC in the gzip trailer (8 bytes from the end) is wrong */
	rewrite(gz, bad, -1, st.st_size - 8);
	read_all(bad, &err, &n, &rc);
	CHECK_EQ(rc, -EINVAL);
	CHECK(strstr(err.msg, "corrupt gzip data: incorrect data check") != NULL);
	printf("crc: %s\n", err.msg);

	/* the gzip stream cut in half */
	rewrite(gz, bad, st.st_size / 2, -1);
	read_all(bad, &err, &n, &rc);
	CHECK_EQ(rc, -EINVAL);
	CHECK(n > 0 && n < 2000);
	CHECK(strstr(err.msg, "file truncated") && strstr(err.msg, "unexpected end of file"));
	printf("cut: %s\n", err.msg);

	/* only the trailer missing: every event, then truncated */
	rewrite(gz, bad, st.st_size - 8, -1);
	read_all(bad, &err, &n, &rc);
	CHECK_EQ(rc, -EINVAL);
	CHECK_EQ(n, 2000);
	CHECK(strstr(err.msg, "file truncated") != NULL);

	/* a plain file cut inside a block */
	snprintf(gz, sizeof(gz), "%s/ok.scap", tmpdir);
	w = capfile_writer__open(gz, false);
	for (int i = 0; w && i < 10; i++)
		put_event(w, 1700000000000000000ull + i);
	CHECK_EQ(capfile_writer__close(w), 0);
	CHECK(stat(gz, &st) == 0);
	rewrite(gz, bad, st.st_size - 10, -1);
	read_all(bad, &err, &n, &rc);
	CHECK_EQ(rc, -EINVAL);
	CHECK_EQ(n, 9);
	CHECK(strstr(err.msg, "file truncated") && strstr(err.msg, "runs past the end"));
	printf("plain: %s\n", err.msg);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_gzip_errors();
	test_fd_flood();
	return t_finish(tmpdir);
}
