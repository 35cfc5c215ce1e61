/* The pairing of an HTTP/2 connection (RFC 9113): each direction's bytes
 * walked frame by frame, header blocks decoded in order (HPACK's table
 * follows them), and a request per stream: begun by the client's header
 * block, ended by the server's END_STREAM or either side's RST_STREAM, many
 * in flight and answered in any order. gRPC is HTTP/2 whose content-type is
 * application/grpc; its status rides in the trailers.
 *
 * What the captured bytes cannot show stays unknown, never guessed: a
 * connection first seen mid-way (its tables were built before), a header
 * block past the snaplen or one that breaks HPACK leaves its direction's
 * table untrusted, and the requests go on being counted with no headers
 * (n_h2_unknown). A frame header past the snaplen loses the frame
 * boundaries until a read starts with whole frames (n_h2_desync). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "h2_frame.h"
#include "h2_hpack.h"
#include "pair_int.h"

/* Bytes of one frame's payload or one header block staged at most; past
 * that the direction's table is lost. */
#define H2_STAGE_MAX 65536u

struct h2_dir {
	struct h2_hpack *hp;
	bool lost;		/* its table is not trusted: headers unknown */
	bool desync;		/* frame boundaries lost */
	uint8_t preface;	/* preface bytes still to pass */
	uint8_t head_len;	/* of a frame header a read cut */
	uint8_t head[H2_HEAD_LEN];
	bool in_frame;
	bool keep;		/* the frame's payload is staged */
	struct h2_head f;
	uint32_t left;		/* payload bytes still to come */
	uint32_t pay_len, pay_cap;
	uint8_t *pay;
	/* a header block in progress (HEADERS or PUSH_PROMISE, then
	 * CONTINUATIONs) */
	bool in_block, block_end_stream, block_push;
	uint32_t block_stream;
	uint64_t block_bytes;	/* its frames' bytes, headers included */
	uint32_t block_len, block_cap;
	uint8_t *block;
};

struct pair_h2 {
	struct h2_dir d[2];	/* the request direction, the response direction */
};

static void dir__free(struct h2_dir *d)
{
	h2_hpack__free(d->hp);
	free(d->pay);
	free(d->block);
}

void pair_h2__free(struct pair_h2 *h)
{
	if (!h)
		return;
	dir__free(&h->d[0]);
	dir__free(&h->d[1]);
	free(h);
}

/* BUF (of *CAP bytes) holds at least N, up to H2_STAGE_MAX. */
static bool stage__fit(uint8_t **buf, uint32_t *cap, uint64_t n)
{
	uint8_t *b;
	uint32_t want = *cap ? *cap : 1024;

	if (n <= *cap)
		return true;
	if (n > H2_STAGE_MAX)
		return false;
	while (want < n)
		want *= 2;
	b = realloc(*buf, want);
	if (!b)
		return false;
	*buf = b;
	*cap = want;
	return true;
}

/* D's table can no longer be followed. */
static void dir__lose(struct pairer *p, struct h2_dir *d)
{
	if (!d->lost)
		p->c.n_h2_lost++;
	d->lost = true;
}

/* D's frame boundaries are lost (bytes past the snaplen): so are its
 * header blocks, and its table with them. */
static void dir__desync(struct pairer *p, struct h2_dir *d)
{
	p->c.n_h2_desync++;
	d->desync = true;
	d->in_frame = d->in_block = false;
	d->head_len = 0;
	dir__lose(p, d);
}

/* A request's stream on C, or NULL. */
static struct pair_req *stream__find(struct pair_conn *c, uint32_t stream)
{
	for (uint32_t i = 0; i < c->n; i++) {
		struct pair_req *q = pair_q__at(c, i);

		if (q->stream == stream)
			return q;
	}
	return NULL;
}

/* gRPC's code for an HTTP status with no grpc-status (gRPC's "HTTP to gRPC
 * status code mapping"). */
static int32_t grpc__from_http(int32_t status)
{
	switch (status) {
	case 400: return 13;	/* INTERNAL */
	case 401: return 16;	/* UNAUTHENTICATED */
	case 403: return 7;	/* PERMISSION_DENIED */
	case 404: return 12;	/* UNIMPLEMENTED */
	case 429: case 502: case 503: case 504: return 14;	/* UNAVAILABLE */
	default: return 2;	/* UNKNOWN */
	}
}

