/* clone, clone3, fork, vfork: the exit event, sent both by the parent (res = the
 * child's tid) and by the child (res = 0) when it returns from the syscall,
 * describes the calling task: main part, then cwd+stats, cgroups, flags+ids. */
#include "pn_proc.bpf.h"

/* Native CLONE_* bits and their PPM_CLONE_FLAGS_* values. */
static const __u32 clone_bits[][2] = {
	{ 0x00000100, PPM_CLONE_FLAGS_CLONE_VM },
	{ 0x00000200, PPM_CLONE_FLAGS_CLONE_FS },
	{ 0x00000400, PPM_CLONE_FLAGS_CLONE_FILES },
	{ 0x00000800, PPM_CLONE_FLAGS_CLONE_SIGHAND },
	{ 0x00002000, PPM_CLONE_FLAGS_CLONE_PTRACE },
	{ 0x00004000, PPM_CLONE_FLAGS_CLONE_VFORK },
	{ 0x00008000, PPM_CLONE_FLAGS_CLONE_PARENT },
	{ 0x00010000, PPM_CLONE_FLAGS_CLONE_THREAD },
	{ 0x00020000, PPM_CLONE_FLAGS_CLONE_NEWNS },
	{ 0x00040000, PPM_CLONE_FLAGS_CLONE_SYSVSEM },
	{ 0x00080000, PPM_CLONE_FLAGS_CLONE_SETTLS },
	{ 0x00100000, PPM_CLONE_FLAGS_CLONE_PARENT_SETTID },
	{ 0x00200000, PPM_CLONE_FLAGS_CLONE_CHILD_CLEARTID },
	{ 0x00800000, PPM_CLONE_FLAGS_CLONE_UNTRACED },
	{ 0x01000000, PPM_CLONE_FLAGS_CLONE_CHILD_SETTID },
	{ 0x02000000, PPM_CLONE_FLAGS_CLONE_NEWCGROUP },
	{ 0x04000000, PPM_CLONE_FLAGS_CLONE_NEWUTS },
	{ 0x08000000, PPM_CLONE_FLAGS_CLONE_NEWIPC },
	{ 0x10000000, PPM_CLONE_FLAGS_CLONE_NEWUSER },
	{ 0x20000000, PPM_CLONE_FLAGS_CLONE_NEWPID },
	{ 0x40000000, PPM_CLONE_FLAGS_CLONE_NEWNET },
	{ 0x80000000, PPM_CLONE_FLAGS_CLONE_IO },
};

/* clone3's flags as its caller passed them, saved at sys_enter: a CLONE_VM child
 * (a thread) cannot read its clone_args at sys_exit, as the parent may already
 * have reused that stack memory. Keyed by the shared mm and the args' address. */
struct clone3_key {
	__u64 mm;
	__u64 uargs;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct clone3_key);
	__type(value, __u64);
} pn_clone3_flags SEC(".maps");

static __always_inline void clone3__key(struct filler *f, struct clone3_key *k)
{
	k->mm = (__u64)BPF_CORE_READ(proc__current(), mm);
	k->uargs = filler__arg(f, 0);
}

static __always_inline __u32 clone__ppm_flags(__u64 native)
{
	__u32 ppm = 0;

	for (int i = 0; i < sizeof(clone_bits) / sizeof(clone_bits[0]); i++)
		if (native & clone_bits[i][0])
			ppm |= clone_bits[i][1];
	return ppm;
}

/* The native flags of the call: clone's first arg, clone3's clone_args.flags
 * (saved at enter, else read again); none for fork and vfork, as sysdig reports
 * them. */
static __always_inline __u64 clone__native_flags(struct filler *f)
{
	struct clone3_key k;
	__u64 flags = 0, *saved;

	switch (f->s->type) {
	case PPME_SYSCALL_CLONE_20_X:
		return filler__arg(f, 0);
	case PPME_SYSCALL_CLONE3_X:
		clone3__key(f, &k);
		saved = bpf_map_lookup_elem(&pn_clone3_flags, &k);
		if (saved)
			return *saved;
		if (k.uargs && bpf_probe_read_user(&flags, sizeof(flags), (void *)k.uargs))
			COUNT(n_drops_pf);
		return flags;
	}
	return 0;
}

/* res, exe, args, tid, pid, ptid. */
static __always_inline int clone__main(void *ctx, __u16 type, __u32 nparams)
{
	struct task_struct *t = proc__current();
	struct filler f;

	if (filler__begin(&f, ctx, type, nparams))
		return 0;
	filler__s64(&f, f.ret);
	proc__exe_args(&f, t);
	proc__ids(&f, t);
	return filler__next_part(&f, 1);
}

/* sysdig's bit for a task outside the initial pid namespace, or whose
 * children go to another one (pid_ns_for_children, moved by unshare or setns,
 * is a descendant of the task's own namespace, so a level tells them apart).
 * Userspace reads from it which namespace a clone's numbers are in. */
static __always_inline __u32 clone__pidns_flag(struct task_struct *t)
{
	unsigned int level = pn__pid_level(t);

	if (level || BPF_CORE_READ(t, nsproxy, pid_ns_for_children, level) != level)
		return PPM_CLONE_FLAGS_CHILD_IN_PIDNS;
	return 0;
}

/* flags, uid, gid, vtid, vpid. */
static __always_inline int clone__part3(void *ctx, __u16 type)
{
	struct task_struct *t = proc__current();
	struct filler f;

	if (filler__resume(&f, ctx, type))
		return 0;
	filler__u32(&f, clone__ppm_flags(clone__native_flags(&f)) | clone__pidns_flag(t));
	proc__creds(&f, t);
	proc__vids(&f, t);
	return filler__submit(&f);
}

/* clone3's enter event has no params, but its filler saves the flags for the
 * exits, so it is written here; the other enter fillers are generated from the
 * schema (proto/gen_schema.py). */
static __always_inline int clone3__enter(void *ctx)
{
	struct clone3_key k;
	struct filler f;
	__u64 flags;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_CLONE3_E))
		return 0;
	clone3__key(&f, &k);
	if (k.uargs && !bpf_probe_read_user(&flags, sizeof(flags), (void *)k.uargs))
		bpf_map_update_elem(&pn_clone3_flags, &k, &flags, BPF_ANY);
	return filler__submit(&f);
}

FILLER(syscall_clone3_e)
{
	return clone3__enter(ctx);
}

/* The four parts of the exit filler of event pair ID (its program names are the
 * lower-case NAME). */
#define CLONE_EXIT_FILLERS(name, ID)                                             \
	FILLER_EXIT(name##_x) { return clone__main(ctx, PPME_##ID##_X, PPME_##ID##_X_NPARAMS); } \
	FILLER_EXIT(name##_x_part1) { return proc__part_cwd_stats(ctx, PPME_##ID##_X); }      \
	FILLER_EXIT(name##_x_part2) { return proc__part_cgroups(ctx, PPME_##ID##_X); }      \
	FILLER_EXIT(name##_x_part3) { return clone__part3(ctx, PPME_##ID##_X); }

CLONE_EXIT_FILLERS(syscall_clone_20, SYSCALL_CLONE_20)
CLONE_EXIT_FILLERS(syscall_clone3, SYSCALL_CLONE3)
CLONE_EXIT_FILLERS(syscall_fork_20, SYSCALL_FORK_20)
CLONE_EXIT_FILLERS(syscall_vfork_20, SYSCALL_VFORK_20)
