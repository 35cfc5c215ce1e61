/* Scheduler tracepoints that keep userspace's thread table exact: every thread's
 * exit, whatever syscall (or signal) ended it. */
#include "frame.bpf.h"
#include "kfilter.bpf.h"
#include "prof.bpf.h"

/* x86_64 syscall numbers (unistd_64.h) that the exit-only hooks look for. */
enum { NR_EXECVE = 59, NR_EXIT = 60, NR_EXIT_GROUP = 231, NR_EXECVEAT = 322 };

/* Exit-only capture: the syscall the current task is in, or -1. */
static __always_inline long eo__current_nr(void)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());

	return regs ? BPF_CORE_READ(regs, orig_ax) : -1;
}

/* Exit-only capture: whether the enter event of syscall NR of the current task
 * is wanted (the sys_exit dispatcher's checks). */
static __always_inline int eo__wanted(long nr)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	if (!settings.exit_only || !settings.capture || (unsigned long)nr >= SYSCALL_TABLE_SIZE ||
	    !interesting[nr] || (pid_tgid >> 32) == settings.own_tgid)
		return 0;
	return kf__wants(nr, pid_tgid, 0, 0, 0);
}

/* Exit-only capture: exit and exit_group never return, so their (generic) enter
 * event is sent here, by the thread that made the call. */
static __always_inline void eo__exit_enter(void *ctx)
{
	long nr = eo__current_nr();
	struct filler f;

	if ((nr != NR_EXIT && nr != NR_EXIT_GROUP) || !eo__wanted(nr))
		return;
	stamp__clear();
	if (FILLER_BEGIN(&f, ctx, GENERIC_E))
		return;
	filler__u16(&f, routes[nr].ppm_sc);
	filler__u16(&f, (__u16)nr);
	filler__submit(&f);
}

/* execveat's enter event from NAME, the kernel's name for the file:
 * "/dev/fd/N/PATH" for a PATH relative to dirfd N, "/dev/fd/N" with
 * AT_EMPTY_PATH, else the path given (with dirfd AT_FDCWD). */
static __always_inline int eo__execveat_enter(void *ctx, const char *name)
{
	char head[24] = { 0 };
	long dirfd = -100;	/* AT_FDCWD */
	__u32 flags = 0, i = 8;
	struct filler f;

	bpf_probe_read_kernel_str(head, sizeof(head), name);
	if (head[0] == '/' && head[1] == 'd' && head[2] == 'e' && head[3] == 'v' &&
	    head[4] == '/' && head[5] == 'f' && head[6] == 'd' && head[7] == '/' &&
	    head[8] >= '0' && head[8] <= '9') {
		long n = 0;

		for (; i < 18 && head[i] >= '0' && head[i] <= '9'; i++)
			n = n * 10 + head[i] - '0';
		if (i < 18 && (head[i] == '/' || head[i] == 0)) {
			dirfd = n;
			if (head[i] == 0)
				flags = PPM_EXECVEAT_FLAGS_AT_EMPTY_PATH;
			name += head[i] == '/' ? i + 1 : i;
		}
	}
	stamp__clear();
	if (FILLER_BEGIN(&f, ctx, SYSCALL_EXECVEAT_E))
		return 0;
	filler__s64(&f, dirfd);
	filler__str_kernel(&f, name);
	filler__u32(&f, flags);
	return filler__submit(&f);
}

/* sched_process_exec(struct task_struct *p, pid_t old_pid, struct linux_binprm
 * *bprm), exit-only capture: a successful execve's arguments went with the old
 * image (the new one's registers are cleared), so its enter event is sent here
 * with the name the kernel was given. An execveat is told apart only by a path
 * relative to its dirfd (the kernel's fdpath); one with AT_FDCWD or an absolute
 * path is sent as an execve, and AT_SYMLINK_NOFOLLOW is not known. */
SEC("raw_tp/sched_process_exec")
int sched_process_exec(struct bpf_raw_tracepoint_args *ctx)
{
	struct linux_binprm *bprm = (struct linux_binprm *)ctx->args[2];
	long nr = eo__current_nr();
	struct filler f;

	if ((nr != NR_EXECVE && nr != NR_EXECVEAT) || !eo__wanted(nr))
		return 0;
	/* The syscall number says execve for both here: fdpath is set only for a
	 * path relative to execveat's dirfd. */
	if (bpf_core_field_exists(bprm->fdpath) && BPF_CORE_READ(bprm, fdpath))
		return eo__execveat_enter(ctx, BPF_CORE_READ(bprm, filename));
	stamp__clear();
	if (FILLER_BEGIN(&f, ctx, SYSCALL_EXECVE_19_E))
		return 0;
	filler__str_kernel(&f, BPF_CORE_READ(bprm, filename));
	return filler__submit(&f);
}

/* sched_process_exit(struct task_struct *p) runs in the exiting task: the
 * kernel filter forgets it, and its procexit event. */
static __always_inline int procexit__send(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *p = (struct task_struct *)ctx->args[0];
	struct filler f;
	int code;

	/* the kernel filter and profiling forget the thread whatever else is set */
	kf__exit();
	prof__exit(ctx);
	if (!settings.capture || !settings.procexit)
		return 0;
	if ((bpf_get_current_pid_tgid() >> 32) == settings.own_tgid)
		return 0;
	code = BPF_CORE_READ(p, exit_code);
	stamp__clear();
	if (FILLER_BEGIN(&f, ctx, PROCEXIT_1_E))
		return 0;
	filler__s64(&f, code);			/* status: the raw wait status */
	filler__s64(&f, (code >> 8) & 0xff);	/* ret: the exit code */
	filler__u8(&f, code & 0x7f);		/* sig: the terminating signal */
	filler__u8(&f, (code & 0x80) != 0);	/* core: dumped core */
	return filler__submit(&f);
}

SEC("raw_tp/sched_process_exit")
int sched_process_exit(struct bpf_raw_tracepoint_args *ctx)
{
	return procexit__send(ctx);
}

/* The same in exit-only mode, after exit's or exit_group's enter event. A
 * program of its own: the helpers it needs (bpf_task_pt_regs, 5.15) must not
 * keep the default mode from loading on older kernels. */
SEC("raw_tp/sched_process_exit")
int sched_process_exit_eo(struct bpf_raw_tracepoint_args *ctx)
{
	eo__exit_enter(ctx);
	return procexit__send(ctx);
}

/* sched_switch(bool preempt, struct task_struct *prev, struct task_struct *next,
 * unsigned int prev_state): the kernel filter's slot follows the running thread. */
SEC("raw_tp/sched_switch")
int sched_switch(struct bpf_raw_tracepoint_args *ctx)
{
	kf__switch((struct task_struct *)ctx->args[2]);
	return 0;
}
