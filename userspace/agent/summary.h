/* The capture summary printed on exit: events and drops by reason, per CPU. */
#ifndef AGENT_SUMMARY_H
#define AGENT_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "capture.h"
#include "container.h"

struct agent_tally {
	uint64_t matched;	/* events that passed the filter */
	uint64_t printed;
	uint64_t malformed;	/* frames the parser rejected */
};

/* Every event the driver sent or dropped, accounted for in one place. */
uint64_t summary__dropped(const struct capture_cpu_stats *s);
void summary__print(FILE *out, const struct capture_stats *st, const struct agent_tally *t);
/* The containers seen and what their lookups found: a file that could not be
 * used is counted here, never silently. Nothing when no container was seen. */
void summary__containers(FILE *out, const struct container_counters *c);

#endif
