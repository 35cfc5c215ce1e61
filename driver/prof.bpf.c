/* Profiling's scheduler programs (prof.bpf.h): a followed thread's state
 * changes as it leaves a CPU (blocked, with the syscall it waits in, or
 * preempted), is woken, and runs again. Typed (tp_btf) so that the tasks'
 * fields are plain loads. A thread not followed costs a hash lookup. */
#include "prof.bpf.h"
#include "prof_name.bpf.h"
#include "fd.bpf.h"

/* x86_64 syscall numbers (unistd_64.h) profiling sorts by. */
enum {
	PNR_READ = 0, PNR_WRITE = 1, PNR_OPEN = 2, PNR_STAT = 4, PNR_LSTAT = 6, PNR_POLL = 7,
	PNR_PREAD64 = 17, PNR_PWRITE64 = 18, PNR_READV = 19, PNR_WRITEV = 20, PNR_SELECT = 23,
	PNR_PAUSE = 34, PNR_NANOSLEEP = 35, PNR_SENDFILE = 40, PNR_CONNECT = 42,
	PNR_ACCEPT = 43, PNR_SENDTO = 44, PNR_RECVFROM = 45, PNR_SENDMSG = 46, PNR_RECVMSG = 47,
	PNR_FSYNC = 74, PNR_FDATASYNC = 75, PNR_TRUNCATE = 76, PNR_FTRUNCATE = 77,
	PNR_RENAME = 82, PNR_MKDIR = 83, PNR_CREAT = 85, PNR_UNLINK = 87,
	PNR_RT_SIGSUSPEND = 130, PNR_SYNC = 162, PNR_FUTEX = 202, PNR_GETDENTS64 = 217,
	PNR_CLOCK_NANOSLEEP = 230, PNR_EPOLL_WAIT = 232, PNR_OPENAT = 257,
	PNR_NEWFSTATAT = 262, PNR_UNLINKAT = 263, PNR_PSELECT6 = 270, PNR_PPOLL = 271,
	PNR_SPLICE = 275, PNR_SYNC_FILE_RANGE = 277, PNR_EPOLL_PWAIT = 281,
	PNR_FALLOCATE = 285, PNR_ACCEPT4 = 288, PNR_PREADV = 295, PNR_PWRITEV = 296,
	PNR_RECVMMSG = 299, PNR_SYNCFS = 306, PNR_SENDMMSG = 307, PNR_RENAMEAT2 = 316,
	PNR_PREADV2 = 327, PNR_PWRITEV2 = 328, PNR_STATX = 332, PNR_OPENAT2 = 437,
	PNR_EPOLL_PWAIT2 = 441, PNR_FUTEX_WAITV = 449, PNR_FUTEX_WAIT = 455,
};

#define PROF_ENOSYS 38
#define PROF_S_IFREG 0100000
#define PROF_S_IFBLK 0060000

/* What kind of wait the blocked syscall NR on fd FD is: by the fd's file. */
static __always_inline __u8 prof__fd_kind(long fd)
{
	/* by probe reads: a second object calling bpf_rdonly_cast (fd__file_btf)
	 * fails bpftool's link of the driver (libbpf 1.1) */
	struct file *f = fd__file(fd);
	__u32 mode;

	if (!f)
		return PROF_OTHER;
	mode = BPF_CORE_READ(f, f_inode, i_mode) & FD_S_IFMT;
	if (mode == FD_S_IFSOCK)
		return PROF_NET;
	if (mode == PROF_S_IFREG || mode == PROF_S_IFBLK)
		return PROF_FILE;
	return PROF_OTHER;	/* a pipe, a tty, an eventfd, ... */
}

/* Why task T (the current task, going off CPU blocked) waits: the syscall it
 * is in, read from its saved user registers. A syscall's entry leaves
 * -ENOSYS in ax until it returns; an exception (a page fault) leaves the
 * user's ax and an error code in orig_ax, so it is told apart by that. */
