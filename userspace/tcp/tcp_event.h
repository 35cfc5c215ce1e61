/* Decoding the driver's TCP_CLOSE events (proto/events.def) into records. */
#ifndef TCP_TCP_EVENT_H
#define TCP_TCP_EVENT_H

#include <stdint.h>

#include "tcp_record.h"

struct schema_params;

/* The params PP of a TCP_CLOSE event of time TS (its close) into R: both
 * ends' addresses, the local one (by the side) with local set, its pid (0:
 * not known) and its name as the driver read it at the connect or the listen
 * ("" not known); its container is the caller's to fill. -EINVAL
 * when a param's length, the family, the side or the outcome is not one the
 * event can hold (R is then undefined). */
int tcp_record__decode(struct tcp_record *r, const struct schema_params *pp, uint64_t ts);

#endif
