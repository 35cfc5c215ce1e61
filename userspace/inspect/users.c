/* User and group names. Two sources: this host's HOST_ROOT/etc/passwd and
 * /etc/group, read with libc's fgetpwent/fgetgrent, and the lists a capture file
 * carries. When a file carries lists only they are used (a replay names users as
 * the recording host did); otherwise the host's are, reloaded on a miss at most
 * once per second so that users created after start are found. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "inspect_int.h"

/* The interval between two reloads of the host's files on a miss. */
#define USERS_REFRESH_NS 1000000000ull

struct id_name {
	uint32_t id;
	uint32_t gid;		/* a user's primary group; 0 for groups */
	uint32_t next;		/* the next entry of the same id (index), or NO_ENTRY */
	char *name;		/* "name\0home\0shell\0": one allocation */
	const char *home, *shell;	/* into name; "" for groups */
};

#define NO_ENTRY UINT32_MAX

/* A list in the order it was read (an entry's index is its order: for equal ids
 * the first wins), found by id through a hash index of each id's first entry,
 * and walked by id through an order made when asked for. Adding is O(1), so a
 * capture file's list of any order imports in linear time. The index holds
 * array positions rather than hmap's embedded nodes: the array is reallocated
 * as it grows. */
struct id_db {
	const char *file;	/* under HOST_ROOT; NULL for a capture file's list */
	bool group;
	bool loaded;
	struct id_name *v;
	size_t n, cap;
	uint32_t *slot;		/* open addressing: index + 1 of an id's first entry, 0 free */
	size_t nslot;		/* a power of two, at least twice n */
	uint64_t seed;
	uint32_t *order;	/* indexes sorted by id, then index; NULL when stale */
	uint64_t checked_ns;	/* last reload (CLOCK_MONOTONIC) */
	struct stat st;		/* the file as last loaded */
};
static char *users_root;
static struct id_db host_users = { .file = "/etc/passwd" };
static struct id_db host_groups = { .file = "/etc/group", .group = true };
static struct id_db file_users;
static struct id_db file_groups = { .group = true };
/* A capture file carried lists: only they name users and groups. */
static bool from_file;

/* Entries that appeared after the start lists, for writers of "users seen later". */
static struct users_entry *added;
static size_t n_added, cap_added;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void id_db__clear(struct id_db *db)
{
	for (size_t i = 0; i < db->n; i++)
		free(db->v[i].name);
	free(db->v);
	free(db->slot);
	free(db->order);
	db->v = NULL;
	db->slot = db->order = NULL;
	db->n = db->cap = db->nslot = 0;
	db->loaded = false;
	db->checked_ns = 0;
	memset(&db->st, 0, sizeof(db->st));
}

/* The slot of ID in the hash index: its first entry's, or the free one where it
 * would go. */
static size_t id_db__slot(const struct id_db *db, uint32_t id)
{
	size_t mask = db->nslot - 1, i = (size_t)(hash__mix64(id, db->seed) >> 32) & mask;

	while (db->slot[i] && db->v[db->slot[i] - 1].id != id)
		i = (i + 1) & mask;
	return i;
}

static const struct id_name *id_db__get(const struct id_db *db, uint32_t id)
{
	size_t i;

	if (!db->nslot)
		return NULL;
	i = id_db__slot(db, id);
	return db->slot[i] ? &db->v[db->slot[i] - 1] : NULL;
}

/* Doubles the hash index (or makes the first), putting back every id's first
 * entry. */
static int id_db__grow_index(struct id_db *db)
{
	size_t nslot = db->nslot ? db->nslot * 2 : 128;
	uint32_t *old = db->slot;
	size_t nold = db->nslot;

	db->slot = calloc(nslot, sizeof(*db->slot));
	if (!db->slot) {
		db->slot = old;
		return -ENOMEM;
	}
	db->nslot = nslot;
	if (!db->seed)
		db->seed = hash__seed();
	for (size_t i = 0; i < nold; i++)
		if (old[i])
			db->slot[id_db__slot(db, db->v[old[i] - 1].id)] = old[i];
	free(old);
	return 0;
}

