/* Live tests and a kernel whose BPF loader hangs: a task stuck in it cannot be
 * killed, and every later load hangs too until a reboot. The test that sees it
 * says so plainly and fails; the tests after it fail at once, pointing at it
 * (a mark for this boot, shared with tests/e2e/lib.sh). */
#ifndef LIVE_LOAD_WATCH_H
#define LIVE_LOAD_WATCH_H

#include <stdbool.h>

#include "loader.h"

/* The mark: this boot's id on its first line, what was seen on the second. */
#define LOAD_WATCH_MARK "/run/agent-tests-bpf-hung"
/* How long a driver__load may take before it is called hung. */
#define LOAD_WATCH_BOUND_S 60

/* driver__load(D); if it has not returned after LOAD_WATCH_BOUND_S, says so on
 * stderr with the loading thread's kernel stack and dmesg's hung-task lines,
 * leaves the mark when that thread sits in the kernel's BPF code in state D,
 * and ends the process with 1. */
int load_watch__load(struct driver *d);
/* Whether an earlier test of this boot left the mark; if so, says so. */
bool load_watch__hung_before(void);

#endif