/* gRPC request Q's status is G. */
static void grpc__set(struct pair_req *q, int32_t g)
{
	q->status = g;
	q->error = g > 0;
	q->code_len = (uint16_t)req_str__copy(q->code, sizeof(q->code), req_grpc__name(g));
}

/* Q's response has ended: its result, then its record. */
static void stream__done(struct pairer *p, struct pair_conn *c, struct pair_req *q)
{
	if (q->proto == REQ_PROTO_GRPC && q->status < 0 && q->h2_status >= 0 &&
	    q->h2_status != 200)
		grpc__set(q, grpc__from_http(q->h2_status));
	q->resp_done = true;
	pair_req__release(p, q);
	pair_emit__req(p, c, q, false, false, 0);
}

/* A whole header block of D (request direction: REQ) on its stream. */
static void block__end(struct pairer *p, struct pair_conn *c, struct h2_dir *d, bool req,
		       const struct req_io *io, uint64_t ts)
{
	struct h2_fields f;
	bool known = !d->lost;
	struct pair_req *q;

	d->in_block = false;
	if (known && h2_hpack__decode(d->hp, d->block, d->block_len, &f)) {
		dir__lose(p, d);
		known = false;
	}
	q = stream__find(c, d->block_stream);
	if (d->block_push) {
		/* a promised request: its table is followed, not it; its bytes
		 * went on the stream it is associated with */
		if (q && !req)
			q->resp_bytes += d->block_bytes;
		return;
	}
	if (req) {
		if (q) {
			q->req_bytes += d->block_bytes;	/* trailers */
			return;
		}
		/* a client's stream is odd */
		if (!(d->block_stream & 1))
			return;
		q = pair_req__begin(p, c, known && f.grpc ? REQ_PROTO_GRPC : REQ_PROTO_HTTP2, ts,
				    NULL, io->tid);
		if (!q)
			return;
		q->stream = d->block_stream;
		q->req_bytes = d->block_bytes;
		if (known) {
			q->method_len = (uint16_t)req_str__copy(q->method, sizeof(q->method), f.method);
			q->target_len = (uint16_t)req_str__copy(q->target, sizeof(q->target), f.path);
			q->head_resp = !strcmp(f.method, "HEAD");
		} else {
			p->c.n_h2_unknown++;
		}
		return;
	}
	if (!q) {
		p->c.n_unmatched++;
		return;
	}
	q->resp_bytes += d->block_bytes;
	pair_req__resp_io(p, c, q, ts, io->tid);
	if (known && !q->has_resp && f.status >= 100 && f.status < 200)
		return;		/* an interim response: its bytes only */
	if (!q->has_resp) {
		q->has_resp = true;
		q->ts_first_resp = ts;
		q->resp_need = 1;	/* until its END_STREAM: cut by a close */
		if (!known && q->method_len)
			p->c.n_h2_unknown++;
	}
	if (known) {
		if (f.grpc)
			q->proto = REQ_PROTO_GRPC;
		if (f.status >= 0 && q->h2_status < 0)
			q->h2_status = f.status;
		/* HTTP's status, or gRPC's from its trailers (or a
		 * trailers-only response): never the one for the other */
		if (q->proto == REQ_PROTO_GRPC) {
			if (f.grpc_status >= 0 && q->status < 0) {
				grpc__set(q, f.grpc_status);
				q->message_len = (uint16_t)req_str__copy(q->message, sizeof(q->message),
									 f.grpc_message);
			}
		} else if (f.status >= 0 && q->status < 0) {
			q->status = f.status;
			q->error = f.status >= 500;
		}
	}
	if (d->block_end_stream)
		stream__done(p, c, q);
}