/* Adds an entry after any of the same id (so the first of an id wins). */
static int id_db__add(struct id_db *db, uint32_t id, uint32_t gid, const char *name,
		      const char *home, const char *shell)
{
	size_t nlen = strlen(name), hlen = strlen(home), slen = strlen(shell), s;
	struct id_name *e;
	char *p;

	/* indexes are 32-bit, slot values index + 1 */
	if (db->n >= UINT32_MAX - 1)
		return -ERANGE;
	if (db->n == db->cap) {
		size_t ncap = db->cap ? db->cap * 2 : 64;
		struct id_name *nv = realloc(db->v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		db->v = nv;
		db->cap = ncap;
	}
	if ((db->n + 1) * 2 > db->nslot && id_db__grow_index(db) < 0)
		return -ENOMEM;
	if (!(p = malloc(nlen + hlen + slen + 3)))
		return -ENOMEM;
	memcpy(p, name, nlen + 1);
	memcpy(p + nlen + 1, home, hlen + 1);
	memcpy(p + nlen + hlen + 2, shell, slen + 1);
	e = &db->v[db->n];
	e->id = id;
	e->gid = gid;
	e->next = NO_ENTRY;
	e->name = p;
	e->home = p + nlen + 1;
	e->shell = p + nlen + hlen + 2;
	s = id_db__slot(db, id);
	if (!db->slot[s]) {
		db->slot[s] = (uint32_t)db->n + 1;
	} else {
		/* a later entry of a known id: chained behind the first, which keeps
		 * answering lookups */
		struct id_name *first = &db->v[db->slot[s] - 1];

		e->next = first->next;
		first->next = (uint32_t)db->n;
	}
	db->n++;
	free(db->order);
	db->order = NULL;
	return 0;
}

static int id_db__cmp_order(const void *a, const void *b, void *arg)
{
	const struct id_name *v = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (v[x].id != v[y].id)
		return v[x].id < v[y].id ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The entries' indexes by id, then by order read: made once after changes. */
static const uint32_t *id_db__order(struct id_db *db)
{
	if (db->order || !db->n)
		return db->order;
	db->order = malloc(db->n * sizeof(*db->order));
	if (!db->order)
		return NULL;
	for (size_t i = 0; i < db->n; i++)
		db->order[i] = (uint32_t)i;
	qsort_r(db->order, db->n, sizeof(*db->order), id_db__cmp_order, db->v);
	return db->order;
}

/* Whether OLD has an entry of ID named NAME. */
static bool id_db__has(const struct id_db *old, uint32_t id, const char *name)
{
	const struct id_name *e = id_db__get(old, id);
	uint32_t i;

	if (!e)
		return false;
	if (strcmp(e->name, name) == 0)
		return true;
	for (i = e->next; i != NO_ENTRY; i = old->v[i].next)
		if (strcmp(old->v[i].name, name) == 0)
			return true;
	return false;
}

static void added__push(const struct id_db *db, const struct id_name *e)
{
	if (n_added == cap_added) {
		size_t ncap = cap_added ? cap_added * 2 : 16;
		struct users_entry *nv = realloc(added, ncap * sizeof(*nv));

		if (!nv)
			return;
		added = nv;
		cap_added = ncap;
	}
	/* the strings stay owned by the table: copied so a reload cannot free them */
	added[n_added] = (struct users_entry){ .group = db->group, .id = e->id, .gid = e->gid };
	added[n_added].name = strdup(e->name);
	added[n_added].home = strdup(e->home);
	added[n_added].shell = strdup(e->shell);
	if (!added[n_added].name || !added[n_added].home || !added[n_added].shell) {
		free((char *)added[n_added].name);
		free((char *)added[n_added].home);
		free((char *)added[n_added].shell);
		return;
	}
	n_added++;
}

/* (Re)reads DB's file with fgetpwent/fgetgrent. Entries not in the previous
 * load are recorded as added (not on the first load: those are the start list). */
static void id_db__load(struct id_db *db)
{
	struct id_db old = *db;
	char path[4096];
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", users_root ? users_root : "", db->file);
	db->checked_ns = now_ns();
	if (stat(path, &st) == 0 && db->loaded && st.st_ino == old.st.st_ino &&
	    st.st_size == old.st.st_size && st.st_mtim.tv_sec == old.st.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == old.st.st_mtim.tv_nsec)
		return;		/* unchanged since the last load */
	f = fopen(path, "re");
	if (!f) {
		db->loaded = true;
		return;
	}
	/* OLD owns the previous list until the comparison below */
	db->v = NULL;
	db->slot = db->order = NULL;
	db->n = db->cap = db->nslot = 0;
	if (db->group) {
		struct group *g;

		while ((g = fgetgrent(f)))
			if (g->gr_name && g->gr_name[0] && g->gr_name[0] != '+' &&
			    g->gr_name[0] != '-' && id_db__add(db, g->gr_gid, 0, g->gr_name, "", ""))
				break;
	} else {
		struct passwd *p;

		while ((p = fgetpwent(f)))
			if (p->pw_name && p->pw_name[0] && p->pw_name[0] != '+' &&
			    p->pw_name[0] != '-' &&
			    id_db__add(db, p->pw_uid, p->pw_gid, p->pw_name,
				       p->pw_dir ? p->pw_dir : "", p->pw_shell ? p->pw_shell : ""))
				break;
	}
	fclose(f);
	if (old.loaded) {
		/* by id, as a sorted list was walked before */
		const uint32_t *order = id_db__order(db);

		for (size_t k = 0; k < db->n; k++) {
			const struct id_name *e = &db->v[order ? order[k] : k];

			if (!id_db__has(&old, e->id, e->name))
				added__push(db, e);
		}
	}
	db->st = st;
	db->loaded = true;
	old.loaded = false;
	id_db__clear(&old);
}

/* The entry of ID in the lists in effect: the file's, or the host's, reloaded on
 * a miss when the last load is a second old. */
static const struct id_name *users__find(bool group, uint32_t id)
{
	struct id_db *db = group ? &host_groups : &host_users;
	const struct id_name *e;

	if (from_file)
		return id_db__get(group ? &file_groups : &file_users, id);
	if (!db->loaded)
		id_db__load(db);
	if ((e = id_db__get(db, id)))
		return e;
	if (now_ns() - db->checked_ns < USERS_REFRESH_NS)
		return NULL;
	id_db__load(db);
	return id_db__get(db, id);
}

/* The file's lists and the host's, and the root they were read under. */
static void lists__clear(void)
{
	users__file_reset();
	id_db__clear(&host_users);
	id_db__clear(&host_groups);
	free(users_root);
	users_root = NULL;
}

void users__set_root(const char *root)
{
	/* a new inspector starts on the host's lists until a file brings its
	 * own, and reads the host's files afresh */
	lists__clear();
	users_root = strdup(root ? root : "");
}

void users__release(void)
{
	lists__clear();
	for (size_t i = 0; i < n_added; i++) {
		free((char *)added[i].name);
		free((char *)added[i].home);
		free((char *)added[i].shell);
	}
	free(added);
	added = NULL;
	n_added = cap_added = 0;
}

const char *users__name(uint32_t uid)
{
	const struct id_name *e = users__find(false, uid);

	return e ? e->name : NULL;
}

const char *users__home(uint32_t uid)
{
	const struct id_name *e = users__find(false, uid);

	return e ? e->home : NULL;
}

const char *users__shell(uint32_t uid)
{
	const struct id_name *e = users__find(false, uid);

	return e ? e->shell : NULL;
}

const char *groups__name(uint32_t gid)
{
	const struct id_name *e = users__find(true, gid);

	return e ? e->name : NULL;
}

void users__file_reset(void)
{
	from_file = false;
	id_db__clear(&file_users);
	id_db__clear(&file_groups);
}

void users__file_begin(void)
{
	users__file_reset();
	from_file = true;
}

bool users__from_file(void)
{
	return from_file;
}

int users__file_add(const struct users_entry *e, bool later)
{
	struct id_db *db = e->group ? &file_groups : &file_users;

	if (!from_file)
		return 0;
	if (!e->name || id_db__add(db, e->id, e->group ? 0 : e->gid, e->name,
				   e->home ? e->home : "", e->shell ? e->shell : ""))
		return -ENOMEM;
	if (later)	/* the one just added: the last of its id */
		added__push(db, &db->v[db->n - 1]);
	return 0;
}

static int users__each_db(struct id_db *db, users_fn *fn, void *ctx)
{
	const uint32_t *order = id_db__order(db);
	int err;

	if (db->n && !order)
		return -ENOMEM;
	for (size_t k = 0; k < db->n; k++) {
		const struct id_name *v = &db->v[order[k]];
		struct users_entry e = {
			.group = db->group, .id = v->id, .gid = v->gid,
			.name = v->name, .home = v->home, .shell = v->shell,
		};

		if ((err = fn(ctx, &e)))
			return err;
	}
	return 0;
}

int users__foreach(users_fn *fn, void *ctx)
{
	int err;

	if (from_file) {
		if ((err = users__each_db(&file_users, fn, ctx)))
			return err;
		return users__each_db(&file_groups, fn, ctx);
	}
	if (!host_users.loaded)
		id_db__load(&host_users);
	if (!host_groups.loaded)
		id_db__load(&host_groups);
	if ((err = users__each_db(&host_users, fn, ctx)))
		return err;
	return users__each_db(&host_groups, fn, ctx);
}

size_t users__added(void)
{
	return n_added;
}

int users__foreach_added(size_t from, users_fn *fn, void *ctx)
{
	int err;

	for (size_t i = from; i < n_added; i++)
		if ((err = fn(ctx, &added[i])))
			return err;
	return 0;
}