static __always_inline void prof__reason(struct task_struct *t, struct prof_thread *e)
{
	struct pt_regs *r = (struct pt_regs *)bpf_task_pt_regs(t);
	long nr, ax;
	__u8 kind = PROF_OTHER;
	long fd = -1;

	e->nr = PROF_NR_NONE;
	e->obj = (__u64)-1;
	e->kind = PROF_OTHER;
	if (!r)
		return;
	nr = BPF_CORE_READ(r, orig_ax);
	ax = BPF_CORE_READ(r, ax);
	if (ax != -PROF_ENOSYS || nr < 0 || nr >= SYSCALL_TABLE_SIZE)
		return;
	switch (nr) {
	case PNR_FUTEX:
	case PNR_FUTEX_WAITV:
	case PNR_FUTEX_WAIT:
		kind = PROF_LOCK;
		e->obj = BPF_CORE_READ(r, di);
		break;
	case PNR_POLL: case PNR_SELECT: case PNR_EPOLL_WAIT: case PNR_PSELECT6:
	case PNR_PPOLL: case PNR_EPOLL_PWAIT: case PNR_EPOLL_PWAIT2:
		kind = PROF_POLL;
		break;
	case PNR_PAUSE: case PNR_NANOSLEEP: case PNR_CLOCK_NANOSLEEP: case PNR_RT_SIGSUSPEND:
		kind = PROF_SLEEP;
		break;
	case PNR_OPEN: case PNR_STAT: case PNR_LSTAT: case PNR_TRUNCATE: case PNR_RENAME:
	case PNR_MKDIR: case PNR_CREAT: case PNR_UNLINK: case PNR_SYNC: case PNR_OPENAT:
	case PNR_NEWFSTATAT: case PNR_UNLINKAT: case PNR_SYNCFS: case PNR_RENAMEAT2:
	case PNR_STATX: case PNR_OPENAT2:
		kind = PROF_FILE;
		break;
	case PNR_FSYNC: case PNR_FDATASYNC: case PNR_FTRUNCATE: case PNR_GETDENTS64:
	case PNR_SYNC_FILE_RANGE: case PNR_FALLOCATE:
		kind = PROF_FILE;
		fd = (int)BPF_CORE_READ(r, di);
		break;
	case PNR_CONNECT: case PNR_ACCEPT: case PNR_ACCEPT4:
		kind = PROF_NET;
		fd = (int)BPF_CORE_READ(r, di);
		break;
	case PNR_READ: case PNR_WRITE: case PNR_PREAD64: case PNR_PWRITE64: case PNR_READV:
	case PNR_WRITEV: case PNR_SENDFILE: case PNR_SENDTO: case PNR_RECVFROM:
	case PNR_SENDMSG: case PNR_RECVMSG: case PNR_SPLICE: case PNR_PREADV: case PNR_PWRITEV:
	case PNR_RECVMMSG: case PNR_SENDMMSG: case PNR_PREADV2: case PNR_PWRITEV2:
		fd = (int)BPF_CORE_READ(r, di);
		kind = prof__fd_kind(fd);
		break;
	}
	e->nr = (__u16)nr;
	e->kind = kind;
	if (fd >= 0)
		e->obj = (__u64)fd;
}

#define PROF_PF_EXITING 0x4	/* task->flags: in do_exit, its exit seen */

/* Whether TASK may be followed when every thread is (PROF_FOLLOW_ALL): not
 * the idle task, not the agent's own, not one exiting (its last switch out
 * comes after prof__exit forgot it). */
static __always_inline int prof__wanted_all(struct task_struct *t)
{
	return settings.profile == PROF_FOLLOW_ALL && t->pid && t->tgid != settings.own_tgid &&
	       !(t->flags & PROF_PF_EXITING);
}

