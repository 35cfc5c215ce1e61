/* Events that change the thread table: clone/fork/vfork/clone3, execve/execveat,
 * procexit, chdir/fchdir. Param indexes are those of proto/events.def. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "inspect_int.h"

/* Clone-family exits: res, exe, args, tid, pid, ptid and cwd come first in
 * every version; the later params moved as versions added some. -1: absent. */
struct clone_layout {
	uint16_t type;
	int8_t comm, cgroups, flags, uid, gid, vtid, vpid;
};

static const struct clone_layout clone_layouts[] = {
	{ PPME_SYSCALL_CLONE_20_X, 13, 14, 15, 16, 17, 18, 19 },
	{ PPME_SYSCALL_FORK_20_X, 13, 14, 15, 16, 17, 18, 19 },
	{ PPME_SYSCALL_VFORK_20_X, 13, 14, 15, 16, 17, 18, 19 },
	{ PPME_SYSCALL_CLONE3_X, 13, 14, 15, 16, 17, 18, 19 },
	{ PPME_SYSCALL_CLONE_17_X, 13, -1, 14, 15, 16, -1, -1 },
	{ PPME_SYSCALL_FORK_17_X, 13, -1, 14, 15, 16, -1, -1 },
	{ PPME_SYSCALL_VFORK_17_X, 13, -1, 14, 15, 16, -1, -1 },
	{ PPME_SYSCALL_CLONE_16_X, -1, -1, 13, 14, 15, -1, -1 },
	{ PPME_SYSCALL_FORK_X, -1, -1, 13, 14, 15, -1, -1 },
	{ PPME_SYSCALL_VFORK_X, -1, -1, 13, 14, 15, -1, -1 },
	{ PPME_SYSCALL_CLONE_11_X, -1, -1, 8, 9, 10, -1, -1 },
};

enum { CL_RES = 0, CL_EXE = 1, CL_ARGS = 2, CL_TID = 3, CL_PID = 4, CL_PTID = 5, CL_CWD = 6 };

/* Execve-family exits, likewise. */
struct exec_layout {
	uint16_t type;
	int8_t comm, cgroups, tty, pgid, loginuid;
};

static const struct exec_layout exec_layouts[] = {
	{ PPME_SYSCALL_EXECVE_19_X, 13, 14, 16, 17, 18 },
	{ PPME_SYSCALL_EXECVEAT_X, 13, 14, 16, 17, 18 },
	{ PPME_SYSCALL_EXECVE_18_X, 13, 14, 16, -1, -1 },
	{ PPME_SYSCALL_EXECVE_17_X, 13, 14, 16, -1, -1 },
	{ PPME_SYSCALL_EXECVE_16_X, 13, 14, -1, -1, -1 },
	{ PPME_SYSCALL_EXECVE_15_X, 13, -1, -1, -1, -1 },
	{ PPME_SYSCALL_EXECVE_14_X, -1, -1, -1, -1, -1 },
	{ PPME_SYSCALL_EXECVE_13_X, -1, -1, -1, -1, -1 },
	{ PPME_SYSCALL_EXECVE_8_X, -1, -1, -1, -1, -1 },
};

enum { EX_RES = 0, EX_EXE = 1, EX_ARGS = 2, EX_TID = 3, EX_PID = 4, EX_PTID = 5, EX_CWD = 6 };

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Each event's entry in the tables above, plus one (0: none), so that the
 * tests every event makes cost one load. */
static uint8_t layout_ix[PPM_EVENT_MAX];
static pthread_once_t layout_once = PTHREAD_ONCE_INIT;

static void layout_ix__init(void)
{
	for (size_t i = 0; i < NELEM(clone_layouts); i++)
		layout_ix[clone_layouts[i].type] = (uint8_t)(i + 1);
	for (size_t i = 0; i < NELEM(exec_layouts); i++)
		layout_ix[exec_layouts[i].type] = (uint8_t)(0x80 | (i + 1));
}

static unsigned layout__ix(uint16_t type)
{
	pthread_once(&layout_once, layout_ix__init);
	return type < PPM_EVENT_MAX ? layout_ix[type] : 0;
}

