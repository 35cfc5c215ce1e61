/* agent: capture system calls with eBPF, filter them, print text or JSON lines. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent_metrics.h"
#include "capfile.h"
#include "capture.h"
#include "filter.h"
#include "format.h"
#include "inspect.h"
#include "kfilter.h"
#include "loader.h"
#include "options.h"
#include "outputs.h"
#include "preflight.h"
#include "record.h"
#include "req_mode.h"
#include "topo.h"
#include "say.h"
#include "sbuf.h"
#include "schema.h"
#include "signals.h"
#include "startup.h"
#include "summary.h"

#define EXIT_USAGE 2
/* How long one wait for events may last, so -M deadlines are kept. */
#define WAIT_MS 100
/* After SIGINT/SIGTERM the outputs get at most this long to flush, so the agent
 * is gone within 1 s as orchestrators expect (then they send SIGKILL). */
#define STOP_FLUSH_MS 500
/* How often the metrics text is rebuilt. */
#define PUBLISH_MS 1000

static uint64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

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
	uint64_t next_publish_ms;
	struct agent_counters counters;	/* gathered at ticks and at the end */
	struct record rec;		/* -w */
	struct req_mode *req;		/* --requests */
	struct filter *kplan;		/* --requests: what the kernel is planned from */
	struct topo *topo;		/* --requests with --metrics or --service-map */
	int req_err;			/* an output's error while emitting a record */
	struct capfile_error ferr;	/* -r: why the file could not be read on */
	bool reported;			/* the error was already told to the user */
};

/* Everything counted so far, off the per-event path (a few syscalls). */
static void agent__gather(struct agent *a)
{
	struct agent_counters *c = &a->counters;
	struct driver *d;

	if (a->cap) {
		capture__stats(a->cap, &c->cap);
		d = capture__driver(a->cap);
		c->live = d != NULL;
		if (d && summary__dropped(&c->cap.total))
			driver__drops_by_type(d, c->drops_by_type, PPM_EVENT_MAX);
	}
	c->tally = a->tally;
	c->n_outputs = a->outs.n;
	for (int i = 0; i < a->outs.n; i++)
		c->output_url[i] = a->outs.url[i];
	outputs__stats(&a->outs, c->out);
	if (a->in) {
		container_table__counters(inspector__containers(a->in), &c->containers);
		c->have_containers = true;
	}
	if (a->req) {
		req_mode__counters(a->req, &c->pairing);
		c->have_pairing = true;
		c->topo = a->topo;
	}
}

static int agent__emit(struct agent *a, const struct ievt *ev)
{
	int err;

	sbuf__reset(&a->out);
	err = a->o.json ? format__json(a->fmt, ev, &a->fctx, &a->out)
			: format__text(a->fmt, ev, &a->fctx, &a->out);
	if (err == -ENOENT)
		return 0;	/* a field the format needs is absent: sysdig skips it */
	if (err)
		return err;
	outputs__push(&a->outs, a->out.buf, a->out.len, ev->ts);
	return 0;
}

/* Every 100 ms (of waiting or of event time): signals a busy capture never
 * waited for, a stdout that failed, the outputs' partial batches, metrics. */
/* The metrics text, rebuilt at most every PUBLISH_MS. */
static void agent__publish_due(struct agent *a, uint64_t now, bool running)
{
	if (!a->metrics || now < a->next_publish_ms)
		return;
	a->next_publish_ms = now + PUBLISH_MS;
	agent__gather(a);
	agent_metrics__publish(a->metrics, &a->counters, running);
}

/* --service-map: the topology so far, as FILE (JSON) and its .dot. */
static void agent__write_map(struct agent *a)
{
	int err;

	if (!a->topo || !a->o.service_map)
		return;
	if ((err = topo__write_map(a->topo, a->o.service_map)))
		agent__say("cannot write the service map %s: %s", a->o.service_map,
			   strerror(-err));
}

