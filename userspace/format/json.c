/* JSON string escaping with UTF-8 validation. */
#include "format.h"

/* Bytes that need no work: printable ASCII other than '"' and '\'. */
static const uint8_t plain[256] = {
	[0x20 ... 0x21] = 1,	/* 0x22 is '"' */
	[0x23 ... 0x5b] = 1,	/* 0x5c is '\\' */
	[0x5d ... 0x7f] = 1,
};

/* Length of the valid UTF-8 sequence at P (at most N bytes), 0 if invalid. */
static size_t utf8__seq(const uint8_t *p, size_t n)
{
	uint8_t c = p[0];
	uint8_t lo = 0x80, hi = 0xbf;
	size_t len;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (n < len)
		return 0;
	/* the second byte's range excludes overlongs, surrogates and > U+10FFFF */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

void json__escape(struct sbuf *out, const char *s, size_t len)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t i = 0, run, n;

	while (i < len) {
		run = i;
		while (run < len && plain[p[run]])
			run++;
		sbuf__append(out, p + i, run - i);
		if (run >= len)
			return;
		i = run;
		if (p[i] < 0x80) {
			char esc[8] = "\\u00";

			switch (p[i]) {
			case '"': sbuf__append(out, "\\\"", 2); break;
			case '\\': sbuf__append(out, "\\\\", 2); break;
			case '\n': sbuf__append(out, "\\n", 2); break;
			case '\r': sbuf__append(out, "\\r", 2); break;
			case '\t': sbuf__append(out, "\\t", 2); break;
			case '\b': sbuf__append(out, "\\b", 2); break;
			case '\f': sbuf__append(out, "\\f", 2); break;
			default:
				esc[4] = "0123456789abcdef"[p[i] >> 4];
				esc[5] = "0123456789abcdef"[p[i] & 15];
				sbuf__append(out, esc, 6);
				break;
			}
			i++;
			continue;
		}
		n = utf8__seq(p + i, len - i);
		if (n) {
			sbuf__append(out, p + i, n);
			i += n;
		} else {
			sbuf__append(out, "\xef\xbf\xbd", 3);	/* U+FFFD */
			i++;
		}
	}
}