/* Frame D->f's header was read. */
static void frame__begin(struct pairer *p, struct pair_conn *c, struct h2_dir *d, bool req,
			 const struct req_io *io, uint64_t ts)
{
	const struct h2_head *f = &d->f;
	bool block = f->type == H2_HEADERS || f->type == H2_PUSH_PROMISE ||
		     f->type == H2_CONTINUATION;
	struct pair_req *q;

	if (d->in_block && f->type != H2_CONTINUATION) {
		/* a block broken off: the table missed its end */
		d->in_block = false;
		dir__lose(p, d);
	}
	d->keep = (block && !d->lost) || f->type == H2_SETTINGS || f->type == H2_RST_STREAM;
	d->pay_len = 0;
	if (d->keep && !stage__fit(&d->pay, &d->pay_cap, f->len)) {
		d->keep = false;
		if (block)
			dir__lose(p, d);
	}
	switch (f->type) {
	case H2_DATA:
		q = stream__find(c, f->stream);
		if (!q)
			break;
		if (req) {
			q->req_bytes += H2_HEAD_LEN + (uint64_t)f->len;
		} else {
			q->resp_bytes += H2_HEAD_LEN + (uint64_t)f->len;
			pair_req__resp_io(p, c, q, ts, io->tid);
		}
		break;
	case H2_HEADERS:
	case H2_PUSH_PROMISE:
		d->in_block = true;
		d->block_stream = f->stream;
		d->block_end_stream = f->type == H2_HEADERS && (f->flags & H2_F_END_STREAM);
		d->block_push = f->type == H2_PUSH_PROMISE;
		d->block_bytes = H2_HEAD_LEN + (uint64_t)f->len;
		d->block_len = 0;
		break;
	case H2_CONTINUATION:
		if (!d->in_block || f->stream != d->block_stream) {
			dir__lose(p, d);
			break;
		}
		d->block_bytes += H2_HEAD_LEN + (uint64_t)f->len;
		break;
	}
}

/* Frame D->f's payload has all come (staged in D->pay when D->keep). */
static void frame__end(struct pairer *p, struct pair_conn *c, struct h2_dir *d, bool req,
		       const struct req_io *io, uint64_t ts)
{
	struct h2_dir *other = &c->h2->d[req ? 1 : 0];
	const struct h2_head *f = &d->f;
	struct pair_req *q;
	size_t off, n;

	d->in_frame = false;
	switch (f->type) {
	case H2_DATA:
		q = (f->flags & H2_F_END_STREAM) && !req ? stream__find(c, f->stream) : NULL;
		if (q && q->has_resp)
			stream__done(p, c, q);
		break;
	case H2_HEADERS:
	case H2_PUSH_PROMISE:
	case H2_CONTINUATION:
		if (!d->in_block)
			break;
		if (!d->keep) {
			dir__lose(p, d);	/* past the snaplen, or too long */
		} else if (!d->lost) {
			if (h2__block(f, d->pay, d->pay_len, &off, &n) ||
			    !stage__fit(&d->block, &d->block_cap, (uint64_t)d->block_len + n)) {
				dir__lose(p, d);
			} else {
				memcpy(d->block + d->block_len, d->pay + off, n);
				d->block_len += (uint32_t)n;
			}
		}
		if (f->flags & H2_F_END_HEADERS)
			block__end(p, c, d, req, io, ts);
		break;
	case H2_SETTINGS:
		if (!d->keep || (f->flags & H2_F_END_STREAM))
			break;	/* an ACK */
		for (uint32_t i = 0; i + 6 <= d->pay_len; i += 6) {
			const uint8_t *e = d->pay + i;

			if ((e[0] << 8 | e[1]) == H2_SETTINGS_HEADER_TABLE_SIZE)
				h2_hpack__bound(other->hp, (uint32_t)e[2] << 24 | (uint32_t)e[3] << 16 |
							   (uint32_t)e[4] << 8 | e[5]);
		}
		break;
	case H2_RST_STREAM:
		q = stream__find(c, f->stream);
		if (q) {
			pair_req__release(p, q);
			pair_emit__req(p, c, q, false, true, 0);
		}
		break;
	}
}

/* Bytes of D's current frame: TAKE of them from OFF, CAP captured. */
static void frame__bytes(struct h2_dir *d, const uint8_t *b, uint64_t off, uint64_t take,
			 size_t cap)
{
	if (!d->keep)
		return;
	if (off + take > cap) {
		d->keep = false;	/* past the snaplen */
		return;
	}
	memcpy(d->pay + d->pay_len, b + off, take);
	d->pay_len += (uint32_t)take;
}

