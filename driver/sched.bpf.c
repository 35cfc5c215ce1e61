/* Scheduler tracepoints that keep userspace's thread table exact: every thread's
 * exit, whatever syscall (or signal) ended it. */
#include "frame.bpf.h"
#include "kfilter.bpf.h"

/* sched_process_exit(struct task_struct *p) runs in the exiting task. */
SEC("raw_tp/sched_process_exit")
int sched_process_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *p = (struct task_struct *)ctx->args[0];
	struct filler f;
	int code;

	/* first: the kernel filter forgets the thread whatever else is set */
	kf__exit();
	if (!settings.capture || !settings.procexit)
		return 0;
	if ((bpf_get_current_pid_tgid() >> 32) == settings.own_tgid)
		return 0;
	code = BPF_CORE_READ(p, exit_code);
	if (FILLER_BEGIN(&f, ctx, PROCEXIT_1_E))
		return 0;
	filler__s64(&f, code);			/* status: the raw wait status */
	filler__s64(&f, (code >> 8) & 0xff);	/* ret: the exit code */
	filler__u8(&f, code & 0x7f);		/* sig: the terminating signal */
	filler__u8(&f, (code & 0x80) != 0);	/* core: dumped core */
	return filler__submit(&f);
}

/* sched_switch(bool preempt, struct task_struct *prev, struct task_struct *next,
 * unsigned int prev_state): the kernel filter's slot follows the running thread. */
SEC("raw_tp/sched_switch")
int sched_switch(struct bpf_raw_tracepoint_args *ctx)
{
	kf__switch((struct task_struct *)ctx->args[2]);
	return 0;
}
