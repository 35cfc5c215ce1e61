/* HTTP/2's framing (RFC 9113, section 4): the client's connection preface,
 * the 9-byte frame header, and what a frame of each type may look like.
 * Pure functions of the bytes, as the parsers (req_head.h): any bytes may
 * come off a socket. */
#ifndef REQUESTS_H2_FRAME_H
#define REQUESTS_H2_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define H2_PREFACE_LEN 24
#define H2_HEAD_LEN 9
/* SETTINGS_MAX_FRAME_SIZE's ceiling: no frame is longer */
#define H2_FRAME_MAX ((1u << 24) - 1)

enum h2_type {
	H2_DATA = 0,
	H2_HEADERS = 1,
	H2_PRIORITY = 2,
	H2_RST_STREAM = 3,
	H2_SETTINGS = 4,
	H2_PUSH_PROMISE = 5,
	H2_PING = 6,
	H2_GOAWAY = 7,
	H2_WINDOW_UPDATE = 8,
	H2_CONTINUATION = 9,
};

#define H2_F_END_STREAM 0x01	/* DATA, HEADERS; ACK on SETTINGS and PING */
#define H2_F_END_HEADERS 0x04	/* HEADERS, PUSH_PROMISE, CONTINUATION */
#define H2_F_PADDED 0x08	/* DATA, HEADERS, PUSH_PROMISE */
#define H2_F_PRIORITY 0x20	/* HEADERS */

#define H2_SETTINGS_HEADER_TABLE_SIZE 1

struct h2_head {
	uint32_t len;		/* payload bytes */
	uint8_t type, flags;
	uint32_t stream;	/* the reserved bit dropped */
	bool reserved;		/* ... it was set */
};

/* 0: B starts with the client's preface; -EAGAIN: its N bytes are a prefix
 * of it; -ENOMSG: they are not. */
int h2__preface(const uint8_t *b, size_t n);
/* 0: B's N bytes are the preface's from its byte AT on; else -ENOMSG. */
int h2__preface_rest(size_t at, const uint8_t *b, size_t n);
/* The frame header in B's first H2_HEAD_LEN bytes. */
void h2_head__read(const uint8_t *b, struct h2_head *h);
/* Whether H is a frame a peer could send as RFC 9113 defines it (a known
 * type, on a stream or not as its type wants, of a length its type allows,
 * no unknown flag): what a stream of bytes is checked against before it is
 * taken for HTTP/2 without having seen its preface. */
bool h2_head__plausible(const struct h2_head *h);
/* 0: B's N bytes are one or more plausible frames ending exactly at N (a
 * connection's bytes read from a frame's start); else -ENOMSG. */
int h2__frames(const uint8_t *b, size_t n);
/* The header block fragment in the payload P (N bytes) of a HEADERS,
 * PUSH_PROMISE or CONTINUATION frame H: its offset and length, padding,
 * priority and promised stream left out. -EBADMSG when they do not fit. */
int h2__block(const struct h2_head *h, const uint8_t *p, size_t n, size_t *off, size_t *len);

#endif
