/* Events that change the thread table: clone/fork/vfork/clone3, execve/execveat,
 * procexit, chdir/fchdir. Param indexes are those of proto/events.def. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "inspect_int.h"

/* CLONE_20_X, FORK_20_X, VFORK_20_X and CLONE3_X share one layout. */
enum {
	CL_RES = 0, CL_EXE = 1, CL_ARGS = 2, CL_TID = 3, CL_PID = 4, CL_PTID = 5, CL_CWD = 6,
	CL_COMM = 13, CL_CGROUPS = 14, CL_FLAGS = 15, CL_UID = 16, CL_GID = 17, CL_VTID = 18,
	CL_VPID = 19,
};

/* EXECVE_19_X and EXECVEAT_X share one layout. */
enum {
	EX_RES = 0, EX_EXE = 1, EX_ARGS = 2, EX_TID = 3, EX_PID = 4, EX_PTID = 5, EX_CWD = 6,
	EX_COMM = 13, EX_CGROUPS = 14, EX_TTY = 16, EX_PGID = 17, EX_LOGINUID = 18,
};

static void set_str_param(const struct evt_params *x, uint32_t i, char **dst)
{
	char buf[PATH_MAX];
	size_t len = evp__str(x, i, buf, sizeof(buf));

	if (len)
		thread_info__set_str(dst, buf, len);
}

static void set_buf_param(const struct evt_params *x, uint32_t i, char **dst, size_t *dlen)
{
	if (evp__has(x, i))
		thread_info__set_buf(dst, dlen, x->p->val[i], x->p->len[i]);
}

static void set_cwd_param(const struct evt_params *x, uint32_t i, struct thread_info *ti)
{
	char buf[PATH_MAX];

	if (evp__str(x, i, buf, sizeof(buf)))
		thread_info__set_cwd(ti, buf);
}

/* What every clone exit tells about the process (the caller's, which the child
 * inherits; on the child side, the child's own). */
static void clone__fill(struct thread_info *ti, const struct evt_params *x,
			const struct thread_info *parent)
{
	evp__str(x, CL_COMM, ti->comm, sizeof(ti->comm));
	if (!ti->comm[0] && parent)
		memcpy(ti->comm, parent->comm, sizeof(ti->comm));
	set_str_param(x, CL_EXE, &ti->exe);
	set_buf_param(x, CL_ARGS, &ti->args, &ti->args_len);
	set_cwd_param(x, CL_CWD, ti);
	set_buf_param(x, CL_CGROUPS, &ti->cgroups, &ti->cgroups_len);
	ti->uid = (uint32_t)evp__int(x, CL_UID, parent ? parent->uid : 0);
	ti->gid = (uint32_t)evp__int(x, CL_GID, parent ? parent->gid : 0);
	if (!parent)
		return;
	/* what the event does not carry comes from the parent */
	if (!ti->exe && parent->exe)
		thread_info__set_str(&ti->exe, parent->exe, strlen(parent->exe));
	if (!ti->args && parent->args)
		thread_info__set_buf(&ti->args, &ti->args_len, parent->args, parent->args_len);
	if (!ti->cwd && parent->cwd)
		thread_info__set_str(&ti->cwd, parent->cwd, strlen(parent->cwd));
	if (!ti->cgroups && parent->cgroups)
		thread_info__set_buf(&ti->cgroups, &ti->cgroups_len, parent->cgroups,
				     parent->cgroups_len);
	if (parent->exepath)
		thread_info__set_str(&ti->exepath, parent->exepath, strlen(parent->exepath));
	ti->loginuid = parent->loginuid;
	ti->tty = parent->tty;
	ti->pgid = parent->pgid;
	ti->sid = parent->sid;
}

/* The child's fd table: the parent's one shared (threads, CLONE_FILES) or copied. */
static struct fd_table *clone__fds(struct inspector *in, struct thread_info *parent,
				   uint32_t flags, int64_t child)
{
	struct fd_table *t;

	if (parent && parent->fds) {
		if (flags & (PPM_CLONE_FLAGS_CLONE_THREAD | PPM_CLONE_FLAGS_CLONE_FILES))
			return fd_table__ref(parent->fds);
		return fd_table__clone(parent->fds);
	}
	t = fd_table__new();
	if (t && !in->opts.no_proc_lookup)
		procfs__read_fds(in->proc, child, t, &in->c.n_lazy_unreadable);
	return t;
}

