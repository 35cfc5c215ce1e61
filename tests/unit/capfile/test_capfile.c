/* The capture-file reader and writer: sysdig's own captures (event counts and
 * events checked against `sysdig -r`), corrupt and truncated files, and a
 * write-then-read round trip, plain and gzip. Usage: test_capfile FIXTURE_DIR
 * (exit 77 only when that folder is missing). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "capfile.h"
#include "t_check.h"
#include "bytes.h"
#include "frame_builder.h"

static char tmpdir[] = "/tmp/test_capfile.XXXXXX";

/* ---- fixtures ---- */

struct seen {
	uint64_t n;
	uint64_t first_ts, last_ts;
	uint16_t first_type, last_type;
	struct ppm_evt_hdr at[2];	/* the events numbered want[0], want[1] */
	uint64_t want[2];
	uint32_t crc;			/* over every frame's bytes and cpu */
	uint64_t corrupt;
	int end;			/* what next returned last */
};

static void read_all(const char *path, struct seen *s)
{
	struct capfile_error err;
	struct capture_stats st;
	struct capture_event ev;
	struct capture *c = capture__open_file(path, &err);
	int rc;

	CHECK(c != NULL);
	if (!c) {
		fprintf(stderr, "%s: %s\n", path, err.msg);
		return;
	}
	s->crc = crc32(0, NULL, 0);
	while ((rc = capture__next(c, &ev, 0)) == 0) {
		struct ppm_evt_hdr h;

		memcpy(&h, ev.frame, sizeof(h));
		s->n++;
		if (s->n == 1)
			s->first_ts = h.ts, s->first_type = h.type;
		s->last_ts = h.ts;
		s->last_type = h.type;
		for (int i = 0; i < 2; i++)
			if (s->n == s->want[i])
				s->at[i] = h;
		if (ev.len != h.len || schema__validate(ev.frame, ev.len))
			t_failed++;
		s->crc = crc32(s->crc, (const uint8_t *)ev.frame, ev.len);
		s->crc = crc32(s->crc, (const uint8_t *)&ev.cpu, 2);
	}
	s->end = rc;
	capture__stats(c, &st);
	CHECK_EQ(st.total.n_evts, s->n);
	CHECK(st.mode && !strcmp(st.mode, "file"));
	s->corrupt = st.total.n_corrupt;
	CHECK_EQ(capture__next(c, &ev, 0), -ENODATA);	/* stays at the end */
	capture__close(c);
}

static void test_fixtures(const char *dir)
{
	struct seen a = { .want = { 211, 1431 } }, b = { .want = { 211, 1431 } };
	struct seen v6 = { .want = { 848, 1540 } };
	char path[4096];

	/* sysdig -r prints 1221 of curl_google's 1536 events and 28 of
	 * single_ipv6_conn's 1728: the rest (315 and 1700) are procinfo events,
	 * internal samples sysdig never shows. evt.num counts them all. */
	snprintf(path, sizeof(path), "%s/curl_google.scap", dir);
	read_all(path, &a);
	CHECK_EQ(a.n, 1536);
	CHECK_EQ(a.end, -ENODATA);
	CHECK_EQ(a.corrupt, 0);
	/* 211 17:35:48.514632619 0 curl (17497) < execve ...   (sysdig -r) */
	CHECK_EQ(a.at[0].ts, 1534527348514632619ull);
	CHECK_EQ(a.at[0].tid, 17497);
	CHECK_EQ(a.at[0].type, PPME_SYSCALL_EXECVE_16_X);
	/* 1431 17:35:48.588309095 0 curl (17497) > procexit status=0 */
	CHECK_EQ(a.at[1].ts, 1534527348588309095ull);
	CHECK_EQ(a.at[1].type, PPME_PROCEXIT_1_E);
	CHECK_EQ(a.first_type, PPME_PROCINFO_E);
	CHECK_EQ(a.last_type, PPME_PROCINFO_E);
	CHECK(a.first_ts <= a.at[0].ts && a.last_ts >= a.at[1].ts);

	/* The same run saved with comments in the section header (sysdig 0.29.3
	 * refuses it): the same events, byte for byte. */
	snprintf(path, sizeof(path), "%s/curl_google_comments.scap", dir);
	read_all(path, &b);
	CHECK_EQ(b.n, 1536);
	CHECK_EQ(b.crc, a.crc);
	CHECK_EQ(b.at[0].ts, a.at[0].ts);

	snprintf(path, sizeof(path), "%s/single_ipv6_conn.scap", dir);
	read_all(path, &v6);
	CHECK_EQ(v6.n, 1728);
	CHECK_EQ(v6.corrupt, 0);
	/* 848 23:30:53.000931868 1 <NA> (25886) > socket domain=10(AF_INET6) ... */
	CHECK_EQ(v6.at[0].ts, 1533943853000931868ull);
	CHECK_EQ(v6.at[0].tid, 25886);
	CHECK_EQ(v6.at[0].type, PPME_SOCKET_SOCKET_E);
	/* 1540 23:31:00.619494199 1 <NA> (25886) < read res=0 data= */
	CHECK_EQ(v6.at[1].ts, 1533943860619494199ull);
	CHECK_EQ(v6.at[1].type, PPME_SYSCALL_READ_X);
}

