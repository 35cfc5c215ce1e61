/* Perf ring mapping (double or slack) and the snapshot cursor. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "ring_cursor.h"

/* A BPF ring buffer record: an 8-byte header (the length with a busy and a
 * discard bit, then the page offset the kernel uses), the data, padding to 8. */
#define BPF_REC_HDR 8u
#define BPF_REC_BUSY (1u << 31)
#define BPF_REC_DISCARD (1u << 30)

/* The header word of the BPF ring record at ring offset POS. Acquire: the
 * writer's commit clears BUSY after writing the data. */
#define BPF_REC_WORD(r, pos) \
	__atomic_load_n((const uint32_t *)((r)->data + ((pos) & (r)->mask)), __ATOMIC_ACQUIRE)


static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* Reserves ADDR_LEN bytes of address space that nothing else can take. */
static uint8_t *reserve(size_t len)
{
	void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int map_fixed(void *at, size_t len, int fd)
{
	void *p = mmap(at, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);

	return p == MAP_FAILED ? -errno : 0;
}

/* Header, data, data again: the second mapping at BASE overlaps the first one's
 * header page. Recent kernels refuse to split a perf mapping (EINVAL). */
static int map_double(struct ring *r, size_t page)
{
	size_t one = page + r->size;
	int err;

	r->map_len = page + 2 * r->size;
	r->base = reserve(r->map_len);
	if (!r->base)
		return -errno;
	err = map_fixed(r->base + r->size, one, r->fd);
	if (!err)
		err = map_fixed(r->base, one, r->fd);
	if (err) {
		munmap(r->base, r->map_len);
		r->base = NULL;
		return err;
	}
	r->mode = RING_DOUBLE;
	return 0;
}

/* Header and data once, then a private slack area for wrapped record tails. */
static int map_slack(struct ring *r, size_t page)
{
	void *slack;
	int err;

	r->map_len = page + r->size + RING_SLACK;
	r->base = reserve(r->map_len);
	if (!r->base)
		return -errno;
	err = map_fixed(r->base, page + r->size, r->fd);
	if (!err) {
		slack = mmap(r->base + page + r->size, RING_SLACK, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (slack == MAP_FAILED)
			err = -errno;
	}
	if (err) {
		munmap(r->base, r->map_len);
		r->base = NULL;
		return err;
	}
	r->mode = RING_SLACK_COPY;
	return 0;
}

/* A ring of SIZE bytes of data on FD, not mapped yet: SIZE a power of two of
 * at least a page (and at most 1 TiB), else EINVAL. */
static struct ring *ring__alloc(int fd, uint64_t size)
{
	struct ring *r;

	if (fd < 0 || size < page_size() || (size & (size - 1)) || size > (1ull << 40)) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->fd = fd;
	r->size = size;
	r->mask = size - 1;
	return r;
}

struct ring *ring__map(int fd, uint32_t data_pages, enum ring_mode mode)
{
	size_t page = page_size();
	struct perf_event_mmap_page *hdr;
	struct ring *r;
	int err;

	r = ring__alloc(fd, (uint64_t)data_pages * page);
	if (!r)
		return NULL;
	err = -EINVAL;
	if (mode == RING_AUTO || mode == RING_DOUBLE)
		err = map_double(r, page);
	if (err && mode != RING_DOUBLE)
		err = map_slack(r, page);
	if (err)
		goto fail;
	hdr = (struct perf_event_mmap_page *)r->base;
	r->head_p = (const uint64_t *)&hdr->data_head;
	r->tail_p = (uint64_t *)&hdr->data_tail;
	r->data = r->base + page;
	/* Kernels since 4.1 say where the data is; it must be what we mapped. */
	if (hdr->data_size && (hdr->data_size != r->size || hdr->data_offset != page)) {
		err = -EINVAL;
		goto fail;
	}
	r->tail = __atomic_load_n(r->tail_p, __ATOMIC_RELAXED);
	r->pos = r->head = r->tail;
	return r;
fail:
	ring__unmap(r);
	errno = -err;
	return NULL;
}

struct ring *ring__map_bpf(int fd, uint64_t size)
{
	size_t page = page_size();
	struct ring *r;
	void *p;
	int err;

	r = ring__alloc(fd, size);
	if (!r)
		return NULL;
	r->mode = RING_BPF;
	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		goto fail;
	r->cons = p;
	r->map_len = page + 2 * size;
	p = mmap(NULL, r->map_len, PROT_READ, MAP_SHARED, fd, page);
	if (p == MAP_FAILED)
		goto fail;
	r->base = p;
	r->head_p = (const uint64_t *)r->base;
	r->tail_p = (uint64_t *)r->cons;
	r->data = r->base + page;
	r->tail = __atomic_load_n(r->tail_p, __ATOMIC_RELAXED);
	r->pos = r->head = r->tail;
	return r;
fail:
	err = errno;
	ring__unmap(r);
	errno = err;
	return NULL;
}

void ring__unmap(struct ring *r)
{
	if (!r)
		return;
	if (r->base)
		munmap(r->base, r->map_len);
	if (r->cons)
		munmap(r->cons, page_size());
	free(r);
}

enum ring_mode ring__mode(const struct ring *r)
{
	return r->mode;
}

const char *ring__mode_name(enum ring_mode mode)
{
	switch (mode) {
	case RING_DOUBLE: return "double-map";
	case RING_SLACK_COPY: return "slack-copy";
	case RING_BPF: return "bpf-ringbuf";
	default: return "auto";
	}
}

int ring__fd(const struct ring *r)
{
	return r->fd;
}

uint64_t ring__data_size(const struct ring *r)
{
	return r->size;
}

/* Makes N bytes at ring offset OFF contiguous: in slack mode the part past the end
 * is copied from the start of the ring into the slack right after it. N is at most
 * a record size (< 64 KiB) and within the snapshot. */
static inline const uint8_t *contig(struct ring *r, uint64_t off, uint32_t n)
{
	if (r->mode == RING_SLACK_COPY && off + n > r->size)
		memcpy(r->data + r->size, r->data, off + n - r->size);
	return r->data + off;
}

/* What ring__take fetches ahead: a record's first bytes (its frames' heads,
 * what the parsers read; not the whole of a 64 KB record) and the bytes past
 * its end (the next records'). */
#define RING_PREFETCH_HEAD 1024
#define RING_PREFETCH_AFTER 256

/* Counts one corrupt record at POS and gives up on the rest of the snapshot: with a
 * nonsense size there is no next record to find. */
static void skip_snapshot(struct ring *r)
{
	r->st.n_corrupt++;
	r->pos = r->head;
}

/* Makes the frame at REC_OFF of the record being walked the peeked event. At
 * the record's end (less than a header left: none, or a perf sample's padding)
 * or on a bad frame, which costs the rest of the record and is counted once as
 * corrupt, leaves the record and returns false. */
static bool rec_frame(struct ring *r)
{
	uint32_t left = r->rec_len - r->rec_off, flen;
	const uint8_t *f = r->rec + r->rec_off;

	if (left < PPM_HDR_LEN) {
		if (r->rec_off == 0)
			r->st.n_corrupt++;
		ring__rec_done(r);
		return false;
	}
	memcpy(&flen, f + offsetof(struct ppm_evt_hdr, len), sizeof(flen));
	if (flen < PPM_HDR_LEN || flen > left) {
		r->st.n_corrupt++;
		ring__rec_done(r);
		return false;
	}
	memcpy(&r->peek_ts, f, sizeof(r->peek_ts));
	r->peek_ev.frame = (const struct ppm_evt_hdr *)f;
	r->peek_ev.len = left;
	r->peek_len = flen;
	r->have_peek = true;
	return true;
}

/* Starts walking the LEN bytes of record data at REC, whose record ends at
 * ring offset END: its first frame is peeked, or (bad, counted corrupt) POS is
 * past the record. */
static void ring__take(struct ring *r, const uint8_t *rec, uint32_t len, uint64_t end)
{
	/* The kernel wrote these bytes from another CPU's cache, and the
	 * parsers read them after the per-event work: asked for now, each
	 * line's miss overlaps the others' and that work, not stalls one by
	 * one. The lines after the record too, the next records' (a prefetch
	 * past the mapping or the head is harmless: it never faults). */
	for (uint32_t k = 0; k < len && k < RING_PREFETCH_HEAD; k += 64)
		__builtin_prefetch(rec + k);
	for (uint32_t k = 0; k < RING_PREFETCH_AFTER; k += 64)
		__builtin_prefetch(rec + len + k);
	r->rec = rec;
	r->rec_len = len;
	r->rec_off = 0;
	r->rec_end = end;
	r->in_rec = true;
	rec_frame(r);
}

/* The next record of a perf ring's snapshot: false when the snapshot is used up. */
static bool ring__next_perf(struct ring *r)
{
	uint64_t avail = r->head - r->pos;
	uint64_t off = r->pos & r->mask;
	struct perf_event_header ph;
	const uint8_t *rec;
	uint32_t raw;

	if (avail < sizeof(ph)) {
		skip_snapshot(r);
		return false;
	}
	memcpy(&ph, contig(r, off, sizeof(ph)), sizeof(ph));
	if (ph.size < sizeof(ph) || ph.size > avail) {
		skip_snapshot(r);
		return false;
	}
	rec = contig(r, off, ph.size);
	if (ph.type == PERF_RECORD_LOST) {
		uint64_t lost;

		if (ph.size < sizeof(ph) + 16) {
			r->st.n_corrupt++;
		} else {
			memcpy(&lost, rec + sizeof(ph) + 8, sizeof(lost));
			r->st.n_lost += lost;
		}
	} else if (ph.type == PERF_RECORD_SAMPLE) {
		/* The record size is sane, so a bad sample only costs itself. */
		if (ph.size < sizeof(ph) + 4) {
			r->st.n_corrupt++;
		} else {
			memcpy(&raw, rec + sizeof(ph), sizeof(raw));
			if (raw > ph.size - sizeof(ph) - 4) {
				r->st.n_corrupt++;
			} else {
				/* POS is past the record unless a frame was found */
				ring__take(r, rec + sizeof(ph) + 4, raw, r->pos + ph.size);
				return true;
			}
		}
	}
	/* Not an event (throttle and the like) or a bad one: on to the next. */
	r->pos += ph.size;
	return true;
}

/* The next record of a BPF ring buffer's snapshot: false when the snapshot is
 * used up or ends at a record not committed yet. */
static bool ring__next_bpf(struct ring *r)
{
	uint64_t avail = r->head - r->pos;
	const uint8_t *rec = r->data + (r->pos & r->mask);
	uint32_t word, len;
	uint64_t total;

	if (avail < BPF_REC_HDR) {
		skip_snapshot(r);
		return false;
	}
	word = BPF_REC_WORD(r, r->pos);
	if (word & BPF_REC_BUSY) {
		/* Reserved, not yet committed: the snapshot ends here for now. */
		r->head = r->pos;
		return false;
	}
	len = word & ~(BPF_REC_BUSY | BPF_REC_DISCARD);
	total = ((uint64_t)len + BPF_REC_HDR + 7) & ~7ull;
	if (total > avail) {
		skip_snapshot(r);
		return false;
	}
	if (word & BPF_REC_DISCARD)
		r->pos += total;
	else
		ring__take(r, rec + BPF_REC_HDR, len, r->pos + total);
	return true;
}

bool ring__peek(struct ring *r, struct capture_event *ev, uint64_t *ts)
{
	if (!r->have_peek && r->in_rec)
		rec_frame(r);
	while (!r->have_peek && r->pos != r->head) {
		if (!(r->mode == RING_BPF ? ring__next_bpf(r) : ring__next_perf(r)))
			break;
	}
	if (!r->have_peek)
		return false;
	if (ev) {
		ev->frame = r->peek_ev.frame;
		ev->len = r->peek_ev.len;
	}
	if (ts)
		*ts = r->peek_ts;
	return true;
}

void ring__consume(struct ring *r)
{
	ring__consume_fast(r);
}

bool ring__exhausted(const struct ring *r)
{
	return ring__exhausted_fast(r);
}

void ring__release(struct ring *r)
{
	if (!ring__exhausted(r) || r->tail == r->pos)
		return;
	/* Our reads of the records must be done before the writer may reuse them. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(r->tail_p, r->pos, __ATOMIC_RELAXED);
	r->tail = r->pos;
}

uint64_t ring__refresh(struct ring *r)
{
	uint64_t head;

	if (!ring__exhausted(r))
		return r->head - r->pos;
	ring__release(r);
	/* Acquire: the records up to head are written before we read them. */
	head = __atomic_load_n(r->head_p, __ATOMIC_ACQUIRE);
	if (head - r->tail > r->size) {
		/* The header page is nonsense (head behind tail or past a full ring):
		 * nothing in it can be trusted. Resynchronise on head. */
		r->st.n_corrupt++;
		r->pos = r->head = head;
		ring__release(r);
		return 0;
	}
	r->head = head;
	/* A BPF ring's next record may be reserved and not yet committed: then
	 * nothing is readable yet. */
	if (r->mode == RING_BPF && head != r->pos && (BPF_REC_WORD(r, r->pos) & BPF_REC_BUSY))
		r->head = r->pos;
	return r->head - r->pos;
}

void ring__stats(const struct ring *r, struct capture_cpu_stats *st)
{
	st->n_evts = r->st.n_evts;
	st->n_bytes = r->st.n_bytes;
	st->n_lost = r->st.n_lost;
	st->n_corrupt = r->st.n_corrupt;
	/* What the kernel has written and we have not released yet, read now:
	 * the ring's fill, for metrics (not per event). */
	st->ring_size = r->size;
	st->ring_used = __atomic_load_n(r->head_p, __ATOMIC_ACQUIRE) - r->tail;
	if (st->ring_used > r->size)
		st->ring_used = r->size;
}
