/* Describing a task, shared by the execve and clone exit fillers: arguments,
 * ids, cwd, limits, memory counters, cgroups, environment, credentials. Each
 * proc__* writes its params at the current position of the event. */
#ifndef PN_PROC_BPF_H
#define PN_PROC_BPF_H

#include "pn_compat.bpf.h"
#include "../../path_walk.bpf.h"
#include "../../frame.bpf.h"
#include "schema_flags.h"

/* sysdig's cap on args and env (ARGS_ENV_SIZE_MAX). */
#define PN_ARGS_MAX 4096
/* argv/envp entries read from user memory when a failed execve has no new image. */
#define PN_ARGV_MAX 32
/* Cgroup path components walked (path_walk.bpf.h has the rest). */
#define PN_CG_DEPTH 16
/* Longest path a param gets before it is cut. */
#define PN_PATH_MAX (DRIVER_MAX_STR - PN_NAME_MAX)
#define PN_RLIMIT_NOFILE 7
#define PN_SB_RDONLY 1
#define PN_S_IMMUTABLE 8
#define PN_CAP_DAC_OVERRIDE 1

static __always_inline struct task_struct *proc__current(void)
{
	return (struct task_struct *)bpf_get_current_task();
}

/* A byte at POS of the param being written. */
static __always_inline void pn__put_byte(struct filler *f, __u32 pos, __u8 c)
{
	f->s->data[(f->s->off + pos) & FRAME_MASK] = c;
}

/* The loops are bpf_loop callbacks: the verifier checks one iteration
 * instead of every one. */
static long pn__path_write_one(__u32 i, void *arg)
{
	struct pn_path *p = arg;
	struct scratch *s = scratch__get();
	long n;

	if (!s || p->pos > PN_PATH_MAX)
		return 1;
	s->data[(p->off + p->pos) & FRAME_MASK] = '/';
	p->pos++;
	n = bpf_probe_read_kernel_str(&s->data[(p->off + p->pos) & FRAME_MASK], PN_NAME_MAX,
				      p->names[(p->n - 1 - i) & (PN_PATH_DEPTH - 1)]);
	if (n > 1)
		p->pos += n - 1;
	return 0;
}

/* Writes "/" NAMES[N-1] "/" ... NAMES[0] and a NUL at P->pos (just "/" when N is
 * 0) and moves P->pos past the NUL. */
static __always_inline void pn__put_path(struct filler *f, struct pn_path *p)
{
	int n = p->n;

	p->off = f->s->off;
	if (n <= 0)
		pn__put_byte(f, p->pos++, '/');
	else
		bpf_loop(n > PN_PATH_DEPTH ? PN_PATH_DEPTH : n, pn__path_write_one, p, 0);
	pn__put_byte(f, p->pos, 0);
	p->pos++;
}

struct pn_strarray {
	const char *const *arr;
	__u32 off;
	__u32 len;
};

static long pn__strarray_one(__u32 i, void *arg)
{
	struct pn_strarray *a = arg;
	struct scratch *s = scratch__get();
	const char *p = NULL;
	long n;

	if (!s || bpf_probe_read_user(&p, sizeof(p), &a->arr[i]) || !p)
		return 1;
	n = bpf_probe_read_user_str(&s->data[(a->off + a->len) & FRAME_MASK], PN_ARGS_MAX, p);
	if (n <= 0)
		return 1;
	a->len += n;
	if (a->len >= PN_ARGS_MAX) {
		a->len = PN_ARGS_MAX;
		s->data[(a->off + PN_ARGS_MAX - 1) & FRAME_MASK] = 0;
		return 1;
	}
	return 0;
}

/* NUL-separated strings of a user array (argv/envp) from index FIRST, cut to
 * PN_ARGS_MAX with the last byte forced to NUL, as one BYTEBUF param. */
static __always_inline void proc__strarray_user(struct filler *f, const char *const *arr, int first)
{
	struct pn_strarray a = { .arr = arr + first, .off = f->s->off };

	if (arr)
		bpf_loop(PN_ARGV_MAX, pn__strarray_one, &a, 0);
	filler__commit(f, a.len);
}

