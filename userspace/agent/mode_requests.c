/* --requests: what the kernel is asked for, the pairing and the topology set
 * up, each completed request filtered and emitted like an event, and what
 * the pairing still holds sent at the end. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "agent.h"
#include "say.h"

/* The kernel loads socket I/O and the calls that keep the tables right (plus
 * the filter's per-process tests), keeps only socket I/O of IPv4 and IPv6
 * sockets, and captures enough of each buffer for the protocols' headers. */
int agent__requests_plan(struct agent *a, struct capture_live_opts *lo)
{
	int err = agent__mode_kplan(a, REQ_MODE_SYSCALLS, "request mode");

	if (err)
		return err;
	if (!a->o.snaplen_given) {
		lo->snaplen = REQ_MODE_SNAPLEN;
		lo->snaplen_given = true;
	}
	lo->sock_families = (1u << PPM_AF_INET) | (1u << PPM_AF_INET6);
	/* a TCP socket's reads and writes as one compact event each, where no
	 * capture file is to keep sysdig's events */
	lo->sock_compact = !a->o.write_file;
	/* the opens of files are not sent (kfilter.c): nor their closes */
	lo->file_closes = true;
	/* TLS plaintext from the libraries' calls, where capture is exit-only */
	lo->tls = !a->o.no_tls;
	/* HTTP/2 connections whole, so that no header block is cut (the
	 * most the driver takes, whatever -s says) */
	lo->h2_snaplen = REQ_MODE_H2_SNAPLEN;
	/* TCP health for the metrics (agent_tcp_*), unless --no-tcp */
	lo->tcp = (a->o.metrics || a->o.service_map) && !a->o.no_tcp;
	/* the threads whose socket I/O is sent: those that serve requests */
	if (a->o.profile)
		lo->profile = PROF_FOLLOW_SENT;
	/* stacks, and the names of the files waited on, only where something
	 * reads them: --profile-out */
	if (a->o.profile_out) {
		lo->profile_hz = a->o.profile_hz >= 0 ? (uint32_t)a->o.profile_hz : PROFILE_HZ;
		lo->profile_names = true;
	}
	return 0;
}

/* A completed request: filtered, counted and emitted like an event. */
static void agent__on_request(void *ctx, const struct req_record *r, const struct ievt *ev)
{
	struct agent *a = ctx;
	bool matched;
	int err;

	if (a->req_err || agent__n_reached(a))
		return;
	a->fctx.req = r;
	matched = !ev || !a->flt || filter__match(a->flt, ev, &a->fctx);
	/* every client record: a slow parent's calls need not be the filter's */
	if (a->pout)
		profile_out__record(a->pout, a, r, matched);
	if (matched) {
		a->tally.matched++;
		if (a->topo && topo__add(a->topo, r))
			a->tally.topo_errors++;
		if (a->outs.n && (err = agent__emit(a, ev)))
			a->req_err = err;
	}
	a->fctx.req = NULL;
}

/* The pairing, and the topology when --metrics or --service-map reads it;
 * once the process tables exist. */
