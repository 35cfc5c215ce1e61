/* What the agent pushes into the kernel from its filter: the syscalls it can
 * match and, per thread, the processes, users and containers (kfilter.c). */
#ifndef AGENT_KFILTER_H
#define AGENT_KFILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "filter.h"
#include "inspect.h"
#include "loader.h"

struct agent_kf;

struct agent_kf_opts {
	bool off;		/* --no-kernel-filter */
	bool syscalls_only;	/* -w: every process's state goes into the file */
	const char *host_root;	/* for the cgroup v2 hierarchy */
};

/* Narrows what driver D sends for filter FLT (NULL: everything); the threads IN
 * knows (its /proc scan) start with the results their known names and ids give,
 * so a thread renamed since is judged as userspace will. DESC gets one
 * line saying what was pushed and what stays in userspace. Returns the state
 * (NULL when nothing per thread was pushed; also on errors, which leave the
 * kernel sending more, never less, and are said in DESC). */
struct agent_kf *agent_kf__start(struct driver *d, const struct filter *flt,
				 struct inspector *in, const struct agent_kf_opts *o, char *desc,
				 size_t size);
/* Off the per-event path, about every 100 ms: new cgroups, once a second. */
void agent_kf__tick(struct agent_kf *k, uint64_t now_ms);
void agent_kf__free(struct agent_kf *k);

#endif
