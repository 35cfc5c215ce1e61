/* Walking a dentry up to a task's root, crossing mounts: the components'
 * names collected leaf first. Shared by the procnet fillers (a task's cwd)
 * and profiling (the file a thread waits on); each writes the names into its
 * own buffer, as they run in contexts that must not share one. */
#ifndef PATH_WALK_BPF_H
#define PATH_WALK_BPF_H

#include "frame.bpf.h"

/* Path components walked and the longest component copied. */
#define PN_PATH_DEPTH 32
#define PN_PATH_STEPS 48
#define PN_NAME_MAX 256

/* Path components collected leaf first, written root first. */
struct pn_path {
	const void *names[PN_PATH_DEPTH];
	int n;
	__u32 pos;	/* where the next byte of the param goes */
	__u32 off;	/* the param's offset in the frame */
};

static __always_inline struct mount *pn__real_mount(struct vfsmount *vm)
{
	return (struct mount *)((char *)vm - bpf_core_field_offset(struct mount, mnt));
}

struct pn_walk {
	struct pn_path path;
	struct dentry *d, *root_d;
	struct vfsmount *vm, *root_m;
};

/* One step up from W->d (a bpf_loop callback): its name kept, or the mount's
 * top left for where it is mounted; 1 at the root. */
static long pn__cwd_step(__u32 i, void *arg)
{
	struct pn_walk *w = arg;
	struct dentry *d = w->d, *parent;
	struct vfsmount *vm = w->vm;
	struct mount *m, *pm;

	if (!d || (d == w->root_d && vm == w->root_m) || w->path.n >= PN_PATH_DEPTH)
		return 1;
	if (d == BPF_CORE_READ(vm, mnt_root)) {
		/* The top of a mount: go on from where it is mounted. */
		m = pn__real_mount(vm);
		pm = BPF_CORE_READ(m, mnt_parent);
		if (!pm || pm == m)
			return 1;
		w->d = BPF_CORE_READ(m, mnt_mountpoint);
		w->vm = (struct vfsmount *)((char *)pm + bpf_core_field_offset(struct mount, mnt));
		return 0;
	}
	parent = BPF_CORE_READ(d, d_parent);
	if (parent == d)
		return 1;
	w->path.names[w->path.n & (PN_PATH_DEPTH - 1)] = BPF_CORE_READ(d, d_name.name);
	w->path.n++;
	w->d = parent;
	return 0;
}

#endif
