/* The threads of pid namespaces other than the initial one by the process that
 * made them and their number there. A syscall in a container names other
 * threads by those numbers (a clone's result, kill's pid): the number is
 * looked up among the threads of the caller's process and the children it
 * made, which share its namespace, never among host ids. */
#include "inspect_int.h"

/* Numbers past these do not fit a key (pid_max is at most 2^22). */
#define VID_MAKER_MAX (1LL << 31)
#define VID_NUM_MAX (1LL << 30)

/* The key of a thread numbered VTID made by process MAKER (its own process for
 * a thread, its parent for a child process); 0 when it has none. */
static int64_t vid__key(int64_t maker, int64_t vtid, bool thread)
{
	if (maker <= 0 || maker >= VID_MAKER_MAX || vtid <= 0 || vtid >= VID_NUM_MAX)
		return 0;
	return (int64_t)((uint64_t)maker << 32 | (uint64_t)vtid << 1 | thread);
}

void thread_table__unindex_vid(struct thread_table *t, struct thread_info *ti)
{
	struct thread_entry *e = container_of(ti, struct thread_entry, ti);

	if (e->vnode.key && hmap__find(&t->byvid, e->vnode.key) == &e->vnode)
		hmap__remove(&t->byvid, e->vnode.key);
	e->vnode.key = 0;
}

void thread_table__index_vid(struct thread_table *t, struct thread_info *ti, bool thread)
{
	struct thread_entry *e = container_of(ti, struct thread_entry, ti);
	int64_t key = vid__key(thread ? ti->pid : ti->ptid, ti->vtid, thread);
	struct hnode *old;

	thread_table__unindex_vid(t, ti);
	if (!key || thread__pidns(ti) != PIDNS_CHILD)
		return;
	old = hmap__remove(&t->byvid, key);
	if (old)
		old->key = 0;
	e->vnode.key = key;
	hmap__insert(&t->byvid, &e->vnode);
}

static struct thread_info *vid__find(struct thread_table *t, int64_t maker, int64_t vtid,
				     bool thread)
{
	int64_t key = vid__key(maker, vtid, thread);
	struct hnode *n = key ? hmap__find(&t->byvid, key) : NULL;

	return n ? &container_of(n, struct thread_entry, vnode)->ti : NULL;
}

struct thread_info *thread_table__find_vchild(struct thread_table *t,
					      const struct thread_info *parent, int64_t vtid)
{
	struct thread_info *ti;

	if (!t || !parent || thread__pidns(parent) != PIDNS_CHILD)
		return NULL;
	ti = vid__find(t, parent->pid, vtid, false);
	return ti ? ti : vid__find(t, parent->pid, vtid, true);
}
