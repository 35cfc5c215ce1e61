/* Profiling's names of the files followed threads wait on (FD_NAME events,
 * settings.prof_names, --profile-out): request mode keeps file opens in the
 * kernel, so the agent's fd tables do not know those files; the kernel's open
 * file does. Sent from sched_switch as the thread blocks on a file, once per
 * file between the thread's sent events (prof_thread.named), so a thread
 * reading one file over and over sends one. Costs nothing unless a followed
 * thread blocks on a file. */
#ifndef PROF_NAME_BPF_H
#define PROF_NAME_BPF_H

#include "prof.bpf.h"
#include "path_walk.bpf.h"

/* An FD_NAME event: the head of CPU_SLICES (prof__head), tid, fd, the path. */
#define PROF_NAME_OFF PROF_SLICES_OFF
#define PROF_NAME_PATH 4096	/* a power of 2: offsets are masked with it */

/* One per CPU: sched_switch runs with interrupts off, so never nests, and
 * no filler's scratch is touched (a filler preempted here may hold it). */
struct prof_name {
	struct pn_walk w;
	__u32 pos;		/* prof_name__put's */
	__u8 data[PROF_NAME_OFF + PROF_NAME_PATH + PN_NAME_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct prof_name);
} prof_names __weak SEC(".maps");

/* Writes B->w.path's names root first as "/a/b" and a NUL at the path's
 * place in B->data (a cut path past PROF_NAME_PATH - PN_NAME_MAX bytes);
 * returns its length with the NUL. Plain bounded loops, not bpf_loop:
 * profiling loads on kernels before 5.17. The position lives in the map
 * value, read afresh each time (volatile), so that the verifier knows
 * nothing of it but its mask and checks each iteration's state once, not
 * once per length it could have. */
static __always_inline __u32 prof_name__put(struct prof_name *b)
{
	volatile __u32 *pos = &b->pos;
	int n = b->w.path.n;
	__u32 p;

	*pos = 0;
	if (n <= 0)
		b->data[PROF_NAME_OFF] = '/', *pos = 1;
	for (int i = 0; i < PN_PATH_DEPTH; i++) {
		long r;

		p = *pos;
		if (i >= n || p > PROF_NAME_PATH - PN_NAME_MAX - 1)
			break;
		b->data[PROF_NAME_OFF + (p & (PROF_NAME_PATH - 1))] = '/';
		r = bpf_probe_read_kernel_str(&b->data[PROF_NAME_OFF + ((p + 1) & (PROF_NAME_PATH - 1))],
					      PN_NAME_MAX,
					      b->w.path.names[(n - 1 - i) & (PN_PATH_DEPTH - 1)]);
		*pos = p + 1 + (r > 1 ? (__u32)r - 1 : 0);
	}
	p = *pos & (PROF_NAME_PATH - 1);
	b->data[PROF_NAME_OFF + p] = 0;
	return p + 1;
}

/* Thread TID (the current task T), going off CPU waiting on file F as fd FD:
 * F's path from T's root goes as an FD_NAME event, unless E named F since
 * its last sent event. */
static __always_inline void prof_name__send(void *ctx, struct task_struct *t, __u32 tid,
					    struct prof_thread *e, struct file *f, __u64 fd,
					    __u64 now)
{
	__u32 zero = 0, len;
	struct prof_name *b;
	long err;

	if (!f || e->named == (__u64)f)
		return;
	b = bpf_map_lookup_elem(&prof_names, &zero);
	if (!b)
		return;
	e->named = (__u64)f;
	__builtin_memset(&b->w, 0, sizeof(b->w));
	b->w.d = BPF_CORE_READ(f, f_path.dentry);
	b->w.vm = BPF_CORE_READ(f, f_path.mnt);
	b->w.root_d = BPF_CORE_READ(t, fs, root.dentry);
	b->w.root_m = BPF_CORE_READ(t, fs, root.mnt);
	for (int i = 0; i < PN_PATH_STEPS; i++)
		if (pn__cwd_step(i, &b->w))
			break;
	len = prof_name__put(b);
	prof__head(b->data, PPME_FD_NAME_E, PPME_FD_NAME_E_NPARAMS, tid, now, fd, len);
	err = len <= PROF_NAME_PATH ? frame__output(ctx, b->data, PROF_NAME_OFF + len) : -1;
	frame__account(err, PPME_FD_NAME_E, 0, 1);
}

#endif
