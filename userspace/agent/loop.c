/* The event loop: capture -> parse -> filter -> format -> outputs, with the
 * ticks that keep signals, outputs, metrics and request timeouts moving. */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "say.h"
#include "schema.h"
#include "signals.h"

/* Every 100 ms (of waiting or of event time): signals a busy capture never
 * waited for, a stdout that failed, the outputs' partial batches, metrics. */
static void agent__tick(struct agent *a)
{
	agent_kf__tick(a->kf, agent__now_ms());
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

		/* -r: the file's time, not this host's now */
		if (a->o.read_file)
			req_mode__tick(a->req, a->last_ts);
		else if (!clock_gettime(CLOCK_REALTIME, &ts))
			req_mode__tick(a->req, (uint64_t)ts.tv_sec * 1000000000ull +
						       (uint64_t)ts.tv_nsec);
	}
	if (a->metrics)
		agent__publish_due(a, agent__now_ms(), true);
}

/* The -M deadline, or 0 for none (also when it would not fit: never wrap). */
static uint64_t agent__deadline(const struct agent *a)
{
	uint64_t now = agent__now_ms();

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
bool agent__count_only(const struct agent *a)
{
	return !a->o.read_file && !a->flt && !a->outs.n && !record__active(&a->rec) &&
	       !a->metrics && !a->o.requests && !a->o.profile && !a->o.tcp;
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
	if (ev.ts > a->last_ts)
		a->last_ts = ev.ts;
	agent__tick_at(a, ev.ts);
	/* Old drivers' per-process CPU samples: internal, sysdig never shows them. */
	if (ev.type == PPME_PROCINFO_E)
		return 0;
	/* TCP health's records: --tcp's, or counted under --requests */
	if (ev.type == PPME_TCP_CLOSE_E && (a->o.tcp || a->topo)) {
		if (a->req && (err = record__event(&a->rec, &ev, cev))) {
			a->reported = true;
			return err;
		}
		return agent__tcp_event(a, &ev, cev);
	}
	/* --tcp: the other events keep the tables right; -w keeps them so that
	 * -r names the processes again */
	if (a->o.tcp) {
		if ((err = record__event(&a->rec, &ev, cev)))
			a->reported = true;
		return err;
	}
	/* --requests or --profile: -w keeps every event they read, so that -r
	 * makes the same records or accounts again */
	if ((a->prof || a->req) && (err = record__event(&a->rec, &ev, cev))) {
		a->reported = true;
		return err;
	}
	/* --profile alone: the events make per-thread accounts (mode_profile.c) */
	if (a->prof) {
		agent__profile_event(a, &ev);
		return 0;
	}
	/* --requests: the events make records (mode_requests.c), not lines */
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

int agent__run(struct agent *a)
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
			if (deadline && agent__now_ms() >= deadline)
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
		if (deadline && !(++since_clock & 255) && agent__now_ms() >= deadline)
			break;
	}
	return a->stdout_err ? 0 : agent__drain(a, count_only);
}