static const struct clone_layout *clone_layout(uint16_t type)
{
	unsigned i = layout__ix(type);

	return i && !(i & 0x80) ? &clone_layouts[i - 1] : NULL;
}

static const struct exec_layout *exec_layout(uint16_t type)
{
	unsigned i = layout__ix(type);

	return i & 0x80 ? &exec_layouts[(i & 0x7f) - 1] : NULL;
}

bool parse__is_clone_exit(uint16_t type)
{
	return clone_layout(type) != NULL;
}

bool parse__is_execve_exit(uint16_t type)
{
	return exec_layout(type) != NULL;
}

/* Param index I of a layout (-1: absent) as evp__* take it. */
#define IDX(i) ((uint32_t)(int32_t)(i))

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

/* TI's cgroups from param I, and its container when they moved. A move has no
 * event of its own (runc puts its init in the container's cgroup by writing
 * cgroup.procs), so the next clone or execve of the thread tells it. */
static void cgroups__update(struct inspector *in, struct thread_info *ti,
			    const struct evt_params *x, uint32_t i)
{
	if (!evp__has(x, i) || (ti->cgroups_len == x->p->len[i] &&
				memcmp(ti->cgroups, x->p->val[i], ti->cgroups_len) == 0))
		return;
	set_buf_param(x, i, &ti->cgroups, &ti->cgroups_len);
	inspector__thread_container(in, ti, NULL);
}

/* What every clone exit tells about the process (the caller's, which the child
 * inherits; on the child side, the child's own). */
