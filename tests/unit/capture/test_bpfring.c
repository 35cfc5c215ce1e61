/* The ring cursor on a BPF ring buffer: a memfd laid out as the kernel maps one
 * (consumer page, producer page, data, the data again) and written as the kernel
 * writes one: an 8-byte header per record (length, busy bit 31, discard bit 30),
 * records padded to 8 bytes, positions that only grow. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "t_check.h"
#include "memring.h"
#include "ring.h"

#define BUSY (1u << 31)
#define DISCARD (1u << 30)

struct bpfmem {
	int fd;
	uint8_t *map;		/* the whole file: 2 pages + data twice */
	uint64_t *cons, *prod;
	uint8_t *data;
	uint64_t size;
};

static size_t page(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static int bpfmem__open(struct bpfmem *b, uint64_t size, uint64_t start)
{
	size_t len = 2 * page() + 2 * size;

	memset(b, 0, sizeof(*b));
	b->size = size;
	b->fd = memfd_create("bpfring", MFD_CLOEXEC);
	if (b->fd < 0 || ftruncate(b->fd, len))
		return -1;
	b->map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd, 0);
	if (b->map == MAP_FAILED)
		return -1;
	b->cons = (uint64_t *)b->map;
	b->prod = (uint64_t *)(b->map + page());
	b->data = b->map + 2 * page();
	*b->cons = *b->prod = start;
	return 0;
}

static void bpfmem__close(struct bpfmem *b)
{
	munmap(b->map, 2 * page() + 2 * b->size);
	close(b->fd);
}

/* N bytes at ring position POS, into the data and its second mapping. */
static void bpfmem__write(struct bpfmem *b, uint64_t pos, const void *src, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		uint64_t off = (pos + i) & (b->size - 1);

		b->data[off] = ((const uint8_t *)src)[i];
		b->data[b->size + off] = b->data[off];
	}
}

/* Reserves a record of LEN data bytes with header word FLAGS | LEN and DATA;
 * returns its position. The producer position moves at once, as at reserve. */
static uint64_t bpfmem__put(struct bpfmem *b, const void *data, uint32_t len, uint32_t flags)
{
	uint64_t pos = *b->prod;
	uint32_t hdr[2] = { len | flags, 0 };

	bpfmem__write(b, pos, hdr, sizeof(hdr));
	bpfmem__write(b, pos + 8, data, len);
	*b->prod = pos + ((8 + len + 7) & ~7ull);
	return pos;
}

static void bpfmem__commit(struct bpfmem *b, uint64_t pos, uint32_t len)
{
	bpfmem__write(b, pos, &len, sizeof(len));
}

static uint64_t put_frame(struct bpfmem *b, uint32_t len, uint64_t ts, uint32_t flags)
{
	uint8_t f[4096];

	frame__make(f, len, ts, ts / 100);
	return bpfmem__put(b, f, len, flags);
}

/* Everything the ring holds now: timestamps into TS, contents checked. */
static int read_all(struct ring *r, uint64_t *ts, int max)
{
	struct capture_event ev;
	uint64_t t;
	int n = 0;

	do {
		while (ring__peek(r, &ev, &t)) {
			if (n < max)
				ts[n] = t;
			CHECK(frame__check(ev.frame, ev.frame->len, t, t / 100));
			CHECK(ev.len >= ev.frame->len);
			n++;
			ring__consume(r);
		}
	} while (ring__refresh(r));
	return n;
}

static struct ring *map(struct bpfmem *b)
{
	struct ring *r = ring__map_bpf(b->fd, b->size);

	CHECK(r != NULL);
	if (r)
		CHECK_EQ(ring__mode(r), RING_BPF);
	return r;
}

static void test_basic(void)
{
	struct capture_cpu_stats st;
	struct bpfmem b;
	uint64_t ts[8];
	struct ring *r;

	CHECK(bpfmem__open(&b, 2 * page(), 0) == 0);
	r = map(&b);
	if (!r)
		return;
	CHECK_EQ(read_all(r, ts, 8), 0);
	put_frame(&b, 26, 100, 0);
	put_frame(&b, 41, 200, 0);
	put_frame(&b, 333, 300, 0);
	CHECK_EQ(read_all(r, ts, 8), 3);
	CHECK(ts[0] == 100 && ts[1] == 200 && ts[2] == 300);
	ring__stats(r, &st);
	CHECK_EQ(st.n_evts, 3);
	CHECK_EQ(st.n_bytes, 26 + 41 + 333);
	CHECK_EQ(st.n_corrupt, 0);
	CHECK_EQ(st.ring_used, 0);
	CHECK_EQ(st.ring_size, 2 * page());
	/* Everything read is handed back to the writer, padding included. */
	CHECK_EQ(*b.cons, *b.prod);
	CHECK_EQ(*b.cons, 40 + 56 + 344);
	ring__unmap(r);
	bpfmem__close(&b);
}

/* Records across the end of the data: they read whole (the second mapping). */
static void test_wrap(void)
{
	for (uint64_t back = 8; back <= 64; back += 8) {
		struct bpfmem b;
		uint64_t ts[4];
		struct ring *r;

		CHECK(bpfmem__open(&b, page(), page() * 3 - back) == 0);
		r = map(&b);
		if (!r)
			return;
		put_frame(&b, 100, 1000, 0);
		put_frame(&b, 27, 1100, 0);
		CHECK_EQ(read_all(r, ts, 4), 2);
		CHECK(ts[0] == 1000 && ts[1] == 1100);
		CHECK_EQ(*b.cons, *b.prod);
		ring__unmap(r);
		bpfmem__close(&b);
	}
}

/* A reserved record not yet committed ends what can be read, even with
 * committed ones after it; once committed, both come, in order. */