/* A block of NUL-separated strings in the current task's memory (mm->arg_start..
 * arg_end or env_start..env_end), cut to PN_ARGS_MAX, last byte forced to NUL. */
static __always_inline void proc__block_user(struct filler *f, unsigned long start,
					     unsigned long len)
{
	if (len > PN_ARGS_MAX)
		len = PN_ARGS_MAX;
	if (!start || !len) {
		filler__empty(f);
		return;
	}
	if (bpf_probe_read_user(&f->s->data[f->s->off & FRAME_MASK], len, (void *)start)) {
		COUNT(n_drops_pf);
		filler__empty(f);
		return;
	}
	pn__put_byte(f, len - 1, 0);
	filler__commit(f, len);
}

/* exe (argv[0]) and args (the rest) of the task's image. */
static __always_inline void proc__exe_args(struct filler *f, struct task_struct *t)
{
	struct mm_struct *mm = BPF_CORE_READ(t, mm);
	unsigned long start = 0, end = 0, total;
	long n;

	if (mm) {
		start = BPF_CORE_READ(mm, arg_start);
		end = BPF_CORE_READ(mm, arg_end);
	}
	total = end > start ? end - start : 0;
	if (total > PN_ARGS_MAX)
		total = PN_ARGS_MAX;
	if (!total) {
		filler__empty(f);
		filler__empty(f);
		return;
	}
	n = bpf_probe_read_user_str(&f->s->data[f->s->off & FRAME_MASK], total, (void *)start);
	if (n <= 0) {
		COUNT(n_drops_pf);
		filler__empty(f);
		filler__empty(f);
		return;
	}
	filler__commit(f, n);
	proc__block_user(f, start + n, total - n);
}

/* exe and args from a user argv array (a failed execve: no new image). */
static __always_inline void proc__exe_args_argv(struct filler *f, const char *const *argv)
{
	const char *p = NULL;

	if (argv && bpf_probe_read_user(&p, sizeof(p), &argv[0]))
		COUNT(n_drops_pf);
	filler__str_user(f, p);
	proc__strarray_user(f, argv, 1);
}

/* tid, pid (tgid), ptid (the real parent's tgid). */
static __always_inline void proc__ids(struct filler *f, struct task_struct *t)
{
	filler__s64(f, BPF_CORE_READ(t, pid));
	filler__s64(f, BPF_CORE_READ(t, tgid));
	filler__s64(f, BPF_CORE_READ(t, real_parent, tgid));
}

/* cwd: fs->pwd walked up to the task's root, crossing mounts. */
static __always_inline void proc__cwd(struct filler *f, struct task_struct *t)
{
	struct fs_struct *fs = BPF_CORE_READ(t, fs);
	struct pn_walk w = {};

	if (!fs) {
		filler__empty(f);
		return;
	}
	w.d = BPF_CORE_READ(fs, pwd.dentry);
	w.vm = BPF_CORE_READ(fs, pwd.mnt);
	w.root_d = BPF_CORE_READ(fs, root.dentry);
	w.root_m = BPF_CORE_READ(fs, root.mnt);
	bpf_loop(PN_PATH_STEPS, pn__cwd_step, &w, 0);
	pn__put_path(f, &w.path);
	filler__commit(f, w.path.pos);
}

/* fdlimit, pgft_maj, pgft_min, vm_size, vm_rss, vm_swap (KiB), comm. */
static __always_inline void proc__stats(struct filler *f, struct task_struct *t)
{
	filler__u64(f, BPF_CORE_READ(t, signal, rlim[PN_RLIMIT_NOFILE].rlim_cur));
	filler__u64(f, BPF_CORE_READ(t, maj_flt));
	filler__u64(f, BPF_CORE_READ(t, min_flt));
	filler__mm_stats(f, t);
	filler__str_kernel(f, __builtin_preserve_access_index(&t->comm));
}

struct pn_kn_walk {
	struct pn_path path;
	struct kernfs_node *kn;
};

