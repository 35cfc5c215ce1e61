/* The inspector's tables as its parsers reach them: threads found (read from
 * /proc when unknown), made and purged, containers set, fds kept until the
 * next event. Below inspector.c and parse_*.c, which both call it. */
#include <string.h>

#include "container.h"
#include "inspect_int.h"

/* A full table is purged at most this often (event time). */
#define FULL_PURGE_INTERVAL_NS 1000000000ULL

void inspector__defer_fd(struct inspector *in, struct fd_info *fi)
{
	if (in->npending_fd == sizeof(in->pending_fd) / sizeof(in->pending_fd[0])) {
		/* only the last ones can be referenced by the current event */
		fd_info__free(in->pending_fd[0]);
		memmove(in->pending_fd, in->pending_fd + 1,
			sizeof(in->pending_fd) - sizeof(in->pending_fd[0]));
		in->npending_fd--;
	}
	in->pending_fd[in->npending_fd++] = fi;
}

void inspector__thread_container(struct inspector *in, struct thread_info *ti,
				 const struct thread_info *like)
{
	struct container_ident id;
	struct container_info *ci = NULL;

	if (like && like != ti && like->cgroups_len == ti->cgroups_len &&
	    (!ti->cgroups_len || memcmp(like->cgroups, ti->cgroups, ti->cgroups_len) == 0))
		ci = container_info__ref(like->container);
	else if (ti->cgroups && cgroups__container(ti->cgroups, ti->cgroups_len, &id))
		ci = container_table__get(in->containers, &id, in->cur_ts);
	/* the new one first: it may be the same entry */
	container_info__put(ti->container);
	ti->container = ci;
}

int inspector__for_each_thread(struct inspector *in,
			       int (*fn)(struct thread_info *ti, void *ctx), void *ctx)
{
	struct hnode *n, *nx;
	uint32_t i;
	int pass, rc;

	for (pass = 0; pass < 2; pass++) {
		hmap__for_each(&in->threads->map, i, n, nx) {
			struct thread_info *ti = &container_of(n, struct thread_entry, node)->ti;

			if ((ti->tid == ti->pid) != (pass == 0))
				continue;
			if ((rc = fn(ti, ctx)))
				return rc;
		}
	}
	return 0;
}

void inspector__purge(struct inspector *in, uint64_t older_than_ts)
{
	struct thread_table *t = in->threads;
	struct hnode *n, *nx;
	uint32_t i;

	/* A capture file's threads are not this host's: /proc cannot tell. */
	if (in->opts.no_proc_lookup)
		return;
	hmap__for_each(&t->map, i, n, nx) {
		struct thread_info *ti = &container_of(n, struct thread_entry, node)->ti;

		if (ti->tid == in->cur_tid || ti->last_ts >= older_than_ts)
			continue;
		if (procfs__task_alive(in->proc, ti->pid, ti->tid))
			continue;
		thread_table__remove(t, ti);
		in->c.n_threads_purged++;
	}
}

/* Whether one more thread fits, purging when the table is full. */
static bool inspector__make_room(struct inspector *in)
{
	if (thread_table__count(in->threads) < in->max_threads)
		return true;
	/* Threads whose exit we missed are the ones /proc no longer has. */
	if (!in->last_full_purge_ts ||
	    in->cur_ts - in->last_full_purge_ts >= FULL_PURGE_INTERVAL_NS) {
		inspector__purge(in, UINT64_MAX);
		in->last_full_purge_ts = in->cur_ts ? in->cur_ts : 1;
	}
	return thread_table__count(in->threads) < in->max_threads;
}

struct thread_info *inspector__new_thread(struct inspector *in, int64_t tid)
{
	struct thread_info *ti;

	if (!inspector__make_room(in)) {
		in->c.n_threads_dropped++;
		return NULL;
	}
	ti = thread_table__add(in->threads, tid);
	if (!ti)
		in->c.n_threads_dropped++;
	return ti;
}

/* A process (main thread) and its fds from /proc. Unreadable: a minimal entry. */
static struct thread_info *inspector__read_process(struct inspector *in, int64_t pid)
{
	struct thread_info *ti = inspector__new_thread(in, pid);

	if (!ti)
		return NULL;
	ti->fds = fd_table__new();
	if (procfs__read_thread(in->proc, pid, pid, ti, NULL) < 0) {
		in->c.n_lazy_unreadable++;
		return ti;
	}
	inspector__thread_container(in, ti, NULL);
	thread_table__index_vid(in->threads, ti, false);
	if (ti->fds)
		procfs__read_fds(in->proc, pid, ti->fds, &in->c.n_lazy_unreadable);
	return ti;
}

static struct thread_info *inspector__lazy_thread(struct inspector *in, int64_t tid)
{
	struct thread_info *ti, *main;
	int64_t pid;

	/* no /proc reads for threads a full table cannot take */
	if (!inspector__make_room(in)) {
		in->c.n_threads_dropped++;
		return NULL;
	}
	in->c.n_lazy_threads++;
	if (in->opts.no_proc_lookup || procfs__tgid(in->proc, tid, &pid) < 0) {
		if (!in->opts.no_proc_lookup)
			in->c.n_lazy_unreadable++;
		ti = inspector__new_thread(in, tid);
		if (ti)
			ti->fds = fd_table__new();
		return ti;
	}
	if (pid == tid)
		return inspector__read_process(in, tid);
	main = thread_table__find(in->threads, pid);
	if (!main)
		main = inspector__read_process(in, pid);
	ti = inspector__new_thread(in, tid);
	if (!ti)
		return NULL;
	if (procfs__read_thread(in->proc, pid, tid, ti, main) < 0)
		in->c.n_lazy_unreadable++;
	inspector__thread_container(in, ti, main);
	ti->pid = pid;
	ti->fds = main ? fd_table__ref(main->fds) : fd_table__new();
	thread_table__count_sibling(in->threads, ti);
	thread_table__index_vid(in->threads, ti, true);
	return ti;
}

struct thread_info *inspector__thread(struct inspector *in, int64_t tid)
{
	struct thread_info *ti = thread_table__find(in->threads, tid);

	return ti ? ti : inspector__lazy_thread(in, tid);
}
