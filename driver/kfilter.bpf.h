/* Kernel filtering by process: which threads' events a filter can match, kept
 * per thread so that the test for an unwanted thread is one hash lookup and one
 * bit after the syscall bitmap. The tests (driver.h, enum kf_kind) are evaluated
 * from the task when a thread is first seen, when it returns from clone (a new
 * thread, or a reused tid), after execve and after the set*id calls: the same
 * moments at which userspace's thread table learns comm, ids, loginuid and
 * cgroups, so both sides agree on what a thread is. A rename by prctl is seen by
 * neither (sysdig 0.29.3 keeps a thread's name from its clone or execve). */
#ifndef KFILTER_BPF_H
#define KFILTER_BPF_H

#include "frame.bpf.h"

/* tid -> its results; removed at the thread's exit (sched_process_exit). A full
 * map only costs speed: the results are then computed for every event. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 131072);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct kf_thread);
} kf_threads __weak SEC(".maps");

/* comm as "name\0" (equality) or "prefix" (startswith) -> the tests it passes,
 * each entry holding those of the shorter entries it extends. */
struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 1024);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct kf_comm_key);
	__type(value, __u32);
} kf_comm __weak SEC(".maps");

/* (kind, value) -> the numeric tests that value passes. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct kf_num_key);
	__type(value, __u32);
} kf_nums __weak SEC(".maps");

/* cgroup id -> the container tests its threads pass. */
#define KF_CGROUP_MAP(name)                                     \
	struct {                                                \
		__uint(type, BPF_MAP_TYPE_HASH);                \
		__uint(max_entries, 65536);                     \
		__uint(map_flags, BPF_F_NO_PREALLOC);           \
		__type(key, __u64);                             \
		__type(value, __u32);                           \
	} name __weak SEC(".maps")

/* cgroup v2 id -> the container tests its threads pass. Userspace adds the
 * cgroups it finds; a thread in a cgroup not yet there is sent everything. */
KF_CGROUP_MAP(kf_cgroups);

/* The same for the first controller's v1 hierarchy on a hybrid host: a thread
 * whose two cgroups name different containers (a runtime moves a process one
 * hierarchy at a time) is sent everything, as userspace may see either. */
KF_CGROUP_MAP(kf_cgroups1);

struct driver_kfilter kf __weak;

/* Whether this run may turn the filter on (driver_config.per_thread), set
 * before load: read-only, so that without it the verifier drops every
 * path of the filter (a lookup, an evaluation, cgroup reads: more than
 * 100 000 instructions walked in each dispatcher). */
const volatile __u8 kf_loaded __weak = 0;

/* The filter is on: loaded for it, and turned on. */
static __always_inline int kf__on(void)
{
	return kf.on && kf_loaded;
}

static __always_inline __u32 kf__num(__u32 kind, __u32 value)
{
	struct kf_num_key k = { .kind = kind, .value = value };
	__u32 *b = bpf_map_lookup_elem(&kf_nums, &k);

	return b ? *b : 0;
}

static __always_inline void kf__cgroup(struct kf_thread *t)
{
	__u32 *b = bpf_map_lookup_elem(&kf_cgroups, &t->cgid);

	t->cg_bits = b ? *b : 0;
	t->cg_known = b != 0;
	b = t->cg1 ? bpf_map_lookup_elem(&kf_cgroups1, &t->cg1) : 0;
	t->cg1_bits = b ? *b : 0;
	t->cg1_known = b != 0;
	t->gen = kf.gen;
}

static __always_inline __u64 kf__task_cgid(struct task_struct *task)
{
	return BPF_CORE_READ(task, cgroups, dfl_cgrp, kn, id);
}

/* The first controller's cgroup when it is on a v1 hierarchy (a hybrid host),
 * else NULL: userspace names a thread's container from the first of its cgroup
 * paths that names one, the first controller's (cpuset's) before the others. */
static __always_inline struct cgroup *kf__v1_cgroup(struct task_struct *task)
{
	struct css_set *cs = BPF_CORE_READ(task, cgroups);
	struct cgroup *c1 = BPF_CORE_READ(cs, subsys[0], cgroup);

	if (!c1 || BPF_CORE_READ(c1, root) == BPF_CORE_READ(cs, dfl_cgrp, root))
		return 0;
	return c1;
}