static void agent__tick(struct agent *a)
{
	agent_kf__tick(a->kf, monotonic_ms());
	if (a->signals_blocked)
		signals__poll(&a->wait_mask);
	if (signals_hup) {
		signals_hup = 0;
		outputs__reopen(&a->outs);
	}
	if (signals_usr1) {
		signals_usr1 = 0;
		agent__gather(a);
		summary__print(stderr, &a->counters, "counters now: ");
		agent__write_map(a);
	}
	outputs__kick(&a->outs);
	a->stdout_err = outputs__stdout_error(&a->outs);
	if (a->req) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		req_mode__tick(a->req, (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
	}
	if (a->metrics)
		agent__publish_due(a, monotonic_ms(), true);
}

/* The -M deadline, or 0 for none (also when it would not fit: never wrap). */
static uint64_t agent__deadline(const struct agent *a)
{
	uint64_t now = monotonic_ms();

	if (!a->o.max_seconds || a->o.max_seconds > (UINT64_MAX - now) / 1000)
		return 0;
	return now + a->o.max_seconds * 1000;
}

/* Also on a busy system, where events that never match keep the wait from
 * running dry: a tick every 100 ms of event time TS (no clock read). */
static void agent__tick_at(struct agent *a, uint64_t ts)
{
	if (ts < a->next_tick_ts)
		return;
	if (a->next_tick_ts)
		agent__tick(a);
	a->next_tick_ts = ts + WAIT_MS * 1000000ull;
}

/* Whether nothing reads the parser's tables: live, no filter, no event leaves
 * the agent (-q, no -w or --output) and no metrics. Events are then checked
 * and counted, not parsed: the summary says the same, for a fraction of the
 * time per event. */
static bool agent__count_only(const struct agent *a)
{
	return !a->o.read_file && !a->flt && !a->outs.n && !record__active(&a->rec) &&
	       !a->metrics && !a->o.requests;
}

/* One event of a count-only run. */
static void agent__count(struct agent *a, const struct capture_event *cev)
{
	struct ppm_evt_hdr h;

	if (!cev->frame || (!(cev->flags & CAPTURE_EVF_REBUILT) &&
			    schema__validate(cev->frame, cev->len) < 0)) {
		a->tally.malformed++;
		return;
	}
	memcpy(&h, cev->frame, sizeof(h));
	agent__tick_at(a, h.ts);
	if (h.type != PPME_PROCINFO_E)
		a->tally.matched++;
}

/* Whether -n is reached. */
static bool agent__n_reached(const struct agent *a)
{
	return a->o.max_events && a->tally.matched >= a->o.max_events;
}

/* One event: counted, or parsed, filtered, written and emitted. 0, 1 once -n is
 * reached, or -errno. */
static int agent__event(struct agent *a, const struct capture_event *cev, bool count_only)
{
	struct ievt ev;
	int err;

	if (count_only) {
		agent__count(a, cev);
		return agent__n_reached(a);
	}
	if (inspector__process(a->in, cev, &ev)) {
		a->tally.malformed++;
		return 0;
	}
	/* A filtered -w file's state-only event: it kept the tables right;
	 * nobody is shown it, and a further -w keeps it as it was. */
	if (cev->flags & CAPTURE_EVF_STATE_ONLY) {
		if ((err = record__keep_state(&a->rec, cev)))
			a->reported = true;
		return err;
	}
	agent__tick_at(a, ev.ts);
	/* Old drivers' per-process CPU samples: internal, sysdig never shows them. */
	if (ev.type == PPME_PROCINFO_E)
		return 0;
	/* --requests: the events make records (agent__on_request), not lines */
	if (a->req) {
		req_mode__event(a->req, &ev);
		err = a->req_err;
		return err ? err : agent__n_reached(a);
	}
	if (a->flt && !filter__match(a->flt, &ev, &a->fctx)) {
		if ((err = record__filtered(&a->rec, ev.type, cev)))
			a->reported = true;
		return err;
	}
	a->tally.matched++;
	if ((err = record__event(&a->rec, &ev, cev))) {
		a->reported = true;
		return err;
	}
	if (a->outs.n && (err = agent__emit(a, &ev)))
		return err;
	return agent__n_reached(a);
}

/* A completed request: filtered, counted and emitted like an event. */
static void agent__on_request(void *ctx, const struct req_record *r, const struct ievt *ev)
{
	struct agent *a = ctx;
	int err;

	if (a->req_err || agent__n_reached(a))
		return;
	a->fctx.req = r;
	if (!ev || !a->flt || filter__match(a->flt, ev, &a->fctx)) {
		a->tally.matched++;
		if (a->topo && topo__add(a->topo, r))
			a->tally.topo_errors++;
		if (a->outs.n && (err = agent__emit(a, ev)))
			a->req_err = err;
	}
	a->fctx.req = NULL;
}

/* After a signal or -M: what the rings still hold was captured before the stop,
 * so it is handed on too (the driver is detached first), up to -n. */
static int agent__drain(struct agent *a, bool count_only)
{
	struct capture_event cev;
	int err;

	if (!a->cap || capture__stop(a->cap))
		return 0;
	while (!a->stdout_err && capture__next(a->cap, &cev, 0) == 0) {
		err = agent__event(a, &cev, count_only);
		if (err)
			return err < 0 ? err : 0;
	}
	return 0;
}

static int agent__run(struct agent *a)
{
	uint64_t deadline = agent__deadline(a);
	bool count_only = agent__count_only(a);
	struct capture_event cev;
	uint32_t since_clock = 0;
	int err;

	capture__set_sigmask(a->cap, &a->wait_mask);
	while (!signals_stop && !a->stdout_err) {
		/* -M: the clock is read whenever the rings run dry and every 256
		 * events while they do not (a vDSO call costs more than counting
		 * an event) */
		err = capture__next(a->cap, &cev, 0);
		if (err == -EAGAIN) {
			if (deadline && monotonic_ms() >= deadline)
				break;
			err = capture__next(a->cap, &cev, WAIT_MS);
		}
		if (err == -EAGAIN) {
			agent__tick(a);
			continue;
		}
		if (err == -EINTR)
			continue;
		if (err == -ENODATA)
			return 0;
		if (err) {
			if (a->o.read_file && a->ferr.msg[0]) {
				agent__say("%s", a->ferr.msg);
				a->reported = true;
			}
			return err;
		}
		err = agent__event(a, &cev, count_only);
		if (err)
			return err < 0 ? err : 0;
		if (deadline && !(++since_clock & 255) && monotonic_ms() >= deadline)
			break;
	}
	return a->stdout_err ? 0 : agent__drain(a, count_only);
}

/* The -p format, else the default line: a request's with --requests (its
 * JSON keeps the raw numbers of the text's labelled amounts). */
static const char *agent__format(const struct agent_opts *o)
{
	if (o->format)
		return o->format;
	if (o->requests)
		return o->json ? FORMAT_REQUEST_JSON : FORMAT_REQUEST;
	return FORMAT_DEFAULT;
}

static int agent__compile(struct agent *a)
{
	struct filter_error ferr = { 0 };

	if (a->o.filter) {
		a->flt = filter__compile(a->o.filter, &ferr);
		if (!a->flt) {
			agent__say("bad filter: %s", ferr.msg);
			return -EINVAL;
		}
		if (filter__names_open_without_openat(a->flt))
			agent__say("warning: the filter names 'open' but not 'openat'; glibc opens "
				   "files with openat, so use 'evt.type in (open, openat)' to see them");
	}
	a->fmt = format__compile(agent__format(&a->o), &ferr);
	if (!a->fmt) {
		agent__say("bad output format: %s", ferr.msg);
		return -EINVAL;
	}
	return 0;
}

/* sysdig's buffer printing: cut at 80 characters unless -v or JSON output, in
 * one of the -A/-x/-X/-b forms. */
static void agent__buffer_options(struct agent *a)
{
	if (a->o.verbose || a->o.json)
		a->fctx.buf_limit = 0;
	switch (a->o.buf_format) {
	case 'A': a->fctx.buf_format = BUF_ASCII; break;
	case 'x': a->fctx.buf_format = BUF_HEX; break;
	case 'X': a->fctx.buf_format = BUF_HEXASCII; break;
	case 'b': a->fctx.buf_format = BUF_BASE64; break;
	}
}

/* -r: replay a capture file. Its tids are not this host's, so /proc is never read. */
static int agent__start_file(struct agent *a)
{
	struct inspector_opts io = { .no_proc_scan = true, .no_proc_lookup = true };
	struct capfile_import imp;

	a->in = inspector__new(&io);
	if (!a->in) {
		agent__say("cannot set up the process tables: %s", strerror(errno));
		return -errno;
	}
	field_ctx__init(&a->fctx, inspector__threads(a->in));
	agent__buffer_options(a);
	a->cap = capture__open_file_state(a->o.read_file, &a->ferr, a->in, &imp);
	if (!a->cap) {
		int err = -errno;

		agent__say("%s", a->ferr.msg);
		return err;
	}
	if (imp.n_capped)
		agent__say("warning: %s lists more processes, fds and containers "
			"than the reader keeps (%llu MiB of state, %u entries per list): %" PRIu64
			" entries skipped, their events show fewer names", a->o.read_file,
			CAPFILE_STATE_MAX_MIB, CAPFILE_LIST_ENTRIES_MAX, imp.n_capped);
	if (a->o.verbose)
		agent__say("reading %s: %" PRIu64 " threads and %" PRIu64 " fds "
			"from its lists (%" PRIu64 " malformed list blocks skipped), %" PRIu64
			" containers", a->o.read_file, imp.n_threads, imp.n_fds, imp.n_bad_lists,
			imp.n_containers);
	return 0;
}

/* Exit-only capture times enter events with their exit (README, "Capture
 * modes"): the default only where no event leaves the agent, so nobody can
 * tell; --exit-only and --no-exit-only decide otherwise. */
static bool agent__exit_only(const struct agent_opts *o)
{
	if (o->exit_only >= 0)
		return o->exit_only;
	/* request records are timed from exits (README, "Requests") */
	if (o->requests)
		return true;
	return o->quiet && !o->n_outputs && !o->write_file;
}

static bool agent__perf_rings(const struct agent *a)
{
	return capture__engine(a->o.engine) == CAPTURE_ENGINE_PERF;
}

/* A capture start-up step begins: timed and watched (startup.h). */
static void agent__on_step(void *arg, enum capture_step step)
{
	static const enum startup_step of[] = {
		[CAPTURE_STEP_OPEN] = STARTUP_BPF_OPEN,
		[CAPTURE_STEP_LOAD] = STARTUP_BPF_LOAD,
		[CAPTURE_STEP_RINGS] = STARTUP_RINGS,
		[CAPTURE_STEP_ATTACH] = STARTUP_ATTACH,
	};

	startup__step(arg, of[step]);
}

/* The bound after which a start-up step that has not ended is told:
 * AGENT_START_WARN_SECS (0: never), else STARTUP_WARN_SECS. */
static uint64_t agent__start_warn_ms(void)
{
	const char *v = getenv("AGENT_START_WARN_SECS");
	char *end;
	double secs;

	if (!v || !*v)
		return STARTUP_WARN_SECS * 1000ull;
	secs = strtod(v, &end);
	if (*end || secs < 0 || secs > 86400)
		return STARTUP_WARN_SECS * 1000ull;
	return (uint64_t)(secs * 1000);
}

/* -v: what was loaded and how long each step took. */
static void agent__report_start(struct agent *a, const char *kf_desc)
{
	struct driver *d = capture__driver(a->cap);
	struct driver_load_info li;
	struct capture_stats st;
	char split[512];

	capture__stats(a->cap, &st);
	agent__say("capturing on %u CPUs (ring mode %s), %s", st.ncpus,
		st.mode ? st.mode : "?",
		!st.exit_only ? "enter and exit events from sys_enter and sys_exit" :
		a->o.exit_only > 0 ? "exit-only (--exit-only)" :
		"exit-only (no event leaves the agent)");
	if (d && !driver__load_info(d, &li, false))
		agent__say("loaded %u of %u BPF programs (%u fillers, for %s) in "
			"%.1f ms", li.programs, li.programs_total, li.fillers,
			agent_kf__syscalls(a->kf) ? "the filter's syscalls" : "every syscall",
			(double)li.load_ns / 1e6);
	startup__describe(a->startup, split, sizeof(split));
	agent__say("started: %s", split);
	agent__say("kernel filter: %s; in userspace: %s", kf_desc,
		   a->o.filter ? a->o.filter : "nothing");
	if (agent__count_only(a))
		agent__say("no filter, output, -w or metrics: events are "
			"checked and counted, not parsed");
	if (a->req)
		agent__say("request mode: only IPv4 and IPv6 socket I/O leaves the kernel, %u "
			   "bytes of each buffer; up to %u connections followed, %u requests "
			   "in flight on each, unanswered ones time out after %.3f s",
			   a->o.snaplen_given ? a->o.snaplen : REQ_MODE_SNAPLEN, PAIR_MAX_CONNS,
			   PAIR_PIPELINE, (a->o.request_timeout_ns ? a->o.request_timeout_ns :
					   PAIR_TIMEOUT_NS) / 1e9);
}

/* --requests: the kernel loads socket I/O and the calls that keep the
 * tables right (plus the filter's per-process tests), keeps only socket I/O
 * of IPv4 and IPv6 sockets, and captures enough of each buffer for the
 * protocols' headers. */
static int agent__request_mode(struct agent *a, struct capture_live_opts *lo)
{
	struct filter_error ferr = { 0 };
	struct sbuf expr;

	sbuf__init(&expr);
	sbuf__append(&expr, REQ_MODE_SYSCALLS, strlen(REQ_MODE_SYSCALLS));
	if (a->o.filter) {
		sbuf__append(&expr, " and (", 6);
		sbuf__append(&expr, a->o.filter, strlen(a->o.filter));
		sbuf__append(&expr, ")", 2);	/* with the NUL */
	} else {
		sbuf__append(&expr, "", 1);
	}
	a->kplan = expr.err ? NULL : filter__compile(expr.buf, &ferr);
	sbuf__free(&expr);
	if (!a->kplan) {
		agent__say("cannot plan request mode's kernel filter: %s",
			   ferr.msg[0] ? ferr.msg : strerror(ENOMEM));
		return -EINVAL;
	}
	if (!a->o.snaplen_given) {
		lo->snaplen = REQ_MODE_SNAPLEN;
		lo->snaplen_given = true;
	}
	lo->sock_families = (1u << PPM_AF_INET) | (1u << PPM_AF_INET6);
	return 0;
}

/* Metrics only, live, exit-only capture: the client ends the pairing leaves
 * to their server's side keep their I/O in the kernel (req_mode.h). */
static void agent__quiet_in_kernel(struct agent *a)
{
	struct capture_stats st;

	if (a->req && capture__driver(a->cap) && !capture__stats(a->cap, &st) && st.exit_only)
		req_mode__set_driver(a->req, capture__driver(a->cap));
}

static int agent__start(struct agent *a)
{
	struct agent_kf_opts ko = { .off = a->o.no_kernel_filter,
				    .syscalls_only = a->o.write_file != NULL,
				    .host_root = getenv("HOST_ROOT"),
				    .requests = a->o.requests };
	struct capture_live_opts lo = {
		.ring_pages = a->o.ring_pages,
		.snaplen = a->o.snaplen,
		.snaplen_given = a->o.snaplen_given,
		.drop_failed = a->o.drop_failed,
		.exit_only = agent__exit_only(&a->o),
		.exit_only_optional = a->o.exit_only < 0,
		.engine = a->o.engine,
		.paused = true,	/* on once the kernel filter is set */
		.on_step = agent__on_step,
	};
	/* the scan below, timed as its own step */
	struct inspector_opts io = { .no_proc_scan = true };
	char msg[512];
	int err;

	if (a->o.read_file)
		return agent__start_file(a) ?: record__open(&a->rec, &a->o) ?:
		       record__start(&a->rec, a->in);
	if ((err = preflight__check(a->o.ring_pages, agent__perf_rings(a), msg, sizeof(msg)))) {
		agent__say("%s", msg);
		return err;
	}
	/* What the driver must load follows from the filter: planned first. */
	if (a->o.requests && (err = agent__request_mode(a, &lo)))
		return err;
	a->kf = agent_kf__plan(a->o.requests ? a->kplan : a->flt, &ko);
	if (!a->kf) {
		agent__say("cannot plan the kernel filter: %s", strerror(errno));
		return -errno;
	}
	if ((err = startup__watch(a->startup, agent__start_warn_ms())))
		agent__say("warning: no start-up watchdog: %s", strerror(-err));
	if ((err = record__open(&a->rec, &a->o)))
		return err;
	a->in = inspector__new(&io);
	if (!a->in) {
		agent__say("cannot set up the process tables: %s", strerror(errno));
		return -errno;
	}
	/* Scan /proc before capturing so every thread the first events name is known. */
	startup__step(a->startup, STARTUP_PROC);
	if (inspector__scan_proc(a->in) < 0 && a->o.verbose)
		agent__say("warning: the /proc scan stopped early: %s", strerror(errno));
	if ((err = record__start(&a->rec, a->in)))
		return err;
	field_ctx__init(&a->fctx, inspector__threads(a->in));
	agent__buffer_options(a);
	if (a->o.requests && (a->o.metrics || a->o.service_map)) {
		a->topo = topo__new(NULL);
		if (!a->topo) {
			agent__say("cannot set up the request metrics: %s", strerror(errno));
			return -errno;
		}
	}
	if (a->o.requests) {
		/* -q --metrics: records only counted, no event made of them */
		a->req = req_mode__new(a->in, a->o.request_timeout_ns, !a->flt && !a->outs.n,
				       agent__on_request, a);
		if (!a->req) {
			agent__say("cannot set up the request pairing: %s", strerror(errno));
			return -errno;
		}
	}
	lo.syscalls = agent_kf__syscalls(a->kf);
	lo.per_thread = agent_kf__per_thread(a->kf);
	lo.step_arg = a->startup;
	a->cap = capture__open_live(&lo);
	if (!a->cap) {
		err = -errno;
		preflight__explain_load(err, a->o.ring_pages, agent__perf_rings(a), msg, sizeof(msg));
		agent__say("%s", msg);
		return err;
	}
	/* Narrows what the kernel sends to what the filter can match (plus what
	 * keeps the thread and fd tables right). */
	startup__step(a->startup, STARTUP_KFILTER);
	agent_kf__start(a->kf, capture__driver(a->cap), a->in, msg, sizeof(msg));
	/* The first event comes after the kernel filter is in place: its verdicts
	 * start from the /proc scan, as userspace's tables do. */
	agent__quiet_in_kernel(a);
	if (capture__driver(a->cap))
		driver__set_capture(capture__driver(a->cap), true);
	startup__done(a->startup);
	if (a->o.verbose)
		agent__report_start(a, msg);
	return 0;
}

/* Stops capturing and fixes its counters: what the outputs then flush cannot
 * change them, and the metrics keep showing them (capture stopped) meanwhile. */
static void agent__stop_capture(struct agent *a)
{
	if (!a->cap)
		return;
	/* Detached first: the drop counters and the drops by event are read
	 * one after the other, and a storm must not add to one between them. */
	driver__detach(capture__driver(a->cap));
	agent__gather(a);
	capture__close(a->cap);
	a->cap = NULL;
	if (a->metrics)
		agent_metrics__publish(a->metrics, &a->counters, false);
}

/* The outputs send what they hold until the flush deadline (shorter after a
 * stop signal, also one that comes now); meanwhile the metrics show them
 * draining. Returns -EIO if an output lost lines to errors in a way the user
 * must see in the exit code (stdout, a file). */
static int agent__close_outputs(struct agent *a, bool started)
{
	uint64_t now = monotonic_ms(), deadline = now + a->o.flush_ms;
	struct agent_counters *c = &a->counters;
	int err = 0;

	for (;;) {
		if (signals_stop && deadline > now + STOP_FLUSH_MS)
			deadline = now + STOP_FLUSH_MS;
		if (now >= deadline || !outputs__pending(&a->outs))
			break;
		outputs__kick(&a->outs);
		agent__publish_due(a, now, false);
		nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000000 }, NULL);
		if (a->signals_blocked)
			signals__poll(&a->wait_mask);
		now = monotonic_ms();
	}
	outputs__close(&a->outs, deadline, c->out);
	if (!started)
		return 0;
	c->tally = a->tally;
	summary__print(stderr, c, NULL);
	for (int i = 0; i < c->n_outputs; i++) {
		const struct output_stats *o = &c->out[i];

		if (o->fatal && o->error != -EPIPE) {
			agent__say("cannot write to %s: %s", c->output_url[i],
				strerror(-o->error));
			err = -EIO;
		}
		if (!o->fatal && o->write_errors && !strncmp(c->output_url[i], "file:", 5))
			err = -EIO;
	}
	return err;
}

