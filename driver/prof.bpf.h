/* Profiling's kernel side: each followed thread's off-CPU and run-queue time,
 * kept per thread (prof_threads) as it happens and sent as batches of slices
 * (CPU_SLICES events), never a frame per context switch. A batch goes when it
 * holds PROF_BATCH slices, when the thread's next syscall event is sent (so a
 * request's first read and last write cut the batches: driver/README.md,
 * "Profiling"), and when the thread exits. The gaps between slices are time on
 * CPU. */
#ifndef PROF_BPF_H
#define PROF_BPF_H

#include "frame.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROF_THREADS);
	__type(key, __u32);			/* host tid */
	__type(value, struct prof_thread);
} prof_threads __weak SEC(".maps");

/* Threads the agent let go (PROF_FOLLOW_SENT): their requests were a
 * client's only, which get no breakdown; the socket I/O of a thread here does
 * not make it followed. The agent takes a thread out when it serves a
 * request; its exit (prof__exit) takes it out too, as its tid may come back. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PROF_THREADS);
	__type(key, __u32);			/* host tid */
	__type(value, __u8);
} prof_let_go __weak SEC(".maps");

/* A CPU_SLICES event: header, three lengths, tid, from, the slices. */
#define PROF_PARAMS_OFF (PPM_HDR_LEN + 3 * 2)
#define PROF_SLICES_OFF (PROF_PARAMS_OFF + 16)
#define PROF_FRAME_MAX (PROF_SLICES_OFF + PROF_BATCH * sizeof(struct prof_slice))

/* The head profiling's events share (CPU_SLICES, FD_NAME): the header, the
 * three param lengths (8, 8, VARLEN), TID and A; the variable param follows
 * at PROF_SLICES_OFF. */
static __always_inline void prof__head(__u8 *data, __u16 type, __u32 nparams, __u32 tid,
				       __u64 now, __u64 a, __u32 varlen)
{
	struct ppm_evt_hdr *h = (struct ppm_evt_hdr *)data;
	__u16 *lens = (__u16 *)&data[PPM_HDR_LEN];

	h->ts = now;
	h->tid = tid;
	h->len = PROF_SLICES_OFF + varlen;
	h->type = type;
	h->nparams = nparams;
	lens[0] = 8;
	lens[1] = 8;
	lens[2] = (__u16)varlen;
	*(__u64 *)&data[PROF_PARAMS_OFF] = tid;
	*(__u64 *)&data[PROF_PARAMS_OFF + 8] = a;
}

struct prof_frame {
	__u64 owner;
	__u8 data[PROF_FRAME_MAX];
};

/* Where batches are built, per CPU: slot PROF_SLOT_TASK for the thread's own
 * context (its syscall's exit, its exit), which may be interrupted;
 * PROF_SLOT_SCHED for the scheduler's tracepoints, which run with interrupts
 * off and so never nest on a CPU. Slot 2 builds a new thread's entry, too big
 * for the stack. */
enum { PROF_SLOT_TASK = 0, PROF_SLOT_SCHED = 1 };

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct prof_frame);
} prof_frames __weak SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct prof_thread);
} prof_new __weak SEC(".maps");

static __always_inline __u64 prof__now(void)
{
	return settings.boot_time + bpf_ktime_get_boot_ns();
}

/* Sends thread TID's slices from E->from to NOW as one event, built in SLOT
 * under OWNER (a task that took the slot over in between makes it a drop,
 * counted). The slices go whether sent or dropped: a dropped batch leaves a
 * gap the next one shows (its FROM is not the last one's time). */
static __always_inline void prof__emit(void *ctx, __u32 tid, struct prof_thread *e, __u64 now,
				       __u32 slot, __u64 owner)
{
	struct prof_frame *pf = bpf_map_lookup_elem(&prof_frames, &slot);
	__u32 n = e->n, len;
	long err = -1;

	if (!pf)
		return;
	if (n > PROF_BATCH)
		n = PROF_BATCH;
	pf->owner = owner;
	len = PROF_SLICES_OFF + n * sizeof(struct prof_slice);
	prof__head(pf->data, PPME_CPU_SLICES_E, PPME_CPU_SLICES_E_NPARAMS, tid, now, e->from,
		   n * sizeof(struct prof_slice));
	for (__u32 i = 0; i < PROF_BATCH; i++) {
		if (i >= n)
			break;
		__builtin_memcpy(&pf->data[PROF_SLICES_OFF + i * sizeof(struct prof_slice)], &e->s[i],
				 sizeof(struct prof_slice));
	}
	if (pf->owner == owner && len <= PROF_FRAME_MAX)
		err = frame__output(ctx, pf->data, len);
	else
		err = -1;	/* counted below as ours to fix */
	frame__account(err, PPME_CPU_SLICES_E, 0, 1);
	e->n = 0;
	e->from = now;
}

