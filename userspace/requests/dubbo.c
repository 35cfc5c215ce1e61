/* Dubbo 2's protocol, from its specification (Dubbo's "dubbo2 protocol
 * spec": header fields, flag bits, status codes; a request's body as the
 * dubbo version, service path, service version, method name, parameter
 * types, arguments, attachments) and Hessian 2.0's serialization for the
 * strings of a request's body. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dubbo.h"

#define HEAD_LEN 16
#define FLAG_REQUEST 0x80
#define FLAG_TWOWAY 0x40
#define FLAG_EVENT 0x20
#define SER_MASK 0x1f
#define SER_HESSIAN2 2
#define STATUS_OK 20
/* Hessian2's int 0 and 3 (0x80 + n): RESPONSE_WITH_EXCEPTION, and with
 * attachments */
#define RESP_EXCEPTION 0x90
#define RESP_EXCEPTION_ATT 0x93

enum { RD_OK = 0, RD_CUT = -1, RD_BAD = -2 };

static const char *status__name(uint8_t s)
{
	switch (s) {
	case 30: return "CLIENT_TIMEOUT";
	case 31: return "SERVER_TIMEOUT";
	case 40: return "BAD_REQUEST";
	case 50: return "BAD_RESPONSE";
	case 60: return "SERVICE_NOT_FOUND";
	case 70: return "SERVICE_ERROR";
	case 80: return "SERVER_ERROR";
	case 90: return "CLIENT_ERROR";
	/* SERVER_THREADPOOL_EXHAUSTED_ERROR: longer than req_head's code */
	case 100: return "100";
	}
	return NULL;
}

/* Bytes of the UTF-8 sequence led by C and the UTF-16 units it stands for
 * (Hessian counts a string's length in those); 0: no lead byte. */
static size_t utf8__len(uint8_t c, size_t *units)
{
	*units = 1;
	if (c < 0x80)
		return 1;
	if ((c & 0xe0) == 0xc0)
		return 2;
	if ((c & 0xf0) == 0xe0)
		return 3;
	if ((c & 0xf8) == 0xf0) {
		*units = 2;
		return 4;
	}
	return 0;
}

/* UNITS characters of a string chunk at *P of B (N bytes), copied to DST
 * (SIZE, at *AT so far) as far as they fit. */
static int hs__chars(const uint8_t *b, size_t n, size_t *p, size_t units, char *dst, size_t size,
		     size_t *at)
{
	while (units) {
		size_t u, k;

		if (*p >= n)
			return RD_CUT;
		k = utf8__len(b[*p], &u);
		if (!k || u > units)
			return RD_BAD;
		if (k > n - *p)
			return RD_CUT;
		if (dst && *at + k < size) {
			memcpy(dst + *at, b + *p, k);
			*at += k;
			dst[*at] = '\0';
		}
		*p += k;
		units -= u;
	}
	return RD_OK;
}

/* A Hessian2 string (or null) at *P: short (0x00-0x1f), medium (0x30-0x33),
 * chunked ('R' chunks then an 'S' one); DST gets it, or as much of it as the
 * bytes hold and it fits, NUL-terminated. */
static int hs__string(const uint8_t *b, size_t n, size_t *p, char *dst, size_t size)
{
	size_t at = 0;

	if (dst)
		dst[0] = '\0';
	for (;;) {
		size_t units;
		uint8_t t;
		int e;

		if (*p >= n)
			return RD_CUT;
		t = b[(*p)++];
		if (t == 'N')
			return RD_OK;
		if (t <= 0x1f) {
			units = t;
		} else if (t >= 0x30 && t <= 0x33) {
			if (*p >= n)
				return RD_CUT;
			units = (size_t)(t - 0x30) << 8 | b[(*p)++];
		} else if (t == 'S' || t == 'R') {
			if (n - *p < 2)
				return RD_CUT;
			units = (size_t)b[*p] << 8 | b[*p + 1];
			*p += 2;
		} else {
			return RD_BAD;
		}
		e = hs__chars(b, n, p, units, dst, size, &at);
		if (e || t != 'R')
			return e;
	}
}