static int agent__finish(struct agent *a, bool started)
{
	int err;

	agent__stop_capture(a);
	if (a->req) {
		/* what it still held goes out; the summary's counts include it.
		 * The kernel's quiet ends go with the driver. */
		req_mode__set_driver(a->req, NULL);
		req_mode__finish(a->req);
		req_mode__counters(a->req, &a->counters.pairing);
		agent__write_map(a);
	}
	agent_kf__free(a->kf);
	a->kf = NULL;
	startup__free(a->startup);
	a->startup = NULL;
	err = record__close(&a->rec);
	if (agent__close_outputs(a, started) && !err)
		err = -EIO;
	agent_metrics__stop(a->metrics);
	a->metrics = NULL;
	field_ctx__fini(&a->fctx);
	req_mode__free(a->req);
	a->req = NULL;
	topo__free(a->topo);
	a->topo = NULL;
	filter__free(a->kplan);
	inspector__free(a->in);
	filter__free(a->flt);
	format__free(a->fmt);
	sbuf__free(&a->out);
	options__free(&a->o);
	return err;
}

/* Outputs and the metrics server, before capturing: a bad URL or a busy port
 * is told at once. */
static int agent__open_outputs(struct agent *a)
{
	char msg[512] = "";
	int err;

	if ((err = outputs__open(&a->outs, &a->o, msg, sizeof(msg)))) {
		agent__say("%s", msg[0] ? msg : strerror(-err));
		return err;
	}
	if (a->o.metrics) {
		a->metrics = agent_metrics__start(a->o.metrics, msg, sizeof(msg));
		if (!a->metrics) {
			err = -errno;
			agent__say("%s", msg);
			return err;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct agent a;
	char err[256];
	int rc;

	/* first: start-up is timed from here (-v) */
	a.startup = startup__new();
	if (options__parse(argc, argv, &a.o, err, sizeof(err))) {
		agent__say("%s", err);
		return EXIT_USAGE;
	}
	if (a.o.help) {
		fputs(options_usage, stdout);
		return 0;
	}
	if (a.o.version) {
		printf("agent %s\n", AGENT_VERSION);
		return 0;
	}
	if (a.o.print_format) {
		printf("%s\n", agent__format(&a.o));
		return 0;
	}
	if (a.o.list_fields || a.o.list_events) {
		if (a.o.list_fields)
			fields__list(stdout);
		if (a.o.list_events)
			events__list(stdout);
		return 0;
	}
	sbuf__init(&a.out);
	/* a bad filter or format is a usage error, as a bad flag: a service
	 * manager should not restart into it (systemd's RestartPreventExitStatus) */
	if ((rc = agent__compile(&a))) {
		agent__finish(&a, false);
		return rc == -EINVAL ? EXIT_USAGE : 1;
	}
	/* Before any thread starts, so that the outputs' and the metrics server's
	 * threads inherit the blocked set and the main thread gets the signals. */
	a.signals_blocked = !a.o.read_file;
	signals__setup(&a.wait_mask, a.signals_blocked);
	if ((rc = agent__open_outputs(&a))) {
		agent__finish(&a, false);
		return rc == -EINVAL ? EXIT_USAGE : 1;
	}
	if (agent__start(&a)) {
		agent__finish(&a, false);
		return 1;
	}
	rc = agent__run(&a);
	if (rc && !a.reported)
		agent__say("capture stopped: %s", strerror(-rc));
	if (agent__finish(&a, true))
		rc = -EIO;
	return rc ? 1 : 0;
}
