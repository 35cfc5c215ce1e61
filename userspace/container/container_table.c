/* The containers known now, by container.id: made when a thread is first seen
 * in one, looked up in the runtimes' files then (never per event), kept while
 * threads reference them, forgotten with the last one. Bounded: at most
 * max_entries containers, at most max_named with names. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "meta_int.h"

#define DEFAULT_MAX_NAMED 4096
#define DEFAULT_MAX_ENTRIES 65536
#define NBUCKETS 4096
/* A container no file named yet is tried again this many times in all, this far
 * apart in event time: runtimes write their files while it starts. */
#define MAX_ATTEMPTS 3
#define RETRY_NS 1000000000ULL

struct container_table {
	char *root;
	bool no_lookup;
	uint32_t max_named, max_entries;
	uint32_t n, n_named;
	struct container_counters c;
	uint64_t seed;		/* ids come from files and cgroup paths: hash.h */
	struct container_info *b[NBUCKETS];
};

struct container_table *container_table__new(const struct container_table_opts *o)
{
	struct container_table *t = calloc(1, sizeof(*t));
	const char *root = o && o->host_root ? o->host_root : "";

	if (!t)
		return NULL;
	/* "/" and "" both mean the real root */
	t->root = strdup(strcmp(root, "/") == 0 ? "" : root);
	if (!t->root) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	t->no_lookup = o && o->no_lookup;
	t->max_named = o && o->max_named ? o->max_named : DEFAULT_MAX_NAMED;
	t->max_entries = o && o->max_entries ? o->max_entries : DEFAULT_MAX_ENTRIES;
	t->seed = hash__seed();
	return t;
}

void container_info__clear(struct container_info *ci)
{
	free(ci->name);
	free(ci->image);
	free(ci->image_id);
	free(ci->image_repo);
	free(ci->image_tag);
	free(ci->image_digest);
	free(ci->pod_name);
	free(ci->pod_namespace);
	free(ci->pod_uid);
	ci->name = ci->image = ci->image_id = ci->image_repo = ci->image_tag = NULL;
	ci->image_digest = ci->pod_name = ci->pod_namespace = ci->pod_uid = NULL;
}

void container_table__free(struct container_table *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < NBUCKETS; i++) {
		while (t->b[i]) {
			struct container_info *ci = t->b[i];

			t->b[i] = ci->next;
			container_info__clear(ci);
			free(ci);
		}
	}
	free(t->root);
	free(t);
}

static uint32_t slot(const struct container_table *t, const char *id)
{
	return (uint32_t)(hash__str(id, t->seed) >> 32) & (NBUCKETS - 1);
}

static struct container_info *table__find(struct container_table *t, const char *id)
{
	for (struct container_info *ci = t->b[slot(t, id)]; ci; ci = ci->next)
		if (strcmp(ci->id, id) == 0)
			return ci;
	return NULL;
}

void container_ident__short_id(const struct container_ident *ident, char *out)
{
	size_t n = strlen(ident->id);

	if (ident->type != CT_LXC && ident->type != CT_LIBVIRT_LXC && n > CONTAINER_SHORT_ID)
		n = CONTAINER_SHORT_ID;
	memcpy(out, ident->id, n);
	out[n] = '\0';
}

static struct container_info *table__add(struct container_table *t, const char *id)
{
	struct container_info *ci;
	uint32_t s;

	if (t->n >= t->max_entries) {
		t->c.n_full++;
		errno = ENOSPC;
		return NULL;
	}
	ci = calloc(1, sizeof(*ci));
	if (!ci) {
		errno = ENOMEM;
		return NULL;
	}
	snprintf(ci->id, sizeof(ci->id), "%s", id);
	ci->privileged = -1;
	ci->table = t;
	s = slot(t, id);
	ci->next = t->b[s];
	t->b[s] = ci;
	t->n++;
	t->c.n_seen++;
	return ci;
}

static void table__unlink(struct container_table *t, struct container_info *ci)
{
	for (struct container_info **p = &t->b[slot(t, ci->id)]; *p; p = &(*p)->next) {
		if (*p == ci) {
			*p = ci->next;
			t->n--;
			return;
		}
	}
}

