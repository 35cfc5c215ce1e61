/* Perf ring mapping (double or slack) and the snapshot cursor. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "ring.h"

struct ring {
	int fd;
	enum ring_mode mode;
	uint8_t *base;		/* reserved region, MAP_LEN bytes */
	size_t map_len;
	struct perf_event_mmap_page *hdr;
	uint8_t *data;		/* data ring; readable up to data + 2 * size (double) or + RING_SLACK */
	uint64_t size;
	uint64_t mask;
	/* Cursor: [pos, head) is the unconsumed part of the snapshot; TAIL is what we
	 * last stored in data_tail. */
	uint64_t head;
	uint64_t pos;
	uint64_t tail;
	/* The event ring__peek found at POS, ending at PEEK_END. */
	bool have_peek;
	uint64_t peek_end;
	uint64_t peek_ts;
	uint32_t peek_len;
	struct capture_event peek_ev;
	struct capture_cpu_stats st;
};

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

struct ring *ring__map(int fd, uint32_t data_pages, enum ring_mode mode)
{
	size_t page = page_size();
	struct ring *r;
	int err;

	if (fd < 0 || !data_pages || (data_pages & (data_pages - 1)) ||
	    (uint64_t)data_pages * page > (1ull << 40)) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->fd = fd;
	r->size = (uint64_t)data_pages * page;
	r->mask = r->size - 1;
	err = -EINVAL;
	if (mode == RING_AUTO || mode == RING_DOUBLE)
		err = map_double(r, page);
	if (err && mode != RING_DOUBLE)
		err = map_slack(r, page);
	if (err)
		goto fail;
	r->hdr = (struct perf_event_mmap_page *)r->base;
	r->data = r->base + page;
	/* Kernels since 4.1 say where the data is; it must be what we mapped. */
	if (r->hdr->data_size &&
	    (r->hdr->data_size != r->size || r->hdr->data_offset != page)) {
		err = -EINVAL;
		goto fail;
	}
	r->tail = __atomic_load_n(&r->hdr->data_tail, __ATOMIC_RELAXED);
	r->pos = r->head = r->tail;
	return r;
fail:
	ring__unmap(r);
	errno = -err;
	return NULL;
}

void ring__unmap(struct ring *r)
{
	if (!r)
		return;
	if (r->base)
		munmap(r->base, r->map_len);
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

/* Counts one corrupt record at POS and gives up on the rest of the snapshot: with a
 * nonsense size there is no next record to find. */
static void skip_snapshot(struct ring *r)
{
	r->st.n_corrupt++;
	r->pos = r->head;
}

bool ring__peek(struct ring *r, struct capture_event *ev, uint64_t *ts)
{
	while (!r->have_peek && r->pos != r->head) {
		uint64_t avail = r->head - r->pos;
		uint64_t off = r->pos & r->mask;
		struct perf_event_header ph;
		const uint8_t *rec;
		uint32_t raw, flen;

		if (avail < sizeof(ph)) {
			skip_snapshot(r);
			break;
		}
		memcpy(&ph, contig(r, off, sizeof(ph)), sizeof(ph));
		if (ph.size < sizeof(ph) || ph.size > avail) {
			skip_snapshot(r);
			break;
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
			r->pos += ph.size;
			continue;
		}
		if (ph.type != PERF_RECORD_SAMPLE) {
			/* Not an event (throttle and the like): nothing to count. */
			r->pos += ph.size;
			continue;
		}
		/* The record size is sane, so a bad sample only costs itself. */
		if (ph.size < sizeof(ph) + 4) {
			r->st.n_corrupt++;
			r->pos += ph.size;
			continue;
		}
		memcpy(&raw, rec + sizeof(ph), sizeof(raw));
		if (raw > ph.size - sizeof(ph) - 4 || raw < PPM_HDR_LEN) {
			r->st.n_corrupt++;
			r->pos += ph.size;
			continue;
		}
		rec += sizeof(ph) + 4;
		memcpy(&flen, rec + offsetof(struct ppm_evt_hdr, len), sizeof(flen));
		if (flen < PPM_HDR_LEN || flen > raw) {
			r->st.n_corrupt++;
			r->pos += ph.size;
			continue;
		}
		memcpy(&r->peek_ts, rec, sizeof(r->peek_ts));
		r->peek_ev.frame = (const struct ppm_evt_hdr *)rec;
		r->peek_ev.len = raw;
		r->peek_len = flen;
		r->peek_end = r->pos + ph.size;
		r->have_peek = true;
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
	if (!r->have_peek)
		return;
	r->have_peek = false;
	r->pos = r->peek_end;
	r->st.n_evts++;
	r->st.n_bytes += r->peek_len;
}

bool ring__exhausted(const struct ring *r)
{
	return !r->have_peek && r->pos == r->head;
}

void ring__release(struct ring *r)
{
	if (!ring__exhausted(r) || r->tail == r->pos)
		return;
	/* Our reads of the records must be done before the writer may reuse them. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&r->hdr->data_tail, r->pos, __ATOMIC_RELAXED);
	r->tail = r->pos;
}

uint64_t ring__refresh(struct ring *r)
{
	uint64_t head;

	if (!ring__exhausted(r))
		return r->head - r->pos;
	ring__release(r);
	/* Acquire: the records up to head are written before we read them. */
	head = __atomic_load_n(&r->hdr->data_head, __ATOMIC_ACQUIRE);
	if (head - r->tail > r->size) {
		/* The header page is nonsense (head behind tail or past a full ring):
		 * nothing in it can be trusted. Resynchronise on head. */
		r->st.n_corrupt++;
		r->pos = r->head = head;
		ring__release(r);
		return 0;
	}
	r->head = head;
	return head - r->pos;
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
	st->ring_used = __atomic_load_n(&r->hdr->data_head, __ATOMIC_ACQUIRE) - r->tail;
	if (st->ring_used > r->size)
		st->ring_used = r->size;
}
