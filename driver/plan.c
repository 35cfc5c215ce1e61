/* Which of the driver's programs a run needs (plan.h). */
#include <string.h>

#include "plan.h"

/* x86_64 syscall numbers whose enter event sched_process_exec sends in
 * exit-only mode (sched.bpf.c). */
enum { PLAN_NR_CLOSE = 3, PLAN_NR_EXECVE = 59, PLAN_NR_EXECVEAT = 322 };

bool driver_plan__is_filler_event(uint32_t code)
{
	return code > PPME_GENERIC_X && code < PPM_EVENT_MAX;
}

static void plan__mark(struct driver_plan *p, uint32_t code)
{
	if (!driver_plan__is_filler_event(code) || p->fillers[code])
		return;
	p->fillers[code] = 1;
	p->nfillers++;
}

void driver_plan__build(struct driver_plan *p, const struct driver_plan_in *in)
{
	bool eo = in->exit_only;

	memset(p, 0, sizeof(*p));
	for (uint32_t nr = 0; nr < SYSCALL_TABLE_SIZE; nr++) {
		const struct syscall_route *r = &schema_syscall_routes[nr];

		if (in->syscalls && !in->syscalls[nr])
			continue;
		/* exit-only runs no enter filler for a call whose enter event the
		 * reader rebuilds, but for a failed one under drop_failed */
		if (!eo || !(r->flags & UF_EO_SYNTH) || in->drop_failed)
			plan__mark(p, r->enter_event);
		plan__mark(p, r->exit_event);
	}
	if (in->sock_compact) {
		plan__mark(p, PPME_SOCK_RECV_X);
		plan__mark(p, PPME_SOCK_SEND_X);
	}
	p->sys_enter = !eo;
	p->sys_exit = !eo;
	p->sys_exit_eo = eo;
	/* when a close began, for its enter event (close_enter.bpf.h) */
	p->close_enter = eo && (!in->syscalls || in->syscalls[PLAN_NR_CLOSE]);
	p->sched_exit = !eo;
	p->sched_exit_eo = eo;
	/* a successful exec's enter event, sent at sched_process_exec */
	p->sched_exec = eo && (!in->syscalls || in->syscalls[PLAN_NR_EXECVE] ||
			       in->syscalls[PLAN_NR_EXECVEAT]);
	p->sched_switch = in->per_thread;
	p->prof = in->profile;
}