/* Following TID begins (PROF_FOLLOW_ALL) in STATE at NOW, said with a batch
 * of none, as the dispatchers say it for PROF_FOLLOW_SENT: the thread's
 * clock starts there, and the filter has an event of it to look at. */
static __always_inline struct prof_thread *prof__follow_all(void *ctx, __u32 tid, __u8 state,
							    __u64 now)
{
	struct prof_thread *e = prof__follow(tid, state, now);

	if (e)
		prof__emit(ctx, tid, e, now, PROF_SLOT_SCHED, 0);
	return e;
}

/* Thread TID was found switched in while on CPU by our account, or out
 * while off it: a switch was not seen (some sandboxes hide their own
 * threads' switches, and so the switches to and from them, from every
 * tracer). How it spent the time since its last known change is not known:
 * a slice flagged so, which the clock counts as lost, not as any kind. */
static __always_inline void prof__unseen(void *ctx, __u32 tid, struct prof_thread *e, __u64 now)
{
	struct prof_slice sl = { .start = e->since, .kind = PROF_OTHER, .flags = PROF_SLICE_UNSEEN,
				 .nr = PROF_NR_NONE };

	/* on CPU since before the last batch went (from its syscall event):
	 * that batch said so up to its end, and a batch's slices begin in it */
	if (sl.start < e->from)
		sl.start = e->from;
	sl.dur = now > sl.start ? now - sl.start : 0;
	e->waker = 0;
	prof__push(ctx, tid, e, &sl, now);
}

/* Thread TID (T, blocked in E since E->since) goes on CPU at NOW: its wait
 * ends where its time on the run queue began, by the kernel's own account
 * of that time (sched_info, as in /proc/PID/schedstat): what run_delay grew
 * by since it went off CPU (a wait ended by a move to another CPU's queue)
 * and the wait still open, its run queue's clock less when it was queued
 * (the switch in adds that to run_delay after this tracepoint). So no
 * program runs at its wakeup, and the split holds however the wakeup raced
 * its switch out on another CPU. The run queue is reached through the
 * task's CFS queue (CONFIG_FAIR_GROUP_SCHED, which CPU cgroups need: a
 * kernel without it has its open wait counted as blocked). The blocked
 * slice goes, and E waits on the run queue from there. */
static __always_inline void prof__woken(void *ctx, __u32 tid, struct prof_thread *e,
					struct task_struct *t, __u64 now)
{
	__u64 waited = now > e->since ? now - e->since : 0;
	__u64 q;

	if (e->woke > e->since) {
		/* its sched_info was queued while it slept: the wait since its
		 * wakeup is all on the run queue */
		q = now > e->woke ? now - e->woke : 0;
	} else {
		__u64 queued = t->sched_info.last_queued;

		q = t->sched_info.run_delay - e->rd;
		if (bpf_core_field_exists(t->se.cfs_rq) && queued) {
			__u64 clock = t->se.cfs_rq->rq->clock;

			if (clock > queued)
				q += clock - queued;
		}
	}
	/* the run-queue part of the wait, at most all of it (its clock is not
	 * ours) */
	if (q > waited)
		q = waited;
	prof__close(ctx, tid, e, now - q);
	e->state = PROF_ST_RUNQ;
	e->kind = 0;
	e->since = now - q;
}

/* sched_switch(bool preempt, struct task_struct *prev, struct task_struct
 * *next, unsigned int prev_state), run on PREV (the current task). */
