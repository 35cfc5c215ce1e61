/* The ring mapping and cursor on memfd rings filled as the kernel fills perf rings. */
#include <errno.h>
#include <stdlib.h>

#include "t_check.h"
#include "memring.h"
#include "ring.h"

static const enum ring_mode modes[] = { RING_DOUBLE, RING_SLACK_COPY };

struct got {
	uint64_t ts, tid;
	uint32_t len;
	int content_ok;
};

static struct ring *map(struct memring *m, uint32_t pages, enum ring_mode mode)
{
	struct ring *r = ring__map(m->fd, pages, mode);

	CHECK(r != NULL);
	if (r)
		CHECK_EQ(ring__mode(r), mode);
	return r;
}

/* Reads what the current snapshot holds, then refreshes until nothing is left.
 * Returns the number of events stored in OUT. */
static int read_all(struct ring *r, struct got *out, int max)
{
	struct capture_event ev;
	uint64_t ts;
	int n = 0;

	do {
		while (ring__peek(r, &ev, &ts)) {
			if (n < max) {
				out[n].ts = ev.frame->ts;
				out[n].tid = ev.frame->tid;
				out[n].len = ev.frame->len;
				out[n].content_ok = ts == ev.frame->ts && ev.len >= ev.frame->len &&
					frame__check(ev.frame, ev.frame->len, ev.frame->ts, ev.frame->tid);
			}
			n++;
			ring__consume(r);
		}
	} while (ring__refresh(r));
	return n;
}

static void put(struct memring *m, uint32_t len, uint64_t ts, uint64_t tid)
{
	uint8_t f[65536];

	frame__make(f, len, ts, tid);
	CHECK(memring__sample(m, f, len) == 0);
}

static void test_basic(enum ring_mode mode)
{
	struct capture_cpu_stats st;
	struct memring m;
	struct got g[8];
	struct ring *r;

	CHECK(memring__open(&m, 2, 0) == 0);
	r = map(&m, 2, mode);
	if (!r)
		return;
	CHECK_EQ(ring__data_size(r), 2 * 4096);
	CHECK_EQ(read_all(r, g, 8), 0);
	put(&m, 26, 100, 1);
	put(&m, 40, 200, 2);
	put(&m, 333, 300, 3);
	/* Not published yet: invisible. */
	CHECK_EQ(read_all(r, g, 8), 0);
	memring__publish(&m);
	CHECK_EQ(read_all(r, g, 8), 3);
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(g[i].ts, 100 * (i + 1));
		CHECK_EQ(g[i].tid, i + 1);
		CHECK(g[i].content_ok);
	}
	ring__stats(r, &st);
	CHECK_EQ(st.n_evts, 3);
	CHECK_EQ(st.n_bytes, 26 + 40 + 333);
	CHECK_EQ(st.n_lost, 0);
	CHECK_EQ(st.n_corrupt, 0);
	CHECK_EQ(memring__tail(&m), m.head);
	ring__unmap(r);
	memring__close(&m);
}

/* Records starting 8, 16, ... bytes before the end: header, raw size and frame
 * each land on either side of the wrap point. */
static void test_wrap(enum ring_mode mode)
{
	struct memring m;
	struct got g[4];

	for (uint64_t back = 8; back <= 96; back += 8) {
		uint64_t size = 4096, start = size - back;
		struct ring *r;

		CHECK(memring__open(&m, 1, start) == 0);
		r = map(&m, 1, mode);
		if (!r)
			return;
		put(&m, 60, 10, back);
		put(&m, 27, 11, back);
		memring__publish(&m);
		CHECK_EQ(read_all(r, g, 4), 2);
		CHECK(g[0].content_ok && g[0].len == 60 && g[0].tid == back);
		CHECK(g[1].content_ok && g[1].len == 27 && g[1].ts == 11);
		CHECK_EQ(memring__tail(&m), start + 72 + 40);
		ring__unmap(r);
		memring__close(&m);
	}
}

/* A record ending exactly at the end of the data, then one at its start. */
static void test_exact_end(enum ring_mode mode)
{
	struct memring m;
	struct got g[4];
	struct ring *r;

	/* 12 + 116 = 128 bytes: the record covers the last 128 bytes exactly. */
	CHECK(memring__open(&m, 1, 4096 - 128) == 0);
	r = map(&m, 1, mode);
	if (!r)
		return;
	put(&m, 116, 1, 1);
	CHECK_EQ(m.head % 4096, 0);
	put(&m, 50, 2, 2);
	memring__publish(&m);
	CHECK_EQ(read_all(r, g, 4), 2);
	CHECK(g[0].content_ok && g[0].len == 116);
	CHECK(g[1].content_ok && g[1].len == 50);
	ring__unmap(r);
	memring__close(&m);
}