int agent__requests_open(struct agent *a)
{
	if (a->o.metrics || a->o.service_map) {
		a->topo = topo__new(NULL);
		if (!a->topo) {
			agent__say("cannot set up the request metrics: %s", strerror(errno));
			return -errno;
		}
		topo__set_profile(a->topo, a->o.profile);
	}
	/* -q --metrics: records only counted, no event made of them */
	a->req = req_mode__new(a->in, a->o.request_timeout_ns, !a->flt && !a->outs.n,
			       agent__on_request, a);
	if (!a->req) {
		agent__say("cannot set up the request pairing: %s", strerror(errno));
		return -errno;
	}
	if (a->o.profile && req_mode__profile(a->req)) {
		agent__say("cannot set up profiling: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	if (a->o.profile_out) {
		uint64_t thr[REQ_PROTO_MAX];
		char err[256];

		/* checked by options__parse already */
		profile_out__thresholds(a->o.profile_threshold, thr, err, sizeof(err));
		if (req_mode__profile_recent(a->req)) {
			agent__say("cannot set up profiling's timelines: %s", strerror(ENOMEM));
			return -ENOMEM;
		}
		a->pout = profile_out__new(a->o.profile_out, thr);
		if (!a->pout) {
			agent__say("--profile-out %s: %s", a->o.profile_out, strerror(errno));
			return -errno;
		}
		/* the stacks are the kernel's: none from -r's file */
		if (a->o.profile_hz && !a->o.read_file && profile_out__stacks(a->pout, a)) {
			agent__say("cannot set up profiling's stacks: %s", strerror(ENOMEM));
			return -ENOMEM;
		}
		req_mode__profile_stacks(a->req, profile_out__stack_table(a->pout));
	}
	return 0;
}

/* Metrics only, live, exit-only capture, no -w (which keeps every event):
 * the client ends the pairing leaves to their server's side keep their I/O
 * in the kernel (req_mode.h). Live profiling: the threads let go too. */
void agent__requests_quiet(struct agent *a)
{
	struct capture_stats st;

	if (a->req && !a->o.write_file && capture__driver(a->cap) && !capture__stats(a->cap, &st) &&
	    st.exit_only)
		req_mode__set_driver(a->req, capture__driver(a->cap));
	/* live profiling: the threads let go are the kernel's to pass over */
	if (a->req && a->o.profile)
		req_mode__profile_driver(a->req, capture__driver(a->cap));
}

/* Live, with the TLS probes loaded: onto the TLS libraries processes map,
 * now and as they appear. */
void agent__requests_tls(struct agent *a)
{
	struct capture_stats st;
	struct driver *d = capture__driver(a->cap);

	if (!a->req || !d || capture__stats(a->cap, &st) || !st.tls)
		return;
	a->tls = tls_watch__start(d, "/proc");
	if (!a->tls) {
		agent__say("cannot watch for TLS libraries: %s", strerror(errno));
		return;
	}
	a->tls_on = true;
}

/* Before the driver detaches: the watch stops, its counters kept. */
void agent__requests_tls_stop(struct agent *a)
{
	if (!a->tls)
		return;
	tls_watch__counters(a->tls, &a->tls_seen);
	tls_watch__stop(a->tls);
	a->tls = NULL;
}

/* -v: what request mode keeps. */
void agent__requests_describe(const struct agent *a)
{
	if (a->tls) {
		struct tls_watch_counters t;

		tls_watch__counters(a->tls, &t);
		agent__say("TLS probes on %" PRIu64 " library files and %" PRIu64 " Go programs (%"
			   PRIu64 " could not be probed), processes' maps and executables read "
			   "again every %u ms", t.libs.files - t.libs.go_files, t.libs.go_files,
			   t.attach_failed, TLS_WATCH_MS);
	}
	if (a->req)
		agent__say("request mode: only IPv4 and IPv6 socket I/O leaves the kernel, %u "
			   "bytes of each buffer (%u of an HTTP/2 connection's); up to %u "
			   "connections followed, %u requests in flight on each, unanswered "
			   "ones time out after %.3f s",
			   a->o.snaplen_given ? a->o.snaplen : REQ_MODE_SNAPLEN,
			   REQ_MODE_H2_SNAPLEN, PAIR_MAX_CONNS,
			   PAIR_PIPELINE_MAX, (a->o.request_timeout_ns ? a->o.request_timeout_ns :
					   PAIR_TIMEOUT_NS) / 1e9);
}

/* --service-map: the topology so far, as FILE (JSON) and its .dot. */
void agent__write_map(struct agent *a)
{
	int err;

	if (!a->topo || !a->o.service_map)
		return;
	if ((err = topo__write_map(a->topo, a->o.service_map)))
		agent__say("cannot write the service map %s: %s", a->o.service_map,
			   strerror(-err));
}

/* Once capture stopped: what the pairing still held goes out, and the
 * summary's counts include it. The kernel's quiet ends go with the driver. */
void agent__requests_finish(struct agent *a)
{
	if (!a->req)
		return;
	req_mode__set_driver(a->req, NULL);
	req_mode__profile_driver(a->req, NULL);
	req_mode__finish(a->req);
	req_mode__counters(a->req, &a->counters.pairing);
	agent__write_map(a);
}
