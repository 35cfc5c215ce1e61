/* User and group names from HOST_ROOT/etc/passwd and /etc/group, loaded once on
 * first use and kept sorted by id. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inspect_int.h"

struct id_name {
	uint32_t id;
	uint32_t line;
	char *name;
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
		if (!(db->v[db->n].name = strdup(name)))
			break;
		db->n++;
	}
	fclose(f);
	/* for equal ids the first line wins, as with getpwuid */
	if (db->n)
		qsort(db->v, db->n, sizeof(*db->v), id_name__cmp);
}

static const char *id_db__name(struct id_db *db, uint32_t id)
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
	return lo < db->n && db->v[lo].id == id ? db->v[lo].name : NULL;
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
	return id_db__name(&users_db, uid);
}

const char *groups__name(uint32_t gid)
{
	return id_db__name(&groups_db, gid);
}
