/* proc.*, thread.*, user.* and group.* fields. */
#include <errno.h>

#include "fields_int.h"

/* Ancestor walks stop here, so a corrupt ptid cycle cannot hang us. */
#define MAX_ANCESTORS 64

static const struct thread_info *main_of(struct field_ctx *ctx, const struct thread_info *ti)
{
	const struct thread_info *m;

	if (ti->tid == ti->pid || !ctx->threads)
		return ti;
	m = thread_table__main(ctx->threads, ti);
	return m ? m : ti;
}

struct thread_info *thread__parent(struct field_ctx *ctx, const struct thread_info *ti)
{
	const struct thread_info *m;
	struct thread_info *p;

	if (!ctx->threads)
		return NULL;
	m = main_of(ctx, ti);
	if (m->ptid <= 0 || m->ptid == m->pid)
		return NULL;
	p = thread_table__find(ctx->threads, m->ptid);
	if (!p)
		return NULL;
	return (struct thread_info *)main_of(ctx, p);
}

/* The Nth ancestor (0: the process itself), or NULL. */
static const struct thread_info *ancestor(struct field_ctx *ctx, const struct thread_info *ti,
					  unsigned n)
{
	const struct thread_info *cur = main_of(ctx, ti);

	for (unsigned i = 0; i < n && cur; i++) {
		if (i >= MAX_ANCESTORS)
			return NULL;
		cur = thread__parent(ctx, cur);
	}
	return cur;
}


/* NUL-separated strings joined by spaces (proc.args, thread.cgroups). */
static void joined__append(struct sbuf *o, const char *p, size_t len)
{
	while (len && p[len - 1] == '\0')
		len--;
	if (sbuf__reserve(o, len))
		return;
	for (size_t i = 0; i < len; i++)
		o->buf[o->len++] = p[i] ? p[i] : ' ';
}

static int comm__value(struct field_value *out, const struct thread_info *ti)
{
	size_t len;
	const char *c = thread__comm(ti, &len);

	return value__str(out, c, len);
}

static void cmdline__append(struct sbuf *o, const char *first, size_t flen,
			    const struct thread_info *ti)
{
	sbuf__append(o, first, flen);
	if (ti->args && ti->args_len && ti->args[0]) {
		sbuf__putc(o, ' ');
		joined__append(o, ti->args, ti->args_len);
	}
}

static int scratch__value(struct field_ctx *ctx, struct field_value *out)
{
	if (ctx->scratch.err)
		return ctx->scratch.err;
	return value__str(out, ctx->scratch.buf ? ctx->scratch.buf : "", ctx->scratch.len);
}

/* The session leader: the eldest ancestor in TI's session, TI if none is. */
static const struct thread_info *session__leader(struct field_ctx *ctx,
						 const struct thread_info *ti)
{
	const struct thread_info *cur = main_of(ctx, ti), *p;

	for (unsigned i = 0; i < MAX_ANCESTORS; i++) {
		p = thread__parent(ctx, cur);
		if (!p || p->sid != ti->sid)
			break;
		cur = p;
	}
	return cur;
}

static int64_t loginuid__value(uint32_t uid)
{
	return uid == UINT32_MAX ? -1 : (int64_t)uid;
}

int fields__extract_proc(const struct field_ref *ref, const struct ievt *ev,
			 struct field_ctx *ctx, unsigned n, struct field_value *out)
{
	const struct thread_info *ti = ev->thread, *t;
	const char *name;
	uint64_t start;
	size_t len;

	if (ref->info->id == F_THREAD_TID)
		return n ? -ENOENT : value__i64(out, ev->tid);
	if (!ti)
		return -ENOENT;
	/* proc.apid / proc.aname without an index yield every ancestor */
	if (n && !(ref->index < 0 && (ref->info->id == F_PROC_APID ||
				      ref->info->id == F_PROC_ANAME)))
		return -ENOENT;

