#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ksyms.h"

/* kallsyms holds up to about 200k symbols; past this many, the rest are skipped */
#define KSYMS_MAX 2000000u
/* Read no more than this of PATH. */
#define KSYMS_FILE_MAX (64u << 20)

struct ksym {
	uint64_t addr;
	uint32_t name, module;	/* offsets in text */
};

struct ksyms {
	struct ksym *syms;
	size_t n, cap;
	char *text;		/* names and modules, NUL-terminated */
	uint64_t skipped;
};

static int ksym__cmp(const void *pa, const void *pb)
{
	const struct ksym *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->name < b->name ? -1 : a->name > b->name;
}

/* One line, NUL-terminated in place: "ADDR T NAME" or "ADDR T NAME\t[MOD]". */
static int ksyms__line(struct ksyms *k, char *line, size_t base)
{
	char *p = line, *name, *mod = NULL;
	uint64_t addr = 0;
	struct ksym *s;
	int digits = 0;

	for (; *p && *p != ' '; p++, digits++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' :
			*p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;

		if (d < 0 || digits == 16)
			return -EINVAL;
		addr = addr << 4 | (uint64_t)d;
	}
	if (!digits || p[0] != ' ' || !p[1] || p[2] != ' ' || !p[3])
		return -EINVAL;
	/* text symbols only: a stack's addresses are code */
	if (p[1] != 't' && p[1] != 'T' && p[1] != 'w' && p[1] != 'W')
		return 1;
	if (!addr)
		return 1;
	name = p + 3;
	if ((p = strchr(name, '\t'))) {
		*p++ = 0;
		if (*p == '[' && p[1] && p[strlen(p) - 1] == ']') {
			p[strlen(p) - 1] = 0;
			mod = p + 1;
		}
	}
	if (k->n == KSYMS_MAX)
		return -E2BIG;
	if (k->n == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 4096;
		void *q = realloc(k->syms, cap * sizeof(*k->syms));

		if (!q)
			return -ENOMEM;
		k->syms = q;
		k->cap = cap;
	}
	s = &k->syms[k->n++];
	s->addr = addr;
	s->name = (uint32_t)(base + (size_t)(name - line));
	s->module = mod ? (uint32_t)(base + (size_t)(mod - line)) : UINT32_MAX;
	return 0;
}

struct ksyms *ksyms__parse(const char *text, size_t len)
{
	struct ksyms *k = calloc(1, sizeof(*k));
	size_t at = 0;

	if (!k || len >= UINT32_MAX || !(k->text = malloc(len + 1))) {
		free(k);
		errno = ENOMEM;
		return NULL;
	}
	memcpy(k->text, text, len);
	k->text[len] = 0;
	while (at < len) {
		char *line = k->text + at, *nl = memchr(line, '\n', len - at);
		size_t llen = nl ? (size_t)(nl - line) : len - at;
		int r;

		line[llen] = 0;
		/* a NUL inside a line ends it early: still one line */
		r = ksyms__line(k, line, at);
		if (r == -ENOMEM) {
			ksyms__free(k);
			errno = ENOMEM;
			return NULL;
		}
		if (r < 0)
			k->skipped++;
		at += llen + 1;
	}
	if (k->n)
		qsort(k->syms, k->n, sizeof(*k->syms), ksym__cmp);
	return k;
}

struct ksyms *ksyms__load(const char *path)
{
	size_t len = 0, cap = 1 << 20;
	char *buf = malloc(cap);
	struct ksyms *k;
	ssize_t n;
	int fd, err;

	if (!buf)
		return NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		err = errno;
		free(buf);
		errno = err;
		return NULL;
	}
	/* /proc files have no size: read until the end */
	while ((n = read(fd, buf + len, cap - len)) > 0) {
		len += (size_t)n;
		if (len == cap) {
			char *p = cap < KSYMS_FILE_MAX ? realloc(buf, cap * 2) : NULL;

			if (!p)
				break;
			buf = p;
			cap *= 2;
		}
	}
	err = n < 0 ? errno : 0;
	close(fd);
	if (err) {
		free(buf);
		errno = err;
		return NULL;
	}
	k = ksyms__parse(buf, len);
	free(buf);
	return k;
}

void ksyms__free(struct ksyms *k)
{
	if (!k)
		return;
	free(k->syms);
	free(k->text);
	free(k);
}

const char *ksyms__lookup(const struct ksyms *k, uint64_t addr, uint64_t *off,
			  const char **module)
{
	size_t lo = 0, hi = k->n;
	const struct ksym *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* of names at one address, the first sorted one */
	s = &k->syms[lo - 1];
	while (s > k->syms && s[-1].addr == s->addr)
		s--;
	*off = addr - s->addr;
	*module = s->module == UINT32_MAX ? "" : k->text + s->module;
	return k->text + s->name;
}

size_t ksyms__count(const struct ksyms *k)
{
	return k->n;
}

uint64_t ksyms__skipped(const struct ksyms *k)
{
	return k->skipped;
}