/* ---- synthetic files ---- */

/* An EV v2 (or EVF v2 with FLAGS) block around FRAME; LEN_FIX alters the block
 * length field only. */
static void put_ev(struct bytes *b, uint32_t type, uint16_t cpu, const void *frame,
		   uint32_t flen, int32_t len_fix)
{
	uint32_t lead = type == 0x217 ? 6 : 2;
	uint32_t pad = (4 - (lead + flen) % 4) % 4, blen = 12 + lead + flen + pad;
	uint32_t flags = 0;

	put_u32(b, type);
	put_u32(b, blen + (uint32_t)len_fix);
	put(b, &cpu, 2);
	if (type == 0x217)
		put(b, &flags, 4);
	put(b, frame, flen);
	put(b, "\0\0\0", pad);
	put_u32(b, blen);
}

static uint32_t close_frame(uint8_t *buf, uint64_t ts, int64_t fd)
{
	struct frame_builder fb;

	fb__begin(&fb, buf, 256, PPME_SYSCALL_CLOSE_E, 42, ts);
	fb__u64(&fb, (uint64_t)fd);
	return fb__end(&fb, 0);
}

static void write_file(const char *path, const struct bytes *b)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(b->p, 1, b->len, f) != b->len)
		t_failed++;
	if (f)
		fclose(f);
}

struct outcome {
	struct capture *c;	/* NULL: open failed */
	int open_errno;
	uint64_t n, corrupt;
	int end;
	struct capfile_error err;
};

static void run_bytes(const struct bytes *b, struct outcome *o)
{
	char path[4096];
	struct capture_event ev;
	struct capture_stats st;
	int rc;

	snprintf(path, sizeof(path), "%s/in.scap", tmpdir);
	write_file(path, b);
	memset(o, 0, sizeof(*o));
	o->c = capture__open_file(path, &o->err);
	if (!o->c) {
		o->open_errno = errno;
		return;
	}
	/* A bounded loop: a reader that hangs fails here instead. */
	for (int i = 0; i < 1000 && (rc = capture__next(o->c, &ev, 0)) == 0; i++)
		o->n++;
	o->end = rc;
	capture__stats(o->c, &st);
	o->corrupt = st.total.n_corrupt;
	capture__close(o->c);
	o->c = (struct capture *)1;
}

