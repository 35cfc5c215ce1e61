/* The agent's outputs: opened from the options, fed the same line each. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "outputs.h"
#include "say.h"
#include "signals.h"

/* Output state changes (connected, lost, failing) go to stderr once each. */
static void outputs__notice(void *arg, const struct output *o, int level, const char *msg)
{
	agent__say("%s%s", level ? "warning: " : "", msg);
}

int outputs__open(struct outputs *s, const struct agent_opts *o, char *err, size_t errlen)
{
	static const char *const only_stdout[] = { "stdout" };
	const char *const *urls = o->n_outputs ? o->outputs : only_stdout;
	int n = o->n_outputs ? o->n_outputs : !o->quiet;
	struct output_opts oo = {
		.queue_bytes = o->queue_bytes,
		.json = o->json,
		.unbuffered = o->unbuffered,
		.batch_bytes = o->batch_bytes,
		.batch_ms = o->batch_ms,
		/* a replay waits for a slow reader rather than drop its lines:
		 * nothing is lost in the kernel meanwhile */
		.block = o->read_file != NULL,
		.stop = &signals_stop,
		.notice = outputs__notice,
	};

	memset(s, 0, sizeof(*s));
	s->stdout_index = -1;
	for (int i = 0; i < n; i++) {
		s->o[i] = output__open(urls[i], &oo, err, errlen);
		if (!s->o[i]) {
			int e = -errno;

			outputs__close(s, 0, NULL);
			return e ? e : -EINVAL;
		}
		s->url[i] = urls[i];
		if (output__kind(s->o[i]) == OUTPUT_STDOUT)
			s->stdout_index = i;
		s->n = i + 1;
	}
	return 0;
}

void outputs__push(struct outputs *s, const char *line, size_t len, uint64_t ts_ns)
{
	for (int i = 0; i < s->n; i++)
		output__push(s->o[i], line, len, ts_ns);
}

void outputs__kick(struct outputs *s)
{
	for (int i = 0; i < s->n; i++)
		output__kick(s->o[i]);
}

void outputs__reopen(struct outputs *s)
{
	for (int i = 0; i < s->n; i++)
		output__reopen(s->o[i]);
}

int outputs__stdout_error(const struct outputs *s)
{
	struct output_stats st;

	if (s->stdout_index < 0)
		return 0;
	output__stats(s->o[s->stdout_index], &st);
	return st.fatal ? (st.error ? st.error : -EIO) : 0;
}

void outputs__stats(const struct outputs *s, struct output_stats *st)
{
	for (int i = 0; i < s->n; i++)
		output__stats(s->o[i], &st[i]);
}

bool outputs__pending(const struct outputs *s)
{
	struct output_stats st;

	for (int i = 0; i < s->n; i++) {
		output__stats(s->o[i], &st);
		if (st.queue_lines && !st.fatal)
			return true;
	}
	return false;
}

void outputs__close(struct outputs *s, uint64_t deadline_ms, struct output_stats *final)
{
	/* All start sending what they hold (http: partial batches) before the
	 * first close waits, so they flush in parallel within the one deadline. */
	outputs__kick(s);
	for (int i = 0; i < s->n; i++) {
		output__close(s->o[i], deadline_ms, final ? &final[i] : NULL);
		s->o[i] = NULL;
	}
	s->n = 0;
}
