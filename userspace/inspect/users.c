/* User and group names from HOST_ROOT/etc/passwd and /etc/group, loaded once on
 * first use and kept sorted by id. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inspect_int.h"

struct id_name {
	uint32_t id;
	uint32_t line;
	char *name;		/* "name\0home\0shell\0": one allocation */
	const char *home, *shell;	/* into name; "" for /etc/group */
};

struct id_db {
	const char *file;
	bool loaded;
	struct id_name *v;
	size_t n;
};

static char *users_root;
static struct id_db users_db = { .file = "/etc/passwd" };
static struct id_db groups_db = { .file = "/etc/group" };

static void id_db__clear(struct id_db *db)
{
	for (size_t i = 0; i < db->n; i++)
		free(db->v[i].name);
	free(db->v);
	db->v = NULL;
	db->n = 0;
	db->loaded = false;
}

static int id_name__cmp(const void *a, const void *b)
{
	const struct id_name *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* The Nth ':'-separated field after P (0: P itself), cut at ':' or newline. */
static const char *field__nth(const char *p, unsigned n, size_t *len)
{
	for (unsigned i = 0; i < n && p; i++)
		if ((p = strchr(p, ':')))
			p++;
	if (!p)
		p = "";
	*len = strcspn(p, ":\n");
	return p;
}

/* NAME, home and shell (fields 5 and 6 of a passwd line REST, the part after
 * the id) in one allocation. */
static int id_name__set(struct id_name *e, const char *name, const char *rest)
{
	size_t nlen = strlen(name), hlen, slen;
	const char *home = field__nth(rest, 2, &hlen), *shell = field__nth(rest, 3, &slen);
	char *p = malloc(nlen + hlen + slen + 3);

	if (!p)
		return -1;
	memcpy(p, name, nlen + 1);
	memcpy(p + nlen + 1, home, hlen);
	p[nlen + 1 + hlen] = '\0';
	memcpy(p + nlen + hlen + 2, shell, slen);
	p[nlen + hlen + 2 + slen] = '\0';
	e->name = p;
	e->home = p + nlen + 1;
	e->shell = p + nlen + hlen + 2;
	return 0;
}

/* "name:x:id:..." lines: passwd and group share the first three fields. */
static void id_db__load(struct id_db *db)
{
	char path[4096], line[1024];
	size_t cap = 0;
	FILE *f;

	db->loaded = true;
	snprintf(path, sizeof(path), "%s%s", users_root ? users_root : "", db->file);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *name = line, *pw, *id, *end;
		unsigned long v;

		if (!(pw = strchr(name, ':')))
			continue;
		*pw++ = '\0';
		if (!(id = strchr(pw, ':')))
			continue;
		id++;
		v = strtoul(id, &end, 10);
		if (end == id || *end != ':' || v > UINT32_MAX || !*name)
			continue;
		if (db->n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct id_name *nv = realloc(db->v, ncap * sizeof(*nv));

			if (!nv)
				break;
			db->v = nv;
			cap = ncap;
		}
		db->v[db->n].id = (uint32_t)v;
		db->v[db->n].line = (uint32_t)db->n;
		if (id_name__set(&db->v[db->n], name, end + 1))
			break;
		db->n++;
	}
	fclose(f);
	/* for equal ids the first line wins, as with getpwuid */
	if (db->n)
		qsort(db->v, db->n, sizeof(*db->v), id_name__cmp);
}

static const struct id_name *id_db__find(struct id_db *db, uint32_t id)
{
	size_t lo = 0, hi;

	if (!db->loaded)
		id_db__load(db);
	hi = db->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (db->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < db->n && db->v[lo].id == id ? &db->v[lo] : NULL;
}

void users__set_root(const char *root)
{
	if (!root)
		root = "";
	if (users_root && strcmp(users_root, root) == 0)
		return;
	free(users_root);
	users_root = strdup(root);
	id_db__clear(&users_db);
	id_db__clear(&groups_db);
}

const char *users__name(uint32_t uid)
{
	const struct id_name *e = id_db__find(&users_db, uid);

	return e ? e->name : NULL;
}

const char *users__home(uint32_t uid)
{
	const struct id_name *e = id_db__find(&users_db, uid);

	return e ? e->home : NULL;
}

const char *users__shell(uint32_t uid)
{
	const struct id_name *e = id_db__find(&users_db, uid);

	return e ? e->shell : NULL;
}

const char *groups__name(uint32_t gid)
{
	const struct id_name *e = id_db__find(&groups_db, gid);

	return e ? e->name : NULL;
}
