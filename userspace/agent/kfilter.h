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
	/* --requests: the calls that only make fds of files, pipes and the like
	 * are not loaded (only sockets' fds matter, and a server that opens a
	 * file per request would pay a frame for each) */
	bool requests;
	/* --tcp: only the calls that keep the thread table right (clone, exec,
	 * the credential calls) are loaded: a TCP record names its process by
	 * pid, no fd of it is read, and a connect storm would pay a frame for
	 * each socket, connect, accept and close */
	bool threads_only;
};

/* Before the driver loads: what filter FLT (NULL: everything) needs of it, the
 * syscalls it can match (plus those that keep the thread and fd tables right)
 * and, if its process tests are worth pushing, the per-thread part. NULL and
 * errno on failure (out of memory). */
struct agent_kf *agent_kf__plan(const struct filter *flt, const struct agent_kf_opts *o);
/* The syscalls the driver must load (driver_config.syscalls); NULL: all. */
const uint8_t *agent_kf__syscalls(const struct agent_kf *k);
/* Whether the per-thread part is planned (driver_config.per_thread). */
bool agent_kf__per_thread(const struct agent_kf *k);
/* Narrows what driver D, loaded as planned, sends; the threads IN knows (its
 * /proc scan) start with the results their known names and ids give, so a
 * thread renamed since is judged as userspace will. DESC gets one line saying
 * what was pushed and what stays in userspace. Returns whether the per-thread
 * part is on (errors leave the kernel sending more, never less, and are said
 * in DESC). */
bool agent_kf__start(struct agent_kf *k, struct driver *d, struct inspector *in, char *desc,
		     size_t size);
/* Off the per-event path, about every 100 ms: new cgroups, once a second. */
void agent_kf__tick(struct agent_kf *k, uint64_t now_ms);
void agent_kf__free(struct agent_kf *k);

#endif
