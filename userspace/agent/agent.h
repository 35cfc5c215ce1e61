/* The running agent's state, shared by the files that wire its modes:
 * main.c (the order of things), start.c (a live capture), mode_file.c (-r),
 * mode_requests.c (--requests), loop.c (the event loop), emit.c (a line for
 * the outputs), counters.c (counters and metrics) and finish.c (the stop, the
 * flush and the summary). */
#ifndef AGENT_AGENT_H
#define AGENT_AGENT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "agent_metrics.h"
#include "capfile.h"
#include "capture.h"
#include "fields.h"
#include "filter.h"
#include "format.h"
#include "inspect.h"
#include "kfilter.h"
#include "options.h"
#include "profile_out.h"
#include "outputs.h"
#include "record.h"
#include "req_mode.h"
#include "sbuf.h"
#include "startup.h"
#include "summary.h"
#include "topo.h"

#define EXIT_USAGE 2
/* How long one wait for events may last, so -M deadlines are kept. */
#define WAIT_MS 100
/* After SIGINT/SIGTERM the outputs get at most this long to flush, so the agent
 * is gone within 1 s as orchestrators expect (then they send SIGKILL). */
#define STOP_FLUSH_MS 500
/* How often the metrics text is rebuilt. */
#define PUBLISH_MS 1000

struct agent {
	struct agent_opts o;
	struct filter *flt;
	struct format *fmt;
	struct capture *cap;
	struct inspector *in;
	struct field_ctx fctx;
	struct sbuf out;
	struct agent_tally tally;
	struct outputs outs;
	struct agent_metrics *metrics;	/* --metrics */
	struct agent_kf *kf;		/* what the kernel is told of the filter */
	struct startup *startup;	/* live: main to capturing, timed and watched */
	sigset_t wait_mask;		/* signals let in while waiting */
	bool signals_blocked;
	int stdout_err;			/* stdout's writer failed: stop */
	uint64_t next_tick_ts;		/* event time at which agent__tick runs again */
	uint64_t last_ts;		/* the last event's time (-r: the clock of ticks) */
	uint64_t next_publish_ms;
	struct agent_counters counters;	/* gathered at ticks and at the end */
	struct record rec;		/* -w */
	struct req_mode *req;		/* --requests */
	/* --requests' TLS probes: the libraries' watch while capturing, its
	 * counters kept once it stopped */
	struct tls_watch *tls;
	bool tls_on;
	struct tls_watch_counters tls_seen;
	struct filter *kplan;		/* --requests: what the kernel is planned from */
	struct topo *topo;		/* --requests with --metrics or --service-map, --tcp --metrics */
	struct prof_clock *prof;	/* --profile without --requests */
	struct profile_out *pout;	/* --profile-out */
	uint64_t prof_bad;		/* ... its CPU_SLICES events that did not decode */
	int req_err;			/* an output's error while emitting a record */
	struct capfile_error ferr;	/* -r: why the file could not be read on */
	bool reported;			/* the error was already told to the user */
};

static inline uint64_t agent__now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* start.c: the filter and format compiled, the outputs opened, then the
 * capture started (live, or -r through mode_file.c). */
const char *agent__format(const struct agent_opts *o);
int agent__compile(struct agent *a);
int agent__open_outputs(struct agent *a);
int agent__start(struct agent *a);

/* mode_file.c: -r. */
int agent__start_file(struct agent *a);

/* mode_plan.c: a mode's EVENTS (a filter expression) and the user's filter
 * as the filter the kernel is planned from (a->kplan); WHAT names the mode in
 * the error said. 0 or -EINVAL. */
int agent__mode_kplan(struct agent *a, const char *events, const char *what);

/* mode_requests.c: --requests. */
int agent__requests_plan(struct agent *a, struct capture_live_opts *lo);
int agent__requests_open(struct agent *a);
void agent__requests_quiet(struct agent *a);
void agent__requests_tls(struct agent *a);
void agent__requests_tls_stop(struct agent *a);
void agent__requests_describe(const struct agent *a);
void agent__requests_finish(struct agent *a);
void agent__write_map(struct agent *a);

/* --tcp's lines: a record per TCP connection, its JSON the raw numbers */
#define FORMAT_TCP_HEAD "*%evt.outputtime %tcp.side %proc.name (%proc.pid) %tcp.client -> " \
			"%tcp.server %tcp.outcome "
#define FORMAT_TCP FORMAT_TCP_HEAD "dur=%tcp.duration.human connect=%tcp.connect " \
		   "srtt=%tcp.srtt retrans=%tcp.retransmits rst_out=%tcp.resets.sent " \
		   "rst_in=%tcp.resets.received sent=%tcp.bytes.sent received=%tcp.bytes.received"
#define FORMAT_TCP_JSON FORMAT_TCP_HEAD "%tcp.duration %tcp.connect %tcp.srtt %tcp.retransmits " \
			"%tcp.resets.sent %tcp.resets.received %tcp.bytes.sent %tcp.bytes.received"

/* mode_tcp.c: --tcp, and TCP health's records under --requests --metrics. */
int agent__tcp_plan(struct agent *a, struct capture_live_opts *lo);
int agent__tcp_open(struct agent *a);
void agent__tcp_seed(struct agent *a);
int agent__tcp_event(struct agent *a, const struct ievt *ev, const struct capture_event *cev);

/* mode_profile.c: --profile without --requests (the plan live only). */
int agent__profile_plan(struct agent *a, struct capture_live_opts *lo);
int agent__profile_open(struct agent *a);
void agent__profile_event(struct agent *a, const struct ievt *ev);
void agent__profile_finish(struct agent *a);
void agent__profile_counters(const struct agent *a, struct req_mode_profile *out);

/* loop.c: events until a stop, -M, -n, the file's end or an error: 0 or
 * -errno. */
int agent__run(struct agent *a);
bool agent__count_only(const struct agent *a);

/* emit.c: an event or record as a line for the outputs. */
void agent__buffer_options(struct agent *a);
int agent__emit(struct agent *a, const struct ievt *ev);
bool agent__n_reached(const struct agent *a);

/* counters.c: the counters in one snapshot, and the metrics text. */
void agent__gather(struct agent *a);
void agent__publish_due(struct agent *a, uint64_t now, bool running);

/* finish.c: the end (STARTED: the summary is printed). */
int agent__finish(struct agent *a, bool started);

#endif