static __always_inline __u64 kf__v1_id(struct task_struct *task)
{
	struct cgroup *c1 = kf__v1_cgroup(task);

	return c1 ? BPF_CORE_READ(c1, kn, id) : 0;
}

/* The task's cgroups into T (when a test looks at them), looked up. */
static __always_inline void kf__read_cgroups(struct kf_thread *t, struct task_struct *task)
{
	if (kf.kinds & (1u << KF_CGROUP)) {
		t->cgid = kf__task_cgid(task);
		t->cg1 = kf__v1_id(task);
	}
	t->cg_mixed = 0;
	kf__cgroup(t);
}

static __always_inline __u32 kf__cred_bits(struct task_struct *task, __u32 kinds)
{
	__u32 bits = 0;

	if (kinds & (1u << KF_UID))
		bits |= kf__num(KF_UID, BPF_CORE_READ(task, cred, euid.val));
	if (kinds & (1u << KF_GID))
		bits |= kf__num(KF_GID, BPF_CORE_READ(task, cred, egid.val));
	return bits;
}

/* Every test, from task TASK (PID_TGID: its ids). */
static __always_inline void kf__evaluate(struct kf_thread *t, struct task_struct *task,
					 __u64 pid_tgid)
{
	__u32 kinds = kf.kinds, bits;

	bits = kf__cred_bits(task, kinds);
	if (kinds & (1u << KF_COMM)) {
		struct kf_comm_key k = { .prefixlen = 8 * sizeof(k.comm) };
		__u32 *b;

		/* zero after the NUL: "name\0" entries match exactly */
		bpf_core_read_str(k.comm, sizeof(k.comm), &task->comm);
		b = bpf_map_lookup_elem(&kf_comm, &k);
		if (b)
			bits |= *b;
	}
	if (kinds & (1u << KF_PID))
		bits |= kf__num(KF_PID, pid_tgid >> 32);
	if (kinds & (1u << KF_TID))
		bits |= kf__num(KF_TID, (__u32)pid_tgid);
	if (kinds & (1u << KF_PPID)) {
		/* userspace's ppid is the real parent's pid, or the forking thread's
		 * tid when it saw the parent's side of the fork first */
		struct task_struct *p = BPF_CORE_READ(task, group_leader, real_parent);

		bits |= kf__num(KF_PPID, BPF_CORE_READ(p, tgid)) |
			kf__num(KF_PPID, BPF_CORE_READ(p, pid));
	}
	if (kinds & (1u << KF_LOGINUID))
		bits |= kf__num(KF_LOGINUID, BPF_CORE_READ(task, loginuid.val));
	t->bits = bits;
	kf__read_cgroups(t, task);
}

/* Whether T's cgroup tests are "maybe": a cgroup userspace has not classified
 * yet may be anyone's, and so may a thread whose cgroup userspace may not know. */
static __always_inline int kf__maybe(const struct kf_thread *t, int moved)
{
	return (kf.kinds & (1u << KF_CGROUP)) &&
	       (!t->cg_known || moved || t->cg_mixed ||
		(t->cg1 && (!t->cg1_known || t->cg1_bits != t->cg_bits)));
}

/* Whether table TAB (KF_WORDS words) has result bit A. */
static __always_inline int kf__has(const __u64 *tab, __u32 a)
{
	a &= KF_WORDS * 64 - 1;
	return (tab[a >> 6] >> (a & 63)) & 1;
}

/* Whether table TAB sends an event of thread T (MOVED: see kf__moved). */
static __always_inline int kf__sends(const struct kf_thread *t, int moved, const __u64 *tab)
{
	return kf__maybe(t, moved) || kf__has(tab, t->bits | t->cg_bits);
}

/* Each CPU's running thread's results, a cache in front of kf_threads. Only
 * sched_switch writes a slot (for the thread it switches in; it cannot be
 * preempted, so writers of one slot never interleave); the syscall programs
 * read it and take it only if it names their thread before and after the copy,
 * and otherwise look the thread up. A syscall that changes a thread's results
 * empties its slot (one store), so the next event looks it up again.
 * max_entries: the loader sets the number of CPUs. */
