/* --metrics: the agent's counters as Prometheus text, rebuilt about once a
 * second from a gathered snapshot and handed to the metrics server. */
#ifndef AGENT_METRICS_H
#define AGENT_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "summary.h"

struct agent_metrics;

/* Starts serving on ADDR ("HOST:PORT"). NULL, errno and ERR on failure. */
struct agent_metrics *agent_metrics__start(const char *addr, char *err, size_t errlen);
/* Publishes C; RUNNING false once capture stopped (/healthz then says 503). */
void agent_metrics__publish(struct agent_metrics *m, const struct agent_counters *c,
			    bool running);
void agent_metrics__stop(struct agent_metrics *m);

#endif
