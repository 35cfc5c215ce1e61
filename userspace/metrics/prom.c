/* The Prometheus text format by hand: it is a few lines of string formatting
 * with three escaping rules, smaller than any client library we could link. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prom.h"
#include "utf8.h"

enum esc { ESC_HELP, ESC_LABEL };

void prom_buf__reset(struct prom_buf *b)
{
	b->len = 0;
	if (b->buf)
		b->buf[0] = '\0';
}

void prom_buf__free(struct prom_buf *b)
{
	if (!b)
		return;
	free(b->buf);
	b->buf = NULL;
	b->len = b->cap = 0;
}

/* Room for N more bytes and the NUL. */
static int reserve(struct prom_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *p;

	if (n > SIZE_MAX / 2 - b->len)
		return -ENOMEM;
	if (b->len + n < b->cap)
		return 0;
	while (cap <= b->len + n)
		cap *= 2;
	p = realloc(b->buf, cap);
	if (!p)
		return -ENOMEM;
	b->buf = p;
	b->cap = cap;
	return 0;
}

static int append(struct prom_buf *b, const char *s, size_t n)
{
	if (reserve(b, n))
		return -ENOMEM;
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = '\0';
	return 0;
}

static int add(struct prom_buf *b, const char *s)
{
	return append(b, s, strlen(s));
}

/* Length of the valid UTF-8 sequence at S (NUL-terminated), 0 if invalid. */
static size_t utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	/* a NUL ends S before a sequence runs past it: its bytes are never 0 */
	return utf8__seq(s, 4);
}

/* Appends S escaped for a HELP line (backslash, newline) or a label value (also
 * the double quote). */
static int add_escaped(struct prom_buf *b, const char *s, enum esc esc)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;
	int err = 0;

	while (*p && !err) {
		if (*p == '\\') {
			err = append(b, "\\\\", 2);
			n = 1;
		} else if (*p == '\n') {
			err = append(b, "\\n", 2);
			n = 1;
		} else if (*p == '"' && esc == ESC_LABEL) {
			err = append(b, "\\\"", 2);
			n = 1;
		} else if ((n = utf8_len(p))) {
			err = append(b, (const char *)p, n);
		} else {
			err = append(b, "\xef\xbf\xbd", 3);
			n = 1;
		}
		p += n;
	}
	return err;
}

static bool valid_name(const char *s, bool colon)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++) {
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || (colon && *s == ':')))
			return false;
	}
	return true;
}

static int check_labels(const char *const labels[])
{
	size_t i, j;

	if (!labels)
		return 0;
	for (i = 0; labels[i]; i += 2) {
		if (!labels[i + 1] || !valid_name(labels[i], false) ||
		    strncmp(labels[i], "__", 2) == 0)
			return -EINVAL;
		for (j = 0; j < i; j += 2)
			if (strcmp(labels[i], labels[j]) == 0)
				return -EINVAL;
	}
	return 0;
}

/* Undoes a partial append so that B is as before the call. */
static void rollback(struct prom_buf *b, size_t len)
{
	if (b->buf) {
		b->len = len;
		b->buf[len] = '\0';
	}
}

int prom__family(struct prom_buf *b, const char *name, const char *type, const char *help)
{
	size_t len = b->len;

	if (!valid_name(name, true) || !type ||
	    (strcmp(type, "counter") && strcmp(type, "gauge") && strcmp(type, "untyped") &&
	     strcmp(type, "histogram")))
		return -EINVAL;
	if (help && (add(b, "# HELP ") || add(b, name) || add(b, " ") ||
		     add_escaped(b, help, ESC_HELP) || add(b, "\n")))
		goto fail;
	if (add(b, "# TYPE ") || add(b, name) || add(b, " ") || add(b, type) ||
	    add(b, "\n"))
		goto fail;
	return 0;
fail:
	rollback(b, len);
	return -ENOMEM;
}

/* "NAME{k="v",...} VALUE\n" with VALUE already formatted. */
static int sample(struct prom_buf *b, const char *name, const char *const labels[],
		  const char *value)
{
	size_t len = b->len, i;

	if (!valid_name(name, true) || check_labels(labels))
		return -EINVAL;
	if (add(b, name))
		goto fail;
	for (i = 0; labels && labels[i]; i += 2) {
		if (add(b, i ? "," : "{") || add(b, labels[i]) || add(b, "=\"") ||
		    add_escaped(b, labels[i + 1], ESC_LABEL) || add(b, "\""))
			goto fail;
	}
	if (labels && labels[0] && add(b, "}"))
		goto fail;
	if (add(b, " ") || add(b, value) || add(b, "\n"))
		goto fail;
	return 0;
fail:
	rollback(b, len);
	return -ENOMEM;
}

int prom__sample_u64(struct prom_buf *b, const char *name, const char *const labels[],
		     uint64_t value)
{
	char v[24];

	snprintf(v, sizeof(v), "%" PRIu64, value);
	return sample(b, name, labels, v);
}

/* The shortest %g form that reads back as V, with '.' as the decimal point
 * whatever LC_NUMERIC says (printf and strtod follow it alike). */
static void format_double(char *out, size_t n, double v)
{
	int prec;
	char *p, *q;

	if (isnan(v)) {
		snprintf(out, n, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(out, n, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	for (prec = 15; prec < 17; prec++) {
		snprintf(out, n, "%.*g", prec, v);
		if (strtod(out, NULL) == v)
			break;
	}
	if (prec == 17)
		snprintf(out, n, "%.17g", v);
	/* a locale's decimal point, maybe several bytes, becomes one '.' */
	for (p = q = out; *p; p++) {
		if ((*p >= '0' && *p <= '9') || *p == '-' || *p == '+' || *p == 'e')
			*q++ = *p;
		else if (q == out || q[-1] != '.')
			*q++ = '.';
	}
	*q = '\0';
}

int prom__sample_double(struct prom_buf *b, const char *name, const char *const labels[],
			double value)
{
	char v[40];

	format_double(v, sizeof(v), value);
	return sample(b, name, labels, v);
}
