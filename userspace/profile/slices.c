/* Decoding CPU_SLICES events (slices.h). */
#include <errno.h>
#include <string.h>

#include "slices.h"

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

const char *prof_slice__kind_name(unsigned kind)
{
	static const char *const names[PROF_SLICE__KINDS] = {
		"runq", "file", "net", "lock", "poll", "sleep", "other",
	};

	return kind < PROF_SLICE__KINDS ? names[kind] : "?";
}

int prof_batch__decode(struct prof_batch *out, uint64_t to, const uint8_t *tid, size_t tid_len,
		       const uint8_t *from, size_t from_len, const uint8_t *slices, size_t len)
{
	uint64_t at;

	if (!tid || !from || tid_len != 8 || from_len != 8 || len % PROF_SLICE_WIRE ||
	    len / PROF_SLICE_WIRE > PROF_SLICES_MAX || (len && !slices))
		return -EINVAL;
	out->tid = rd64(tid);
	out->from = rd64(from);
	out->to = to;
	out->n = (unsigned)(len / PROF_SLICE_WIRE);
	if (out->from > to)
		return -EINVAL;
	at = out->from;
	for (unsigned i = 0; i < out->n; i++) {
		const uint8_t *b = slices + (size_t)i * PROF_SLICE_WIRE;
		struct prof_slice_rec *s = &out->s[i];

		s->start = rd64(b);
		s->dur = rd64(b + 8);
		s->obj = rd64(b + 16);
		memcpy(&s->waker, b + 24, 4);
		memcpy(&s->nr, b + 28, 2);
		s->kind = b[30];
		s->flags = b[31];
		/* in order, within the batch's span, none overlapping the last */
		if (s->kind >= PROF_SLICE__KINDS || s->start < at || s->start > to ||
		    s->dur > to - s->start)
			return -EINVAL;
		at = s->start + s->dur;
	}
	return 0;
}
