/* A growable byte buffer that output and scratch text are built in. It grows by
 * doubling and is reused, so after warm-up appending does not allocate. On
 * allocation failure it records -ENOMEM in err and ignores further appends, so
 * callers check once at the end. */
#ifndef SBUF_H
#define SBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct sbuf {
	char *buf;
	size_t len;
	size_t cap;
	int err;	/* 0 or -ENOMEM */
};

void sbuf__init(struct sbuf *b);
void sbuf__free(struct sbuf *b);

/* Makes room for EXTRA more bytes (plus a NUL). Returns 0 or -ENOMEM. */
int sbuf__grow(struct sbuf *b, size_t extra);

static inline int sbuf__reserve(struct sbuf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return 0;
	return sbuf__grow(b, extra);
}

static inline void sbuf__reset(struct sbuf *b)
{
	b->len = 0;
	b->err = 0;
}

static inline void sbuf__append(struct sbuf *b, const void *p, size_t n)
{
	if (sbuf__reserve(b, n))
		return;
	memcpy(b->buf + b->len, p, n);
	b->len += n;
}

static inline void sbuf__puts(struct sbuf *b, const char *s)
{
	sbuf__append(b, s, strlen(s));
}

static inline void sbuf__putc(struct sbuf *b, char c)
{
	if (sbuf__reserve(b, 1))
		return;
	b->buf[b->len++] = c;
}

/* The contents as a NUL-terminated string (the NUL is not counted in len). */
static inline const char *sbuf__cstr(struct sbuf *b)
{
	if (sbuf__reserve(b, 0))
		return "";
	b->buf[b->len] = '\0';
	return b->buf;
}

void sbuf__u64(struct sbuf *b, uint64_t v);
void sbuf__i64(struct sbuf *b, int64_t v);
/* Hex without prefix, upper or lower case digits. */
void sbuf__hex(struct sbuf *b, uint64_t v, int upper);
/* Octal with a leading 0 unless the value is 0 (printf's %#o). */
void sbuf__oct(struct sbuf *b, uint64_t v);
/* Decimal, zero-padded to WIDTH digits (after the sign). */
void sbuf__padded(struct sbuf *b, int64_t v, int width);
void sbuf__printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