static void clone__fill(struct thread_info *ti, const struct evt_params *x,
			const struct clone_layout *l, const struct thread_info *parent)
{
	evp__str(x, IDX(l->comm), ti->comm, sizeof(ti->comm));
	if (!ti->comm[0] && parent)
		memcpy(ti->comm, parent->comm, sizeof(ti->comm));
	set_str_param(x, CL_EXE, &ti->exe);
	set_buf_param(x, CL_ARGS, &ti->args, &ti->args_len);
	set_cwd_param(x, CL_CWD, ti);
	set_buf_param(x, IDX(l->cgroups), &ti->cgroups, &ti->cgroups_len);
	ti->uid = (uint32_t)evp__int(x, IDX(l->uid), parent ? parent->uid : 0);
	ti->gid = (uint32_t)evp__int(x, IDX(l->gid), parent ? parent->gid : 0);
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

/* A fork in a pid namespace: the child's fds as the parent has them now. */
static void ns_fork__keep(struct inspector *in, int64_t parent, int64_t vtid,
			  const struct fd_table *fds)
{
	struct ns_fork *f = &in->ns_forks[in->ns_fork_next++ % NELEM(in->ns_forks)];

	fd_table__unref(f->fds);
	f->parent = parent;
	f->vtid = vtid;
	f->fds = fd_table__clone(fds);
}

/* The fds kept for the child VTID of PARENT, or NULL (the caller owns them). */
static struct fd_table *ns_fork__take(struct inspector *in, int64_t parent, int64_t vtid)
{
	for (size_t i = 0; i < NELEM(in->ns_forks); i++) {
		struct ns_fork *f = &in->ns_forks[i];
		struct fd_table *t = f->fds;

		if (t && f->parent == parent && f->vtid == vtid) {
			f->fds = NULL;
			return t;
		}
	}
	return NULL;
}

/* The pid namespace of the task a clone exit describes, as far as the event
 * says: ids that differ from its host ids, or sysdig's flag unset (the flag
 * alone does not say which: on the parent side it is also set for a host task
 * whose children go elsewhere; on the child side it means another one). */
static enum pidns clone__pidns(const struct evt_params *x, const struct clone_layout *l,
			       int64_t tid, int64_t pid, bool child_side)
{
	uint32_t flags = (uint32_t)evp__int(x, IDX(l->flags), 0);
	int64_t vtid = evp__int(x, IDX(l->vtid), -1), vpid = evp__int(x, IDX(l->vpid), -1);

	if (vtid >= 0 && (vtid != tid || vpid != pid))
		return PIDNS_CHILD;
	if (!(flags & PPM_CLONE_FLAGS_CHILD_IN_PIDNS))
		return PIDNS_INIT;
	return child_side ? PIDNS_CHILD : PIDNS_UNKNOWN;
}

/* Parent side (res = child tid): the child is made from the caller. */
static void clone__parent(struct inspector *in, struct ievt *ev, const struct evt_params *x,
			  const struct clone_layout *l, int64_t child)
{
	uint32_t flags = (uint32_t)evp__int(x, IDX(l->flags), 0);
	int64_t ctid = evp__int(x, CL_TID, ev->tid), cpid = evp__int(x, CL_PID, -1);
	int64_t cptid = evp__int(x, CL_PTID, -1);
	int64_t cvtid = evp__int(x, IDX(l->vtid), -1), cvpid = evp__int(x, IDX(l->vpid), -1);
	enum pidns ns = clone__pidns(x, l, ctid, cpid, false);
	struct thread_info *caller = ev->thread, *ti;

	/* The params describe the caller: complete it if /proc could not. */
	if (caller && caller->pid < 0) {
		caller->pid = cpid;
		caller->ptid = cptid;
		caller->vtid = cvtid;
		caller->vpid = cvpid;
		clone__fill(caller, x, l, NULL);
		inspector__thread_container(in, caller, NULL);
	}
	if (caller) {
		cgroups__update(in, caller, x, IDX(l->cgroups));
		if (ns != PIDNS_UNKNOWN)
			caller->pidns = (uint8_t)ns;
		ns = thread__pidns(caller);
	}
	/* Unless the caller is in the initial pid namespace, res is the child's
	 * id in the caller's own (a container's): the child is made from its own
	 * clone event (res 0, its host tid in the header), never from this one,
	 * which would name some host thread with that number. */
	if (ns != PIDNS_INIT) {
		if (caller && caller->fds &&
		    !(flags & (PPM_CLONE_FLAGS_CLONE_THREAD | PPM_CLONE_FLAGS_CLONE_FILES)))
			ns_fork__keep(in, ctid, child, caller->fds);
		return;
	}
	/* Only a damaged file names the caller its own child: making it over
	 * would drop the fd table it is about to copy from. */
	if (child == ev->tid) {
		in->c.n_clone_self++;
		return;
	}
	ti = thread_table__find(in->threads, child);
	if (ti && !thread__placeholder(ti))
		return;		/* the child's own event came first */
	if (!ti)
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
	/* The child is where the caller's children go: the caller's (initial)
	 * namespace unless CLONE_NEWPID, or the flag says another (unshare or
	 * setns before); its ids there come with its own event. */
	if (flags & (PPM_CLONE_FLAGS_CLONE_NEWPID | PPM_CLONE_FLAGS_CHILD_IN_PIDNS)) {
		ti->pidns = PIDNS_CHILD;
	} else {
		ti->pidns = PIDNS_INIT;
		ti->vtid = child;
		ti->vpid = ti->pid;
	}
	clone__fill(ti, x, l, caller);
	inspector__thread_container(in, ti, caller);
	ti->start_ts = ev->ts;
	fd_table__unref(ti->fds);	/* a placeholder's: its first events have no fds */
	ti->fds = clone__fds(in, caller, flags, child);
	if (flags & PPM_CLONE_FLAGS_CLONE_THREAD)
		thread_table__count_sibling(in->threads, ti);
}

/* A child in its parent's pid namespace (not the initial one) is found by its
 * number there when its parent's syscalls name it. One made with CLONE_NEWPID
 * is the first of a new namespace, numbered apart from its parent's. */
static void clone__index(struct inspector *in, struct thread_info *ti, uint32_t flags)
{
	if (!(flags & PPM_CLONE_FLAGS_CLONE_NEWPID))
		thread_table__index_vid(in->threads, ti, flags & PPM_CLONE_FLAGS_CLONE_THREAD);
}

/* Child side (res 0, the event's tid is the child): its params are its own. */
static void clone__child(struct inspector *in, struct ievt *ev, const struct evt_params *x,
			 const struct clone_layout *l)
{
	uint32_t flags = (uint32_t)evp__int(x, IDX(l->flags), 0);
	int64_t pid = evp__int(x, CL_PID, ev->tid), ptid = evp__int(x, CL_PTID, -1);
	struct thread_info *ti = thread_table__find(in->threads, ev->tid), *parent = NULL;
	enum pidns ns = clone__pidns(x, l, ev->tid, pid, true);

	if (ti && !thread__placeholder(ti)) {
		/* made by the parent side: the child knows its namespaced ids */
		if (evp__has(x, IDX(l->vtid)))
			ti->vtid = evp__int(x, IDX(l->vtid), ti->vtid);
		if (evp__has(x, IDX(l->vpid)))
			ti->vpid = evp__int(x, IDX(l->vpid), ti->vpid);
		ti->pidns = (uint8_t)ns;
		clone__index(in, ti, flags);
		return;
	}
	/* A new thread's process must exist: read it if we do not know it. An
	 * unknown parent process is not needed: the child's own /proc has its fds. */
	if (flags & PPM_CLONE_FLAGS_CLONE_THREAD) {
		if (pid != ev->tid)
			parent = inspector__thread(in, pid);
		if (parent && parent->pid < 0)
			parent->pid = pid;	/* it is the main thread */
	} else if (ptid > 0) {
		parent = thread_table__find(in->threads, ptid);
	}
	if (!ti)
		ti = inspector__new_thread(in, ev->tid);
	if (!ti)
		return;
	ti->pid = pid;
	ti->ptid = ptid;
	ti->vtid = evp__int(x, IDX(l->vtid), -1);
	ti->vpid = evp__int(x, IDX(l->vpid), -1);
	ti->pidns = (uint8_t)ns;
	clone__index(in, ti, flags);
	clone__fill(ti, x, l, parent);
	inspector__thread_container(in, ti, parent);
	ti->start_ts = ev->ts;
	fd_table__unref(ti->fds);	/* a placeholder's: its first events have no fds */
	ti->fds = NULL;
	if (!(flags & (PPM_CLONE_FLAGS_CLONE_THREAD | PPM_CLONE_FLAGS_CLONE_FILES)))
		ti->fds = ns_fork__take(in, ptid, ti->vtid);
	if (!ti->fds)
		ti->fds = clone__fds(in, parent, flags, ev->tid);
	if (flags & PPM_CLONE_FLAGS_CLONE_THREAD)
		thread_table__count_sibling(in->threads, ti);
}

void parse__clone_exit(struct inspector *in, struct ievt *ev, const struct evt_params *x)
{
	const struct clone_layout *l = clone_layout(ev->type);
	int64_t res = evp__int(x, CL_RES, -1);

	if (!l)
		return;
	if (res == 0)
		clone__child(in, ev, x, l);
	else if (res > 0)
		clone__parent(in, ev, x, l, res);
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
	const struct exec_layout *l = exec_layout(ev->type);
	struct thread_info *ti = ev->thread;
	char comm[sizeof(ti->comm)];

	if (!ti || !l || evp__int(x, EX_RES, -1) != 0)
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
	if (evp__str(x, IDX(l->comm), comm, sizeof(comm)))
		memcpy(ti->comm, comm, sizeof(comm));
	set_cwd_param(x, EX_CWD, ti);
	cgroups__update(in, ti, x, IDX(l->cgroups));
	if (evp__has(x, IDX(l->tty)))
		ti->tty = (uint32_t)evp__int(x, IDX(l->tty), 0);
	if (evp__has(x, IDX(l->pgid)))
		ti->pgid = evp__int(x, IDX(l->pgid), ti->pgid);
	if (evp__has(x, IDX(l->loginuid)))
		ti->loginuid = (uint32_t)evp__int(x, IDX(l->loginuid), -1);
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
	in->exit_pending = true;
	in->exit_tid = ti->tid;
}

void parse__procexit_reap(struct inspector *in)
{
	struct thread_info *ti;

	if (!in->exit_pending)
		return;
	in->exit_pending = false;
	ti = thread_table__find(in->threads, in->exit_tid);
	if (!ti || !ti->exited)
		return;
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
