/* The thread table: threads by tid. Removal is deferred to the next event so that
 * the pointers handed out with an event stay valid while it is looked at. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "container.h"
#include "inspect_int.h"

struct thread_table *thread_table__new(void)
{
	struct thread_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (hmap__init(&t->map, 1024) < 0 || hmap__init(&t->byvid, 64) < 0) {
		hmap__fini(&t->map);
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void thread_info__release(struct thread_info *ti)
{
	free(ti->exe);
	free(ti->exepath);
	free(ti->args);
	free(ti->cwd);
	free(ti->cgroups);
	fd_table__unref(ti->fds);
	container_info__put(ti->container);
	ti->container = NULL;
	ti->exe = ti->exepath = ti->args = ti->cwd = ti->cgroups = NULL;
	ti->args_len = ti->cgroups_len = 0;
	ti->fds = NULL;
}

static void thread_entry__free(struct thread_entry *e)
{
	thread_info__release(&e->ti);
	free(e);
}

void thread_table__flush(struct thread_table *t)
{
	while (t->pending) {
		struct thread_entry *e = t->pending;

		t->pending = e->pending_next;
		thread_entry__free(e);
	}
}

void thread_table__free(struct thread_table *t)
{
	struct hnode *n, *nx;
	uint32_t i;

	if (!t)
		return;
	thread_table__flush(t);
	hmap__for_each(&t->map, i, n, nx)
		thread_entry__free(container_of(n, struct thread_entry, node));
	hmap__fini(&t->map);
	hmap__fini(&t->byvid);
	free(t);
}

static struct thread_entry *thread_table__entry(struct thread_table *t, int64_t tid)
{
	struct hnode *n = hmap__find(&t->map, tid);

	return n ? container_of(n, struct thread_entry, node) : NULL;
}

struct thread_info *thread_table__find(struct thread_table *t, int64_t tid)
{
	struct thread_entry *e = t ? thread_table__entry(t, tid) : NULL;

	return e ? &e->ti : NULL;
}

size_t thread_table__count(const struct thread_table *t)
{
	return t ? t->map.n : 0;
}

struct thread_info *thread_table__main(struct thread_table *t, const struct thread_info *ti)
{
	if (!ti || ti->pid < 0)
		return NULL;
	if (ti->pid == ti->tid)
		return (struct thread_info *)ti;
	return thread_table__find(t, ti->pid);
}

struct thread_info *thread_table__add(struct thread_table *t, int64_t tid)
{
	struct thread_entry *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->node.key = tid;
	e->ti.tid = tid;
	e->ti.pid = e->ti.ptid = -1;
	e->ti.vtid = e->ti.vpid = -1;
	e->ti.pgid = e->ti.sid = -1;
	/* Unknown until /proc or an event says: never "root" by default. */
	e->ti.uid = e->ti.gid = UINT32_MAX;
	e->ti.loginuid = UINT32_MAX;
	e->nthreads = 1;
	hmap__insert(&t->map, &e->node);
	return &e->ti;
}

void thread_table__count_sibling(struct thread_table *t, struct thread_info *ti)
{
	struct thread_entry *m;

	if (ti->pid < 0 || ti->pid == ti->tid)
		return;
	m = thread_table__entry(t, ti->pid);
	if (m)
		m->nthreads++;
}

uint32_t thread_table__nthreads(struct thread_table *t, const struct thread_info *main)
{
	return main ? container_of(main, struct thread_entry, ti)->nthreads : 0;
}

void thread_table__remove(struct thread_table *t, struct thread_info *ti)
{
	struct thread_entry *e = container_of(ti, struct thread_entry, ti);
	struct thread_entry *m;

	if (!hmap__remove(&t->map, ti->tid))
		return;		/* already removed */
	thread_table__unindex_vid(t, ti);
	e->pending_next = t->pending;
	t->pending = e;
	if (ti->pid < 0 || ti->pid == ti->tid)
		return;
	m = thread_table__entry(t, ti->pid);
	if (!m)
		return;
	if (m->nthreads > 1)
		m->nthreads--;
	/* An exited main thread stays while its threads live (proc.* fields). */
	if (m->nthreads <= 1 && m->ti.exited)
		thread_table__remove(t, &m->ti);
}

int thread_info__set_str(char **dst, const char *s, size_t len)
{
	char *c = malloc(len + 1);

	if (!c)
		return -ENOMEM;
	memcpy(c, s, len);
	c[len] = '\0';
	free(*dst);
	*dst = c;
	return 0;
}

int thread_info__set_buf(char **dst, size_t *dlen, const void *s, size_t len)
{
	int err = thread_info__set_str(dst, s, len);

	if (err == 0)
		*dlen = len;
	return err;
}

int thread_info__set_cwd(struct thread_info *ti, const char *path)
{
	size_t len = strlen(path);
	char *c = malloc(len + 2);

	if (!c)
		return -ENOMEM;
	memcpy(c, path, len);
	if (len == 0 || c[len - 1] != '/')
		c[len++] = '/';
	c[len] = '\0';
	free(ti->cwd);
	ti->cwd = c;
	return 0;
}

int64_t thread__host_pid(struct thread_table *t, const struct thread_info *ti, int64_t v)
{
	const struct thread_info *c;

	if (v == 0)
		return ti->pid;
	switch (thread__pidns(ti)) {
	case PIDNS_INIT:
		return v;
	case PIDNS_CHILD:
		if (v == ti->vpid)
			return ti->pid;
		c = thread_table__find_vchild(t, ti, v);
		return c && c->tid == c->pid ? c->pid : -1;
	default:
		return -1;
	}
}