struct kf_slot {
	__u32 tid;	/* 0: empty (written first and last) */
	__u32 gen;	/* kf.gen when written */
	__u32 res;	/* the results: the bit of a table to test */
	__u32 maybe;	/* the cgroup tests are "maybe": sent whatever the table */
	/* The pt_regs address of the thread, stored by its own first syscall
	 * program once it has checked the tid (0 until then): later programs
	 * of that thread recognise the slot by it, without a helper call. */
	__u64 regs;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kf_slot);
} kf_slots __weak SEC(".maps");

#define KF_BARRIER() asm volatile("" ::: "memory")

static __always_inline struct kf_slot *kf__slot(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&kf_slots, &cpu);
}

/* A copy of a slot's results, taken between compiler barriers: the caller
 * checks afterwards that the slot still names its thread. */
struct kf_view {
	__u32 res, maybe, gen;
};

static __always_inline void kf__view(const struct kf_slot *slot, struct kf_view *v)
{
	KF_BARRIER();
	v->res = slot->res;
	v->maybe = slot->maybe;
	v->gen = slot->gen;
	KF_BARRIER();
}

/* Whether results V send an event of syscall ID. */
static __always_inline int kf__view_sends(const struct kf_view *v, long id)
{
	return v->maybe || kf__has(kf.table[id], v->res);
}

/* The trigger of syscall ID's exit (RET its return value), KF_T_NONE at enter
 * and after a failure: the calls whose success changes a thread's results. */
static __always_inline __u8 kf__trigger(long id, int exit, long ret)
{
	return exit && ret >= 0 ? kf.trigger[id] : KF_T_NONE;
}

/* Thread TID's entry, computed from TASK when the map has none or FRESH is set.
 * Returns the entry in the map, or OUT when the map is full (right, only
 * slower). */
static __always_inline struct kf_thread *kf__entry(struct task_struct *task, __u64 pid_tgid,
						   int fresh, struct kf_thread *out)
{
	__u32 tid = (__u32)pid_tgid;
	struct kf_thread *t = fresh ? 0 : bpf_map_lookup_elem(&kf_threads, &tid);

	if (!t) {
		__builtin_memset(out, 0, sizeof(*out));
		kf__evaluate(out, task, pid_tgid);
		bpf_map_update_elem(&kf_threads, &tid, out, BPF_ANY);
		t = bpf_map_lookup_elem(&kf_threads, &tid);
		return t ? t : out;
	}
	if (t->cg_pending) {
		/* userspace gave the other results from its /proc scan */
		t->cg_pending = 0;
		kf__read_cgroups(t, task);
	} else if (t->gen != kf.gen && !t->cg_known) {
		kf__cgroup(t);
	}
	return t;
}

/* Whether the thread was moved from outside since its cgroups were read. */
static __always_inline int kf__moved(const struct kf_thread *t, struct task_struct *task)
{
	return (kf.kinds & (1u << KF_CGROUP)) &&
	       (kf__task_cgid(task) != t->cgid || kf__v1_id(task) != t->cg1);
}

/* The slow path: the current thread's entry, after what syscall TRIG (with
 * return value RET) changed. */
static __always_inline int kf__lookup(const __u64 *tab, __u64 pid_tgid, __u8 trig, long ret)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u32 tid = (__u32)pid_tgid;
	struct kf_thread n, *t;

	if (trig == KF_T_CLONE && ret == 0) {
		/* a new thread (on a tid that may have been used) */
		t = kf__entry(task, pid_tgid, 1, &n);
		if ((kf.kinds & (1u << KF_CGROUP)) && (pid_tgid >> 32) == tid &&
		    kf__task_cgid(BPF_CORE_READ(task, real_parent)) != t->cgid)
			t->cg_mixed = 1;	/* userspace may give it its parent's cgroups */
	} else {
		t = kf__entry(task, pid_tgid, 0, &n);
		if (trig == KF_T_EXEC)
			kf__evaluate(t, task, pid_tgid);
		else if (trig == KF_T_CRED)
			t->bits = (t->bits & ~kf.cred_mask) | kf__cred_bits(task, kf.kinds);
		else if (trig == KF_T_CLONE && (kf.kinds & (1u << KF_CGROUP)))
			/* clone's parent side: userspace takes the caller's cgroups
			 * from it (a runtime moves a container's first process from
			 * outside) */
			kf__read_cgroups(t, task);
	}
	return kf__sends(t, kf__moved(t, task), tab);
}

