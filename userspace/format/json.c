/* JSON string escaping with UTF-8 validation. */
#include "format.h"
#include "utf8.h"

/* Bytes that need no work: printable ASCII other than '"' and '\'. */
static const uint8_t plain[256] = {
	[0x20 ... 0x21] = 1,	/* 0x22 is '"' */
	[0x23 ... 0x5b] = 1,	/* 0x5c is '\\' */
	[0x5d ... 0x7f] = 1,
};

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
