/* The agent's signals: SIGINT/SIGTERM stop, SIGHUP reopens file outputs,
 * SIGUSR1 asks for the counters. Handlers only set flags; the main loop acts. */
#ifndef AGENT_SIGNALS_H
#define AGENT_SIGNALS_H

#include <signal.h>
#include <stdbool.h>

extern volatile sig_atomic_t signals_stop;	/* the signal that asked to stop, or 0 */
extern volatile sig_atomic_t signals_hup;
extern volatile sig_atomic_t signals_usr1;

/* Installs the handlers. With BLOCK, the four are blocked except while the
 * capture waits (WAIT_MASK, for capture__set_sigmask) and at signals__poll, so
 * a signal never slips in between a check of the flags and a wait. SIGPIPE is
 * ignored: a closed pipe shows up as EPIPE from write. */
void signals__setup(sigset_t *wait_mask, bool block);
/* Lets pending signals in (their handlers run now). For a busy capture that
 * never waits; two syscalls, so call it at ticks, not per event. */
void signals__poll(const sigset_t *wait_mask);

#endif
