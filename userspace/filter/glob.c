/* Glob patterns, as fnmatch without flags: '*', '?', '[a-z]', '[!x]' or '[^x]',
 * '[[:alpha:]]' and '\' escapes, over counted strings (values from events are
 * not NUL-terminated). Filters check their patterns once with glob__check, so
 * that a pattern which could never match is an error rather than no output. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "filter_int.h"

static const struct {
	const char *name;
	int (*is)(int c);
} char_classes[] = {
	{ "alnum", isalnum }, { "alpha", isalpha }, { "blank", isblank }, { "cntrl", iscntrl },
	{ "digit", isdigit }, { "graph", isgraph }, { "lower", islower }, { "print", isprint },
	{ "punct", ispunct }, { "space", isspace }, { "upper", isupper }, { "xdigit", isxdigit },
};

static int char_class__find(const char *name, size_t len)
{
	for (size_t k = 0; k < sizeof(char_classes) / sizeof(char_classes[0]); k++)
		if (strlen(char_classes[k].name) == len && memcmp(char_classes[k].name, name, len) == 0)
			return (int)k;
	return -1;
}

/* What is wrong with a pattern: a description and the offending text. */
struct glob_fault {
	const char *what;
	size_t at, len;
};

static int fault(struct glob_fault *f, const char *what, size_t at, size_t len)
{
	f->what = what;
	f->at = at;
	f->len = len;
	return -EINVAL;
}

/* Reads the bracket expression at PAT[*PI] ('['): sets *IN to whether C is in
 * it and *PI past its ']'. Returns 0, or -EINVAL with F filled. */
static int class__scan(const char *pat, size_t plen, size_t *pi, unsigned char c, bool *in,
		       struct glob_fault *f)
{
	size_t i = *pi + 1;
	bool neg = false, hit = false;

	if (i < plen && (pat[i] == '!' || pat[i] == '^'))
		neg = true, i++;
	/* a ']' right after '[' or '[!' is a member, not the end */
	for (bool first = true; i < plen && (first || pat[i] != ']'); first = false) {
		size_t start = i;
		unsigned char lo, hi;

		if (pat[i] == '[' && i + 1 < plen && pat[i + 1] == ':') {
			const char *end = memmem(pat + i + 2, plen - i - 2, ":]", 2);

			if (end) {
				size_t nlen = (size_t)(end - (pat + i + 2));
				int k = char_class__find(pat + i + 2, nlen);

				if (k < 0)
					return fault(f, "unknown character class", i, nlen + 4);
				hit |= char_classes[k].is(c) != 0;
				i += nlen + 4;
				continue;
			}
		}
		if (pat[i] == '\\' && ++i >= plen)
			break;
		lo = hi = (unsigned char)pat[i];
		if (i + 2 < plen && pat[i + 1] == '-' && pat[i + 2] != ']') {
			i += 2;
			if (pat[i] == '\\' && i + 1 < plen)
				i++;
			hi = (unsigned char)pat[i];
			if (hi < lo)
				return fault(f, "reversed range", start, i + 1 - start);
		}
		hit |= c >= lo && c <= hi;
		i++;
	}
	if (i >= plen)
		return fault(f, "'[' without a closing ']'", *pi, 0);
	*pi = i + 1;
	*in = hit != neg;
	return 0;
}

/* One backtrack point suffices: on a mismatch, the last '*' absorbs one more
 * character. */
bool glob__match(const char *pat, size_t plen, const char *s, size_t slen)
{
	size_t pi = 0, si = 0, star_p = (size_t)-1, star_s = 0;
	struct glob_fault f;
	bool in;

	while (si < slen) {
		if (pi < plen && pat[pi] == '*') {
			star_p = ++pi;
			star_s = si;
			continue;
		}
		if (pi < plen) {
			size_t next = pi;
			char pc = pat[pi];

			if (pc == '?') {
				pi++, si++;
				continue;
			}
			/* unchecked patterns: a '[' that opens nothing is literal */
			if (pc == '[' && class__scan(pat, plen, &next, (unsigned char)s[si], &in, &f) == 0) {
				if (in) {
					pi = next, si++;
					continue;
				}
			} else {
				if (pc == '\\' && pi + 1 < plen)
					pc = pat[++next];
				if (pc == s[si]) {
					pi = next + 1, si++;
					continue;
				}
			}
		}
		if (star_p == (size_t)-1)
			return false;
		pi = star_p;
		si = ++star_s;
	}
	while (pi < plen && pat[pi] == '*')
		pi++;
	return pi == plen;
}

int glob__check(const char *pat, size_t plen, char *why, size_t size)
{
	struct glob_fault f = { 0 };
	bool in;
	int r = 0;

	for (size_t i = 0; i < plen && !r; i++) {
		if (pat[i] == '\\') {
			if (++i == plen)
				r = fault(&f, "a '\\' at the end escapes nothing", 0, 0);
		} else if (pat[i] == '[') {
			r = class__scan(pat, plen, &i, 0, &in, &f);
			i--;	/* past the ']' */
		}
	}
	if (r && f.len)
		snprintf(why, size, "%s '%.*s'", f.what, (int)f.len, pat + f.at);
	else if (r)
		snprintf(why, size, "%s", f.what);
	return r;
}
