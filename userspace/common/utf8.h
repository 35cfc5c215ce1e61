/* UTF-8 validation shared by the writers of text others parse strictly (JSON
 * lines, Prometheus' exposition format). Header-only: no library below them. */
#ifndef COMMON_UTF8_H
#define COMMON_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Length (2..4) of the valid multi-byte UTF-8 sequence at P, which has N bytes
 * available; 0 if it is not one. Overlong forms, surrogates and code points past
 * U+10FFFF are invalid (as for Go's utf8.ValidString, which Prometheus uses). */
static inline size_t utf8__seq(const uint8_t *p, size_t n)
{
	uint8_t c = p[0], lo = 0x80, hi = 0xbf;
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

#endif
