/* Which of the driver's programs a run needs: from the syscalls it captures and
 * its mode, the dispatchers and the fillers that can run. The loader turns the
 * others off before load (loader.c); pure, so that unit tests check it. */
#ifndef DRIVER_PLAN_H
#define DRIVER_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "schema.h"

struct driver_plan_in {
	/* SYSCALL_TABLE_SIZE bytes, nonzero = the syscall is captured; NULL: all */
	const uint8_t *syscalls;
	bool exit_only;		/* driver_config.exit_only */
	bool drop_failed;	/* driver_config.drop_failed */
	bool per_thread;	/* the per-thread kernel filter will be on */
	bool profile;		/* driver_config.profile is set */
	bool sock_compact;	/* driver_config.sock_compact, in effect */
};

struct driver_plan {
	/* event code -> its filler program (and continuation parts) can run */
	uint8_t fillers[PPM_EVENT_MAX];
	uint32_t nfillers;	/* events set in fillers */
	/* the dispatchers and scheduler programs */
	bool sys_enter, sys_exit, sys_exit_eo;
	bool close_enter;	/* exit-only capture's, on close's enter tracepoint */
	bool sched_exit, sched_exit_eo, sched_exec, sched_switch;
	/* profiling's scheduler programs (prof.bpf.c) */
	bool prof;
};

/* Fills P from IN. A captured syscall needs the fillers of its route's two
 * events, except an enter filler exit-only capture never runs (a UF_EO_SYNTH
 * route, whose enter event the reader rebuilds, unless drop_failed sends it
 * alone for a failed call). Generic events need none (the dispatchers build
 * them). Compact socket I/O (sock_compact) needs the SOCK_RECV_X and
 * SOCK_SEND_X fillers. sched_switch keeps the per-thread filter's fast path, and is needed
 * only with it. */
void driver_plan__build(struct driver_plan *p, const struct driver_plan_in *in);

/* Whether event CODE has a filler in the schema's sense: not a generic event
 * (codes 0 and 1), within the table. */
bool driver_plan__is_filler_event(uint32_t code);

#endif
