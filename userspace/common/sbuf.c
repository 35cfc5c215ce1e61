/* Growable byte buffer and fast number formatting. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "sbuf.h"

void sbuf__init(struct sbuf *b)
{
	b->buf = NULL;
	b->len = 0;
	b->cap = 0;
	b->err = 0;
}

void sbuf__free(struct sbuf *b)
{
	if (!b)
		return;
	free(b->buf);
	sbuf__init(b);
}

int sbuf__grow(struct sbuf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (b->err)
		return b->err;
	need = b->len + extra + 1;
	if (need < b->len) {	/* overflow */
		b->err = -ENOMEM;
		return b->err;
	}
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap *= 2;
	p = realloc(b->buf, cap);
	if (!p) {
		b->err = -ENOMEM;
		return b->err;
	}
	b->buf = p;
	b->cap = cap;
	return 0;
}

static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Two digits per step: timestamps have 19 of them and every line has some. */
void sbuf__u64(struct sbuf *b, uint64_t v)
{
	char tmp[24];
	int i = sizeof(tmp);

	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;

		v /= 100;
		tmp[--i] = digit_pairs[d + 1];
		tmp[--i] = digit_pairs[d];
	}
	if (v >= 10) {
		tmp[--i] = digit_pairs[v * 2 + 1];
		tmp[--i] = digit_pairs[v * 2];
	} else {
		tmp[--i] = (char)('0' + v);
	}
	if (sbuf__reserve(b, sizeof(tmp) - i))
		return;
	memcpy(b->buf + b->len, tmp + i, sizeof(tmp) - i);
	b->len += sizeof(tmp) - i;
}

void sbuf__i64(struct sbuf *b, int64_t v)
{
	if (v < 0) {
		sbuf__putc(b, '-');
		sbuf__u64(b, -(uint64_t)v);
	} else {
		sbuf__u64(b, (uint64_t)v);
	}
}

void sbuf__hex(struct sbuf *b, uint64_t v, int upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[16];
	int i = sizeof(tmp);

	do {
		tmp[--i] = digits[v & 15];
		v >>= 4;
	} while (v);
	sbuf__append(b, tmp + i, sizeof(tmp) - i);
}

void sbuf__oct(struct sbuf *b, uint64_t v)
{
	char tmp[24];
	int i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + (v & 7));
		v >>= 3;
	} while (v);
	if (tmp[i] != '0')
		tmp[--i] = '0';
	sbuf__append(b, tmp + i, sizeof(tmp) - i);
}

void sbuf__padded(struct sbuf *b, int64_t v, int width)
{
	char tmp[24];
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	int i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	/* printf's %09d counts the sign in the width */
	while ((int)sizeof(tmp) - i < width - (v < 0) && i > 1)
		tmp[--i] = '0';
	if (v < 0)
		tmp[--i] = '-';
	sbuf__append(b, tmp + i, sizeof(tmp) - i);
}

void sbuf__printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sbuf__reserve(b, 64))
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->buf + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= b->cap - b->len) {
		if (sbuf__reserve(b, (size_t)n))
			return;
		va_start(ap, fmt);
		vsnprintf(b->buf + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}
