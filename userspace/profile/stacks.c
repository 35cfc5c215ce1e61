/* On-CPU stack samples counted per distinct stack (stacks.h): an
 * open-addressed index (twice the keys, linear probing, never deleted) into
 * an array of entries, each named once when first seen. An entry keeps two
 * independent 64-bit hashes of its addresses, not the addresses (2 KiB a
 * stack): two stacks of a process that share both would be counted as one,
 * a chance below one in 2^64 per pair of stacks. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stacks.h"
#include "symbolizer.h"

#define SLOTS (PROF_STACKS_KEYS * 2)	/* a power of two */
#define FOLDED_MAX 4096			/* bytes of a line; deeper frames cut */

struct stack_entry {
	int64_t pid;
	uint64_t h1, h2;
	uint64_t count;
	char *folded;
	char comm[16];
	char group[64];
};

struct prof_stacks {
	struct symbolizer *sym;
	int32_t *slot;			/* entry index + 1, 0 empty */
	struct stack_entry *e;
	uint32_t n;
	struct prof_stacks_counters c;
};

struct prof_stacks *prof_stacks__new(struct symbolizer *sym)
{
	struct prof_stacks *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->sym = sym;
	s->slot = calloc(SLOTS, sizeof(*s->slot));
	s->e = calloc(PROF_STACKS_KEYS, sizeof(*s->e));
	if (!s->slot || !s->e) {
		prof_stacks__free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

void prof_stacks__free(struct prof_stacks *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; s->e && i < s->n; i++)
		free(s->e[i].folded);
	free(s->slot);
	free(s->e);
	free(s);
}

static uint32_t key__home(int64_t pid, uint64_t h1)
{
	uint64_t h = ((uint64_t)pid * 0x9e3779b97f4a7c15ull) ^ h1;

	return (uint32_t)(h >> 40) & (SLOTS - 1);
}

/* A 64-bit mix (splitmix64's finalizer). */
static uint64_t mix(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Two hashes of the stacks, from different seeds and steps; the counts
 * enter them, so a frame moved from one stack to the other differs. */
static void stacks__hash(const uint64_t *uips, int nu, const uint64_t *kips, int nk,
			 uint64_t *h1, uint64_t *h2)
{
	uint64_t a = mix(0x243f6a8885a308d3ull ^ (uint64_t)nu), b = mix(0x13198a2e03707344ull + (uint64_t)nk);

	for (int i = 0; i < nu; i++) {
		a = mix(a ^ uips[i]);
		b = mix(b + uips[i] * 0x9e3779b97f4a7c15ull);
	}
	a = mix(a ^ (uint64_t)nk);
	b = mix(b ^ (uint64_t)nu * 0xa0761d6478bd642full);
	for (int i = 0; i < nk; i++) {
		a = mix(a ^ kips[i]);
		b = mix(b + kips[i] * 0x9e3779b97f4a7c15ull);
	}
	*h1 = a;
	*h2 = b;
}

int prof_stacks__decode(const void *val, uint32_t len, uint64_t *ips, int max)
{
	int n = (int)(len / 8);

	if (len % 8 || !val || max < 0)
		return 0;
	if (n == 1) {
		int64_t id;

		memcpy(&id, val, 8);
		if (id < 65536)
			return 0;	/* an older agent's id into its kernel table */
	}
	if (n > max)
		n = max;
	memcpy(ips, val, (size_t)n * 8);
	return n;
}

/* Appends ";NAME" (or the address) to the line at *LEN. */
static void frame__put(char *line, size_t *len, const char *name, uint64_t addr,
		       const char *suffix)
{
	int n;

	if (*len >= FOLDED_MAX - 1)
		return;
	if (name)
		n = snprintf(line + *len, FOLDED_MAX - *len, ";%s%s", name, suffix);
	else
		n = snprintf(line + *len, FOLDED_MAX - *len, ";[0x%" PRIx64 "]%s", addr, suffix);
	*len += n < 0 ? 0 : (size_t)n;
	if (*len >= FOLDED_MAX)
		*len = FOLDED_MAX - 1;
}

/* The entry's line: its process name, the user frames outermost first, then
 * the kernel's. A frame the symbolizer cannot name is its address. */
static char *stack__fold(struct prof_stacks *s, const struct stack_entry *x, const uint64_t *uips,
			 int nu, const uint64_t *kips, int nk)
{
	char *line = malloc(FOLDED_MAX);
	size_t len;

	if (!line)
		return NULL;
	len = (size_t)snprintf(line, FOLDED_MAX, "%s", x->comm[0] ? x->comm : "?");
	for (int i = nu - 1; i >= 0; i--) {
		struct sym sy = { 0 };

		if (symbolizer__user(s->sym, (int)x->pid, uips[i], &sy))
			sy.name = NULL;
		frame__put(line, &len, sy.name, uips[i], "");
	}
	for (int i = nk - 1; i >= 0; i--) {
		struct sym sy = { 0 };

		if (symbolizer__kernel(s->sym, kips[i], &sy))
			sy.name = NULL;
		frame__put(line, &len, sy.name, kips[i], "_[k]");
	}
	/* ' ' ends the stack in a collapsed line: none inside it */
	for (size_t i = 0; i < len; i++)
		if (line[i] == ' ' || line[i] == '\n')
			line[i] = '_';
	return line;
}

int prof_stacks__add(struct prof_stacks *s, int64_t pid, const char *comm, const char *group,
		     const uint64_t *uips, int nu, const uint64_t *kips, int nk)
{
	struct stack_entry *x;
	uint64_t h1, h2;
	uint32_t i;

	if (nu < 0)
		nu = 0;
	if (nk < 0)
		nk = 0;
	if (!nu && !nk) {
		s->c.n_lost++;
		return -ENOENT;
	}
	stacks__hash(uips, nu, kips, nk, &h1, &h2);
	for (i = key__home(pid, h1);; i = (i + 1) & (SLOTS - 1)) {
		if (!s->slot[i])
			break;
		x = &s->e[s->slot[i] - 1];
		if (x->pid == pid && x->h1 == h1 && x->h2 == h2) {
			x->count++;
			s->c.n_samples++;
			return s->slot[i] - 1;
		}
	}
	if (s->n >= PROF_STACKS_KEYS) {
		s->c.n_full++;
		return -ENOSPC;
	}
	x = &s->e[s->n];
	x->pid = pid;
	x->h1 = h1;
	x->h2 = h2;
	x->count = 1;
	snprintf(x->comm, sizeof(x->comm), "%s", comm ? comm : "");
	snprintf(x->group, sizeof(x->group), "%s", group && *group ? group : "host");
	x->folded = stack__fold(s, x, uips, nu, kips, nk);
	if (!x->folded) {
		s->c.n_lost++;	/* no memory to name it: counted with the lost */
		return -ENOMEM;
	}
	s->slot[i] = (int32_t)++s->n;
	s->c.n_samples++;
	s->c.n_keys = s->n;
	return (int)(s->n - 1);
}

const char *prof_stacks__folded(const struct prof_stacks *s, int k)
{
	return k >= 0 && (uint32_t)k < s->n ? s->e[k].folded : NULL;
}

static int entry__cmp(const void *a, const void *b)
{
	const struct stack_entry *x = *(const struct stack_entry *const *)a,
				 *y = *(const struct stack_entry *const *)b;
	int r = strcmp(x->group, y->group);

	if (!r)
		r = strcmp(x->comm, y->comm);
	return r ? r : strcmp(x->folded, y->folded);
}

/* A file name's part from S: letters, digits, '.', '_' and '-' kept. */
static void name__safe(char *out, size_t n, const char *s)
{
	size_t i = 0;

	for (; *s && i + 1 < n; s++)
		out[i++] = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			   (*s >= '0' && *s <= '9') || *s == '.' || *s == '-' ? *s : '_';
	out[i] = '\0';
}

int prof_stacks__write(const struct prof_stacks *s, const char *dir)
{
	const struct stack_entry **v = malloc((s->n ? s->n : 1) * sizeof(*v));
	FILE *f = NULL;
	int err = 0;

	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->n; i++)
		v[i] = &s->e[i];
	qsort(v, s->n, sizeof(*v), entry__cmp);
	for (uint32_t i = 0; i < s->n && !err;) {
		char path[4096], g[64], c[32];
		uint32_t j = i;

		name__safe(g, sizeof(g), v[i]->group);
		name__safe(c, sizeof(c), v[i]->comm);
		snprintf(path, sizeof(path), "%s/stacks-%s-%s.folded", dir, g, c);
		f = fopen(path, "w");
		if (!f) {
			err = -errno;
			break;
		}
		/* this file's lines: equal ones (another pid of the same
		 * process name) summed */
		while (j < s->n && !strcmp(v[j]->group, v[i]->group) && !strcmp(v[j]->comm, v[i]->comm)) {
			uint64_t count = 0;
			uint32_t k = j;

			while (k < s->n && !entry__cmp(&v[k], &v[j]))
				count += v[k++]->count;
			fprintf(f, "%s %" PRIu64 "\n", v[j]->folded, count);
			j = k;
		}
		if (fclose(f) && !err)
			err = -errno;
		i = j;
	}
	free(v);
	return err;
}

void prof_stacks__counters(const struct prof_stacks *s, struct prof_stacks_counters *out)
{
	*out = s->c;
}
