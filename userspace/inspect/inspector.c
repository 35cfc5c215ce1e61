/* The inspector: validates frames, pairs exits with their enter events, finds
 * the thread and fd of each event and dispatches the events that change state. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "container.h"
#include "inspect_int.h"

#define DEFAULT_MAX_THREADS 131072
/* Threads idle this long are checked against /proc, this often. */
#define PURGE_INTERVAL_NS (30ULL * 1000000000ULL)

struct inspector *inspector__new(const struct inspector_opts *opts)
{
	struct inspector_opts o = { 0 };
	struct inspector *in;
	const char *root;

	if (opts)
		o = *opts;
	root = o.host_root ? o.host_root : getenv("HOST_ROOT");
	if (!root)
		root = "";
	in = calloc(1, sizeof(*in));
	if (!in)
		return NULL;
	in->opts = o;
	in->max_threads = o.max_threads ? o.max_threads : DEFAULT_MAX_THREADS;
	in->root = strdup(root);
	/* "/" and "" both mean the real root: keep paths free of "//" */
	if (in->root && strcmp(in->root, "/") == 0)
		in->root[0] = '\0';
	in->threads = thread_table__new();
	in->proc = in->root ? procfs__new(in->root) : NULL;
	/* a capture file's containers are not this host's: only the file names them */
	in->containers = container_table__new(&(struct container_table_opts){
		.host_root = in->root, .no_lookup = o.no_proc_lookup });
	if (!in->root || !in->threads || !in->proc || !in->containers) {
		inspector__free(in);
		errno = ENOMEM;
		return NULL;
	}
	users__set_root(in->root);
	if (!o.no_proc_scan && inspector__scan_proc(in) < 0) {
		int err = errno;

		inspector__free(in);
		errno = err;
		return NULL;
	}
	return in;
}

static void inspector__flush(struct inspector *in)
{
	parse__procexit_reap(in);
	thread_table__flush(in->threads);
	for (uint32_t i = 0; i < in->npending_fd; i++)
		fd_info__free(in->pending_fd[i]);
	in->npending_fd = 0;
	/* this runs per event; few events use the scratch entry */
	if (in->scratch_used) {
		free(in->scratch_fd.name);
		memset(&in->scratch_fd, 0, sizeof(in->scratch_fd));
		in->scratch_used = false;
	}
}

void inspector__free(struct inspector *in)
{
	if (!in)
		return;
	if (in->threads)
		inspector__flush(in);
	thread_table__free(in->threads);
	for (size_t i = 0; i < sizeof(in->ns_forks) / sizeof(in->ns_forks[0]); i++)
		fd_table__unref(in->ns_forks[i].fds);
	/* after the threads, which hold references to it */
	container_table__free(in->containers);
	procfs__free(in->proc);
	users__release();
	free(in->root);
	free(in);
}

void inspector__counters(const struct inspector *in, struct inspector_counters *c)
{
	*c = in->c;
	c->n_threads = thread_table__count(in->threads);
}

struct thread_table *inspector__threads(struct inspector *in)
{
	return in->threads;
}

struct container_table *inspector__containers(struct inspector *in)
{
	return in->containers;
}

int inspector__container_event(struct inspector *in, const char *json, size_t len)
{
	in->num++;
	return container_table__import_json(in->containers, json, len);
}

void inspector__update_container(struct inspector *in, struct thread_info *ti)
{
	inspector__thread_container(in, ti, NULL);
}

void inspector__thread_imported(struct inspector *in, struct thread_info *ti)
{
	inspector__thread_container(in, ti, NULL);
	if (ti->vtid > 0 && ti->vpid > 0)
		ti->pidns = ti->vtid != ti->tid || ti->vpid != ti->pid ? PIDNS_CHILD : PIDNS_INIT;
	thread_table__index_vid(in->threads, ti, ti->tid != ti->pid);
}

struct thread_info *inspector__add_thread(struct inspector *in, int64_t tid, int64_t pid)
{
	struct thread_info *ti, *main = NULL;

	if (thread_table__find(in->threads, tid)) {
		errno = EEXIST;
		return NULL;
	}
	if (pid != tid)
		main = thread_table__find(in->threads, pid);
	ti = inspector__new_thread(in, tid);
	if (!ti) {
		errno = ENOSPC;
		return NULL;
	}
	ti->pid = pid;
	ti->fds = main ? fd_table__ref(main->fds) : fd_table__new();
	if (!ti->fds) {
		thread_table__remove(in->threads, ti);
		errno = ENOMEM;
		return NULL;
	}
	thread_table__count_sibling(in->threads, ti);
	return ti;
}