static void test_corrupt(void)
{
	struct bytes b = { 0 };
	struct outcome o;
	uint8_t f1[256], f2[256], big[70000];
	uint32_t l1 = close_frame(f1, 1000, 3), l2 = close_frame(f2, 2000, 4);

	/* A good file: 2 events. */
	put_shb(&b, 0x1A2B3C4D, 0);
	put_ev(&b, 0x216, 0, f1, l1, 0);
	put_ev(&b, 0x217, 1, f2, l2, 0);
	run_bytes(&b, &o);
	CHECK(o.c);
	CHECK_EQ(o.n, 2);
	CHECK_EQ(o.end, -ENODATA);
	CHECK_EQ(o.corrupt, 0);

	/* Truncated in the middle of the second block: one event, then a clear error. */
	b.len -= 6;
	run_bytes(&b, &o);
	CHECK_EQ(o.n, 1);
	CHECK_EQ(o.end, -EINVAL);
	CHECK(strstr(o.err.msg, "offset 80") != NULL);
	free(b.p), b = (struct bytes){ 0 };

	/* Bad magic; another first block; an empty file: refused at open. */
	put_shb(&b, 0x12345678, 0);
	run_bytes(&b, &o);
	CHECK(!o.c && o.open_errno == EINVAL && strstr(o.err.msg, "magic"));
	free(b.p), b = (struct bytes){ 0 };
	put_ev(&b, 0x216, 0, f1, l1, 0);
	run_bytes(&b, &o);
	CHECK(!o.c && o.open_errno == EINVAL && strstr(o.err.msg, "not a capture file"));
	run_bytes(&(struct bytes){ (uint8_t *)"", 0 }, &o);
	CHECK(!o.c && o.open_errno == EINVAL);
	free(b.p), b = (struct bytes){ 0 };

	/* Block length 0: nothing after it can be found, so an error naming it. */
	put_shb(&b, 0x1A2B3C4D, 88);	/* with options after the fixed fields */
	put_ev(&b, 0x216, 0, f1, l1, 0);
	put_u32(&b, 0x216);
	put_u32(&b, 0);
	put_ev(&b, 0x216, 0, f2, l2, 0);
	run_bytes(&b, &o);
	CHECK_EQ(o.n, 1);
	CHECK_EQ(o.end, -EINVAL);
	CHECK(strstr(o.err.msg, "offset 168") && strstr(o.err.msg, "length 0"));
	free(b.p), b = (struct bytes){ 0 };

	/* Block length past the end of the file. */
	put_shb(&b, 0x1A2B3C4D, 0);
	put_ev(&b, 0x216, 0, f1, l1, 4000);
	run_bytes(&b, &o);
	CHECK_EQ(o.n, 0);
	CHECK_EQ(o.end, -EINVAL);
	CHECK(strstr(o.err.msg, "runs past the end") != NULL);
	free(b.p), b = (struct bytes){ 0 };

	/* Counted skips, the reader goes on: a frame longer than its block, a block
	 * too big for any frame, a trailer that disagrees, a frame that fails the
	 * schema; an unknown block is skipped silently. */
	put_shb(&b, 0x1A2B3C4D, 0);
	{
		uint8_t bad[256];
		uint32_t blen;

		memcpy(bad, f1, l1);
		blen = l1 + 100;
		memcpy(bad + 16, &blen, 4);		/* frame len past its block */
		put_ev(&b, 0x216, 0, bad, l1, 0);
		memset(big, 0, sizeof(big));
		memcpy(big, f1, l1);
		put_ev(&b, 0x216, 0, big, sizeof(big), 0);	/* oversized */
		put_ev(&b, 0x216, 0, f1, l1, 0);
		b.p[b.len - 1] ^= 1;			/* trailer */
		memcpy(bad, f1, l1);
		bad[20] = 0xff, bad[21] = 0x7f;		/* unknown event type */
		put_ev(&b, 0x216, 0, bad, l1, 0);
		put_u32(&b, 0x999);			/* unknown block: skipped */
		put_u32(&b, 16);
		put_u32(&b, 7);
		put_u32(&b, 16);
	}
	put_ev(&b, 0x216, 3, f2, l2, 0);
	run_bytes(&b, &o);
	CHECK_EQ(o.n, 1);
	CHECK_EQ(o.corrupt, 4);
	CHECK_EQ(o.end, -ENODATA);
	free(b.p), b = (struct bytes){ 0 };

	/* An old EV block (no nparams) is converted to the current header. */
	put_shb(&b, 0x1A2B3C4D, 0);
	{
		uint8_t old[64];
		uint32_t olen = l1 - 4;

		memcpy(old, f1, 16);
		memcpy(old + 16, &olen, 4);
		memcpy(old + 20, f1 + 20, 2);
		memcpy(old + 22, f1 + 26, l1 - 26);
		put_ev(&b, 0x204, 2, old, olen, 0);
	}
	{
		char path[4096];
		struct capfile_error err;
		struct capture_event ev;
		struct capture *c;

		snprintf(path, sizeof(path), "%s/old.scap", tmpdir);
		write_file(path, &b);
		c = capture__open_file(path, &err);
		CHECK(c && capture__next(c, &ev, 0) == 0);
		if (c && ev.frame) {
			CHECK_EQ(ev.len, l1);
			CHECK_EQ(ev.cpu, 2);
			CHECK(memcmp(ev.frame, f1, l1) == 0);
			CHECK_EQ(capture__next(c, &ev, 0), -ENODATA);
		}
		capture__close(c);
	}
	free(b.p);
}

