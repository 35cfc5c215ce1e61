/* req.* fields: read from the request record the agent is printing or
 * filtering (field_ctx.req); absent for events. */
#include <errno.h>
#include <stdio.h>

#include "container.h"
#include "fields_int.h"
#include "req_record.h"
#include "schema.h"

int str__some(struct field_value *out, const char *s)
{
	return s && *s ? value__cstr(out, s) : -ENOENT;
}

/* "ip:port" ("[ip]:port" for IPv6) of end E of a connection of FAMILY, in
 * the context's scratch buffer. */
int req_end__text(struct field_ctx *ctx, int family, const struct req_end *e,
		  struct field_value *out)
{
	char port[8];

	sbuf__reset(&ctx->scratch);
	if (family == PPM_AF_INET6)
		sbuf__append(&ctx->scratch, "[", 1);
	ip__render(&ctx->scratch, family, e->ip);
	if (family == PPM_AF_INET6)
		sbuf__append(&ctx->scratch, "]", 1);
	snprintf(port, sizeof(port), ":%u", e->port);
	sbuf__append(&ctx->scratch, port, strlen(port));
	if (ctx->scratch.err)
		return ctx->scratch.err;
	return value__str(out, ctx->scratch.buf, ctx->scratch.len);
}

int req_end__ip(int family, const struct req_end *e, struct field_value *out)
{
	out->type = FT_IPADDR;
	out->ip.family = family;
	memcpy(out->ip.addr, e->ip, 16);
	return 0;
}

/* An end's container name, "host" for a local process outside any. */
int req_end__container(const struct req_end *e, bool pod, struct field_value *out)
{
	if (!e->local)
		return -ENOENT;
	if (!e->container)
		return pod ? -ENOENT : value__cstr(out, "host");
	return str__some(out, pod ? e->container->pod_name : e->container->name);
}

int req_end__proc(const struct req_end *e, struct field_value *out)
{
	return e->local ? str__some(out, e->comm) : -ENOENT;
}

int fields__extract_req(const struct field_ref *ref, const struct ievt *ev,
			struct field_ctx *ctx, unsigned n, struct field_value *out)
{
	const struct req_record *r = ctx->req;
	bool server = r && r->side == REQ_SIDE_SERVER;