struct fd_info *inspector__add_fd(struct inspector *in, struct thread_info *ti, int64_t fd)
{
	struct fd_info *fi = ti && ti->fds ? fd_table__add(ti->fds, fd, 0) : NULL;

	if (!fi)
		errno = ti ? ENOMEM : EINVAL;
	return fi;
}

/* ---- the /proc scan ---- */

struct scan_ctx {
	struct inspector *in;
	struct thread_info *main;
};

static int scan__task(void *ctx, int64_t tid)
{
	struct scan_ctx *s = ctx;
	struct inspector *in = s->in;
	struct thread_info *ti;

	if (tid == s->main->tid || thread_table__find(in->threads, tid))
		return 0;
	ti = inspector__new_thread(in, tid);
	if (!ti)
		return 0;
	if (procfs__read_thread(in->proc, s->main->tid, tid, ti, s->main) < 0) {
		in->c.n_proc_unreadable++;
		thread_table__remove(in->threads, ti);
		return 0;
	}
	inspector__thread_container(in, ti, s->main);
	ti->fds = fd_table__ref(s->main->fds);
	thread_table__count_sibling(in->threads, ti);
	thread_table__index_vid(in->threads, ti, true);
	return 0;
}

static int scan__process(void *ctx, int64_t pid)
{
	struct inspector *in = ctx;
	struct scan_ctx s = { .in = in };
	struct thread_info *ti;

	/* a process already known (a second scan) may have new threads */
	if ((ti = thread_table__find(in->threads, pid))) {
		if (!thread__placeholder(ti) && ti->fds) {
			s.main = ti;
			procfs__list(in->proc, pid, scan__task, &s);
		}
		return 0;
	}
	ti = inspector__new_thread(in, pid);
	if (!ti)
		return 0;
	if (procfs__read_thread(in->proc, pid, pid, ti, NULL) < 0) {
		in->c.n_proc_unreadable++;
		thread_table__remove(in->threads, ti);
		return 0;
	}
	inspector__thread_container(in, ti, NULL);
	thread_table__index_vid(in->threads, ti, false);
	ti->fds = fd_table__new();
	if (!ti->fds)
		return -ENOMEM;
	if (procfs__read_fds(in->proc, pid, ti->fds, &in->c.n_proc_unreadable) < 0)
		in->c.n_proc_unreadable++;
	s.main = ti;
	procfs__list(in->proc, pid, scan__task, &s);
	return 0;
}

int inspector__scan_proc(struct inspector *in)
{
	int err = procfs__list(in->proc, -1, scan__process, in);

	thread_table__flush(in->threads);
	if (err < 0)
		errno = -err;
	return err;
}

/* ---- one event ---- */

static int64_t first_fd_param(const struct evt_params *e, uint32_t from)
{
	for (uint32_t i = from; e && e->p && i < e->p->n; i++)
		if (e->info->params[i].type == PT_FD)
			return evp__int(e, i, -1);
	return -1;
}

/* Enter events with a real exit event get stored for pairing; one-shot events
 * (procexit, signals, page faults) must not overwrite a syscall's enter. */
static bool has_exit(uint16_t type)
{
	return type + 1 < PPM_EVENT_MAX && !(schema_events[type + 1].flags & EF_UNUSED);
}

static void evt__pair(struct inspector *in, struct ievt *ev, bool clone_child)
{
	struct thread_info *ti = ev->thread;
	struct ppm_evt_hdr eh;

	if (ti && ti->lastenter_len >= PPM_HDR_LEN) {
		memcpy(&eh, ti->lastenter, sizeof(eh));
		if (eh.type + 1 == ev->type) {
			ev->enter = (const struct ppm_evt_hdr *)ti->lastenter;
			ev->latency = ev->ts >= eh.ts ? ev->ts - eh.ts : 0;
		}
		/* that syscall is over either way */
		ti->lastenter_len = 0;
	}
	/* an exit event that stands alone (compact socket I/O) expects none */
	if (!ev->enter && !clone_child && !(schema_events[ev->type - 1].flags & EF_UNUSED))
		in->c.n_unpaired_exits++;
}

/* Compact socket I/O (SOCK_RECV_X, SOCK_SEND_X) is named by the syscall it
 * stands for, its third param, as a generic event is. */
