/* Records of the queue as iovecs for one writev/sendmsg, and the accounting
 * once some bytes of them went out. The first record may be partly written
 * already (o->partial bytes): its iovecs start from the next byte, so a line is
 * always finished, never restarted or cut. */
#include "output_int.h"

static void gather__add(struct gather *g, const char *p, size_t len, size_t *skip)
{
	if (*skip >= len) {
		*skip -= len;
		return;
	}
	g->iov[g->iovcnt].iov_base = (void *)(p + *skip);
	g->iov[g->iovcnt].iov_len = len - *skip;
	g->iovcnt++;
	g->total += len - *skip;
	*skip = 0;
}

bool gather__fill(struct output *o, struct gather *g, unsigned max, size_t max_bytes)
{
	uint64_t head = queue__head(&o->q), pos = queue__tail(&o->q);
	const struct queue_rec *rec;
	size_t skip = o->partial;

	g->iovcnt = 0;
	g->n = 0;
	g->total = 0;
	if (max > GATHER_MAX)
		max = GATHER_MAX;
	while (g->n < max && (rec = queue__peek(&o->q, &pos, head))) {
		size_t plen = frame__prefix(o, rec, g->prefix[g->n]);
		size_t blen = frame__body_len(o, rec);

		/* the first record always: a caller sees by TOTAL that it is over */
		if (g->n && g->total + plen + blen > max_bytes)
			break;
		gather__add(g, g->prefix[g->n], plen, &skip);
		gather__add(g, queue__data(rec), blen, &skip);
		g->frame_len[g->n] = (uint32_t)(plen + blen);
		g->kind[g->n] = (uint8_t)rec->kind;
		pos = queue__after(pos, rec);
		g->next[g->n] = pos;
		g->n++;
	}
	return g->n > 0;
}

void gather__advance(struct output *o, const struct gather *g, size_t n)
{
	uint64_t lines = 0, markers = 0, done = 0;
	size_t off = o->partial;
	unsigned i;

	STAT_ADD(o, bytes, n);
	for (i = 0; i < g->n; i++) {
		size_t left = g->frame_len[i] - off;

		if (n < left) {
			off += n;
			break;
		}
		n -= left;
		off = 0;
		if (g->kind[i] == QUEUE_LINE)
			lines++;
		else
			markers++;
		done = g->next[i];
	}
	o->partial = off;
	if (lines)
		STAT_ADD(o, emitted, lines);
	if (markers)
		STAT_ADD(o, markers, markers);
	if (done)
		queue__release(&o->q, done, lines);
}