/* Parent side (res = child tid): the child is made from the caller. */
static void clone__parent(struct inspector *in, struct ievt *ev, const struct evt_params *x,
			  int64_t child)
{
	uint32_t flags = (uint32_t)evp__int(x, CL_FLAGS, 0);
	int64_t ctid = evp__int(x, CL_TID, ev->tid), cpid = evp__int(x, CL_PID, -1);
	int64_t cptid = evp__int(x, CL_PTID, -1);
	int64_t cvtid = evp__int(x, CL_VTID, -1), cvpid = evp__int(x, CL_VPID, -1);
	struct thread_info *caller = ev->thread, *ti;

	if (thread_table__find(in->threads, child))
		return;		/* the child's own event came first */
	ti = inspector__new_thread(in, child);
	if (!ti)
		return;
	if (flags & PPM_CLONE_FLAGS_CLONE_THREAD) {
		ti->pid = cpid >= 0 ? cpid : (caller ? caller->pid : child);
		ti->ptid = cptid;
	} else {
		ti->pid = child;
		ti->ptid = (flags & PPM_CLONE_FLAGS_CLONE_PARENT) ? cptid : ctid;
	}
	/* Namespaced ids are only known for a caller in the initial namespace. */
	if (cvtid == ctid && cvpid == cpid && !(flags & PPM_CLONE_FLAGS_CLONE_NEWPID)) {
		ti->vtid = child;
		ti->vpid = ti->pid;
	} else if (flags & PPM_CLONE_FLAGS_CLONE_THREAD) {
		ti->vpid = cvpid;
	}
	clone__fill(ti, x, caller);
	ti->start_ts = ev->ts;
	ti->fds = clone__fds(in, caller, flags, child);
	if (flags & PPM_CLONE_FLAGS_CLONE_THREAD)
		thread_table__count_sibling(in->threads, ti);
}

/* Child side (res 0, the event's tid is the child): its params are its own. */
static void clone__child(struct inspector *in, struct ievt *ev, const struct evt_params *x)
{
	uint32_t flags = (uint32_t)evp__int(x, CL_FLAGS, 0);
	int64_t pid = evp__int(x, CL_PID, ev->tid), ptid = evp__int(x, CL_PTID, -1);
	struct thread_info *ti = thread_table__find(in->threads, ev->tid), *parent = NULL;

	if (ti) {
		/* made by the parent side: the child knows its namespaced ids */
		if (evp__has(x, CL_VTID))
			ti->vtid = evp__int(x, CL_VTID, ti->vtid);
		if (evp__has(x, CL_VPID))
			ti->vpid = evp__int(x, CL_VPID, ti->vpid);
		return;
	}
	/* A new thread's process must exist: read it if we do not know it. An
	 * unknown parent process is not needed: the child's own /proc has its fds. */
	if (flags & PPM_CLONE_FLAGS_CLONE_THREAD) {
		if (pid != ev->tid)
			parent = inspector__thread(in, pid);
	} else if (ptid > 0) {
		parent = thread_table__find(in->threads, ptid);
	}
	ti = inspector__new_thread(in, ev->tid);
	if (!ti)
		return;
	ti->pid = pid;
	ti->ptid = ptid;
	ti->vtid = evp__int(x, CL_VTID, -1);
	ti->vpid = evp__int(x, CL_VPID, -1);
	clone__fill(ti, x, parent);
	ti->start_ts = ev->ts;
	ti->fds = clone__fds(in, parent, flags, ev->tid);
	if (flags & PPM_CLONE_FLAGS_CLONE_THREAD)
		thread_table__count_sibling(in->threads, ti);
}

void parse__clone_exit(struct inspector *in, struct ievt *ev, const struct evt_params *x)
{
	int64_t res = evp__int(x, CL_RES, -1);

	if (res == 0)
		clone__child(in, ev, x);
	else if (res > 0)
		clone__parent(in, ev, x, res);
}

/* The program exec ran, from the enter event's path. */
static void execve__exepath(struct inspector *in, struct thread_info *ti, struct ievt *ev,
			    const struct evt_params *e)
{
	char name[PATH_MAX], path[PATH_MAX];
	const char *base = ti->cwd;
	uint32_t pi = 0;

	if (ev->type == PPME_SYSCALL_EXECVEAT_X && e) {
		int64_t dirfd = evp__int(e, 0, PPM_AT_FDCWD);

		pi = 1;
		if (dirfd != PPM_AT_FDCWD) {
			struct fd_info *d = fd_table__find(ti->fds, dirfd);

			base = d ? d->name : NULL;
		}
	}
	if (e && evp__str(e, pi, name, sizeof(name)) &&
	    path__resolve(base, name, path, sizeof(path)) >= 0) {
		thread_info__set_str(&ti->exepath, path, strlen(path));
		return;
	}
	if (ti->exe && ti->exe[0] == '/')
		thread_info__set_str(&ti->exepath, ti->exe, strlen(ti->exe));
}

