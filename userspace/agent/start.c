/* Before the loop: the filter and format compiled, the outputs and the
 * metrics server opened, then a live capture started (or -r's file opened,
 * mode_file.c), timed and watched step by step. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "loader.h"
#include "preflight.h"
#include "say.h"

/* The -p format, else the default line: a request's with --requests (its
 * JSON keeps the raw numbers of the text's labelled amounts). */
const char *agent__format(const struct agent_opts *o)
{
	if (o->format)
		return o->format;
	if (o->requests)
		return o->json ? FORMAT_REQUEST_JSON : FORMAT_REQUEST;
	if (o->tcp)
		return o->json ? FORMAT_TCP_JSON : FORMAT_TCP;
	return FORMAT_DEFAULT;
}

int agent__compile(struct agent *a)
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

/* Outputs and the metrics server, before capturing: a bad URL or a busy port
 * is told at once. */
int agent__open_outputs(struct agent *a)
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

static bool agent__env_on(const char *name)
{
	const char *v = getenv(name);

	return v && !strcmp(v, "1");
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
	/* --tcp prints only its own events, which have no enter/exit pair */
	if (o->tcp)
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
	if (d && !driver__load_info(d, &li, false)) {
		agent__say("loaded %u of %u BPF programs (%u fillers, for %s) in "
			"%.1f ms", li.programs, li.programs_total, li.fillers,
			agent_kf__syscalls(a->kf) ? "the filter's syscalls" : "every syscall",
			(double)li.load_ns / 1e6);
		if (li.verified_insns)
			agent__say("the kernel's verifier walked %llu instructions of them "
				   "in %.1f ms, at most %u in one program (%s; its limit is "
				   "1000000)", (unsigned long long)li.verified_insns,
				   (double)li.verified_us / 1e3, li.verified_max,
				   li.verified_max_name);
		if (st.exit_only && li.syscall_tps)
			agent__say("on the own exit tracepoints of %u syscalls: the others "
				   "run no program", li.syscall_tps);
		else if (st.exit_only)
			agent__say("on the raw sys_exit tracepoint: every syscall runs "
				   "the dispatcher");
		if (li.close_began < 0)
			agent__say("close's enter tracepoint could not be attached (%s): a "
				   "close's enter event is stamped at its exit, and another "
				   "thread's call that gets the number first may lose its fd "
				   "entry", strerror(-li.close_began));
		if (a->o.requests && li.sock_compact)
			agent__say("socket I/O: one compact event per TCP read or write "
				   "that moved bytes, with no enter event%s%s",
				   !li.sock_tps ? "" :
				   li.sock_tp_sendfile ? "; read, readv, write, writev and sendfile" :
							 "; read, readv, write and writev",
				   li.sock_tps ? " on the socket tracepoints, where other fds' calls "
						 "run no program" : "");
		else if (a->o.requests)
			agent__say("socket I/O: sysdig's enter and exit events%s",
				   a->o.write_file ? " (-w keeps them)" : "");
		if (li.close_at_enter)
			agent__say("closes: sent when they begin, from close's enter "
				   "tracepoint; close's exit runs no program");
	}
	startup__describe(a->startup, split, sizeof(split));
	agent__say("started: %s", split);
	agent__say("kernel filter: %s; in userspace: %s", kf_desc,
		   a->o.filter ? a->o.filter : "nothing");
	if (agent__count_only(a))
		agent__say("no filter, output, -w or metrics: events are "
			"checked and counted, not parsed");
	agent__requests_describe(a);
}

/* A /proc scan of the inspector's; WHICH names it in the -v warning of an
 * early stop (what it read is kept). */
static void agent__scan_proc(struct agent *a, const char *which)
{
	if (inspector__scan_proc(a->in) < 0 && a->o.verbose)
		agent__say("warning: the %s/proc scan stopped early: %s", which, strerror(errno));
}