/* ---- writer round trip ---- */

static void round_trip(bool gzip)
{
	enum { N = 300 };
	static uint8_t frames[N][512];
	uint32_t lens[N];
	char path[4096];
	struct capfile_error err;
	struct capture_event ev;
	struct capfile_writer *w;
	struct capture *c;
	unsigned char magic[2] = { 0 };
	FILE *f;
	int n = 0, rc;

	snprintf(path, sizeof(path), "%s/rt%d.scap", tmpdir, gzip);
	w = capfile_writer__open(path, gzip);
	CHECK(w != NULL);
	if (!w)
		return;
	for (int i = 0; i < N; i++) {
		struct frame_builder fb;
		char name[64];

		if (i % 2) {
			lens[i] = close_frame(frames[i], 5000 + i, i);
		} else {
			/* openat exit: a path of varying length, so padding varies. */
			snprintf(name, sizeof(name), "/tmp/%.*s", i % 37, "abcdefghijklmnopqrstuvwxyz0123456789x");
			fb__begin(&fb, frames[i], sizeof(frames[i]), PPME_SYSCALL_OPENAT_2_X,
				  100 + i, 5000 + i);
			fb__u64(&fb, 3);
			fb__u64(&fb, (uint64_t)-100);
			fb__str(&fb, name);
			for (uint32_t k = 3; k < fb.nparams; k++)
				fb__u32(&fb, 0);
			lens[i] = fb__end(&fb, 1);
		}
		CHECK(lens[i] > 0);
		CHECK_EQ(capfile_writer__write(w, (uint16_t)(i % 4), (const void *)frames[i]), 0);
	}
	CHECK_EQ(capfile_writer__count(w), N);
	CHECK_EQ(capfile_writer__close(w), 0);

	f = fopen(path, "rb");
	if (f) {
		CHECK_EQ(fread(magic, 1, 2, f), 2);
		fclose(f);
	}
	if (gzip)
		CHECK(magic[0] == 0x1f && magic[1] == 0x8b);
	else
		CHECK(magic[0] == 0x0a && magic[1] == 0x0d);

	c = capture__open_file(path, &err);
	CHECK(c != NULL);
	if (!c)
		return;
	while ((rc = capture__next(c, &ev, 0)) == 0 && n < N) {
		if (ev.len != lens[n] || memcmp(ev.frame, frames[n], lens[n]) || ev.cpu != n % 4)
			t_failed++, fprintf(stderr, "round trip (gzip %d): event %d differs\n", gzip, n);
		n++;
	}
	CHECK_EQ(n, N);
	CHECK_EQ(rc, -ENODATA);
	capture__close(c);

	/* The gzip file cut short: the events before the cut, then an error. */
	if (gzip) {
		struct stat sb;

		if (stat(path, &sb) == 0 && truncate(path, sb.st_size / 2) == 0) {
			c = capture__open_file(path, &err);
			n = 0;
			while (c && (rc = capture__next(c, &ev, 0)) == 0 && n <= N)
				n++;
			CHECK(c && n < N && rc == -EINVAL && strstr(err.msg, "offset"));
			capture__close(c);
		} else {
			t_failed++;
		}
	}
}

static void test_writer_errors(void)
{
	struct capfile_writer *w = capfile_writer__open("/nonexistent-dir/x.scap", false);

	CHECK(w == NULL && errno == ENOENT);
	CHECK_EQ(capfile_writer__close(NULL), 0);
}

int main(int argc, char **argv)
{
	struct stat sb;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FIXTURE_DIR\n", argv[0]);
		return 2;
	}
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	if (stat(argv[1], &sb) == 0) {
		test_fixtures(argv[1]);
	} else {
		printf("skipped: no fixtures in %s\n", argv[1]);
		return 77;
	}
	test_corrupt();
	round_trip(false);
	round_trip(true);
	test_writer_errors();
	return t_finish(tmpdir);
}