static void compact__name(struct ievt *ev)
{
	uint16_t nr;

	if (ev->params.n < 3 || ev->params.len[2] != 2)
		return;
	nr = schema__u16(ev->params.val[2]);
	if (nr >= SYSCALL_TABLE_SIZE || !schema_syscall_names[nr])
		return;
	ev->native_nr = (int16_t)nr;
	ev->name = schema_syscall_names[nr];
}

static void evt__find_fd(struct ievt *ev, const struct evt_params *x, const struct evt_params *e)
{
	uint16_t flags = ev->info->flags;

	if (PPME_IS_ENTER(ev->type)) {
		if (flags & EF_USES_FD)
			ev->fdnum = first_fd_param(x, 0);
	} else if ((flags & EF_CREATES_FD) && ev->has_res && ev->res >= 0) {
		/* the new fd: the result, or fd1 of pipe/socketpair (res is 0) */
		ev->fdnum = x->info->params[0].type == PT_FD ? ev->res : first_fd_param(x, 1);
	} else if (flags & EF_USES_FD) {
		ev->fdnum = e ? first_fd_param(e, 0) : -1;
		if (ev->fdnum < 0)
			ev->fdnum = first_fd_param(x, 1);
	}
}

/* A generic event is named by its syscall as the kernel names it: by number,
 * so calls newer than sysdig's table (rseq, statx...) have names too, and
 * rt_sigreturn is not shown as sysdig's "sigreturn". */
static void generic__name(struct ievt *ev, const struct schema_params *enter)
{
	int nr = schema__generic_nr(&ev->params, enter);

	if (nr < 0) {
		/* no number: sysdig's name for its code ("<unknown>" for 0) */
		const char *sc = ev->params.n >= 1 && ev->params.len[0] == 2 ?
				 schema__ppm_sc_name(schema__u16(ev->params.val[0])) : NULL;

		if (sc)
			ev->name = sc;
		return;
	}
	ev->native_nr = (int16_t)nr;
	if (schema_syscall_names[nr])
		ev->name = schema_syscall_names[nr];
}

/* The parsers of the events that change state. */
static void evt__dispatch(struct inspector *in, struct ievt *ev, const struct evt_params *x,
			  const struct evt_params *e, bool clone_child)
{
	if (parse__is_clone_exit(ev->type)) {
		if (!clone_child)	/* done before the thread lookup */
			parse__clone_exit(in, ev, x);
		return;
	}
	if (parse__is_execve_exit(ev->type)) {
		parse__execve_exit(in, ev, x, e);
		return;
	}
	switch (ev->type) {
	case PPME_PROCEXIT_1_E:
	case PPME_PROCEXIT_E:
		parse__procexit(in, ev);
		break;
	case PPME_SYSCALL_CHDIR_X:
	case PPME_SYSCALL_FCHDIR_X:
		parse__chdir_exit(in, ev, x, e);
		break;
	case PPME_SYSCALL_SETUID_X:
	case PPME_SYSCALL_SETGID_X:
	case PPME_SYSCALL_SETRESUID_X:
	case PPME_SYSCALL_SETRESGID_X:
	case PPME_SYSCALL_SETSID_X:
	case PPME_SYSCALL_SETPGID_X:
		parse__cred_exit(in, ev, x, e);
		break;
	case PPME_SOCKET_SENDTO_E:
		parse__sendto_enter(ev, x);
		break;
	case PPME_SOCKET_CONNECT_E:
		parse__connect_enter(ev, x);
		break;
	case PPME_SYSCALL_CLOSE_E:
		parse__close_enter(ev, x);
		break;
	case PPME_FD_NAME_E:
		parse__fd_name(ev, x);
		break;
	case PPME_SOCK_RECV_X:
	case PPME_SOCK_SEND_X:
		/* a recvmmsg's or sendmmsg's message naming an address (events.def) */
		if (ev->thread && ev->thread->fds && evp__has(x, SOCK_X_TUPLE))
			parse__msg_exit(in, ev, x, NULL);
		break;
	default:
		if (PPME_IS_EXIT(ev->type) &&
		    (ev->info->flags & (EF_CREATES_FD | EF_DESTROYS_FD | EF_MODIFIES_STATE)))
			parse__fd_exit(in, ev, x, e);
		break;
	}
}