/* The kernel filter's verdict on syscall ID for the current thread: 1 to send
 * its event. EXIT and RET: the exit side and its return value (tests are
 * computed again after a successful execve, clone or set*id). Events that keep
 * userspace's thread and fd tables right have full tables: every thread's
 * state stays exact, also that of a process that execs into a wanted name and
 * exits before /proc could be read. */
static __always_inline int kf__wants(long id, __u64 pid_tgid, int exit, long ret, __u64 regs)
{
	struct kf_slot *slot;
	__u32 tid = (__u32)pid_tgid;
	struct kf_view v;
	__u8 trig;

	if (!kf__on())
		return 1;
	if ((unsigned long)id >= SYSCALL_TABLE_SIZE)
		return 1;
	trig = kf__trigger(id, exit, ret);
	slot = kf__slot();
	if (trig != KF_T_NONE) {
		int r = kf__lookup(kf.table[id], pid_tgid, trig, ret);

		/* a trigger empties the slot: the next event looks the thread up
		 * until sched_switch writes it again (an exec in a thread of a
		 * group even changes the tid, without a switch) */
		if (slot) {
			slot->tid = 0;
			slot->regs = 0;
		}
		return r;
	}
	if (slot && tid && slot->tid == tid) {
		kf__view(slot, &v);
		if (slot->tid == tid && v.gen == kf.gen) {
			/* the thread's own mark for kf__skip_fast; a switch in
			 * between empties it again (checked after the store) */
			if (regs && !slot->regs) {
				slot->regs = regs;
				KF_BARRIER();
				if (slot->tid != tid)
					slot->regs = 0;
			}
			return kf__view_sends(&v, id);
		}
	}
	return kf__lookup(kf.table[id], pid_tgid, trig, ret);
}

/* Whether the thread running here is surely not wanted for syscall ID, from
 * its CPU's slot alone, before any helper call: the cheapest test of an
 * excluded thread. The slot is the thread's only if it holds the thread's
 * pt_regs address REGS (each thread has its own kernel stack), which the
 * thread itself stored after checking the tid (kf__wants); a switch or a
 * trigger clears it. */
static __always_inline int kf__skip_fast(long id, int exit, long ret, __u64 regs)
{
	struct kf_slot *slot;
	struct kf_view v;

	if (!kf__on() || (unsigned long)id >= SYSCALL_TABLE_SIZE ||
	    kf__trigger(id, exit, ret) != KF_T_NONE)
		return 0;
	slot = kf__slot();
	if (!slot || !regs || slot->regs != regs)
		return 0;
	kf__view(slot, &v);
	if (slot->regs != regs || !slot->tid || v.gen != kf.gen)
		return 0;
	return !kf__view_sends(&v, id);
}

/* sched_switch: NEXT's results into this CPU's slot. */
static __always_inline void kf__switch(struct task_struct *next)
{
	__u32 tid = BPF_CORE_READ(next, pid);
	struct kf_thread n, *t;
	struct kf_slot *slot;

	if (!kf__on())
		return;
	slot = kf__slot();
	if (!slot)
		return;
	slot->tid = 0;
	slot->regs = 0;
	KF_BARRIER();
	/* kernel threads make no syscalls */
	if (!tid || (BPF_CORE_READ(next, flags) & 0x00200000 /* PF_KTHREAD */))
		return;
	t = kf__entry(next, ((__u64)BPF_CORE_READ(next, tgid) << 32) | tid, 0, &n);
	slot->maybe = kf__maybe(t, kf__moved(t, next));
	slot->res = t->bits | t->cg_bits;
	slot->gen = kf.gen;
	KF_BARRIER();
	slot->tid = tid;
}

/* At a thread's exit: forgets it (its procexit keeps userspace's table right,
 * so it is always sent). */
static __always_inline void kf__exit(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	if (kf__on())
		bpf_map_delete_elem(&kf_threads, &tid);
}

#endif
