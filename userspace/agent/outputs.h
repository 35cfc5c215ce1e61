/* The agent's set of outputs: every event line goes to each of them. */
#ifndef AGENT_OUTPUTS_H
#define AGENT_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"
#include "output.h"

struct outputs {
	struct output *o[AGENT_MAX_OUTPUTS];
	const char *url[AGENT_MAX_OUTPUTS];
	int n;
	int stdout_index;	/* -1 when stdout is not an output */
};

/* Opens the outputs the options name (stdout when none, unless -q). Returns 0
 * or -errno with the reason in ERR. */
int outputs__open(struct outputs *s, const struct agent_opts *o, char *err, size_t errlen);
/* The line to every output; never blocks (a full queue drops and counts). */
void outputs__push(struct outputs *s, const char *line, size_t len, uint64_t ts_ns);
void outputs__kick(struct outputs *s);
void outputs__reopen(struct outputs *s);
/* stdout's writer failed: -errno (-EPIPE: its reader went away), else 0. */
int outputs__stdout_error(const struct outputs *s);
void outputs__stats(const struct outputs *s, struct output_stats *st);
/* Whether an output that can still write holds queued lines. */
bool outputs__pending(const struct outputs *s);
/* Flushes until DEADLINE_MS (CLOCK_MONOTONIC), then closes; FINAL[i] gets the
 * last counters of output i. */
void outputs__close(struct outputs *s, uint64_t deadline_ms, struct output_stats *final);

#endif
