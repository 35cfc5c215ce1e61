/* The parsers' common result (req_head.h). */
#include <string.h>

#include "req_head.h"

void req_head__clear(struct req_head *h)
{
	memset(h, 0, sizeof(*h));
	h->status = -1;
}

const char *req_proto__name(enum req_proto p)
{
	static const char *const names[REQ_PROTO_MAX] = {
		[REQ_PROTO_NONE] = "unknown", [REQ_PROTO_HTTP] = "http", [REQ_PROTO_DNS] = "dns",
		[REQ_PROTO_REDIS] = "redis", [REQ_PROTO_MYSQL] = "mysql",
		[REQ_PROTO_PGSQL] = "pgsql", [REQ_PROTO_TLS] = "tls",
	};

	return (unsigned)p < REQ_PROTO_MAX ? names[p] : "unknown";
}