static long pn__kn_step(__u32 i, void *arg)
{
	struct pn_kn_walk *w = arg;
	struct kernfs_node *kn = w->kn, *parent;

	if (!kn || w->path.n >= PN_PATH_DEPTH)
		return 1;
	parent = compat__kn_parent(kn);
	if (!parent)
		return 1;	/* the hierarchy's root: its name is not part of paths */
	w->path.names[w->path.n & (PN_PATH_DEPTH - 1)] = BPF_CORE_READ(kn, name);
	w->path.n++;
	w->kn = parent;
	return 0;
}

struct pn_cgroups {
	struct css_set *cs;
	__u32 off;
	__u32 pos;
};

static long pn__cgroup_one(__u32 i, void *arg)
{
	struct pn_cgroups *c = arg;
	struct scratch *s = scratch__get();
	struct css_set *cs = c->cs;
	struct cgroup_subsys_state *css;
	struct pn_kn_walk w = {};
	long n;

	if (!s || c->pos > PN_ARGS_MAX)
		return 1;
	css = BPF_CORE_READ(cs, subsys[i & 15]);
	if (!css)
		return 0;
	n = bpf_probe_read_kernel_str(&s->data[(c->off + c->pos) & FRAME_MASK], PN_NAME_MAX,
				      BPF_CORE_READ(css, ss, name));
	if (n <= 1)
		return 0;
	s->data[(c->off + c->pos + n - 1) & FRAME_MASK] = '=';
	w.kn = BPF_CORE_READ(css, cgroup, kn);
	bpf_loop(PN_CG_DEPTH, pn__kn_step, &w, 0);
	w.path.pos = c->pos + n;
	w.path.off = c->off;
	if (w.path.n <= 0) {
		s->data[(c->off + w.path.pos) & FRAME_MASK] = '/';
		w.path.pos++;
	} else {
		bpf_loop(w.path.n > PN_PATH_DEPTH ? PN_PATH_DEPTH : w.path.n, pn__path_write_one, &w.path, 0);
	}
	s->data[(c->off + w.path.pos) & FRAME_MASK] = 0;
	c->pos = w.path.pos + 1;
	return 0;
}

/* cgroups: "subsys=/path" NUL-separated, one per subsystem the task has a css for
 * (on cgroup v2 each controller's css sits in the unified hierarchy). */
static __always_inline void proc__cgroups(struct filler *f, struct task_struct *t)
{
	int count = bpf_core_enum_value(enum cgroup_subsys_id, CGROUP_SUBSYS_COUNT);
	struct pn_cgroups c = { .cs = BPF_CORE_READ(t, cgroups), .off = f->s->off };

	if (c.cs && count > 0)
		bpf_loop(count > 16 ? 16 : count, pn__cgroup_one, &c, 0);
	filler__commit(f, c.pos);
}

/* env of the task's image, or of a user envp array (failed execve). */
static __always_inline void proc__env(struct filler *f, struct task_struct *t)
{
	struct mm_struct *mm = BPF_CORE_READ(t, mm);
	unsigned long start = 0, end = 0;

	if (mm) {
		start = BPF_CORE_READ(mm, env_start);
		end = BPF_CORE_READ(mm, env_end);
	}
	proc__block_user(f, start, end > start ? end - start : 0);
}

/* tty: the controlling tty's device number in the kernel's user-visible encoding
 * (as /proc/PID/stat tty_nr), 0 without one. */
static __always_inline void proc__tty(struct filler *f, struct task_struct *t)
{
	struct tty_struct *tty = BPF_CORE_READ(t, signal, tty);
	__u32 major, minor, dev = 0;

	if (tty) {
		major = BPF_CORE_READ(tty, driver, major);
		minor = BPF_CORE_READ(tty, driver, minor_start) + BPF_CORE_READ(tty, index);
		dev = (minor & 0xff) | (major << 8) | ((minor & ~0xffu) << 12);
	}
	filler__u32(f, dev);
}

