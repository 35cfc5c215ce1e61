/* --requests: the events' socket I/O handed to the pairing (requests/pair.h),
 * and each completed request made into an event-like record that the filter,
 * the formats and the outputs take as they take events (req.* fields). */
#ifndef AGENT_REQ_MODE_H
#define AGENT_REQ_MODE_H

#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "inspect.h"
#include "pair.h"

/* The default line of a request record (-p overrides it): times and sizes
 * labelled, with their units; with -j the same fields, as raw numbers. */
#define FORMAT_REQUEST_HEAD "*%evt.outputtime %req.side %req.protocol %proc.name (%thread.tid) " \
			    "%req.client -> %req.server %req.method %req.path %req.status "
#define FORMAT_REQUEST FORMAT_REQUEST_HEAD "dur=%req.duration.human ttfb=%req.ttfb.human " \
		       "in=%req.bytes_in.human out=%req.bytes_out.human"
#define FORMAT_REQUEST_JSON FORMAT_REQUEST_HEAD "%req.duration %req.ttfb %req.bytes_in %req.bytes_out " \
			    "%req.tls %req.sni %tcp.retransmits %tcp.srtt"

/* The syscalls request mode needs, as a filter the kernel plan reads: socket
 * I/O (the plan adds the calls that keep the thread and fd tables right). */
#define REQ_MODE_SYSCALLS "evt.type in (read, write, readv, writev, send, sendto, recv, " \
			  "recvfrom, sendmsg, recvmsg, recvmmsg, sendmmsg, sendfile)"

/* Bytes of I/O buffers captured in request mode unless -s says: enough for an
 * HTTP request's head and a pipelined batch of small Redis commands. */
#define REQ_MODE_SNAPLEN 2048
/* ... and of an HTTP/2 connection's (driver_config.h2_snaplen): the most an
 * event holds beside its other params */
#define REQ_MODE_H2_SNAPLEN H2_SNAPLEN_MAX

struct req_mode;

/* Records go to EMIT with the event they were made into (valid during the
 * call), or with NULL for EV when NO_EVENT is set (nothing filters or prints
 * records: metrics only), which saves the thread lookups and walks a
 * connection seen from both sides on its server's side only (the metrics
 * count such a request from there). NULL and errno on failure. */
typedef void req_mode_emit_fn(void *ctx, const struct req_record *r, const struct ievt *ev);
struct req_mode *req_mode__new(struct inspector *in, uint64_t timeout_ns, bool no_event,
			       req_mode_emit_fn *emit, void *ctx);
void req_mode__free(struct req_mode *m);
/* Live, exit-only capture, NO_EVENT: the client ends the pairing leaves to
 * their server's side keep their socket I/O in driver D's kernel filter
 * (driver__sock_quiet). NULL: no more (before D is closed). */
struct driver;
void req_mode__set_driver(struct req_mode *m, struct driver *d);

/* One parsed event: socket I/O, closes and new fds go to the pairing;
 * timeouts are looked at once a second of event time. */
void req_mode__event(struct req_mode *m, const struct ievt *ev);
/* Off the per-event path (the agent's ticks, about every 100 ms): when no
 * event came for a while, timeouts are looked at by the clock (NOW_NS, ns
 * since the epoch, as event times are), so a request nobody answers on an
 * idle host is still reported. */
void req_mode__tick(struct req_mode *m, uint64_t now_ns);
/* At the end: answered requests still held are reported. */
void req_mode__finish(struct req_mode *m);
void req_mode__counters(const struct req_mode *m, struct pair_counters *c);

/* --profile: server records get their thread's CPU breakdown, from the
 * driver's CPU_SLICES events (the driver follows the threads whose events
 * it sends). 0 or -ENOMEM. */
int req_mode__profile(struct req_mode *m);
/* Live profiling's driver (NULL: none, or a file's events): told of the
 * threads let go, whose requests are a client's only, and of those that
 * serve after (prof_clock__role). */
void req_mode__profile_driver(struct req_mode *m, struct driver *d);
struct req_mode_profile {
	bool on;
	uint64_t n_bad_batches;		/* CPU_SLICES events that did not decode */
	uint64_t n_let_go_failed;	/* the driver could not be told (on_role) */
	struct prof_clock_counters clock;
};
void req_mode__profile_counters(const struct req_mode *m, struct req_mode_profile *out);
/* --profile-out: each followed thread's recent slices kept too (after
 * req_mode__profile), for slow requests' timelines. 0, -EINVAL or -ENOMEM. */
int req_mode__profile_recent(struct req_mode *m);
struct prof_recent;
const struct prof_recent *req_mode__recent(const struct req_mode *m);	/* NULL: none */
/* --profile-hz with --profile-out: CPU_SAMPLE events' stacks counted in S
 * (the caller's; NULL: none). */
struct prof_stacks;
void req_mode__profile_stacks(struct req_mode *m, struct prof_stacks *s);

#endif
