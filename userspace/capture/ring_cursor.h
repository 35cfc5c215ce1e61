/* The ring's state, shared by ring.c and ringset.c only: the merge asks each
 * ring for its peeked event several times per event handed out, and these
 * inline checks save it a call each time. Nothing outside capture/ includes it. */
#ifndef CAPTURE_RING_CURSOR_H
#define CAPTURE_RING_CURSOR_H

#include "ring.h"

struct ring {
	int fd;
	enum ring_mode mode;
	uint8_t *base;		/* reserved region, MAP_LEN bytes */
	size_t map_len;
	/* The writer's head and our tail: data_head and data_tail of a perf
	 * ring's header page, producer_pos and consumer_pos of a BPF ring. */
	const uint64_t *head_p;
	uint64_t *tail_p;
	uint8_t *cons;		/* a BPF ring's consumer page, mapped on its own */
	uint8_t *data;		/* data ring; readable up to data + 2 * size (double) or + RING_SLACK */
	uint64_t size;
	uint64_t mask;
	/* Cursor: [pos, head) is the unconsumed part of the snapshot; TAIL is what we
	 * last stored in data_tail. */
	uint64_t head;
	uint64_t pos;
	uint64_t tail;
	/* The record at POS being walked: it may hold several frames back to
	 * back (exit-only capture sends a syscall's enter and exit frames in one
	 * record). REC_OFF is its next frame; POS moves to REC_END after its last. */
	bool in_rec;
	const uint8_t *rec;
	uint32_t rec_len;
	uint32_t rec_off;
	uint64_t rec_end;
	/* The event ring__peek found at REC + REC_OFF, PEEK_LEN bytes long. */
	bool have_peek;
	uint64_t peek_ts;
	uint32_t peek_len;
	struct capture_event peek_ev;
	struct capture_cpu_stats st;
};

/* Leaves the record being walked: POS moves past it. */
static inline void ring__rec_done(struct ring *r)
{
	r->in_rec = false;
	r->pos = r->rec_end;
}

/* ring__consume, inline: the merge hands out an event with it each time. */
static inline void ring__consume_fast(struct ring *r)
{
	if (!r->have_peek)
		return;
	r->have_peek = false;
	r->rec_off += r->peek_len;
	r->st.n_evts++;
	r->st.n_bytes += r->peek_len;
	/* Past the record's last frame: the ring may count as exhausted at once. */
	if (r->rec_len - r->rec_off < PPM_HDR_LEN)
		ring__rec_done(r);
}

static inline bool ring__exhausted_fast(const struct ring *r)
{
	return !r->have_peek && r->pos == r->head;
}

#endif
