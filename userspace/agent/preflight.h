/* Checks made before loading the driver, each failing with one line saying what
 * to do: privileges, locked memory for the rings, BTF, kernel version. */
#ifndef AGENT_PREFLIGHT_H
#define AGENT_PREFLIGHT_H

#include <stddef.h>
#include <stdint.h>

/* 0, or a negative errno with a message in MSG. RING_PAGES is the --ring-size
 * in use (data pages per CPU, 0: the default), to tell whether the rings fit
 * the locked-memory allowance. Warns on stderr about missing capabilities that
 * only degrade what events say. */
int preflight__check(uint32_t ring_pages, bool perf_rings, char *msg, size_t len);
/* A message for a driver load/attach or ring mapping error ERR (negative errno). */
void preflight__explain_load(int err, uint32_t ring_pages, bool perf_rings, char *msg,
			     size_t len);

#endif
