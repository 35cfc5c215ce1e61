/* HTTP/1.x start lines and the headers that give a message's length
 * (RFC 9112). Lines end in CRLF; a bare LF is accepted too, as servers do. */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <strings.h>

#include "http.h"

/* With their lengths: every message of a connection whose protocol is not
 * known yet is tried against them. */
static const struct req_word methods[] = {
	REQ_WORD("GET"), REQ_WORD("HEAD"), REQ_WORD("POST"), REQ_WORD("PUT"),
	REQ_WORD("DELETE"), REQ_WORD("CONNECT"), REQ_WORD("OPTIONS"), REQ_WORD("TRACE"),
	REQ_WORD("PATCH"),
};

/* 1: BUF starts with LIT (N bytes); 0: BUF (LEN bytes) is a shorter prefix of
 * it; -1: neither. */
static int starts(const uint8_t *buf, size_t len, const char *lit, size_t n)
{
	if (memcmp(buf, lit, len < n ? len : n))
		return -1;
	return len >= n;
}

#define HTTP1 "HTTP/1."

/* Copies N bytes to a string of SIZE bytes, cut to fit. */
static void copy_str(char *dst, size_t size, const uint8_t *src, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Each byte's classes, one table load per byte of the header lines (with
 * three compares a byte, nginx's response head and wrk's request took 300 ns
 * together; 260 so): RFC 9110's tchar (digits, letters and !#$%&'*+-.^_`|~),
 * and a field value's bytes (HTAB, SP, VCHAR, obs-text). */
#define TCHAR_LO 0x03ff6cfa00000000ULL	/* tchar bits of bytes 0-63 */
#define TCHAR_HI 0x57ffffffc7fffffeULL	/* ... and of 64-127 */
#define C_TCHAR 1
#define C_VALUE 2
#define IS_TC(c) ((c) < 64 ? (TCHAR_LO >> (c)) & 1 : (c) < 128 ? (TCHAR_HI >> ((c) - 64)) & 1 : 0)
#define IS_VC(c) ((c) == '\t' || ((c) >= 0x20 && (c) != 0x7f))
#define CL1(c) (uint8_t)(IS_TC(c) * C_TCHAR | IS_VC(c) * C_VALUE)
#define CL4(c) CL1(c), CL1((c) + 1), CL1((c) + 2), CL1((c) + 3)
#define CL16(c) CL4(c), CL4((c) + 4), CL4((c) + 8), CL4((c) + 12)
#define CL64(c) CL16(c), CL16((c) + 16), CL16((c) + 32), CL16((c) + 48)
static const uint8_t byte_class[256] = { CL64(0), CL64(64), CL64(128), CL64(192) };

static bool is_tchar(uint8_t c)
{
	return byte_class[c] & C_TCHAR;
}

static bool is_value(uint8_t c)
{
	return byte_class[c] & C_VALUE;
}

/* The end of the field value bytes from P: eight at a time while a word
 * holds no control byte (below 0x20, or DEL), the last few (the CR ends the
 * line) one by one. A head is mostly values: a byte at a time was most of
 * this parser's time under nginx's responses. */
static size_t value_end(const uint8_t *buf, size_t len, size_t p)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;

	while (len - p >= 8) {
		uint64_t w, d;

		memcpy(&w, buf + p, 8);
		d = w ^ (ones * 0x7f);
		/* a byte below 0x20, or a zero byte of D (a DEL in W) */
		if (((w - ones * 0x20) & ~w & highs) | ((d - ones) & ~d & highs))
			break;
		p += 8;
	}
	while (p < len && is_value(buf[p]))
		p++;
	return p;
}

static bool is_alpha(uint8_t c)
{
	return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

/* The end of a line ending at P (at CR or LF): the offset after it; 0: the
 * line end is not all in BUF; -1: not a line end. */
static long line_end(const uint8_t *buf, size_t len, size_t p)
{
	if (p < len && buf[p] == '\n')
		return (long)p + 1;
	if (p < len && buf[p] == '\r') {
		if (p + 1 >= len)
			return 0;
		return buf[p + 1] == '\n' ? (long)p + 2 : -1;
	}
	return p < len ? -1 : 0;
}

/* The path of TARGET (N bytes) into OUT: the query and fragment dropped, the
 * scheme and authority of an absolute-form target too. -ENOMSG: no valid form. */
static int parse_target(const uint8_t *t, size_t n, const char *method, struct req_head *out)
{
	size_t i = 0, end;

	if (t[0] == '*') {
		if (n != 1 || strcmp(method, "OPTIONS"))
			return -ENOMSG;
		copy_str(out->target, sizeof(out->target), t, 1);
		return 0;
	}
	if (!strcmp(method, "CONNECT")) {
		/* authority-form: host:port, kept whole */
		if (t[0] == '/' || !memchr(t, ':', n))
			return -ENOMSG;
		copy_str(out->target, sizeof(out->target), t, n);
		return 0;
	}
	if (t[0] != '/') {
		/* absolute-form: scheme "://" authority path */
		if (!is_alpha(t[0]))
			return -ENOMSG;
		while (i < n && (is_alpha(t[i]) || (t[i] >= '0' && t[i] <= '9') ||
				 t[i] == '+' || t[i] == '-' || t[i] == '.'))
			i++;
		if (n - i < 3 || memcmp(t + i, "://", 3))
			return -ENOMSG;
		i += 3;
		while (i < n && t[i] != '/' && t[i] != '?' && t[i] != '#')
			i++;
	}
	for (end = i; end < n && t[end] != '?' && t[end] != '#'; end++)
		;
	if (end == i)
		copy_str(out->target, sizeof(out->target), (const uint8_t *)"/", 1);
	else
		copy_str(out->target, sizeof(out->target), t + i, end - i);
	return 0;
}

/* The request line; *AT: the offset after it. */
static int parse_request_line(const uint8_t *buf, size_t len, struct req_head *out, size_t *at)
{
	size_t p = 0, t0;
	long e;
	int r;

	while (p < len && p < REQ_METHOD_MAX && is_tchar(buf[p]))
		p++;
	if (p == len) {
		for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
			if (starts(buf, len, methods[i].name, methods[i].len) >= 0 &&
			    len <= methods[i].len)
				return -EAGAIN;
		return -ENOMSG;
	}
	if (buf[p] != ' ')
		return -ENOMSG;
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (methods[i].len == p && !memcmp(buf, methods[i].name, p))
			copy_str(out->method, sizeof(out->method), buf, p);
	if (!out->method[0])
		return -ENOMSG;
	t0 = ++p;
	/* request-target: visible ASCII up to the next space */
	while (p < len && buf[p] > 0x20 && buf[p] < 0x7f)
		p++;
	if (p == t0 && p < len)
		return -ENOMSG;
	if (p < len && buf[p] != ' ')
		return -ENOMSG;
	if (p == len) {
		/* a first byte no target form starts with is refused at once */
		if (p > t0 && buf[t0] != '/' && buf[t0] != '*' && !is_alpha(buf[t0]))
			return -ENOMSG;
		return -EAGAIN;
	}
	r = parse_target(buf + t0, p - t0, out->method, out);
	if (r)
		return r;
	p++;
	r = starts(buf + p, len - p, HTTP1, sizeof(HTTP1) - 1);
	if (r <= 0)
		return r ? -ENOMSG : -EAGAIN;
	p += sizeof(HTTP1) - 1;
	if (p == len)
		return -EAGAIN;
	if (buf[p] != '0' && buf[p] != '1')
		return -ENOMSG;
	e = line_end(buf, len, p + 1);
	if (e <= 0)
		return e ? -ENOMSG : -EAGAIN;
	*at = (size_t)e;
	return 0;
}

/* The status line; *AT: the offset after it. */
static int parse_status_line(const uint8_t *buf, size_t len, struct req_head *out, size_t *at)
{
	size_t p;
	long e;
	int r;

	r = starts(buf, len, HTTP1, sizeof(HTTP1) - 1);
	if (r <= 0)
		return r ? -ENOMSG : -EAGAIN;
	if (len < 9)
		return -EAGAIN;
	if ((buf[7] != '0' && buf[7] != '1') || buf[8] != ' ')
		return -ENOMSG;
	out->status = 0;
	for (p = 9; p < 12; p++) {
		if (p == len)
			return -EAGAIN;
		if (buf[p] < '0' || buf[p] > '9')
			return -ENOMSG;
		out->status = out->status * 10 + (buf[p] - '0');
	}
	if (out->status < 100 || out->status > 599)
		return -ENOMSG;
	if (p < len && buf[p] == ' ') {
		/* reason-phrase: HTAB, SP, VCHAR, obs-text */
		for (p++; p < len && is_value(buf[p]); p++)
			;
	}
	e = line_end(buf, len, p);
	if (e <= 0)
		return e ? -ENOMSG : -EAGAIN;
	*at = (size_t)e;
	return 0;
}

static bool name_is(const uint8_t *name, size_t n, const char *lit)
{
	return strlen(lit) == n && !strncasecmp((const char *)name, lit, n);
}

/* A comma-separated header value V (N bytes) names TOKEN (any case, OWS
 * around each element). */
static bool token__has(const uint8_t *v, size_t n, const char *token)
{
	size_t i = 0;

	while (i < n) {
		size_t s, e;

		while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		s = i;
		while (i < n && v[i] != ',')
			i++;
		e = i;
		while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
			e--;
		if (e > s && name_is(v + s, e - s, token))
			return true;
	}
	return false;
}

/* A Content-Length value (OWS trimmed): only digits, no overflow. */
static bool parse_length(const uint8_t *v, size_t n, uint64_t *val)
{
	uint64_t x = 0;

	while (n && (v[0] == ' ' || v[0] == '\t'))
		v++, n--;
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9' || x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (v[i] - '0');
	}
	*val = x;
	return true;
}

/* The header fields from P: the message length when they say it and all of
 * them are in BUF. */
static void parse_headers(const uint8_t *buf, size_t len, size_t p, struct req_head *out)
{
	bool have_cl = false, chunked = false, te_chunked = false, bad = false;
	uint64_t cl = 0, v = 0;

	for (;;) {
		size_t n0 = p, colon, q;
		long e;

		if (p >= len)
			return;
		if (buf[p] == '\r' || buf[p] == '\n') {
			e = line_end(buf, len, p);
			if (e <= 0)
				return;
			p = (size_t)e;
			if (p <= UINT32_MAX)
				out->head_len = (uint32_t)p;
			break;
		}
		while (p < len && is_tchar(buf[p]))
			p++;
		if (p == len)
			return;
		if (p == n0 || buf[p] != ':')
			return;		/* not a header field: the length is not trusted */
		colon = p++;
		p = value_end(buf, len, p);
		q = p;
		e = line_end(buf, len, p);
		if (e <= 0)
			return;
		p = (size_t)e;
		if (name_is(buf + n0, colon - n0, "Content-Length")) {
			if (!parse_length(buf + colon + 1, q - colon - 1, &v) || (have_cl && v != cl))
				bad = true;
			have_cl = true;
			cl = v;
		} else if (name_is(buf + n0, colon - n0, "Transfer-Encoding")) {
			chunked = true;	/* any coding: the body ends where the coding says */
			/* (chunked is the last coding of a valid request's) */
			te_chunked = token__has(buf + colon + 1, q - colon - 1, "chunked");
		} else if (name_is(buf + n0, colon - n0, "Upgrade")) {
			out->upgrade_h2c = token__has(buf + colon + 1, q - colon - 1, "h2c");
		}
	}
	if (!out->request && (out->status < 200 || out->status == 204 || out->status == 304)) {
		/* never a body, whatever the headers say (a 304's
		 * Content-Length is the stored representation's) */
		cl = 0;
	} else if (chunked) {
		/* Transfer-Encoding overrides any Content-Length (RFC 9112 6.3) */
		if (te_chunked && out->head_len)
			out->chunked = true;
		return;
	} else if (bad) {
		return;
	} else if (!have_cl) {
		/* without a length a request has no body, a response runs
		 * to the close */
		if (!out->request)
			return;
		cl = 0;
	}
	if (cl > UINT64_MAX - p)
		return;
	out->total_len = p + cl;
	out->len_known = true;
}

int http__parse(const uint8_t *buf, size_t len, bool request, struct req_head *out)
{
	size_t at = 0;
	int r;

	req_head__clear(out);
	if (!len)
		return -EAGAIN;
	r = request ? parse_request_line(buf, len, out, &at) : parse_status_line(buf, len, out, &at);
	if (r) {
		req_head__clear(out);
		return r;
	}
	out->proto = REQ_PROTO_HTTP;
	out->request = request;
	out->error = !request && out->status >= 500;
	parse_headers(buf, len, at, out);
	return 0;
}

bool http__interim(int32_t status)
{
	return status >= 100 && status < 200 && status != 101;
}

/* http__head_end's states: inside a line (the start line first), at a line's
 * start, and at a line's start after a CR. */
enum { HEAD_IN_LINE = HTTP_HEAD_START, HEAD_LINE_START, HEAD_LINE_CR };

size_t http__head_end(uint8_t *state, const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '\n') {
			if (*state != HEAD_IN_LINE)
				return i + 1;	/* an empty line */
			*state = HEAD_LINE_START;
		} else {
			*state = buf[i] == '\r' && *state == HEAD_LINE_START ? HEAD_LINE_CR
									     : HEAD_IN_LINE;
		}
	}
	return 0;
}

/* http__chunks' states: a chunk-size's first digit, its further digits, the
 * rest of its line (extensions), the chunk's data, the CRLF after the data
 * (its CR seen: DATA_LF), a trailer section's line start, after a CR there,
 * inside a trailer line. */
enum {
	CH_SIZE0 = 1, CH_SIZE, CH_EXT, CH_DATA, CH_DATA_END, CH_DATA_LF,
	CH_TRAILER, CH_TRAILER_CR, CH_TRAILER_LINE,
};

void http__chunks_start(struct http_chunks *ch)
{
	ch->left = 0;
	ch->state = CH_SIZE0;
	ch->digits = 0;
}

static int hex_val(uint8_t b)
{
	if (b >= '0' && b <= '9')
		return b - '0';
	b |= 0x20;
	return b >= 'a' && b <= 'f' ? b - 'a' + 10 : -1;
}

long http__chunks(struct http_chunks *ch, const uint8_t *buf, size_t len)
{
	size_t i = 0;

	if (len > LONG_MAX)
		len = LONG_MAX;
	while (i < len) {
		uint8_t b = buf[i];
		int v;

		switch (ch->state) {
		case CH_SIZE0:
		case CH_SIZE:
			v = hex_val(b);
			if (v >= 0) {
				/* at most 15 digits: no size overflows */
				if (++ch->digits > 15)
					goto bad;
				ch->left = ch->left << 4 | (uint64_t)v;
				ch->state = CH_SIZE;
				break;
			}
			if (ch->state == CH_SIZE0)
				goto bad;
			/* this byte ends the size: the line's rest */
			ch->state = CH_EXT;
			/* fall through */
		case CH_EXT:
			if (b == '\n') {
				ch->digits = 0;
				ch->state = ch->left ? CH_DATA : CH_TRAILER;
			}
			break;
		case CH_DATA: {
			uint64_t take = len - i < ch->left ? len - i : ch->left;

			ch->left -= take;
			i += take;
			if (!ch->left)
				ch->state = CH_DATA_END;
			continue;
		}
		case CH_DATA_END:
		case CH_DATA_LF:
			if (b == '\r' && ch->state == CH_DATA_END)
				ch->state = CH_DATA_LF;
			else if (b == '\n')
				ch->state = CH_SIZE0;
			else
				goto bad;
			break;
		case CH_TRAILER:
		case CH_TRAILER_CR:
			if (b == '\n') {
				ch->state = 0;
				return (long)(i + 1);
			}
			if (b == '\r' && ch->state == CH_TRAILER)
				ch->state = CH_TRAILER_CR;
			else if (ch->state == CH_TRAILER_CR)
				goto bad;
			else
				ch->state = CH_TRAILER_LINE;
			break;
		case CH_TRAILER_LINE:
			if (b == '\n')
				ch->state = CH_TRAILER;
			break;
		default:
			goto bad;
		}
		i++;
	}
	return (long)len;
bad:
	ch->state = 0;
	return -EPROTO;
}

bool http__chunks_skip(struct http_chunks *ch, uint64_t n)
{
	if (ch->state != CH_DATA || n > ch->left) {
		ch->state = 0;
		return false;
	}
	ch->left -= n;
	if (!ch->left)
		ch->state = CH_DATA_END;
	return true;
}