/* The number of PID at pid-namespace LEVEL, 0 if it has none there. */
static __always_inline __s64 pn__pid_nr(struct pid *pid, unsigned int level)
{
	int nr = 0;
	char *u;

	if (!pid || level > 32 || BPF_CORE_READ(pid, level) < level)
		return 0;
	u = (char *)pid + bpf_core_field_offset(struct pid, numbers) +
	    level * bpf_core_type_size(struct upid);
	bpf_probe_read_kernel(&nr, sizeof(nr), u + bpf_core_field_offset(struct upid, nr));
	return nr;
}

/* The level of the task's own pid namespace. */
static __always_inline unsigned int pn__pid_level(struct task_struct *t)
{
	return BPF_CORE_READ(t, thread_pid, level);
}

/* pgid as the task sees it. */
static __always_inline void proc__pgid(struct filler *f, struct task_struct *t)
{
	struct pid *pg = BPF_CORE_READ(t, signal, pids[PIDTYPE_PGID]);

	filler__s64(f, pn__pid_nr(pg, pn__pid_level(t)));
}

/* vtid, vpid: the ids as seen in the task's own pid namespace. */
static __always_inline void proc__vids(struct filler *f, struct task_struct *t)
{
	unsigned int level = pn__pid_level(t);

	filler__s64(f, pn__pid_nr(BPF_CORE_READ(t, thread_pid), level));
	filler__s64(f, pn__pid_nr(BPF_CORE_READ(t, group_leader, thread_pid), level));
}

/* Whether the task's executable is writable by it: the checks of
 * inode_permission() that matter here (read-only fs, immutable, owner, group,
 * other, CAP_DAC_OVERRIDE). Supplementary groups are not looked at. */
static __always_inline bool pn__exe_writable(struct task_struct *t)
{
	struct file *exe = BPF_CORE_READ(t, mm, exe_file);
	const struct cred *cred = BPF_CORE_READ(t, cred);
	struct inode *ino;
	__u32 mode, uid, gid, caps = 0;

	if (!exe || !cred)
		return false;
	ino = BPF_CORE_READ(exe, f_inode);
	if (!ino)
		return false;
	if (BPF_CORE_READ(ino, i_sb, s_flags) & PN_SB_RDONLY)
		return false;
	if (BPF_CORE_READ(ino, i_flags) & PN_S_IMMUTABLE)
		return false;
	mode = BPF_CORE_READ(ino, i_mode);
	uid = BPF_CORE_READ(ino, i_uid.val);
	gid = BPF_CORE_READ(ino, i_gid.val);
	if (uid == BPF_CORE_READ(cred, fsuid.val))
		mode &= 0200;
	else if (gid == BPF_CORE_READ(cred, fsgid.val))
		mode &= 0020;
	else
		mode &= 0002;
	if (mode)
		return true;
	/* kernel_cap_t is a u64 since 6.3 (two u32 before): the low word is first in
	 * both layouts, and CAP_DAC_OVERRIDE is in it. */
	bpf_probe_read_kernel(&caps, sizeof(caps), __builtin_preserve_access_index(&cred->cap_effective));
	return caps & (1u << PN_CAP_DAC_OVERRIDE);
}

/* euid, egid. */
static __always_inline void proc__creds(struct filler *f, struct task_struct *t)
{
	filler__u32(f, BPF_CORE_READ(t, cred, euid.val));
	filler__u32(f, BPF_CORE_READ(t, cred, egid.val));
}

/* The parts execve and clone exit events share, after their first part. */

/* cwd, fdlimit, pgft_maj, pgft_min, vm_size, vm_rss, vm_swap, comm. */
static __always_inline int proc__part_cwd_stats(void *ctx, __u16 type)
{
	struct task_struct *t = proc__current();
	struct filler f;

	if (filler__resume(&f, ctx, type))
		return 0;
	proc__cwd(&f, t);
	proc__stats(&f, t);
	return filler__next_part(&f, 2);
}

/* cgroups. */
static __always_inline int proc__part_cgroups(void *ctx, __u16 type)
{
	struct filler f;

	if (filler__resume(&f, ctx, type))
		return 0;
	proc__cgroups(&f, proc__current());
	return filler__next_part(&f, 3);
}

#endif