/* One lookup of CI in the runtimes' files. */
static void table__lookup(struct container_table *t, struct container_info *ci,
			  const struct container_ident *ident, uint64_t now)
{
	bool was_named = ci->lookup == CL_FOUND;
	int rc;

	if (!was_named && t->n_named >= t->max_named) {
		t->c.n_not_named++;
		ci->attempts = MAX_ATTEMPTS;
		return;
	}
	t->c.n_lookups++;
	ci->attempts++;
	ci->last_try_ns = now;
	rc = meta__lookup(t->root, ident, ci);
	if (rc > 0) {
		ci->lookup = CL_FOUND;
		t->c.n_found++;
		if (!was_named)
			t->n_named++;
		/* a -w file that has it without names gets it again, named */
		ci->written = false;
	} else {
		/* what a bad file let through is not trusted */
		container_info__clear(ci);
		ci->type = ident->type;
		ci->privileged = -1;
		ci->is_pod_sandbox = false;
		ci->lookup = rc == 0 ? CL_MISSING : CL_FAILED;
		if (rc == 0)
			t->c.n_missing++;
		else
			t->c.n_bad_files++;
	}
	/* the cgroup path names the pod even where no file does */
	if (!ci->pod_uid && ident->pod_uid[0])
		meta__set(&ci->pod_uid, ident->pod_uid);
}

struct container_info *container_table__get(struct container_table *t,
					    const struct container_ident *ident, uint64_t now_ns)
{
	char id[CONTAINER_ID_MAX + 1];
	struct container_info *ci;

	container_ident__short_id(ident, id);
	ci = table__find(t, id);
	if (ci) {
		ci->refs++;
		if (!t->no_lookup && ci->lookup != CL_FOUND && !ci->pinned &&
		    ci->attempts < MAX_ATTEMPTS && now_ns >= ci->last_try_ns + RETRY_NS)
			table__lookup(t, ci, ident, now_ns);
		return ci;
	}
	ci = table__add(t, id);
	if (!ci)
		return NULL;
	ci->refs = 1;
	ci->type = ident->type;
	snprintf(ci->full_id, sizeof(ci->full_id), "%s", ident->id);
	if (!t->no_lookup) {
		table__lookup(t, ci, ident, now_ns);
	} else if (ident->pod_uid[0] && meta__set(&ci->pod_uid, ident->pod_uid)) {
		container_info__put(ci);
		errno = ENOMEM;
		return NULL;
	}
	return ci;
}

struct container_info *container_info__ref(struct container_info *ci)
{
	if (ci)
		ci->refs++;
	return ci;
}

void container_info__put(struct container_info *ci)
{
	struct container_table *t;

	if (!ci || --ci->refs > 0)
		return;
	t = ci->table;
	table__unlink(t, ci);
	if (ci->lookup == CL_FOUND && t->n_named)
		t->n_named--;
	container_info__clear(ci);
	free(ci);
}

int container_table__for_each(struct container_table *t,
			      int (*fn)(struct container_info *ci, void *ctx), void *ctx)
{
	int rc;

	for (uint32_t i = 0; i < NBUCKETS; i++)
		for (struct container_info *ci = t->b[i]; ci; ci = ci->next)
			if ((rc = fn(ci, ctx)))
				return rc;
	return 0;
}

void container_table__counters(const struct container_table *t, struct container_counters *c)
{
	*c = t->c;
	c->n_containers = t->n;
}

/* ---- capture files (container_json.c) ---- */

struct container_info *container_table__pin(struct container_table *t, const char *id)
{
	struct container_info *ci = table__find(t, id);

	if (!ci) {
		ci = table__add(t, id);
		if (!ci)
			return NULL;
	}
	if (!ci->pinned) {
		ci->pinned = true;
		ci->refs++;
	}
	return ci;
}

void container_table__bad_json(struct container_table *t)
{
	t->c.n_bad_json++;
}

