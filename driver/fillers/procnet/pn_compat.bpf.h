/* Kernel layout differences the procnet fillers read across, in one place. Each
 * ___flavor struct names the old layout; CO-RE picks the one the running kernel has.
 * Tell layouts apart with bpf_core_field_exists() on a struct vmlinux has, never
 * bpf_core_type_exists() on one it may lack: for a type missing from vmlinux,
 * libbpf searches the modules' BTF, which needs CAP_SYS_ADMIN. */
#ifndef PN_COMPAT_BPF_H
#define PN_COMPAT_BPF_H

#include "../../frame.bpf.h"

/* Linux 6.2 ("mm: convert mm's rss stats into percpu_counter") turned
 * mm->rss_stat from a struct of atomic counters into an array of percpu_counter.
 * Before: */
struct mm_rss_stat___pre62 {
	atomic_long_t count[4];
};

struct mm_struct___pre62 {
	struct mm_rss_stat___pre62 rss_stat;
};

/* Linux 6.15 ("kernfs: Use RCU to access kernfs_node::parent") renamed
 * kernfs_node->parent to __parent. Before: */
struct kernfs_node___pre615 {
	struct kernfs_node *parent;
};

/* The kernel's mm counters (an anonymous enum, unchanged since 4.x). */
#define COMPAT_MM_FILEPAGES 0
#define COMPAT_MM_ANONPAGES 1
#define COMPAT_MM_SWAPENTS 2
#define COMPAT_MM_SHMEMPAGES 3
#define COMPAT_MM_COUNTERS 4

struct compat_rss {
	__s64 pages[COMPAT_MM_COUNTERS];
};

/* The mm's counters in pages, never negative. Since 6.2 only each percpu
 * counter's global part is read (as /proc/PID/status did until 6.16): a CPU's
 * unfolded deltas, under a batch of 32+ pages, are missed, so a freshly exec'd
 * image reads ~0. Summing them needs __per_cpu_offset, which BPF cannot reach
 * on kernels without KALLSYMS_ALL. */
static __always_inline void compat__mm_rss(struct mm_struct *mm, struct compat_rss *r)
{
	struct mm_struct___pre62 *old = (void *)mm;

	/* rss_stat matches the local struct only before 6.2 (an array since). */
	if (bpf_core_field_exists(old->rss_stat)) {
		for (int i = 0; i < COMPAT_MM_COUNTERS; i++)
			r->pages[i] = BPF_CORE_READ(old, rss_stat.count[i].counter);
	} else {
		for (int i = 0; i < COMPAT_MM_COUNTERS; i++)
			r->pages[i] = BPF_CORE_READ(mm, rss_stat[i].count);
	}
	for (int i = 0; i < COMPAT_MM_COUNTERS; i++)
		if (r->pages[i] < 0)
			r->pages[i] = 0;
}

static __always_inline struct kernfs_node *compat__kn_parent(struct kernfs_node *kn)
{
	struct kernfs_node___pre615 *old = (void *)kn;

	if (bpf_core_field_exists(old->parent))
		return BPF_CORE_READ(old, parent);
	return BPF_CORE_READ(kn, __parent);
}

/* vm_size, vm_rss, vm_swap of task T in KiB (pages of 4 KiB): three u32 params;
 * 0 for a task without an mm. rss is file + anon + shmem pages, as sysdig counts
 * it (see compat__mm_rss for what the percpu counters of 6.2+ leave out). */
static __always_inline void filler__mm_stats(struct filler *f, struct task_struct *t)
{
	struct mm_struct *mm = BPF_CORE_READ(t, mm);
	__u32 size = 0, rss = 0, swap = 0;

	if (mm) {
		struct compat_rss r = {};

		compat__mm_rss(mm, &r);
		size = BPF_CORE_READ(mm, total_vm) << 2;
		rss = (r.pages[COMPAT_MM_FILEPAGES] + r.pages[COMPAT_MM_ANONPAGES] +
		       r.pages[COMPAT_MM_SHMEMPAGES]) << 2;
		swap = r.pages[COMPAT_MM_SWAPENTS] << 2;
	}
	filler__u32(f, size);
	filler__u32(f, rss);
	filler__u32(f, swap);
}

#endif
