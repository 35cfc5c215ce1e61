/* Builds event frames by hand for unit tests: the same bytes the driver writes. */
#ifndef FRAME_BUILDER_H
#define FRAME_BUILDER_H

#include <stdint.h>
#include <string.h>

#include "schema.h"

struct frame_builder {
	uint8_t *buf;
	uint32_t cap;
	uint32_t nparams;
	uint32_t cur;	/* params written */
	uint32_t off;	/* next byte */
	int overflow;
};

/* Starts an event of TYPE with as many params as the schema says. */
static inline void fb__begin(struct frame_builder *fb, void *buf, uint32_t cap,
			     uint16_t type, uint64_t tid, uint64_t ts)
{
	struct ppm_evt_hdr h = { .ts = ts, .tid = tid, .type = type,
				 .nparams = schema_events[type].nparams };

	fb->buf = buf;
	fb->cap = cap;
	fb->nparams = h.nparams;
	fb->cur = 0;
	fb->off = PPM_HDR_LEN + 2 * h.nparams;
	fb->overflow = fb->off > cap;
	if (!fb->overflow) {
		memcpy(buf, &h, sizeof(h));
		memset((uint8_t *)buf + PPM_HDR_LEN, 0, 2 * h.nparams);
	}
}

static inline void fb__param(struct frame_builder *fb, const void *val, uint16_t len)
{
	uint16_t l = len;

	if (fb->overflow || fb->cur >= fb->nparams || fb->off + len > fb->cap) {
		fb->overflow = 1;
		return;
	}
	memcpy(fb->buf + PPM_HDR_LEN + 2 * fb->cur, &l, 2);
	memcpy(fb->buf + fb->off, val, len);
	fb->off += len;
	fb->cur++;
}

static inline void fb__u8(struct frame_builder *fb, uint8_t v) { fb__param(fb, &v, 1); }
static inline void fb__u16(struct frame_builder *fb, uint16_t v) { fb__param(fb, &v, 2); }
static inline void fb__u32(struct frame_builder *fb, uint32_t v) { fb__param(fb, &v, 4); }
static inline void fb__u64(struct frame_builder *fb, uint64_t v) { fb__param(fb, &v, 8); }
static inline void fb__str(struct frame_builder *fb, const char *s) { fb__param(fb, s, strlen(s) + 1); }
static inline void fb__empty(struct frame_builder *fb) { fb__param(fb, "", 0); }

/* Finishes the frame; returns its length, or 0 if it did not fit or params are
 * missing (pass allow_fewer to build an old-style frame with fewer params). */
static inline uint32_t fb__end(struct frame_builder *fb, int allow_fewer)
{
	struct ppm_evt_hdr h;

	if (fb->overflow || (!allow_fewer && fb->cur != fb->nparams))
		return 0;
	memcpy(&h, fb->buf, sizeof(h));
	h.len = fb->off;
	h.nparams = fb->cur;
	if (fb->cur != fb->nparams)	/* shift params down over unused length slots */
		memmove(fb->buf + PPM_HDR_LEN + 2 * fb->cur,
			fb->buf + PPM_HDR_LEN + 2 * fb->nparams,
			fb->off - PPM_HDR_LEN - 2 * fb->nparams),
		h.len -= 2 * (fb->nparams - fb->cur);
	memcpy(fb->buf, &h, sizeof(h));
	return h.len;
}

#endif
