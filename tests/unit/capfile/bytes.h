/* Building capture-file bytes by hand for the capture-file tests: a growable byte
 * string, little-endian fields, the section header and blocks. */
#ifndef CAPFILE_TEST_BYTES_H
#define CAPFILE_TEST_BYTES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct bytes {
	uint8_t *p;
	size_t len;
};

static inline void put(struct bytes *b, const void *v, size_t n)
{
	b->p = realloc(b->p, b->len + n);
	memcpy(b->p + b->len, v, n);
	b->len += n;
}

static inline void put_u8(struct bytes *b, uint8_t v) { put(b, &v, 1); }
static inline void put_u16(struct bytes *b, uint16_t v) { put(b, &v, 2); }
static inline void put_u32(struct bytes *b, uint32_t v) { put(b, &v, 4); }
static inline void put_u64(struct bytes *b, uint64_t v) { put(b, &v, 8); }

/* A u16-length string. */
static inline void put_str(struct bytes *b, const char *s)
{
	put_u16(b, (uint16_t)strlen(s));
	put(b, s, strlen(s));
}

/* The section header with MAGIC, and EXTRA zero bytes of options (as newer
 * writers add). */
static inline void put_shb(struct bytes *b, uint32_t magic, uint32_t extra)
{
	uint16_t ver[2] = { 1, 2 };
	uint8_t zero[128] = { 0 };

	put_u32(b, 0x0A0D0D0A);
	put_u32(b, 28 + extra);
	put_u32(b, magic);
	put(b, ver, 4);
	put_u64(b, UINT64_MAX);
	put(b, zero, extra < sizeof(zero) ? extra : sizeof(zero));
	put_u32(b, 28 + extra);
}

/* A block of TYPE around BODY, padded; LEN_FIX alters the header length only,
 * TRAILER_FIX the trailer only. */
static inline void put_block(struct bytes *b, uint32_t type, const struct bytes *body,
			     int32_t len_fix, int32_t trailer_fix)
{
	uint32_t pad = (4 - body->len % 4) % 4, blen = 12 + (uint32_t)body->len + pad;

	put_u32(b, type);
	put_u32(b, blen + (uint32_t)len_fix);
	put(b, body->p, body->len);
	put(b, "\0\0\0", pad);
	put_u32(b, blen + (uint32_t)trailer_fix);
}

#endif
