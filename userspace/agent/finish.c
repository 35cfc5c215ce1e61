/* The end: capture stopped, what the modes still hold sent, the outputs
 * flushed, the summary printed. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "stacks.h"
#include "say.h"
#include "signals.h"

/* Stops capturing and fixes its counters: what the outputs then flush cannot
 * change them, and the metrics keep showing them (capture stopped) meanwhile. */
static void agent__stop_capture(struct agent *a)
{
	if (!a->cap)
		return;
	/* Detached first: the drop counters and the drops by event are read
	 * one after the other, and a storm must not add to one between them. */
	agent__requests_tls_stop(a);
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
	uint64_t now = agent__now_ms(), deadline = now + a->o.flush_ms;
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
		now = agent__now_ms();
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

int agent__finish(struct agent *a, bool started)
{
	int err;

	agent__profile_finish(a);
	agent__stop_capture(a);
	agent__requests_finish(a);
	agent_kf__free(a->kf);
	a->kf = NULL;
	startup__free(a->startup);
	a->startup = NULL;
	err = record__close(&a->rec);
	if (agent__close_outputs(a, started) && !err)
		err = -EIO;
	if (a->pout && started) {
		struct profile_out_counters pc;

		profile_out__finish(a->pout);
		profile_out__counters(a->pout, &pc);
		fprintf(stderr, "agent: slow requests' timelines: %" PRIu64 " written to %s (%" PRIu64
			" with slices not kept), %" PRIu64 " past %d a second, %" PRIu64
			" could not be written\n", pc.n_written, profile_out__dir(a->pout),
			pc.n_partial, pc.n_rate, PROFILE_OUT_PER_SEC, pc.n_errors);
		if (pc.stacks)
			fprintf(stderr, "agent: on-CPU stacks: %" PRIu64 " samples, %" PRIu64
				" distinct stacks (%" PRIu64 " samples past the bound of %d, %" PRIu64
				" with no stack walked)%s%s\n", pc.n_samples,
				pc.n_stacks, pc.n_stacks_full, PROF_STACKS_KEYS, pc.n_stacks_lost,
				pc.write_err ? "; cannot write the stack files: " : "",
				pc.write_err ? strerror(-pc.write_err) : "");
	}
	profile_out__free(a->pout);
	a->pout = NULL;
	agent_metrics__stop(a->metrics);
	a->metrics = NULL;
	field_ctx__fini(&a->fctx);
	req_mode__free(a->req);
	a->req = NULL;
	prof_clock__free(a->prof);
	a->prof = NULL;
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