	switch (ref->info->id) {
	case F_PROC_PID:
		return ti->pid < 0 ? -ENOENT : value__i64(out, ti->pid);
	case F_PROC_EXE:
		return value__cstr(out, ti->exe ? ti->exe : "<NA>");
	case F_PROC_NAME:
		return comm__value(out, ti);
	case F_PROC_ARGS:
		sbuf__reset(&ctx->scratch);
		if (ti->args)
			joined__append(&ctx->scratch, ti->args, ti->args_len);
		return scratch__value(ctx, out);
	case F_PROC_CMDLINE:
		sbuf__reset(&ctx->scratch);
		name = thread__comm(ti, &len);
		cmdline__append(&ctx->scratch, name, len, ti);
		return scratch__value(ctx, out);
	case F_PROC_EXELINE:
		if (!ti->exe)
			return -ENOENT;
		sbuf__reset(&ctx->scratch);
		cmdline__append(&ctx->scratch, ti->exe, strlen(ti->exe), ti);
		return scratch__value(ctx, out);
	case F_PROC_CWD:
		return ti->cwd ? value__cstr(out, ti->cwd) : -ENOENT;
	case F_PROC_PPID:
		return value__i64(out, main_of(ctx, ti)->ptid);
	case F_PROC_PNAME:
		t = thread__parent(ctx, ti);
		return t ? comm__value(out, t) : -ENOENT;
	case F_PROC_PCMDLINE:
		t = thread__parent(ctx, ti);
		if (!t)
			return -ENOENT;
		sbuf__reset(&ctx->scratch);
		name = thread__comm(t, &len);
		cmdline__append(&ctx->scratch, name, len, t);
		return scratch__value(ctx, out);
	case F_PROC_APID:
		/* [k] is the pid of ancestor k; ancestor k-1's ptid when k itself
		 * is not in the table */
		if (ref->index == 0)
			return value__i64(out, main_of(ctx, ti)->pid);
		t = ancestor(ctx, ti, ref->index > 0 ? (unsigned)ref->index - 1 : n);
		if (!t || main_of(ctx, t)->ptid <= 0)
			return -ENOENT;
		return value__i64(out, main_of(ctx, t)->ptid);
	case F_PROC_ANAME:
		t = ancestor(ctx, ti, ref->index >= 0 ? (unsigned)ref->index : n + 1);
		return t ? comm__value(out, t) : -ENOENT;
	case F_PROC_DURATION:
		start = main_of(ctx, ti)->start_ts;
		if (!start || ev->ts < start)
			return -ENOENT;
		return value__i64(out, (int64_t)(ev->ts - start));
	case F_PROC_TTY:
		return value__i64(out, ti->tty);
	case F_PROC_EXEPATH:
		return ti->exepath ? value__cstr(out, ti->exepath) : -ENOENT;
	case F_PROC_VPID:
		return ti->vpid < 0 ? -ENOENT : value__i64(out, ti->vpid);
	case F_PROC_SID:
		return value__i64(out, ti->sid);
	case F_PROC_LOGINUID:
	case F_USER_LOGINUID:
		return value__i64(out, loginuid__value(ti->loginuid));
	case F_PROC_VPGID:
		return value__i64(out, ti->pgid);
	case F_PROC_SNAME:
		return comm__value(out, session__leader(ctx, ti));
	case F_PROC_NTHREADS:
	case F_PROC_NCHILDS:
		/* sysdig counts the threads on the main thread; the others have none */
		t = ctx->threads ? thread_table__main(ctx->threads, ti) : NULL;
		if (!t && ti->pid < 0)
			t = ti;	/* pid unknown: sysdig takes the thread as its own main */
		if (!t)
			return -ENOENT;
		if (ref->info->id == F_PROC_NTHREADS)
			return value__u64(out, thread_table__nthreads(ctx->threads, t));
		if (t != ti || thread_table__nthreads(ctx->threads, t) == 0)
			return value__u64(out, 0);
		return value__u64(out, thread_table__nthreads(ctx->threads, t) - 1);
	case F_THREAD_VTID:
		return ti->vtid < 0 ? -ENOENT : value__i64(out, ti->vtid);
	case F_THREAD_ISMAIN:
		return ti->pid < 0 ? -ENOENT : value__bool(out, ti->tid == ti->pid);
	case F_THREAD_CGROUPS:
		if (!ti->cgroups)
			return -ENOENT;
		sbuf__reset(&ctx->scratch);
		joined__append(&ctx->scratch, ti->cgroups, ti->cgroups_len);
		return scratch__value(ctx, out);
	case F_USER_UID:
		return value__u64(out, ti->uid);
	case F_USER_NAME:
		name = users__name(ti->uid);
		return name ? value__cstr(out, name) : -ENOENT;
	case F_USER_LOGINNAME:
		if (ti->loginuid == UINT32_MAX)
			return -ENOENT;
		name = users__name(ti->loginuid);
		return name ? value__cstr(out, name) : -ENOENT;
	case F_USER_HOMEDIR:
		name = users__home(ti->uid);
		return name ? value__cstr(out, name) : -ENOENT;
	case F_USER_SHELL:
		name = users__shell(ti->uid);
		return name ? value__cstr(out, name) : -ENOENT;
	case F_GROUP_GID:
		return value__u64(out, ti->gid);
	case F_GROUP_NAME:
		name = groups__name(ti->gid);
		return name ? value__cstr(out, name) : -ENOENT;
	default:
		return -ENOENT;
	}
}