/* A Hessian2 request's body B (N captured bytes): the service path into
 * TARGET, the method into METHOD, each only when whole. */
static int body__request(const uint8_t *b, size_t n, struct req_head *out)
{
	size_t p = 0;
	int e;

	/* the dubbo version, then the path */
	if ((e = hs__string(b, n, &p, NULL, 0)) != RD_OK)
		return e;
	e = hs__string(b, n, &p, out->target, sizeof(out->target));
	if (e != RD_OK) {
		out->target[0] = '\0';
		return e;
	}
	/* the service's version, then the method */
	if ((e = hs__string(b, n, &p, NULL, 0)) != RD_OK)
		return e;
	e = hs__string(b, n, &p, out->method, sizeof(out->method));
	if (e != RD_OK)
		out->method[0] = '\0';
	return e;
}

int dubbo__parse(const uint8_t *buf, size_t len, bool request, struct req_head *out)
{
	const uint8_t *body = buf + HEAD_LEN;
	uint32_t blen;
	size_t have;
	uint8_t flag = 0;

	(void)request;
	req_head__clear(out);
	/* each byte refused as soon as it is there */
	if ((len >= 1 && buf[0] != 0xda) || (len >= 2 && buf[1] != 0xbb))
		return -ENOMSG;
	if (len >= 3) {
		flag = buf[2];
		/* no serialization 0; a response has no two-way bit */
		if (!(flag & SER_MASK) || (!(flag & FLAG_REQUEST) && (flag & FLAG_TWOWAY)))
			return -ENOMSG;
		if (len >= 4 && !(flag & FLAG_REQUEST) && buf[3] != STATUS_OK && !status__name(buf[3]))
			return -ENOMSG;
	}
	/* the body's length is a Java int: not negative */
	if (len >= 13 && buf[12] & 0x80)
		return -ENOMSG;
	if (len < HEAD_LEN)
		return -EAGAIN;
	blen = (uint32_t)buf[12] << 24 | (uint32_t)buf[13] << 16 | (uint32_t)buf[14] << 8 | buf[15];
	out->proto = REQ_PROTO_DUBBO;
	out->request = flag & FLAG_REQUEST;
	out->id = (uint32_t)buf[8] << 24 | (uint32_t)buf[9] << 16 | (uint32_t)buf[10] << 8 | buf[11];
	out->len_known = true;
	out->total_len = (uint64_t)HEAD_LEN + blen;
	have = len - HEAD_LEN < blen ? len - HEAD_LEN : blen;
	if (out->request) {
		out->no_resp = !(flag & FLAG_TWOWAY);
		if (flag & FLAG_EVENT) {
			/* a heartbeat's data is null; another event's (READONLY) not */
			if (!blen || (have && body[0] == 'N'))
				strcpy(out->method, "heartbeat");
			else if (have)
				strcpy(out->method, "event");
		} else if ((flag & SER_MASK) == SER_HESSIAN2) {
			int e = body__request(body, have, out);

			/* not Hessian2 after all: nothing named */
			if (e == RD_BAD)
				out->method[0] = out->target[0] = '\0';
			out->head_cut = e == RD_CUT && have < blen;
		}
		if ((flag & FLAG_EVENT) && blen && !have)
			out->head_cut = true;
		return 0;
	}
	out->status = buf[3];
	/* an OK answer's first byte says whether it is an exception */
	out->head_cut = buf[3] == STATUS_OK && blen && !have;
	if (buf[3] != STATUS_OK) {
		out->error = true;
		strcpy(out->code, status__name(buf[3]));
	} else if ((flag & SER_MASK) == SER_HESSIAN2 && !(flag & FLAG_EVENT) && have &&
		   (body[0] == RESP_EXCEPTION || body[0] == RESP_EXCEPTION_ATT)) {
		out->error = true;
		strcpy(out->code, "EXCEPTION");
	}
	return 0;
}