static void test_lost(enum ring_mode mode)
{
	struct capture_cpu_stats st;
	struct memring m;
	struct got g[4];
	struct ring *r;

	CHECK(memring__open(&m, 1, 0) == 0);
	r = map(&m, 1, mode);
	if (!r)
		return;
	put(&m, 30, 1, 1);
	CHECK(memring__lost(&m, 5) == 0);
	put(&m, 30, 2, 1);
	CHECK(memring__lost(&m, 7) == 0);
	memring__publish(&m);
	CHECK_EQ(read_all(r, g, 4), 2);
	ring__stats(r, &st);
	CHECK_EQ(st.n_lost, 12);
	CHECK_EQ(st.n_evts, 2);
	CHECK_EQ(st.n_corrupt, 0);
	ring__unmap(r);
	memring__close(&m);
}

/* Record sizes that cannot be trusted end the snapshot; the ring goes on after. */
static void test_bad_sizes(enum ring_mode mode)
{
	static const uint16_t sizes[] = { 0, 4, 7, 200 };
	struct capture_cpu_stats st;
	struct memring m;
	struct got g[8];

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct perf_event_header ph = { .type = PERF_RECORD_SAMPLE, .size = sizes[i] };
		uint8_t junk[64] = {0};
		struct ring *r;

		CHECK(memring__open(&m, 1, 4096 - 16) == 0);
		r = map(&m, 1, mode);
		if (!r)
			return;
		put(&m, 40, 1, 1);
		/* The bad record, then a good one that is lost with it (64 bytes in all:
		 * a size of 200 runs past the snapshot). */
		memcpy(junk, &ph, sizeof(ph));
		memring__raw(&m, junk, sizeof(junk));
		memring__publish(&m);
		CHECK_EQ(read_all(r, g, 8), 1);
		CHECK(g[0].content_ok);
		ring__stats(r, &st);
		CHECK_EQ(st.n_corrupt, 1);
		CHECK_EQ(memring__tail(&m), m.head);
		/* The writer goes on from head: those are read. */
		put(&m, 26, 2, 2);
		memring__publish(&m);
		CHECK_EQ(read_all(r, g, 8), 1);
		CHECK(g[0].content_ok && g[0].ts == 2);
		ring__unmap(r);
		memring__close(&m);
	}
}

/* A record whose end is past the published head (a truncated snapshot). */
static void test_truncated(enum ring_mode mode)
{
	struct perf_event_header ph = { .type = PERF_RECORD_SAMPLE, .size = 64 };
	struct capture_cpu_stats st;
	uint8_t half[32] = {0};
	struct memring m;
	struct got g[4];
	struct ring *r;

	CHECK(memring__open(&m, 1, 0) == 0);
	r = map(&m, 1, mode);
	if (!r)
		return;
	memcpy(half, &ph, sizeof(ph));
	memring__raw(&m, half, sizeof(half));
	memring__publish(&m);
	CHECK_EQ(read_all(r, g, 4), 0);
	ring__stats(r, &st);
	CHECK_EQ(st.n_corrupt, 1);
	ring__unmap(r);
	memring__close(&m);
}

