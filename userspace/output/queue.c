/* The SPSC record ring. head and tail count bytes since the start and only
 * grow; a position's offset in the buffer is POS & mask. A record never
 * straddles the end: when it does not fit before it, a wrap record (or, with
 * less than a header's room left, nothing) fills the rest and it starts at 0. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"

#define QUEUE_MIN (4u << 10)
#define QUEUE_MAX (1u << 30)
#define HDR sizeof(struct queue_rec)

int queue__init(struct queue *q, size_t capacity)
{
	size_t cap = QUEUE_MIN;

	while (cap < capacity && cap < QUEUE_MAX)
		cap <<= 1;
	memset(q, 0, sizeof(*q));
	/* calloc: big buffers come as untouched zero pages, paid for when used */
	q->buf = calloc(1, cap);
	if (!q->buf)
		return -ENOMEM;
	q->mask = cap - 1;
	return 0;
}

void queue__fini(struct queue *q)
{
	free(q->buf);
	q->buf = NULL;
}

static uint64_t queue__size(size_t len)
{
	return HDR + ((len + 7) & ~(uint64_t)7);
}

/* Bytes that a record of LEN takes when pushed at HEAD: its size, plus the
 * rest of the buffer when it must wrap. */
static uint64_t queue__span(const struct queue *q, uint64_t head, size_t len)
{
	uint64_t size = queue__size(len);
	uint64_t to_end = queue__capacity(q) - (head & q->mask);

	return size <= to_end ? size : to_end + size;
}

/* Is there room for NEED bytes? The consumer's tail is read again only when
 * the last look at it says no. */
static bool queue__free(struct queue *q, uint64_t head, uint64_t need)
{
	if (queue__capacity(q) - (head - q->tail_cache) >= need)
		return true;
	q->tail_cache = atomic_load_explicit(&q->tail, memory_order_acquire);
	return queue__capacity(q) - (head - q->tail_cache) >= need;
}

bool queue__room(struct queue *q, size_t len_a, size_t len_b)
{
	uint64_t head = atomic_load_explicit(&q->head, memory_order_relaxed);
	uint64_t need = queue__span(q, head, len_a);

	if (queue__size(len_a) > queue__capacity(q) / 2 || queue__size(len_b) > queue__capacity(q) / 2)
		return false;
	need += queue__span(q, head + need, len_b);
	return queue__free(q, head, need);
}

int queue__push(struct queue *q, enum queue_kind kind, uint64_t ts_ns, const void *data,
		size_t len, unsigned lines)
{
	uint64_t cap = queue__capacity(q), size = queue__size(len);
	uint64_t head = atomic_load_explicit(&q->head, memory_order_relaxed);
	uint64_t off = head & q->mask, to_end = cap - off;
	struct queue_rec *rec;

	/* over half the queue, a record could need more than the whole queue
	 * once a wrap is added: refuse it outright */
	if (size > cap / 2 || !queue__free(q, head, queue__span(q, head, len)))
		return -ENOBUFS;
	if (size > to_end) {
		if (to_end >= HDR) {
			rec = (struct queue_rec *)(q->buf + off);
			rec->len = 0;
			rec->kind = QUEUE_WRAP;
			rec->ts_ns = 0;
		}
		head += to_end;
		off = 0;
	}
	rec = (struct queue_rec *)(q->buf + off);
	rec->len = (uint32_t)len;
	rec->kind = kind;
	rec->ts_ns = ts_ns;
	memcpy(rec + 1, data, len);
	/* the line count first: whoever sees the record sees it counted */
	if (lines)
		atomic_store_explicit(&q->lines_in,
			atomic_load_explicit(&q->lines_in, memory_order_relaxed) + lines,
			memory_order_relaxed);
	atomic_store_explicit(&q->head, head + size, memory_order_release);
	return 0;
}

uint64_t queue__bytes(const struct queue *q)
{
	uint64_t tail = queue__tail(q), head = queue__head(q);

	return head > tail ? head - tail : 0;
}

uint64_t queue__lines(const struct queue *q)
{
	uint64_t out = atomic_load_explicit(&q->lines_out, memory_order_acquire);
	uint64_t in = atomic_load_explicit(&q->lines_in, memory_order_acquire);

	/* two loads, not one snapshot: never report a negative count */
	return in > out ? in - out : 0;
}

const struct queue_rec *queue__peek(const struct queue *q, uint64_t *pos, uint64_t head)
{
	uint64_t off;

	if (*pos == head)
		return NULL;
	off = *pos & q->mask;
	if (queue__capacity(q) - off < HDR) {
		*pos += queue__capacity(q) - off;
		off = 0;
	} else if (((const struct queue_rec *)(q->buf + off))->kind == QUEUE_WRAP) {
		*pos += queue__capacity(q) - off;
		off = 0;
	}
	if (*pos == head)
		return NULL;
	return (const struct queue_rec *)(q->buf + off);
}

void queue__release(struct queue *q, uint64_t pos, uint64_t lines)
{
	if (lines)
		atomic_store_explicit(&q->lines_out,
			atomic_load_explicit(&q->lines_out, memory_order_relaxed) + lines,
			memory_order_relaxed);
	atomic_store_explicit(&q->tail, pos, memory_order_release);
}
