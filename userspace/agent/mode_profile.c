/* --profile without --requests: the whole host's (or the filter's threads')
 * time on CPU, waiting for one and off it by reason, per thread, for the
 * run. The driver follows every thread (PROF_FOLLOW_ALL); its CPU_SLICES
 * events feed the per-thread clocks (profile/clock.h); at the end what the
 * driver still holds (slices not sent, each thread's state since when) is
 * added, and one line per thread goes to stdout. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "clock.h"
#include "container.h"
#include "driver.h"
#include "say.h"
#include "slices.h"

/* The kernel sends the batches and what names threads (clone, exec and
 * their kin, which the kernel plan adds); the filter's process tests narrow
 * them where they can. */
#define PROF_MODE_EVENTS "evt.type=cpuslices"

int agent__profile_plan(struct agent *a, struct capture_live_opts *lo)
{
	int err = agent__mode_kplan(a, PROF_MODE_EVENTS, "profiling");

	if (err)
		return err;
	lo->profile = PROF_FOLLOW_ALL;
	return agent__profile_open(a);
}

/* The per-thread accounts: live, or from -r's file. */
int agent__profile_open(struct agent *a)
{
	a->prof = prof_clock__new();
	if (!a->prof) {
		agent__say("cannot set up profiling: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

/* One event: a batch into its thread's clock (named once the filter took
 * one of its batches or its exit: only named threads are shown), a thread's
 * exit ends its account. */
void agent__profile_event(struct agent *a, const struct ievt *ev)
{
	const struct schema_params *pp = &ev->params;
	const struct thread_info *ti = ev->thread;
	struct prof_batch b;

	if ((ev->type == PPME_PROCEXIT_1_E || ev->type == PPME_PROCEXIT_E) && ti) {
		/* a thread whose batches all went before its exec made it one the
		 * filter takes is named by its exit */
		if (!a->flt || filter__match(a->flt, ev, &a->fctx))
			prof_clock__name(a->prof, (uint64_t)ti->tid, ti->pid, ti->comm,
					 ti->container ? ti->container->id : "");
		prof_clock__end(a->prof, (uint64_t)ti->tid, ev->ts);
		return;
	}
	if (ev->type != PPME_CPU_SLICES_E)
		return;
	if (pp->n != 3 || prof_batch__decode(&b, ev->ts, pp->val[0], pp->len[0], pp->val[1],
					     pp->len[1], pp->val[2], pp->len[2])) {
		a->prof_bad++;
		return;
	}
	prof_clock__batch(a->prof, &b);
	if (ti && (!a->flt || filter__match(a->flt, ev, &a->fctx))) {
		a->tally.matched++;
		prof_clock__name(a->prof, b.tid, ti->pid, ti->comm,
				 ti->container ? ti->container->id : "");
	}
}

struct prof_end {
	struct agent *a;
	uint64_t now;
};

/* A CPU_SLICES event of thread TID: the frame, as the driver builds them:
 * the header, three param lengths, tid, from, the slices. */
#define HELD_TID_OFF (PPM_HDR_LEN + 3 * 2)
#define HELD_FROM_OFF (HELD_TID_OFF + 8)
#define HELD_SLICES_OFF (HELD_FROM_OFF + 8)
struct held_frame {
	uint8_t b[HELD_SLICES_OFF + PROF_BATCH * sizeof(struct prof_slice)];
};

/* What the driver holds for a thread when it stopped, as the batch it would
 * have sent at NOW: its slices not sent, and its state since when as one more
 * slice. It goes to the thread's clock as any batch, and with -w into the
 * file, so that -r of it ends every account as here. */
static int prof__held(void *ctx, uint32_t tid, const struct prof_thread *t)
{
	struct prof_end *pe = ctx;
	struct prof_slice sl[PROF_BATCH] = { 0 };
	struct ppm_evt_hdr h = { .ts = pe->now, .tid = tid, .type = PPME_CPU_SLICES_E,
				 .nparams = PPME_CPU_SLICES_E_NPARAMS };
	uint64_t at = t->from, tid64 = tid;
	uint16_t lens[3] = { 8, 8, 0 };
	struct held_frame f;
	struct prof_batch b;
	uint32_t n = 0;

	for (uint32_t i = 0; i < t->n && i < PROF_BATCH; i++) {
		sl[n] = t->s[i];
		at = sl[n].start + sl[n].dur;
		n++;
	}
	if (t->state != PROF_ST_ON && n < PROF_BATCH) {
		uint64_t start = t->since > at ? t->since : at;

		if (pe->now > start) {
			sl[n].start = start;
			sl[n].dur = pe->now - start;
			sl[n].kind = t->state == PROF_ST_RUNQ ? PROF_RUNQ : t->kind;
			sl[n].flags = t->state == PROF_ST_RUNQ ? t->kind : 0;
			sl[n].nr = PROF_NR_NONE;
			n++;
		}
	}
	lens[2] = (uint16_t)(n * sizeof(sl[0]));
	h.len = (uint32_t)(HELD_SLICES_OFF + lens[2]);
	memcpy(f.b, &h, PPM_HDR_LEN);
	memcpy(f.b + PPM_HDR_LEN, lens, sizeof(lens));
	memcpy(f.b + HELD_TID_OFF, &tid64, 8);
	memcpy(f.b + HELD_FROM_OFF, &t->from, 8);
	memcpy(f.b + HELD_SLICES_OFF, sl, lens[2]);
	/* read back as -r will: what would not decode is counted so here too */
	if (prof_batch__decode(&b, pe->now, f.b + HELD_TID_OFF, 8, f.b + HELD_FROM_OFF, 8,
			       f.b + HELD_SLICES_OFF, lens[2])) {
		pe->a->prof_bad++;
		return 0;
	}
	prof_clock__batch(pe->a->prof, &b);
	return record__frame(&pe->a->rec, 0, (const struct ppm_evt_hdr *)f.b, pe->now) ? -EIO : 0;
}

struct prof_out {
	struct agent *a;
	uint64_t now;
	uint32_t n;
};

static double ms(uint64_t ns)
{
	return ns / 1e6;
}

/* One thread's line: JSON with -j (ns), else a table (ms). */
static int prof__line(void *ctx, const struct prof_clock_thread *t)
{
	struct prof_out *po = ctx;
	uint64_t end = t->end ? t->end : po->now, span = end > t->r.since ? end - t->r.since : 0;
	uint64_t off = 0, on;

	if (!t->pid)	/* the filter never took one of its batches */
		return 0;
	for (unsigned k = 0; k < PROF_SLICE__KINDS; k++)
		off += t->r.t[k];
	off += t->lost;
	on = span > off ? span - off : 0;
	po->n++;
	if (po->a->o.json)
		printf("{\"proc.pid\":%" PRId64 ",\"thread.tid\":%" PRIu64 ",\"proc.name\":\"%s\","
		       "\"container.id\":\"%s\",\"prof.start\":%" PRIu64 ",\"prof.span\":%" PRIu64
		       ",\"prof.exited\":%s,\"prof.oncpu\":%" PRIu64 ",\"prof.runq\":%" PRIu64
		       ",\"prof.offcpu.file\":%" PRIu64 ",\"prof.offcpu.net\":%" PRIu64
		       ",\"prof.offcpu.lock\":%" PRIu64 ",\"prof.offcpu.poll\":%" PRIu64
		       ",\"prof.offcpu.sleep\":%" PRIu64 ",\"prof.offcpu.other\":%" PRIu64
		       ",\"prof.lost\":%" PRIu64 ",\"prof.gaps\":%" PRIu64 "}\n",
		       t->pid, t->tid, t->comm, t->group[0] ? t->group : "host", t->r.since, span,
		       t->end ? "true" : "false", on, t->r.t[PROF_SLICE_RUNQ],
		       t->r.t[PROF_SLICE_FILE], t->r.t[PROF_SLICE_NET], t->r.t[PROF_SLICE_LOCK],
		       t->r.t[PROF_SLICE_POLL], t->r.t[PROF_SLICE_SLEEP], t->r.t[PROF_SLICE_OTHER],
		       t->lost, t->gaps);
	else
		printf("%7" PRId64 " %7" PRIu64 " %-15s %-12s %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f "
		       "%9.3f %9.3f %9.3f %9.3f%s\n", t->pid, t->tid, t->comm,
		       t->group[0] ? t->group : "host", ms(span), ms(on),
		       ms(t->r.t[PROF_SLICE_RUNQ]), ms(t->r.t[PROF_SLICE_FILE]),
		       ms(t->r.t[PROF_SLICE_NET]), ms(t->r.t[PROF_SLICE_LOCK]),
		       ms(t->r.t[PROF_SLICE_POLL]), ms(t->r.t[PROF_SLICE_SLEEP]),
		       ms(t->r.t[PROF_SLICE_OTHER]), ms(t->lost), t->gaps ? " (gaps)" : "");
	return 0;
}

/* The end, capture stopped (its programs detached, so the driver's table
 * stands still): what the driver holds is added, and the lines printed. */
void agent__profile_finish(struct agent *a)
{
	struct timespec ts;
	struct prof_end pe = { .a = a };
	struct prof_out po = { .a = a };

	if (!a->prof)
		return;
	/* stopped already after a signal or -M (capture__stop); not after an
	 * error: the table must stand still to be walked */
	if (a->cap && capture__driver(a->cap))
		driver__detach(capture__driver(a->cap));
	/* live threads' accounts run to now; -r's to the file's last event */
	clock_gettime(CLOCK_BOOTTIME, &ts);
	pe.now = po.now = a->o.read_file ? a->last_ts :
			  (a->cap && capture__driver(a->cap) ?
			   driver__boot_time(capture__driver(a->cap)) : 0) +
			  (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (a->cap && capture__driver(a->cap))
		driver__prof_each(capture__driver(a->cap), prof__held, &pe);
	if (!a->o.json)
		printf("%7s %7s %-15s %-12s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "PID", "TID",
		       "COMM", "CONTAINER", "SPAN_MS", "ONCPU", "RUNQ", "FILE", "NET", "LOCK",
		       "POLL", "SLEEP", "OTHER", "LOST");
	prof_clock__each(a->prof, prof__line, &po);
	fflush(stdout);
}

/* The exit line's counts. */
void agent__profile_counters(const struct agent *a, struct req_mode_profile *out)
{
	memset(out, 0, sizeof(*out));
	if (!a->prof)
		return;
	out->on = true;
	out->n_bad_batches = a->prof_bad;
	prof_clock__counters(a->prof, &out->clock);
}
