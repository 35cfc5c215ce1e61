/* A single-producer, single-consumer byte ring of variable-size records: the
 * queue between the capture thread and an output's writer thread. */
#ifndef OUTPUT_QUEUE_H
#define OUTPUT_QUEUE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum queue_kind {
	QUEUE_LINE = 1,		/* an event line */
	QUEUE_MARKER = 2,	/* a drop marker line (not an event) */
	QUEUE_WRAP = 3,		/* filler up to the end of the buffer */
};

/* Every record starts 8-aligned with this header; LEN payload bytes follow,
 * padded to 8. */
struct queue_rec {
	uint32_t len;
	uint32_t kind;
	uint64_t ts_ns;
};

struct queue {
	uint8_t *buf;
	uint64_t mask;			/* capacity - 1, capacity a power of two */
	/* Written by the producer only; on their own cache line so that the
	 * consumer moving the tail does not slow the hot path down. */
	_Alignas(64) _Atomic uint64_t head;	/* bytes ever pushed */
	_Atomic uint64_t lines_in;		/* lines ever pushed */
	uint64_t tail_cache;			/* the producer's last look at tail */
	/* Written by the consumer only. */
	_Alignas(64) _Atomic uint64_t tail;	/* bytes ever released */
	_Atomic uint64_t lines_out;		/* lines ever released */
};

/* CAPACITY is rounded up to a power of two, at least 4 KiB, at most 1 GiB. */
int queue__init(struct queue *q, size_t capacity);
void queue__fini(struct queue *q);

static inline uint64_t queue__capacity(const struct queue *q)
{
	return q->mask + 1;
}

/* Producer: copies one record in. LINES (0 or 1) is what it adds to the line
 * count. 0, or -ENOBUFS when there is no room (records larger than half the
 * capacity never fit). Never blocks, never allocates. */
int queue__push(struct queue *q, enum queue_kind kind, uint64_t ts_ns, const void *data,
	       size_t len, unsigned lines);

/* Producer: would records of LEN_A then LEN_B bytes both fit now? */
bool queue__room(struct queue *q, size_t len_a, size_t len_b);

static inline uint64_t queue__head(const struct queue *q)
{
	return atomic_load_explicit(&q->head, memory_order_acquire);
}

static inline uint64_t queue__tail(const struct queue *q)
{
	return atomic_load_explicit(&q->tail, memory_order_acquire);
}

/* Bytes and lines queued now (any thread; a moment's view). */
uint64_t queue__bytes(const struct queue *q);
uint64_t queue__lines(const struct queue *q);

/* Consumer: the record at *POS (first stepping *POS over a wrap), or NULL
 * when *POS reached HEAD. */
const struct queue_rec *queue__peek(const struct queue *q, uint64_t *pos, uint64_t head);

static inline const char *queue__data(const struct queue_rec *rec)
{
	return (const char *)(rec + 1);
}

/* The position after REC, which starts at POS. */
static inline uint64_t queue__after(uint64_t pos, const struct queue_rec *rec)
{
	return pos + sizeof(*rec) + (((uint64_t)rec->len + 7) & ~7ull);
}

/* Consumer: everything before POS is done with; LINES lines left with it. */
void queue__release(struct queue *q, uint64_t pos, uint64_t lines);

#endif