int agent__start(struct agent *a)
{
	struct agent_kf_opts ko = { .off = a->o.no_kernel_filter,
				    .syscalls_only = a->o.write_file != NULL,
				    .host_root = getenv("HOST_ROOT"),
				    /* file opens stay in the kernel: --profile-out
				     * has the files waited on named by the driver */
				    .requests = a->o.requests || a->o.profile,
				    .threads_only = a->o.tcp };
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

	/* -r: the modes read the file's events as they would the kernel's */
	if (a->o.read_file)
		return agent__start_file(a) ?: record__open(&a->rec, &a->o) ?:
		       record__start(&a->rec, a->in) ?:
		       (a->o.requests ? agent__requests_open(a) : 0) ?: agent__tcp_open(a) ?:
		       (a->o.profile && !a->o.requests ? agent__profile_open(a) : 0);
	if ((err = preflight__check(a->o.ring_pages, agent__perf_rings(a), msg, sizeof(msg)))) {
		agent__say("%s", msg);
		return err;
	}
	/* What the driver must load follows from the filter: planned first. */
	if (a->o.requests && (err = agent__requests_plan(a, &lo)))
		return err;
	if (a->o.profile && !a->o.requests && (err = agent__profile_plan(a, &lo)))
		return err;
	if (a->o.tcp && (err = agent__tcp_plan(a, &lo)))
		return err;
	a->kf = agent_kf__plan(a->kplan ? a->kplan : a->flt, &ko);
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
	lo.syscalls = agent_kf__syscalls(a->kf);
	lo.per_thread = agent_kf__per_thread(a->kf);
	/* AGENT_NO_SYSCALL_TPS=1: the raw sys_exit tracepoint, to compare */
	lo.no_syscall_tps = agent__env_on("AGENT_NO_SYSCALL_TPS");
	/* -v says what the verifier walked (agent__report_start) */
	lo.verifier_stats = a->o.verbose;
	/* AGENT_NO_SOCK_COMPACT=1: socket calls as their own event pairs */
	if (agent__env_on("AGENT_NO_SOCK_COMPACT"))
		lo.sock_compact = false;
	/* AGENT_NO_SOCK_TPS=1: compact reads and writes on their syscalls'
	 * tracepoints, not the socket tracepoints */
	lo.no_sock_tps = agent__env_on("AGENT_NO_SOCK_TPS");
	/* AGENT_NO_CLOSE_AT_ENTER=1: closes sent at their exit */
	lo.no_close_at_enter = agent__env_on("AGENT_NO_CLOSE_AT_ENTER");
	lo.step_arg = a->startup;
	a->cap = capture__open_live(&lo);
	if (!a->cap) {
		err = -errno;
		preflight__explain_load(err, a->o.ring_pages, agent__perf_rings(a), msg, sizeof(msg));
		agent__say("%s", msg);
		return err;
	}
	/* Scan /proc with the driver loaded and paused, so that what changes
	 * between the scan and the first event is only what happens in the next
	 * few steps, not during the seconds a BPF load can take (a shell's dup
	 * then, unseen, left its fd table wrong); every thread the first events
	 * name is known. */
	startup__step(a->startup, STARTUP_PROC);
	agent__scan_proc(a, "");
	field_ctx__init(&a->fctx, inspector__threads(a->in));
	agent__buffer_options(a);
	if (a->o.requests && (err = agent__requests_open(a)))
		return err;
	if ((err = agent__tcp_open(a)))
		return err;
	/* Narrows what the kernel sends to what the filter can match (plus what
	 * keeps the thread and fd tables right). */
	startup__step(a->startup, STARTUP_KFILTER);
	agent_kf__start(a->kf, capture__driver(a->cap), a->in, msg, sizeof(msg));
	/* The first event comes after the kernel filter is in place: its verdicts
	 * start from the /proc scan, as userspace's tables do. */
	agent__requests_quiet(a);
	agent__requests_tls(a);
	agent__tcp_seed(a);
	if (capture__driver(a->cap))
		driver__set_capture(capture__driver(a->cap), true);
	/* Now that events flow, scan again for threads only: one forked between
	 * the scan above and this point has no clone event in the rings and was
	 * not in /proc then (a shell's subshell, forked while this agent set up,
	 * stayed nameless to the end). The scan adds it; one forked after both
	 * is known twice, and its clone event keeps the scanned entry
	 * (parse_thread.c). A file's lists are written after it, naming it too. */
	agent__scan_proc(a, "second ");
	if ((err = record__start(&a->rec, a->in)))
		return err;
	startup__done(a->startup);
	if (a->o.verbose)
		agent__report_start(a, msg);
	return 0;
}