SEC("tp_btf/sched_switch")
int BPF_PROG(prof_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u32 ptid = prev->pid, ntid = next->pid;
	struct prof_thread *e = NULL;
	__u64 now = 0;

	if (!settings.profile)
		return 0;
	/* tid 0 is a CPU's idle task, half of the switches on a CPU that idles
	 * between wakeups: never followed, so not looked up */
	if (ptid) {
		e = bpf_map_lookup_elem(&prof_threads, &ptid);
		if (!e && prof__wanted_all(prev)) {
			now = prof__now();
			e = prof__follow_all(ctx, ptid, PROF_ST_ON, now);
		}
	}
	if (e) {
		if (!now)
			now = prof__now();
		/* a switch out of a thread not on CPU by our account: its switch
		 * in was not seen (prof__unseen) */
		if (e->state != PROF_ST_ON)
			prof__unseen(ctx, ptid, e, now);
		if (preempt || prev_state == 0 /* TASK_RUNNING */) {
			e->state = PROF_ST_RUNQ;
			e->kind = PROF_SLICE_PREEMPTED;
		} else {
			e->state = PROF_ST_OFF;
			e->rd = prev->sched_info.run_delay;
			prof__reason(prev, e);
			if (settings.prof_names && e->kind == PROF_FILE && e->obj != (__u64)-1)
				prof_name__send(ctx, prev, ptid, e, fd__file((long)e->obj), e->obj,
						now);
		}
		e->since = now;
	}
	if (!ntid)
		return 0;
	e = bpf_map_lookup_elem(&prof_threads, &ntid);
	if (!e) {
		if (prof__wanted_all(next))
			prof__follow_all(ctx, ntid, PROF_ST_ON, now ? now : prof__now());
		return 0;
	}
	if (!now)
		now = prof__now();
	if (e->state == PROF_ST_ON) {
		prof__unseen(ctx, ntid, e, now);
		e->since = now;
		return 0;
	}
	if (e->state == PROF_ST_OFF)
		prof__woken(ctx, ntid, e, next, now);
	prof__close(ctx, ntid, e, now);
	e->state = PROF_ST_ON;
	e->since = now;
	return 0;
}

/* sched_waking(struct task_struct *p), run by the task that wakes P: a
 * futex's waker is the thread that released it (prof__close keeps it for
 * lock waits only, as prof__reason sorts them). P's saved registers say
 * whether it waits in a futex call before its entry is looked up: most
 * wakeups (sockets, pipes, timers) cost that load, not a hash lookup.
 *
 * A sleeping P has no queued time (sched_info.last_queued) until this
 * wakeup enqueues it, except in a corner of the scheduler, seen on 6.18
 * about once in 500 switches in of a busy run (its delayed dequeue the
 * likely cause): the sleeper is still marked queued from some time in its
 * sleep, the wakeup keeps that mark, and the kernel counts the sleep since
 * as run delay (in /proc/PID/schedstat too: 8 ms of a 10 ms nanosleep, 500
 * ms of a kernel thread's 510 ms sleep). Then the wakeup's time is kept,
 * and the switch in takes the run-queue wait from it (prof__woken). */
SEC("tp_btf/sched_waking")
int BPF_PROG(prof_waking, struct task_struct *p)
{
	struct pt_regs *r;
	__u32 tid = p->pid;
	struct prof_thread *e;
	bool futex = false, queued;
	long nr;

	if (!settings.profile)
		return 0;
	queued = p->sched_info.last_queued != 0;
	r = (struct pt_regs *)bpf_task_pt_regs(p);
	if (r) {
		nr = r->orig_ax;	/* typed: a plain load, no helper call */
		futex = nr == PNR_FUTEX || nr == PNR_FUTEX_WAITV || nr == PNR_FUTEX_WAIT;
	}
	if (!futex && !queued)
		return 0;
	e = bpf_map_lookup_elem(&prof_threads, &tid);
	if (!e)
		return 0;
	if (futex)
		e->waker = (__u32)bpf_get_current_pid_tgid();
	if (queued && e->state == PROF_ST_OFF)
		e->woke = prof__now();
	return 0;
}

/* sched_wakeup_new(struct task_struct *p): a new thread, runnable, followed
 * from here when every thread is. */
SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(prof_wakeup_new, struct task_struct *p)
{
	if (prof__wanted_all(p))
		prof__follow_all(ctx, p->pid, PROF_ST_RUNQ, prof__now());
	return 0;
}
