/* The agent's counters, gathered in one snapshot, and the summary printed from
 * it on exit and on SIGUSR1: events and drops by reason, per CPU, per event
 * type and per output, so a drop is never silent. */
#ifndef AGENT_SUMMARY_H
#define AGENT_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "capture.h"
#include "container.h"
#include "options.h"
#include "output.h"
#include "pair.h"
#include "ppm_wire.h"
#include "req_mode.h"
#include "tls_watch.h"

struct agent_tally {
	uint64_t matched;	/* events that passed the filter */
	uint64_t malformed;	/* frames the parser rejected */
	uint64_t topo_errors;	/* --requests: records the metrics could not count */
};

/* Everything counted, at one moment. Gathered off the per-event path. */
struct topo;	/* topology/topo.h */

struct agent_counters {
	struct capture_stats cap;
	bool live;				/* cap has the driver's counters */
	uint64_t drops_by_type[PPM_EVENT_MAX];	/* kernel drops per event code */
	struct agent_tally tally;
	int n_outputs;
	const char *output_url[AGENT_MAX_OUTPUTS];
	struct output_stats out[AGENT_MAX_OUTPUTS];
	struct container_counters containers;
	bool have_containers;
	/* closes whose fd number another thread got before they returned
	 * (inspector_counters.n_close_reused) */
	uint64_t close_reused;
	/* clone exits naming their caller as the child (a damaged file):
	 * inspector_counters.n_clone_self */
	uint64_t clone_self;
	/* --requests: the pairing's counters and the request metrics (NULL
	 * without --requests) */
	bool have_pairing;
	struct pair_counters pairing;
	const struct topo *topo;
	/* --requests' TLS probes (have_tls): the library files probed */
	bool have_tls;
	struct tls_watch_counters tls;
	/* --profile: its counters (profile.on) */
	struct req_mode_profile profile;
};

/* Events that never reached the agent: the driver's drops by reason and the
 * records the ring reader found corrupt. */
uint64_t summary__dropped(const struct capture_cpu_stats *s);
/* Lines for output I's drops by reason, and all of them. */
uint64_t summary__output_dropped(const struct output_stats *o);
void summary__print(FILE *out, const struct agent_counters *c, const char *heading);
/* The containers seen and what their lookups found: a file that could not be
 * used is counted here, never silently. Nothing when no container was seen. */
void summary__containers(FILE *out, const struct container_counters *c);
/* --requests: what the pairing reported, and what it could not follow; from
 * CAP's totals what the kernel kept: the syscalls of quiet client ends
 * (drv_quiet), the closes of non-socket fds (drv_file_closes), TCP sockets' socket()
 * calls (drv_tcp_sockets), empty socket I/O (drv_sock_empty), peeks
 * (drv_peeks); and the recvmmsg and sendmmsg messages it did not send
 * (drv_mmsg_unsent). */
void summary__requests(FILE *out, const struct pair_counters *p,
			const struct capture_cpu_stats *cap);
/* --requests' TLS probes: the libraries probed, the calls read, and what
 * could not be: CAP's totals give the kernel's side. */
void summary__tls(FILE *out, const struct tls_watch_counters *t, const struct pair_counters *p,
		  const struct capture_cpu_stats *cap);
/* --profile: the threads followed and, with --requests (P not NULL), what
 * the breakdowns missed; KERNEL_FULL:
 * threads the driver's table had no room for (capture's drv_prof_full). */
void summary__profile(FILE *out, const struct req_mode_profile *pf, const struct pair_counters *p,
		      uint64_t kernel_full);

#endif
