/* Dubbo 2 and RocketMQ messages laid out field by field from the protocols'
 * specifications: Dubbo's 16-byte header and a Hessian2 body (Hessian 2.0's
 * string, int and map encodings); RocketMQ's frame with a JSON header (as
 * its Java client's serializer writes it: keys in order) or a binary one
 * (ROCKETMQ's layout). */
#ifndef UNIT_RPC_WIRE_H
#define UNIT_RPC_WIRE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct rw {
	uint8_t b[4096];
	size_t n;
};

static inline void rw_u(struct rw *w, uint64_t v, int k)
{
	for (int i = k - 1; i >= 0; i--)
		w->b[w->n++] = (uint8_t)(v >> (8 * i));
}

static inline void rw_raw(struct rw *w, const void *s, size_t k)
{
	memcpy(w->b + w->n, s, k);
	w->n += k;
}

/* A Hessian2 string of ASCII S: short (< 32), medium (< 1024), or one
 * final 'S' chunk; NULL: 'N'. */
static inline void hs_str(struct rw *w, const char *s)
{
	size_t k;

	if (!s) {
		w->b[w->n++] = 'N';
		return;
	}
	k = strlen(s);
	if (k < 32) {
		w->b[w->n++] = (uint8_t)k;
	} else if (k < 1024) {
		w->b[w->n++] = (uint8_t)(0x30 + (k >> 8));
		w->b[w->n++] = (uint8_t)k;
	} else {
		w->b[w->n++] = 'S';
		rw_u(w, k, 2);
	}
	rw_raw(w, s, k);
}

#define DUBBO_REQ 0x80
#define DUBBO_TWOWAY 0x40
#define DUBBO_EVENT 0x20
#define DUBBO_HESSIAN2 2

/* Dubbo's header: magic, FLAG, STATUS, request ID, the body's length (set
 * by dw_end). Returns where the body starts. */
static inline size_t dw_head(struct rw *w, uint8_t flag, uint8_t status, uint64_t id)
{
	w->n = 0;
	rw_u(w, 0xdabb, 2);
	w->b[w->n++] = flag;
	w->b[w->n++] = status;
	rw_u(w, id, 8);
	rw_u(w, 0, 4);
	return w->n;
}

static inline size_t dw_end(struct rw *w)
{
	uint32_t blen = (uint32_t)(w->n - 16);

	for (int i = 0; i < 4; i++)
		w->b[12 + i] = (uint8_t)(blen >> (8 * (3 - i)));
	return w->n;
}

/* A Hessian2 invocation of PATH's METHOD(String) with ARG: dubbo version,
 * path, service version, method, parameter types, the argument, the
 * attachments (a map). */
static inline size_t dw_call(struct rw *w, uint64_t id, bool twoway, const char *path,
			     const char *method, const char *arg)
{
	dw_head(w, DUBBO_REQ | (twoway ? DUBBO_TWOWAY : 0) | DUBBO_HESSIAN2, 0, id);
	hs_str(w, "2.0.2");
	hs_str(w, path);
	hs_str(w, "0.0.0");
	hs_str(w, method);
	hs_str(w, "Ljava/lang/String;");
	hs_str(w, arg);
	w->b[w->n++] = 'H';
	hs_str(w, "path");
	hs_str(w, path);
	hs_str(w, "remote.application");
	hs_str(w, "demo-consumer");
	w->b[w->n++] = 'Z';
	return dw_end(w);
}

/* A Hessian2 response: STATUS; when OK, TYPE (Hessian2's int: 0x90 an
 * exception, 0x91 a value, 0x92 null) and a string VALUE; else the error's
 * message. */
static inline size_t dw_reply(struct rw *w, uint64_t id, uint8_t status, uint8_t type,
			      const char *value)
{
	dw_head(w, DUBBO_HESSIAN2, status, id);
	if (status == 20)
		w->b[w->n++] = type;
	if (type != 0x92 || status != 20)
		hs_str(w, value);
	return dw_end(w);
}

/* A heartbeat: a two-way event request whose data is null, or its answer. */
static inline size_t dw_heartbeat(struct rw *w, uint64_t id, bool request)
{
	dw_head(w, (request ? DUBBO_REQ | DUBBO_TWOWAY : 0) | DUBBO_EVENT | DUBBO_HESSIAN2,
		request ? 0 : 20, id);
	w->b[w->n++] = 'N';
	return dw_end(w);
}

/* RocketMQ's frame around header H (HL bytes, serialization SER) and body
 * B (BL bytes). */
static inline size_t mq_frame(struct rw *w, uint8_t ser, const void *h, size_t hl, const void *b,
			      size_t bl)
{
	w->n = 0;
	rw_u(w, 4 + hl + bl, 4);
	w->b[w->n++] = ser;
	rw_u(w, hl, 3);
	rw_raw(w, h, hl);
	rw_raw(w, b, bl);
	return w->n;
}

/* A JSON header's frame: its keys as the Java client writes them. EXT: the
 * extFields' members ("" none); REMARK NULL: none. */
static inline size_t mq_json(struct rw *w, int code, const char *ext, int flag, uint32_t opaque,
			     const char *remark, const char *body)
{
	char h[2048];
	int k;

	k = snprintf(h, sizeof(h), "{\"code\":%d,%s%s%s\"flag\":%d,\"language\":\"JAVA\","
		     "\"opaque\":%u,%s%s%s\"serializeTypeCurrentRPC\":\"JSON\",\"version\":453}",
		     code, *ext ? "\"extFields\":{" : "", ext, *ext ? "}," : "", flag, opaque,
		     remark ? "\"remark\":\"" : "", remark ? remark : "", remark ? "\"," : "");
	return mq_frame(w, 0, h, (size_t)k, body, strlen(body));
}

/* A binary (ROCKETMQ) header's frame: EXT pairs key, value, ..., NULL. */
static inline size_t mq_bin(struct rw *w, uint16_t code, uint16_t version, uint32_t opaque,
			    uint32_t flag, const char *remark, const char *const *ext,
			    const char *body)
{
	struct rw h = { .n = 0 };
	size_t el = 0, at;

	rw_u(&h, code, 2);
	h.b[h.n++] = 0;	/* JAVA */
	rw_u(&h, version, 2);
	rw_u(&h, opaque, 4);
	rw_u(&h, flag, 4);
	rw_u(&h, remark ? strlen(remark) : 0, 4);
	if (remark)
		rw_raw(&h, remark, strlen(remark));
	at = h.n;
	rw_u(&h, 0, 4);
	for (size_t i = 0; ext && ext[i]; i += 2) {
		rw_u(&h, strlen(ext[i]), 2);
		rw_raw(&h, ext[i], strlen(ext[i]));
		rw_u(&h, strlen(ext[i + 1]), 4);
		rw_raw(&h, ext[i + 1], strlen(ext[i + 1]));
	}
	el = h.n - at - 4;
	for (int i = 0; i < 4; i++)
		h.b[at + i] = (uint8_t)(el >> (8 * (3 - i)));
	return mq_frame(w, 1, h.b, h.n, body, strlen(body));
}

#endif
