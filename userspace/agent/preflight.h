/* Checks made before loading the driver, each failing with one line saying what
 * to do: privileges, BTF, kernel version. */
#ifndef AGENT_PREFLIGHT_H
#define AGENT_PREFLIGHT_H

#include <stddef.h>

/* 0, or a negative errno with a message in MSG. */
int preflight__check(char *msg, size_t len);
/* A message for a driver load/attach error ERR (negative errno). */
void preflight__explain_load(int err, char *msg, size_t len);

#endif