/* Samples with a sane record size but a bad payload cost only themselves. */
static void test_bad_samples(enum ring_mode mode)
{
	struct capture_cpu_stats st;
	struct memring m;
	struct got g[8];
	struct ring *r;
	uint8_t rec[64];
	struct perf_event_header ph = { .type = PERF_RECORD_SAMPLE, .size = 64 };
	struct ppm_evt_hdr fh = { .ts = 5, .len = 40 };
	uint32_t raw;

	CHECK(memring__open(&m, 1, 4096 - 24) == 0);
	r = map(&m, 1, mode);
	if (!r)
		return;
	put(&m, 26, 1, 1);
	/* raw size larger than the record */
	memset(rec, 0, sizeof(rec));
	memcpy(rec, &ph, 8);
	raw = 53;
	memcpy(rec + 8, &raw, 4);
	memring__raw(&m, rec, sizeof(rec));
	/* raw size below a frame header */
	raw = 20;
	memcpy(rec + 8, &raw, 4);
	memring__raw(&m, rec, sizeof(rec));
	/* frame len larger than the raw data */
	raw = 52;
	fh.len = 53;
	memcpy(rec + 8, &raw, 4);
	memcpy(rec + 12, &fh, sizeof(fh));
	memring__raw(&m, rec, sizeof(rec));
	/* frame len below the header size */
	fh.len = 25;
	memcpy(rec + 12, &fh, sizeof(fh));
	memring__raw(&m, rec, sizeof(rec));
	/* a record too small to hold a raw size */
	ph.size = 8;
	memring__raw(&m, &ph, 8);
	/* a lost record too small for its counter */
	ph.type = PERF_RECORD_LOST;
	ph.size = 16;
	memset(rec, 0, 16);
	memcpy(rec, &ph, 8);
	memring__raw(&m, rec, 16);
	/* a record type that is not ours: skipped, not counted */
	ph.type = PERF_RECORD_THROTTLE;
	ph.size = 24;
	memset(rec, 0, 24);
	memcpy(rec, &ph, 8);
	memring__raw(&m, rec, 24);
	put(&m, 77, 2, 2);
	memring__publish(&m);
	CHECK_EQ(read_all(r, g, 8), 2);
	CHECK(g[0].content_ok && g[0].ts == 1);
	CHECK(g[1].content_ok && g[1].ts == 2 && g[1].len == 77);
	ring__stats(r, &st);
	CHECK_EQ(st.n_corrupt, 6);
	CHECK_EQ(st.n_evts, 2);
	CHECK_EQ(st.n_lost, 0);
	ring__unmap(r);
	memring__close(&m);
}

/* A sample holding several frames back to back (exit-only capture sends a
 * syscall's enter and exit frames together), also across the ring's end: each
 * is an event; a bad frame costs the rest of its sample, counted once. */
static void test_multi_frame(enum ring_mode mode)
{
	struct capture_cpu_stats st;
	struct memring m;
	struct got g[16];
	uint8_t rec[256];
	struct ring *r;

	CHECK(memring__open(&m, 1, 4096 - 40) == 0);
	r = map(&m, 1, mode);
	if (!r)
		return;
	frame__make(rec, 41, 1, 1);
	frame__make(rec + 41, 30, 2, 2);
	frame__make(rec + 71, 27, 3, 3);
	CHECK(memring__sample(&m, rec, 98) == 0);	/* wraps; 2 bytes of padding */
	put(&m, 26, 4, 4);
	frame__make(rec, 30, 5, 5);
	frame__make(rec + 30, 30, 6, 6);
	((struct ppm_evt_hdr *)(rec + 30))->len = 25;	/* below a header */
	CHECK(memring__sample(&m, rec, 60) == 0);
	frame__make(rec, 40, 7, 7);
	frame__make(rec + 40, 26, 8, 8);
	CHECK(memring__sample(&m, rec, 66) == 0);
	memring__publish(&m);
	CHECK_EQ(read_all(r, g, 16), 7);
	for (int i = 0; i < 7; i++)
		CHECK(g[i].content_ok);
	CHECK(g[0].ts == 1 && g[0].len == 41 && g[1].ts == 2 && g[1].len == 30);
	CHECK(g[2].ts == 3 && g[2].len == 27 && g[3].ts == 4);
	CHECK(g[4].ts == 5 && g[5].ts == 7 && g[6].ts == 8 && g[6].len == 26);
	ring__stats(r, &st);
	CHECK_EQ(st.n_evts, 7);
	CHECK_EQ(st.n_corrupt, 1);
	CHECK_EQ(memring__tail(&m), m.head);
	ring__unmap(r);
	memring__close(&m);
}

/* The tail moves only when the snapshot is used up, and only on the next refresh:
 * the last event handed out stays readable until then. */
static void test_tail(enum ring_mode mode)
{
	struct capture_event ev, last = {0};
	uint64_t start = (1ull << 32) - 600, snap_head;
	struct memring m;
	struct ring *r;
	int n = 0;

	CHECK(memring__open(&m, 1, start) == 0);
	r = map(&m, 1, mode);
	if (!r)
		return;
	/* Fill over the wrap point and across 2^32. */
	for (int i = 0; i < 10; i++)
		put(&m, 100, i, 7);
	memring__publish(&m);
	snap_head = m.head;
	CHECK(snap_head > (1ull << 32));
	CHECK(ring__refresh(r) == snap_head - start);
	/* More written after the snapshot: not part of it. */
	put(&m, 100, 10, 7);
	memring__publish(&m);
	while (ring__peek(r, &ev, NULL)) {
		CHECK_EQ(memring__tail(&m), start);
		last = ev;
		ring__consume(r);
		n++;
	}
	CHECK_EQ(n, 10);
	CHECK(ring__exhausted(r));
	CHECK_EQ(memring__tail(&m), start);
	/* The last event is still intact (in slack mode it may sit in the slack). */
	CHECK(frame__check(last.frame, 100, 9, 7));
	CHECK(ring__refresh(r) == m.head - snap_head);
	CHECK_EQ(memring__tail(&m), snap_head);
	CHECK(ring__peek(r, &ev, NULL) && ev.frame->ts == 10);
	ring__consume(r);
	CHECK_EQ(ring__refresh(r), 0);
	CHECK_EQ(memring__tail(&m), m.head);
	ring__unmap(r);
	memring__close(&m);
}