static void remove_siblings(struct inspector *in, struct thread_info *ti)
{
	struct hnode *n, *nx;
	uint32_t i;

	hmap__for_each(&in->threads->map, i, n, nx) {
		struct thread_info *s = &container_of(n, struct thread_entry, node)->ti;

		if (s->pid == ti->pid && s != ti)
			thread_table__remove(in->threads, s);
	}
}

void parse__execve_exit(struct inspector *in, struct ievt *ev, const struct evt_params *x,
			const struct evt_params *e)
{
	struct thread_info *ti = ev->thread;
	char comm[sizeof(ti->comm)];

	if (!ti || evp__int(x, EX_RES, -1) != 0)
		return;
	if (ti->pid < 0)
		ti->pid = evp__int(x, EX_PID, ti->tid);
	if (evp__has(x, EX_PTID))
		ti->ptid = evp__int(x, EX_PTID, ti->ptid);
	/* exec kills the other threads; the caller became the main thread */
	if (ti->pid == ti->tid && thread_table__nthreads(in->threads, ti) > 1)
		remove_siblings(in, ti);
	set_str_param(x, EX_EXE, &ti->exe);
	if (evp__has(x, EX_ARGS))
		set_buf_param(x, EX_ARGS, &ti->args, &ti->args_len);
	else
		thread_info__set_buf(&ti->args, &ti->args_len, "", 0);
	if (evp__str(x, EX_COMM, comm, sizeof(comm)))
		memcpy(ti->comm, comm, sizeof(comm));
	set_cwd_param(x, EX_CWD, ti);
	set_buf_param(x, EX_CGROUPS, &ti->cgroups, &ti->cgroups_len);
	if (evp__has(x, EX_TTY))
		ti->tty = (uint32_t)evp__int(x, EX_TTY, 0);
	if (evp__has(x, EX_PGID))
		ti->pgid = evp__int(x, EX_PGID, ti->pgid);
	if (evp__has(x, EX_LOGINUID))
		ti->loginuid = (uint32_t)evp__int(x, EX_LOGINUID, -1);
	execve__exepath(in, ti, ev, e);
	ti->exited = false;
	if (!ti->fds)
		return;
	/* A table still shared (CLONE_FILES) is unshared by exec. */
	if (ti->fds->refs > 1) {
		struct fd_table *own = fd_table__clone(ti->fds);

		if (!own)
			return;
		fd_table__unref(ti->fds);
		ti->fds = own;
	}
	fd_table__close_cloexec(ti->fds);
}

void parse__procexit(struct inspector *in, struct ievt *ev)
{
	struct thread_info *ti = ev->thread;

	if (!ti)
		return;
	ti->exited = true;
	/* A main thread stays while other threads of its process live. */
	if (ti->pid == ti->tid && thread_table__nthreads(in->threads, ti) > 1)
		return;
	thread_table__remove(in->threads, ti);
}

void parse__chdir_exit(struct inspector *in, struct ievt *ev, const struct evt_params *x,
		       const struct evt_params *e)
{
	struct thread_info *ti = ev->thread, *main;
	char name[PATH_MAX], path[PATH_MAX];
	struct hnode *n, *nx;
	uint32_t i;

	if (!ti || evp__int(x, 0, -1) != 0)
		return;
	if (ev->type == PPME_SYSCALL_CHDIR_X) {
		if (!evp__str(x, 1, name, sizeof(name)))
			return;
		if (path__resolve(ti->cwd, name, path, sizeof(path)) < 0)
			return;
	} else {
		struct fd_info *d = e ? fd_table__find(ti->fds, evp__int(e, 0, -1)) : NULL;

		if (!d || !d->name || d->name[0] != '/')
			return;
		snprintf(path, sizeof(path), "%s", d->name);
	}
	thread_info__set_cwd(ti, path);
	/* the cwd belongs to the process: tell its other threads */
	main = thread_table__main(in->threads, ti);
	if (!main || thread_table__nthreads(in->threads, main) <= 1)
		return;
	hmap__for_each(&in->threads->map, i, n, nx) {
		struct thread_info *s = &container_of(n, struct thread_entry, node)->ti;

		if (s->pid == ti->pid && s != ti)
			thread_info__set_cwd(s, ti->cwd);
	}
}