/* A connection's HTTP/2 state, both tables empty; NULL counted. */
static struct pair_h2 *h2__new(struct pairer *p)
{
	struct pair_h2 *h = calloc(1, sizeof(*h));

	if (!h || !(h->d[0].hp = h2_hpack__new()) || !(h->d[1].hp = h2_hpack__new())) {
		pair_h2__free(h);
		p->c.n_h2_nomem++;
		return NULL;
	}
	return h;
}

/* C walks HTTP/2 with H from now on. */
static void conn__h2(struct pair_conn *c, struct pair_h2 *h)
{
	c->req_need = c->resp_need = 0;
	c->req_chunks.state = 0;
	c->req_body_lost = false;
	c->resp_chunks.state = 0;
	c->resp_scan = 0;
	c->carry_len = 0;
	c->h2 = h;
	c->proto = REQ_PROTO_HTTP2;
	c->detected = true;
}

int pair_h2__upgrade(struct pairer *p, struct pair_conn *c, struct pair_req *q)
{
	struct pair_h2 *h = h2__new(p);

	if (!h)
		return -ENOMEM;
	conn__h2(c, h);
	h->d[0].preface = H2_PREFACE_LEN;
	q->stream = 1;
	q->proto = REQ_PROTO_HTTP2;
	return 0;
}

int pair_h2__start(struct pairer *p, struct pair_conn *c, enum pair_h2_start how, size_t seen)
{
	struct pair_h2 *h = h2__new(p);

	if (!h)
		return -ENOMEM;
	/* what the connection carried before is over: reported as it stands */
	pair_emit__answered(p, c, &p->c.n_unparsed);
	conn__h2(c, h);
	if (how == PAIR_H2_MID) {
		dir__lose(p, &h->d[0]);
		dir__lose(p, &h->d[1]);
	} else {
		h->d[0].preface = (uint8_t)(H2_PREFACE_LEN - (seen < H2_PREFACE_LEN ? seen : 0));
	}
	return 0;
}

void pair_h2__io(struct pairer *p, struct pair_conn *c, const struct req_io *io, bool req)
{
	struct h2_dir *d = &c->h2->d[req ? 0 : 1];
	const uint8_t *b = io->data;
	size_t cap = io->data ? io->data_len : 0;
	uint64_t len = io->len, off = 0;
	/* a client's request from its write's start, the rest at their exits */
	uint64_t ts = req && c->side == REQ_SIDE_CLIENT ? io->ts_enter : io->ts;

	if (d->desync) {
		if (cap != len || h2__frames(b, cap)) {
			p->c.n_h2_desync++;
			return;
		}
		d->desync = false;
	}
	while (off < len) {
		uint64_t take;

		if (d->preface) {
			take = len - off < d->preface ? len - off : d->preface;
			if (off + take > cap || h2__preface_rest(H2_PREFACE_LEN - d->preface, b + off,
								 (size_t)take)) {
				/* no preface where it was due: the start was missed */
				d->preface = 0;
				dir__lose(p, &c->h2->d[0]);
				dir__lose(p, &c->h2->d[1]);
				continue;
			}
			d->preface -= (uint8_t)take;
			off += take;
			continue;
		}
		if (!d->in_frame) {
			while (d->head_len < H2_HEAD_LEN && off < len) {
				if (off >= cap) {
					dir__desync(p, d);
					return;
				}
				d->head[d->head_len++] = b[off++];
			}
			if (d->head_len < H2_HEAD_LEN)
				return;	/* the rest in the next read */
			d->head_len = 0;
			h2_head__read(d->head, &d->f);
			if (d->f.reserved) {
				dir__desync(p, d);
				return;
			}
			d->in_frame = true;
			d->left = d->f.len;
			frame__begin(p, c, d, req, io, ts);
			if (!d->left)
				frame__end(p, c, d, req, io, ts);
			continue;
		}
		take = len - off < d->left ? len - off : d->left;
		frame__bytes(d, b, off, take, cap);
		off += take;
		d->left -= (uint32_t)take;
		if (!d->left)
			frame__end(p, c, d, req, io, ts);
	}
}