static void test_busy(void)
{
	struct bpfmem b;
	uint64_t ts[4], pos;
	struct ring *r;

	CHECK(bpfmem__open(&b, page(), 0) == 0);
	r = map(&b);
	if (!r)
		return;
	put_frame(&b, 30, 100, 0);
	pos = put_frame(&b, 30, 200, BUSY);
	put_frame(&b, 30, 300, 0);
	CHECK_EQ(read_all(r, ts, 4), 1);
	CHECK_EQ(ts[0], 100);
	CHECK_EQ(*b.cons, pos);
	bpfmem__commit(&b, pos, 30);
	CHECK_EQ(read_all(r, ts, 4), 2);
	CHECK(ts[0] == 200 && ts[1] == 300);
	CHECK_EQ(*b.cons, *b.prod);
	ring__unmap(r);
	bpfmem__close(&b);
}

/* Discarded records are skipped and not counted; a record too short to be a
 * frame, or a frame longer than its record, costs itself only. */
static void test_discard_and_bad_frames(void)
{
	struct capture_cpu_stats st;
	uint8_t junk[40] = { 0 };
	struct bpfmem b;
	uint64_t ts[8];
	struct ring *r;

	CHECK(bpfmem__open(&b, page(), 0) == 0);
	r = map(&b);
	if (!r)
		return;
	put_frame(&b, 30, 100, DISCARD);
	put_frame(&b, 30, 200, 0);
	bpfmem__put(&b, junk, 10, 0);		/* shorter than a header */
	junk[16] = 200;				/* frame len 200 in a 40-byte record */
	bpfmem__put(&b, junk, sizeof(junk), 0);
	put_frame(&b, 30, 300, 0);
	CHECK_EQ(read_all(r, ts, 8), 2);
	CHECK(ts[0] == 200 && ts[1] == 300);
	ring__stats(r, &st);
	CHECK_EQ(st.n_evts, 2);
	CHECK_EQ(st.n_corrupt, 2);
	CHECK_EQ(*b.cons, *b.prod);
	ring__unmap(r);
	bpfmem__close(&b);
}

/* A length past what was produced, or a producer position past a full ring:
 * counted, and the reader resynchronises instead of reading garbage. */
static void test_corrupt(void)
{
	struct capture_cpu_stats st;
	struct bpfmem b;
	uint64_t ts[4];
	uint32_t hdr[2] = { 3000, 0 };
	struct ring *r;

	CHECK(bpfmem__open(&b, page(), 0) == 0);
	r = map(&b);
	if (!r)
		return;
	bpfmem__write(&b, 0, hdr, sizeof(hdr));
	*b.prod = 64;
	CHECK_EQ(read_all(r, ts, 4), 0);
	ring__stats(r, &st);
	CHECK_EQ(st.n_corrupt, 1);
	CHECK_EQ(*b.cons, 64);
	put_frame(&b, 30, 100, 0);
	CHECK_EQ(read_all(r, ts, 4), 1);
	*b.prod += 2 * page();
	CHECK_EQ(read_all(r, ts, 4), 0);
	ring__stats(r, &st);
	CHECK_EQ(st.n_corrupt, 2);
	ring__unmap(r);
	bpfmem__close(&b);
}

/* Several frames in one record (exit-only capture sends a syscall's enter and
 * exit frames together): each is an event, walked in order, also across the
 * ring's end; a bad frame costs the rest of its record, counted once. */
static void test_multi_frame(void)
{
	struct capture_cpu_stats st;
	uint8_t rec[512];
	struct bpfmem b;
	uint64_t ts[16];
	struct ring *r;

	CHECK(bpfmem__open(&b, page(), page() - 48) == 0);
	r = map(&b);
	if (!r)
		return;
	frame__make(rec, 41, 100, 1);
	frame__make(rec + 41, 30, 200, 2);
	frame__make(rec + 71, 26, 300, 3);
	bpfmem__put(&b, rec, 97, 0);		/* wraps: starts 48 bytes before the end */
	put_frame(&b, 30, 400, 0);
	frame__make(rec, 30, 500, 5);
	frame__make(rec + 30, 30, 600, 6);
	((struct ppm_evt_hdr *)(rec + 30))->len = 31;	/* past its record */
	bpfmem__put(&b, rec, 60, 0);
	frame__make(rec, 40, 700, 7);
	frame__make(rec + 40, 26, 800, 8);
	bpfmem__put(&b, rec, 66, 0);
	CHECK_EQ(read_all(r, ts, 16), 7);
	CHECK(ts[0] == 100 && ts[1] == 200 && ts[2] == 300 && ts[3] == 400);
	CHECK(ts[4] == 500 && ts[5] == 700 && ts[6] == 800);
	ring__stats(r, &st);
	CHECK_EQ(st.n_evts, 7);
	CHECK_EQ(st.n_bytes, 41 + 30 + 26 + 30 + 30 + 40 + 26);
	CHECK_EQ(st.n_corrupt, 1);
	CHECK_EQ(*b.cons, *b.prod);
	ring__unmap(r);
	bpfmem__close(&b);
}

static void test_map_errors(void)
{
	struct bpfmem b;

	CHECK(bpfmem__open(&b, page(), 0) == 0);
	errno = 0;
	CHECK(ring__map_bpf(b.fd, 3 * page()) == NULL && errno == EINVAL);
	CHECK(ring__map_bpf(b.fd, 100) == NULL && errno == EINVAL);
	CHECK(ring__map_bpf(-1, page()) == NULL && errno == EINVAL);
	bpfmem__close(&b);
}

int main(void)
{
	test_basic();
	test_wrap();
	test_busy();
	test_discard_and_bad_frames();
	test_corrupt();
	test_multi_frame();
	test_map_errors();
	return t_report();
}
