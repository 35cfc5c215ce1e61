/* Request mode's Redis pipelines. A client that pipelines (redis-cli --pipe,
 * redis-benchmark -P, a client library's pipeline) writes many commands in
 * one buffer, and the server reads them in one: cut at the snaplen, every
 * command past the cut is lost to the pairing, on both sides. A buffer that
 * starts with a RESP message which ends before the buffer does, and was cut,
 * holds more than one message: its fd is then given the wide snaplen
 * (h2.bpf.h marks it), the cut buffer copied again. The messages walked here:
 * a command (an array of bulk strings) and the replies a pipeline of them
 * gets back (a status, error or integer line of printable bytes, a bulk
 * string), followed by a byte that starts another. The walk is a
 * bpf_loop, a byte of a header or a jump over a bulk's bytes a turn, so that
 * the verifier sees one turn wherever a buffer is copied. */
#ifndef RESP_BPF_H
#define RESP_BPF_H

#include "scratch.bpf.h"

/* a command's elements walked (SET with EX and NX has 6) */
#define RESP_ARGS_MAX 8
/* digits of a length (proto-max-bulk-len is 512 MB: 9) */
#define RESP_DIGITS_MAX 10
/* turns of the walk: a command's headers, or a status line's bytes */
#define RESP_TURNS 256

enum resp_state {
	RESP_NUM,	/* a count or a length's digits, up to '\r' */
	RESP_LF,	/* the '\n' after them */
	RESP_TYPE,	/* an array's next element: '$' */
	RESP_LINE,	/* a status, error or integer line: printable, up to '\r' */
	RESP_LINE_LF,	/* the line's '\n' */
};

/* The message ends at W->p: another follows when the call moved more and,
 * where it was copied, the next byte starts a RESP message too (random
 * bytes a line's rule let through seldom pass this as well). */
static __always_inline void resp_walk__end(struct resp_walk *w, const struct scratch *s)
{
	int c;

	w->more = w->p < w->stop;
	if (w->more && w->p < w->end) {
		c = s->data[w->p & FRAME_MASK];
		w->more = c == '*' || c == '$' || c == '+' || c == '-' || c == ':';
	}
}

/* One turn: the byte at the walk's p. Returns 1 when the walk ends. The
 * walk is kept in the CPU's scratch, not on the stack: the verifier then
 * takes its fields as any values, and one pass over a turn covers them all. */
static long resp_walk__turn(__u64 i, void *arg)
{
	struct scratch *s = scratch__get();
	struct resp_walk *w;
	int c;

	if (!s)
		return 1;
	w = &s->resp;
	if (w->p >= w->end)
		return 1;
	c = s->data[w->p & FRAME_MASK];
	switch (w->state) {
	case RESP_NUM:
		if (c >= '0' && c <= '9' && w->digits < RESP_DIGITS_MAX) {
			w->num = w->num * 10 + (c - '0');
			w->digits++;
		} else if (c == '\r' && w->digits) {
			w->state = RESP_LF;
		} else {
			return 1;
		}
		w->p++;
		return 0;
	case RESP_LF:
		if (c != '\n')
			return 1;
		w->p++;
		if (w->array) {
			if (w->num < 1 || w->num > RESP_ARGS_MAX)
				return 1;
			w->left = (__u32)w->num;
			w->array = 0;
		} else {
			/* past the bulk's bytes and their "\r\n" */
			w->p += (__u64)w->num + 2;
			if (!--w->left) {
				resp_walk__end(w, s);
				return 1;
			}
		}
		w->num = 0;
		w->digits = 0;
		w->state = RESP_TYPE;
		return 0;
	case RESP_TYPE:
		if (c != '$')
			return 1;
		w->state = RESP_NUM;
		w->p++;
		return 0;
	case RESP_LINE:
		if (c == '\r')
			w->state = RESP_LINE_LF;
		else if (c < 0x20 || c > 0x7e)
			return 1;
		w->p++;
		return 0;
	default:
		if (c != '\n')
			return 1;
		w->p++;
		resp_walk__end(w, s);
		return 1;
	}
}

/* S's frame holds at OFF0 a buffer of LEN bytes moved, cut to what was
 * copied: true when it starts with a whole RESP message (as its headers
 * say) that ends before LEN, i.e. another one follows it. */
static __always_inline bool resp__more(struct scratch *s, __u32 off0, __u64 len)
{
	struct resp_walk *w = &s->resp;
	int c = s->data[off0 & FRAME_MASK];

	__builtin_memset(w, 0, sizeof(*w));
	w->p = (__u64)off0 + 1;
	w->end = s->off;
	w->stop = (__u64)off0 + len;
	if (c == '*') {
		w->state = RESP_NUM;
		w->array = 1;
	} else if (c == '$') {
		w->state = RESP_NUM;
		w->left = 1;
	} else if (c == '+' || c == '-' || c == ':') {
		w->state = RESP_LINE;
	} else {
		return false;
	}
	bpf_loop(RESP_TURNS, resp_walk__turn, NULL, 0);
	return w->more;
}

#endif
