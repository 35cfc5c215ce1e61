/* What a request's series are keyed by beside its ends: the response class (a
 * short fixed list, so the label stays bounded) and the request content. */
#include "req_record.h"
#include "topo_int.h"

static const char *const class_names[TOPO_CLASS_MAX] = {
	[TOPO_CLASS_NONE] = "",
	[TOPO_CLASS_TIMEOUT] = "timeout",
	[TOPO_CLASS_ABORTED] = "aborted",
	[TOPO_CLASS_1XX] = "1xx", [TOPO_CLASS_2XX] = "2xx", [TOPO_CLASS_3XX] = "3xx",
	[TOPO_CLASS_4XX] = "4xx", [TOPO_CLASS_5XX] = "5xx",
	[TOPO_CLASS_OK] = "ok", [TOPO_CLASS_ERROR] = "error",
	/* RFC 1035 and later (IANA's DNS RCODEs); 12..15 are unassigned */
	[TOPO_CLASS_RCODE + 0] = "NOERROR", [TOPO_CLASS_RCODE + 1] = "FORMERR",
	[TOPO_CLASS_RCODE + 2] = "SERVFAIL", [TOPO_CLASS_RCODE + 3] = "NXDOMAIN",
	[TOPO_CLASS_RCODE + 4] = "NOTIMP", [TOPO_CLASS_RCODE + 5] = "REFUSED",
	[TOPO_CLASS_RCODE + 6] = "YXDOMAIN", [TOPO_CLASS_RCODE + 7] = "YXRRSET",
	[TOPO_CLASS_RCODE + 8] = "NXRRSET", [TOPO_CLASS_RCODE + 9] = "NOTAUTH",
	[TOPO_CLASS_RCODE + 10] = "NOTZONE", [TOPO_CLASS_RCODE + 11] = "DSOTYPENI",
	[TOPO_CLASS_RCODE + 12] = "RCODE12", [TOPO_CLASS_RCODE + 13] = "RCODE13",
	[TOPO_CLASS_RCODE + 14] = "RCODE14", [TOPO_CLASS_RCODE + 15] = "RCODE15",
	[TOPO_CLASS_RCODE_OTHER] = "other",
	/* gRPC's status codes: named at start (topo_class__init) */
	[TOPO_CLASS_GRPC_OTHER] = "other",
};

const char *topo_class__name(uint8_t cls)
{
	if (cls >= TOPO_CLASS_GRPC && cls < TOPO_CLASS_GRPC_OTHER)
		return req_grpc__name(cls - TOPO_CLASS_GRPC);
	return cls < TOPO_CLASS_MAX ? class_names[cls] : "";
}

uint8_t topo_class__of(const struct req_record *r)
{
	if (r->timed_out)
		return TOPO_CLASS_TIMEOUT;
	switch (r->proto) {
	case REQ_PROTO_HTTP:
	case REQ_PROTO_HTTP2:
		if (r->status >= 100 && r->status <= 599)
			return (uint8_t)(TOPO_CLASS_1XX + r->status / 100 - 1);
		return r->aborted ? TOPO_CLASS_ABORTED : TOPO_CLASS_NONE;
	case REQ_PROTO_DNS:
		if (r->status >= 0 && r->status < 16)
			return (uint8_t)(TOPO_CLASS_RCODE + r->status);
		if (r->status >= 16)
			return TOPO_CLASS_RCODE_OTHER;
		return r->aborted ? TOPO_CLASS_ABORTED : TOPO_CLASS_NONE;
	case REQ_PROTO_GRPC:
		/* a gRPC error rides on HTTP 200: its class is its status */
		if (r->status >= 0 && r->status <= 16)
			return (uint8_t)(TOPO_CLASS_GRPC + r->status);
		if (r->status > 16)
			return TOPO_CLASS_GRPC_OTHER;
		return r->aborted ? TOPO_CLASS_ABORTED : TOPO_CLASS_NONE;
	case REQ_PROTO_REDIS:
	case REQ_PROTO_MYSQL:
	case REQ_PROTO_PGSQL:
	case REQ_PROTO_KAFKA:
	case REQ_PROTO_DUBBO:
	case REQ_PROTO_ROCKETMQ:
		if (r->error)
			return TOPO_CLASS_ERROR;
		/* closed before any reply: neither ok nor error */
		if (r->aborted && !r->resp_bytes)
			return TOPO_CLASS_ABORTED;
		return TOPO_CLASS_OK;
	default:
		return TOPO_CLASS_NONE;
	}
}

const char *topo__content(const struct req_record *r)
{
	switch (r->proto) {
	case REQ_PROTO_HTTP:
	case REQ_PROTO_HTTP2:
	case REQ_PROTO_GRPC:
	case REQ_PROTO_DNS:
		return r->target;
	case REQ_PROTO_REDIS:
	case REQ_PROTO_MYSQL:
	case REQ_PROTO_PGSQL:
	case REQ_PROTO_KAFKA:
	case REQ_PROTO_DUBBO:
	case REQ_PROTO_ROCKETMQ:
		return r->method;
	default:
		return "";
	}
}