/* Positions past 2^32 and many laps of the ring: every record arrives intact. */
static void test_laps(enum ring_mode mode)
{
	uint64_t start = (1ull << 32) - 3 * 4096 + 8;
	struct capture_cpu_stats st;
	struct memring m;
	struct got g[64];
	struct ring *r;
	uint64_t ts = 0, want = 0, got = 0;
	int bad = 0;

	CHECK(memring__open(&m, 1, start) == 0);
	r = map(&m, 1, mode);
	if (!r)
		return;
	srand(1);
	for (int round = 0; round < 400; round++) {
		int k, n = rand() % 20;

		for (k = 0; k < n; k++) {
			uint32_t len = 26 + rand() % 300;
			uint8_t f[400];

			frame__make(f, len, ts, len);
			if (memring__sample(&m, f, len))
				break;
			ts++;
			want++;
		}
		memring__publish(&m);
		n = read_all(r, g, 64);
		for (k = 0; k < n && k < 64; k++)
			if (!g[k].content_ok || g[k].ts != got + k || g[k].tid != g[k].len)
				bad++;
		got += n;
	}
	CHECK_EQ(got, want);
	CHECK_EQ(bad, 0);
	CHECK(m.head > (1ull << 32) + 20 * 4096);
	CHECK_EQ(memring__tail(&m), m.head);
	ring__stats(r, &st);
	CHECK_EQ(st.n_evts, want);
	CHECK_EQ(st.n_corrupt, 0);
	ring__unmap(r);
	memring__close(&m);
}

/* A header page that says more than a full ring is unread is not trusted. */
static void test_bad_header(enum ring_mode mode)
{
	struct capture_cpu_stats st;
	struct memring m;
	struct got g[4];
	struct ring *r;

	CHECK(memring__open(&m, 1, 1000) == 0);
	r = map(&m, 1, mode);
	if (!r)
		return;
	m.head += 4096 + 8;
	memring__publish(&m);
	CHECK_EQ(read_all(r, g, 4), 0);
	ring__stats(r, &st);
	CHECK_EQ(st.n_corrupt, 1);
	CHECK_EQ(memring__tail(&m), m.head);
	put(&m, 30, 3, 3);
	memring__publish(&m);
	CHECK_EQ(read_all(r, g, 4), 1);
	CHECK(g[0].content_ok);
	ring__unmap(r);
	memring__close(&m);
}

static void test_map_errors(void)
{
	struct memring m;
	struct ring *r;

	CHECK(memring__open(&m, 2, 0) == 0);
	errno = 0;
	CHECK(ring__map(m.fd, 3, RING_AUTO) == NULL && errno == EINVAL);
	CHECK(ring__map(m.fd, 0, RING_AUTO) == NULL && errno == EINVAL);
	CHECK(ring__map(-1, 2, RING_AUTO) == NULL && errno == EINVAL);
	/* The header says 2 pages; mapping 1 would misread it. */
	CHECK(ring__map(m.fd, 1, RING_AUTO) == NULL && errno == EINVAL);
	m.hdr->data_offset = 8192;
	CHECK(ring__map(m.fd, 2, RING_AUTO) == NULL && errno == EINVAL);
	m.hdr->data_offset = 4096;
	/* A memfd can be mapped twice: AUTO picks the double mapping. */
	r = ring__map(m.fd, 2, RING_AUTO);
	CHECK(r && ring__mode(r) == RING_DOUBLE);
	ring__unmap(r);
	ring__unmap(NULL);
	memring__close(&m);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		test_basic(modes[i]);
		test_wrap(modes[i]);
		test_exact_end(modes[i]);
		test_lost(modes[i]);
		test_bad_sizes(modes[i]);
		test_truncated(modes[i]);
		test_bad_samples(modes[i]);
		test_multi_frame(modes[i]);
		test_tail(modes[i]);
		test_laps(modes[i]);
		test_bad_header(modes[i]);
	}
	test_map_errors();
	return t_report();
}
