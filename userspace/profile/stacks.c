/* On-CPU stack samples counted per distinct stack (stacks.h): an
 * open-addressed index (twice the keys, linear probing, never deleted) into
 * an array of entries, each named once when first seen. */
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
	int64_t pid, uid, kid;
	uint64_t count;
	char *folded;
	char comm[16];
	char group[64];
};

struct prof_stacks {
	struct symbolizer *sym;
	prof_stack_fetch_fn *fetch;
	void *ctx;
	int32_t *slot;			/* entry index + 1, 0 empty */
	struct stack_entry *e;
	uint32_t n;
	struct prof_stacks_counters c;
};

struct prof_stacks *prof_stacks__new(struct symbolizer *sym, prof_stack_fetch_fn *fetch,
				     void *ctx)
{
	struct prof_stacks *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->sym = sym;
	s->fetch = fetch;
	s->ctx = ctx;
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

static uint32_t key__home(int64_t pid, int64_t uid, int64_t kid)
{
	uint64_t h = (uint64_t)pid * 0x9e3779b97f4a7c15ull;

	h = (h ^ (uint64_t)uid) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (uint64_t)kid) * 0x94d049bb133111ebull;
	return (uint32_t)(h >> 40) & (SLOTS - 1);
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
static char *stack__fold(struct prof_stacks *s, const struct stack_entry *x)
{
	uint64_t ips[PROF_STACK_FRAMES];
	char *line = malloc(FOLDED_MAX);
	size_t len;
	int n;

	if (!line)
		return NULL;
	len = (size_t)snprintf(line, FOLDED_MAX, "%s", x->comm[0] ? x->comm : "?");
	n = x->uid >= 0 ? s->fetch(s->ctx, x->uid, ips, PROF_STACK_FRAMES) : 0;
	if (n < 0 && x->kid < 0) {
		free(line);
		return NULL;
	}
	for (int i = n - 1; i >= 0; i--) {
		struct sym sy = { 0 };

		if (symbolizer__user(s->sym, (int)x->pid, ips[i], &sy))
			sy.name = NULL;
		frame__put(line, &len, sy.name, ips[i], "");
	}
	n = x->kid >= 0 ? s->fetch(s->ctx, x->kid, ips, PROF_STACK_FRAMES) : 0;
	if (n < 0 && len == strlen(x->comm[0] ? x->comm : "?")) {
		free(line);
		return NULL;
	}
	for (int i = n - 1; i >= 0; i--) {
		struct sym sy = { 0 };

		if (symbolizer__kernel(s->sym, ips[i], &sy))
			sy.name = NULL;
		frame__put(line, &len, sy.name, ips[i], "_[k]");
	}
	/* ' ' ends the stack in a collapsed line: none inside it */
	for (size_t i = 0; i < len; i++)
		if (line[i] == ' ' || line[i] == '\n')
			line[i] = '_';
	return line;
}

int prof_stacks__add(struct prof_stacks *s, int64_t pid, const char *comm, const char *group,
		     int64_t ustack, int64_t kstack)
{
	struct stack_entry *x;
	uint32_t i;

	if (ustack < 0 && kstack < 0) {
		s->c.n_lost++;
		return -ENOENT;
	}
	for (i = key__home(pid, ustack, kstack);; i = (i + 1) & (SLOTS - 1)) {
		if (!s->slot[i])
			break;
		x = &s->e[s->slot[i] - 1];
		if (x->pid == pid && x->uid == ustack && x->kid == kstack) {
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
	x->uid = ustack;
	x->kid = kstack;
	x->count = 1;
	snprintf(x->comm, sizeof(x->comm), "%s", comm ? comm : "");
	snprintf(x->group, sizeof(x->group), "%s", group && *group ? group : "host");
	x->folded = stack__fold(s, x);
	if (!x->folded) {
		/* neither stack could be read (freed after another process's
		 * sample named it first): counted with the lost */
		s->c.n_lost++;
		return -ENOENT;
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