	(void)ev;
	if (n || !r)
		return -ENOENT;
	switch (ref->info->id) {
	case F_REQ_PROTOCOL:
		return value__cstr(out, req_proto__name(r->proto));
	case F_REQ_SIDE:
		return value__cstr(out, server ? "server" : "client");
	case F_REQ_METHOD:
		return str__some(out, r->method);
	case F_REQ_PATH:
		return str__some(out, r->target);
	case F_REQ_STATUS:
		return r->status < 0 ? -ENOENT : value__i64(out, r->status);
	case F_REQ_ERROR:
		return value__bool(out, r->error);
	case F_REQ_CODE:
		return str__some(out, r->code);
	case F_REQ_MESSAGE:
		return str__some(out, r->message);
	case F_REQ_DURATION:
		return value__u64(out, r->duration);
	case F_REQ_TTFB:
		return value__u64(out, r->ttfb);
	case F_REQ_DURATION_HUMAN:
		return value__human_ns(out, r->duration, ctx);
	case F_REQ_TTFB_HUMAN:
		return value__human_ns(out, r->ttfb, ctx);
	case F_REQ_BYTES_IN_HUMAN:
		return value__human_bytes(out, server ? r->req_bytes : r->resp_bytes, ctx);
	case F_REQ_BYTES_OUT_HUMAN:
		return value__human_bytes(out, server ? r->resp_bytes : r->req_bytes, ctx);
	case F_REQ_ONCPU:
		return r->has_cpu ? value__u64(out, r->oncpu) : -ENOENT;
	case F_REQ_RUNQ:
	case F_REQ_OFFCPU_FILE:
	case F_REQ_OFFCPU_NET:
	case F_REQ_OFFCPU_LOCK:
	case F_REQ_OFFCPU_POLL:
	case F_REQ_OFFCPU_SLEEP:
	case F_REQ_OFFCPU_OTHER:
		return r->has_cpu ? value__u64(out, r->cpu[ref->info->id - F_REQ_RUNQ]) : -ENOENT;
	case F_REQ_REQUEST_BYTES:
		return value__u64(out, r->req_bytes);
	case F_REQ_RESPONSE_BYTES:
		return value__u64(out, r->resp_bytes);
	case F_REQ_BYTES_IN:
		return value__u64(out, server ? r->req_bytes : r->resp_bytes);
	case F_REQ_BYTES_OUT:
		return value__u64(out, server ? r->resp_bytes : r->req_bytes);
	case F_REQ_TIMEOUT:
		return value__bool(out, r->timed_out);
	case F_REQ_ABORTED:
		return value__bool(out, r->aborted);
	case F_REQ_TLS:
		return value__bool(out, r->tls);
	case F_REQ_SNI:
		return str__some(out, r->sni);
	case F_REQ_CIP:
		return req_end__ip(r->family, &r->client, out);
	case F_REQ_SIP:
		return req_end__ip(r->family, &r->server, out);
	case F_REQ_CPORT:
		return value__u64(out, r->client.port);
	case F_REQ_SPORT:
		return value__u64(out, r->server.port);
	case F_REQ_CLIENT:
		return req_end__text(ctx, r->family, &r->client, out);
	case F_REQ_SERVER:
		return req_end__text(ctx, r->family, &r->server, out);
	case F_REQ_L4PROTO:
		return value__cstr(out, r->l4proto == 17 ? "udp" : "tcp");
	case F_REQ_CONN:
		return value__u64(out, r->conn_id);
	case F_REQ_SEQ:
		return value__u64(out, r->conn_seq);
	case F_REQ_ID:
		return value__u64(out, r->id);
	case F_REQ_PARENT:
		return r->parent ? value__u64(out, r->parent) : -ENOENT;
	case F_REQ_DNS_ID:
		return r->proto == REQ_PROTO_DNS ? value__u64(out, r->dns_id) : -ENOENT;
	case F_REQ_START:
		out->type = FT_ABSTIME;
		out->u = r->ts_start;
		return 0;
	case F_REQ_CLIENT_PROC:
		return req_end__proc(&r->client, out);
	case F_REQ_SERVER_PROC:
		return req_end__proc(&r->server, out);
	case F_REQ_CLIENT_PID:
		return r->client.local ? value__i64(out, r->client.pid) : -ENOENT;
	case F_REQ_SERVER_PID:
		return r->server.local ? value__i64(out, r->server.pid) : -ENOENT;
	case F_REQ_CLIENT_CONTAINER:
		return req_end__container(&r->client, false, out);
	case F_REQ_SERVER_CONTAINER:
		return req_end__container(&r->server, false, out);
	case F_REQ_CLIENT_POD:
		return req_end__container(&r->client, true, out);
	case F_REQ_SERVER_POD:
		return req_end__container(&r->server, true, out);
	default:
		return -ENOENT;
	}
}

_Static_assert(F_REQ_OFFCPU_FILE - F_REQ_RUNQ == REQ_CPU_FILE &&
		       F_REQ_OFFCPU_NET - F_REQ_RUNQ == REQ_CPU_NET &&
		       F_REQ_OFFCPU_LOCK - F_REQ_RUNQ == REQ_CPU_LOCK &&
		       F_REQ_OFFCPU_POLL - F_REQ_RUNQ == REQ_CPU_POLL &&
		       F_REQ_OFFCPU_SLEEP - F_REQ_RUNQ == REQ_CPU_SLEEP &&
		       F_REQ_OFFCPU_OTHER - F_REQ_RUNQ == REQ_CPU_OTHER,
	       "req.runq and req.offcpu.* are in enum req_cpu's order");