/* Appends slice SL to E; a full batch goes at once (its last slice ended
 * NOW, so the batch covers up to NOW and the next begins there). */
static __always_inline void prof__push(void *ctx, __u32 tid, struct prof_thread *e,
				       const struct prof_slice *sl, __u64 now)
{
	__u32 n = e->n;

	if (n < PROF_BATCH) {
		e->s[n] = *sl;
		e->n = n + 1;
	}
	if (e->n >= PROF_BATCH)
		prof__emit(ctx, tid, e, now, PROF_SLOT_SCHED, 0);
}

/* Ends E's off-CPU or run-queue state at NOW as a slice. */
static __always_inline void prof__close(void *ctx, __u32 tid, struct prof_thread *e, __u64 now)
{
	struct prof_slice sl = {};

	if (e->state == PROF_ST_ON)
		return;
	sl.start = e->since;
	sl.dur = now > e->since ? now - e->since : 0;
	if (e->state == PROF_ST_RUNQ) {
		sl.kind = PROF_RUNQ;
		sl.flags = e->kind;
		sl.nr = PROF_NR_NONE;
	} else {
		sl.kind = e->kind;
		sl.nr = e->nr;
		sl.obj = e->obj;
		sl.flags = e->kind == PROF_LOCK ? 0 : (e->obj != (__u64)-1 ? PROF_SLICE_FD : 0);
		if (!(sl.flags & PROF_SLICE_FD) && e->kind != PROF_LOCK)
			sl.obj = 0;
		/* only a futex's waker is the thread that released it; the
		 * others are woken from interrupts, whoever ran then */
		sl.waker = e->kind == PROF_LOCK ? e->waker : 0;
	}
	e->waker = 0;
	prof__push(ctx, tid, e, &sl, now);
}

/* A new entry for thread TID, on CPU since NOW; NULL when the table is full
 * (counted) or the entry could not be made. */
static __always_inline struct prof_thread *prof__follow(__u32 tid, __u8 state, __u64 now)
{
	__u32 zero = 0;
	struct prof_thread *n = bpf_map_lookup_elem(&prof_new, &zero);
	long err;

	if (!n)
		return NULL;
	n->from = n->since = now;
	n->state = state;
	n->kind = 0;
	n->n = 0;
	n->waker = 0;
	n->woke = 0;
	n->nr = PROF_NR_NONE;
	n->obj = 0;
	n->named = 0;
	err = bpf_map_update_elem(&prof_threads, &tid, n, BPF_NOEXIST);
	if (err && err != -17 /* EEXIST */) {
		COUNT(n_prof_full);
		return NULL;
	}
	return bpf_map_lookup_elem(&prof_threads, &tid);
}

/* The current thread's syscall event PID_TGID is about to be sent (the
 * dispatchers, profiling on): its slices so far go first, so they come
 * before the event, and a thread not followed yet is from now on when the
 * event moves data on an fd (IO; in request mode a socket's: the threads
 * that serve and make requests, not every one that forks or execs), saying
 * so with a batch of none (PROF_FOLLOW_SENT). */
static __always_inline void prof__at_event(void *ctx, __u64 pid_tgid, int io)
{
	__u32 tid = (__u32)pid_tgid;
	struct prof_thread *e = bpf_map_lookup_elem(&prof_threads, &tid);
	__u64 now;

	if (e) {
		if (e->n)
			prof__emit(ctx, tid, e, prof__now(), PROF_SLOT_TASK, pid_tgid);
		/* the event may close or reuse an fd: a file is named again */
		e->named = 0;
		return;
	}
	if (settings.profile != PROF_FOLLOW_SENT || !io)
		return;
	if (settings.prof_let_go && bpf_map_lookup_elem(&prof_let_go, &tid))
		return;
	now = prof__now();
	e = prof__follow(tid, PROF_ST_ON, now);
	if (e)
		prof__emit(ctx, tid, e, now, PROF_SLOT_TASK, pid_tgid);
}

/* The current thread exits: its last slices go, and it is followed no more. */
static __always_inline void prof__exit(void *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	struct prof_thread *e;

	if (!settings.profile)
		return;
	if (settings.prof_let_go)
		bpf_map_delete_elem(&prof_let_go, &tid);
	e = bpf_map_lookup_elem(&prof_threads, &tid);
	if (!e)
		return;
	if (e->n)
		prof__emit(ctx, tid, e, prof__now(), PROF_SLOT_TASK, pid_tgid);
	bpf_map_delete_elem(&prof_threads, &tid);
}

#endif