int inspector__process(struct inspector *in, const struct capture_event *cev, struct ievt *ev)
{
	struct evt_params x, e, *ep = NULL;
	struct schema_params enter_params;
	struct ppm_evt_hdr h;
	bool clone_child;

	inspector__flush(in);
	if (!cev || !cev->frame ||
	    (!(cev->flags & CAPTURE_EVF_REBUILT) && schema__validate(cev->frame, cev->len) < 0)) {
		in->c.n_malformed++;
		return -EINVAL;
	}
	memcpy(&h, cev->frame, sizeof(h));
	/* all but the param arrays, which schema__params fills up to params.n
	 * and every reader bounds by it: a whole clear was a quarter of this
	 * function's time under request load */
	memset(ev, 0, offsetof(struct ievt, params));
	ev->params.n = 0;
	/* the two clears leave out the params alone: NAME comes right after */
	_Static_assert(offsetof(struct ievt, name) ==
		       offsetof(struct ievt, params) + sizeof(struct schema_params),
		       "struct ievt: name follows params");
	memset((char *)ev + offsetof(struct ievt, name), 0,
	       sizeof(*ev) - offsetof(struct ievt, name));
	ev->num = ++in->num;
	ev->cpu = cev->cpu;
	ev->hdr = cev->frame;
	ev->type = h.type;
	ev->ts = h.ts;
	if (!in->first_ts)
		in->first_ts = h.ts;
	ev->first_ts = in->first_ts;
	ev->tid = (int64_t)h.tid;
	ev->info = &schema_events[h.type];
	ev->name = ev->info->name;
	ev->fdnum = -1;
	ev->native_nr = -1;
	schema__params(cev->frame, &ev->params);
	x.info = ev->info;
	x.p = &ev->params;
	in->c.n_events++;
	in->cur_tid = ev->tid;
	in->cur_ts = ev->ts;

	if (PPME_IS_EXIT(h.type) && ev->params.n >= 1 && ev->params.len[0] == 8) {
		uint8_t t0 = ev->info->params[0].type;

		if (t0 == PT_ERRNO || t0 == PT_FD || t0 == PT_PID) {
			ev->has_res = true;
			ev->res = (int64_t)schema__u64(ev->params.val[0]);
		}
	}

	if (!in->last_purge_ts) {
		in->last_purge_ts = ev->ts;
	} else if (ev->ts - in->last_purge_ts >= PURGE_INTERVAL_NS && ev->ts > in->last_purge_ts) {
		inspector__purge(in, ev->ts - PURGE_INTERVAL_NS);
		in->last_purge_ts = ev->ts;
	}

	/* The child's first event creates it from the event's own params. */
	clone_child = parse__is_clone_exit(h.type) && ev->has_res && ev->res == 0;
	if (clone_child) {
		parse__clone_exit(in, ev, &x);
		ev->thread = thread_table__find(in->threads, ev->tid);
	} else if (h.type == PPME_PROCEXIT_1_E || h.type == PPME_PROCEXIT_E) {
		ev->thread = thread_table__find(in->threads, ev->tid);
	} else {
		ev->thread = inspector__thread(in, ev->tid);
	}
	if (ev->thread)
		ev->thread->last_ts = ev->ts;

	if (PPME_IS_ENTER(h.type)) {
		struct thread_info *ti = ev->thread;

		if (ti && has_exit(h.type)) {
			if (h.len <= sizeof(ti->lastenter)) {
				memcpy(ti->lastenter, cev->frame, h.len);
				ti->lastenter_len = h.len;
			} else {
				ti->lastenter_len = 0;
				in->c.n_enter_too_big++;
			}
			ti->latency = 0;
		} else if (ti) {
			/* events without an exit (switch, procexit) show the latency
			 * of the thread's last syscall, as sysdig does */
			ev->latency = ti->latency;
		}
	} else {
		evt__pair(in, ev, clone_child);
		if (ev->thread)
			ev->thread->latency = ev->latency;
		if (ev->enter && schema__params(ev->enter, &enter_params) == 0) {
			e.info = &schema_events[ev->type - 1];
			e.p = &enter_params;
			ep = &e;
		}
	}
	if (h.type == PPME_GENERIC_E || h.type == PPME_GENERIC_X)
		generic__name(ev, ep ? ep->p : NULL);
	else if (h.type == PPME_SOCK_RECV_X || h.type == PPME_SOCK_SEND_X)
		compact__name(ev);
	evt__find_fd(ev, &x, ep);

	evt__dispatch(in, ev, &x, ep, clone_child);
	if (!ev->fd && ev->fdnum >= 0 && ev->thread && !ev->fd_reused)
		ev->fd = fd_table__find(ev->thread->fds, ev->fdnum);
	return 0;
}
