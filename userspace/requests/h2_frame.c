/* HTTP/2's framing (h2_frame.h). */
#include <errno.h>
#include <string.h>

#include "h2_frame.h"

static const char preface[H2_PREFACE_LEN + 1] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

int h2__preface(const uint8_t *b, size_t n)
{
	size_t k = n < H2_PREFACE_LEN ? n : H2_PREFACE_LEN;

	if (!n || memcmp(b, preface, k))
		return -ENOMSG;
	return k == H2_PREFACE_LEN ? 0 : -EAGAIN;
}

int h2__preface_rest(size_t at, const uint8_t *b, size_t n)
{
	if (at > H2_PREFACE_LEN || n > H2_PREFACE_LEN - at || memcmp(b, preface + at, n))
		return -ENOMSG;
	return 0;
}

void h2_head__read(const uint8_t *b, struct h2_head *h)
{
	h->len = (uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2];
	h->type = b[3];
	h->flags = b[4];
	h->reserved = b[5] & 0x80;
	h->stream = ((uint32_t)b[5] & 0x7f) << 24 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 8 | b[8];
}

bool h2_head__plausible(const struct h2_head *h)
{
	/* the flags each type defines (RFC 9113, section 6) */
	static const uint8_t flags[] = {
		[H2_DATA] = H2_F_END_STREAM | H2_F_PADDED,
		[H2_HEADERS] = H2_F_END_STREAM | H2_F_END_HEADERS | H2_F_PADDED | H2_F_PRIORITY,
		[H2_PRIORITY] = 0,
		[H2_RST_STREAM] = 0,
		[H2_SETTINGS] = H2_F_END_STREAM,
		[H2_PUSH_PROMISE] = H2_F_END_HEADERS | H2_F_PADDED,
		[H2_PING] = H2_F_END_STREAM,
		[H2_GOAWAY] = 0,
		[H2_WINDOW_UPDATE] = 0,
		[H2_CONTINUATION] = H2_F_END_HEADERS,
	};

	if (h->reserved || h->type > H2_CONTINUATION || (h->flags & ~flags[h->type]))
		return false;
	switch (h->type) {
	case H2_DATA:
	case H2_HEADERS:
	case H2_CONTINUATION:
	case H2_PUSH_PROMISE:
		return h->stream != 0 && h->len <= (1u << 14) * 64;
	case H2_PRIORITY:
		return h->stream != 0 && h->len == 5;
	case H2_RST_STREAM:
		return h->stream != 0 && h->len == 4;
	case H2_SETTINGS:
		return h->stream == 0 && h->len % 6 == 0 && h->len <= 6 * 64 &&
		       (!(h->flags & H2_F_END_STREAM) || h->len == 0);
	case H2_PING:
		return h->stream == 0 && h->len == 8;
	case H2_GOAWAY:
		return h->stream == 0 && h->len >= 8 && h->len <= 8 + 1024;
	case H2_WINDOW_UPDATE:
		return h->len == 4;
	}
	return false;
}

int h2__frames(const uint8_t *b, size_t n)
{
	size_t off = 0;

	if (n < H2_HEAD_LEN)
		return -ENOMSG;
	while (off < n) {
		struct h2_head h;

		if (n - off < H2_HEAD_LEN)
			return -ENOMSG;
		h2_head__read(b + off, &h);
		if (!h2_head__plausible(&h) || h.len > n - off - H2_HEAD_LEN)
			return -ENOMSG;
		off += H2_HEAD_LEN + h.len;
	}
	return 0;
}

int h2__block(const struct h2_head *h, const uint8_t *p, size_t n, size_t *off, size_t *len)
{
	size_t front = 0, pad = 0;

	if (h->type != H2_CONTINUATION && (h->flags & H2_F_PADDED)) {
		if (n < 1)
			return -EBADMSG;
		pad = p[0];
		front = 1;
	}
	if (h->type == H2_HEADERS && (h->flags & H2_F_PRIORITY))
		front += 5;
	else if (h->type == H2_PUSH_PROMISE)
		front += 4;	/* the promised stream */
	if (front > n || pad > n - front)
		return -EBADMSG;
	*off = front;
	*len = n - front - pad;
	return 0;
}
