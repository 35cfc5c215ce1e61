/* The parsers' common result (req_head.h). */
#include <stddef.h>
#include <string.h>

#include "req_head.h"

/* Per message parsed, so the strings are only emptied: every parser writes
 * them NUL-terminated (req_head.h), never relying on zeroed bytes. */
void req_head__clear(struct req_head *h)
{
	memset(h, 0, offsetof(struct req_head, method));
	h->status = -1;
	h->method[0] = h->target[0] = h->code[0] = '\0';
}

const char *req_proto__name(enum req_proto p)
{
	static const char *const names[REQ_PROTO_MAX] = {
		[REQ_PROTO_NONE] = "unknown", [REQ_PROTO_HTTP] = "http", [REQ_PROTO_DNS] = "dns",
		[REQ_PROTO_REDIS] = "redis", [REQ_PROTO_MYSQL] = "mysql",
		[REQ_PROTO_PGSQL] = "pgsql", [REQ_PROTO_TLS] = "tls",
		[REQ_PROTO_HTTP2] = "http2", [REQ_PROTO_GRPC] = "grpc", [REQ_PROTO_KAFKA] = "kafka",
		[REQ_PROTO_DUBBO] = "dubbo", [REQ_PROTO_ROCKETMQ] = "rocketmq",
	};

	return (unsigned)p < REQ_PROTO_MAX ? names[p] : "unknown";
}

const char *req_grpc__name(int32_t code)
{
	/* gRPC's status codes (its doc/statuscodes.md) */
	static const char *const names[] = {
		"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
		"NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
		"FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL",
		"UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
	};

	return code >= 0 && code < (int32_t)(sizeof(names) / sizeof(names[0])) ? names[code] : "";
}

size_t req_str__copy(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
	return n;
}

uint64_t req_name__hash(const uint8_t *name, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ name[i]) * 0x100000001b3ull;
	return h ? h : 1;
}
