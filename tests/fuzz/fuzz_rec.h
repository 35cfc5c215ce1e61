/* What every record the pairing hands out must be, whatever bytes made it
 * (the fuzz targets of the pairing share it): its end not before its start,
 * its duration and time to first byte from its times, a known protocol and
 * side, an id, a parent only on a client's record and begun before it, its
 * strings terminated. Aborts otherwise. */
#ifndef FUZZ_REC_H
#define FUZZ_REC_H

#include <stdlib.h>
#include <string.h>

#include "req_record.h"

static inline void rec__check(const struct req_record *r)
{
	if (r->ts_end < r->ts_start || r->duration != r->ts_end - r->ts_start)
		abort();
	if (r->ttfb > r->duration && !r->timed_out)
		abort();
	if (r->proto >= REQ_PROTO_MAX || (r->side != REQ_SIDE_CLIENT && r->side != REQ_SIDE_SERVER))
		abort();
	if (!r->id || r->parent >= r->id || (r->parent && r->side != REQ_SIDE_CLIENT))
		abort();
	if (!memchr(r->method, 0, sizeof(r->method)) || !memchr(r->target, 0, sizeof(r->target)) ||
	    !memchr(r->code, 0, sizeof(r->code)) || !memchr(r->client.comm, 0, 16) ||
	    !memchr(r->server.comm, 0, 16))
		abort();
}

#endif
