/* tcp.* fields: read from the TCP record the agent is printing or filtering
 * (field_ctx.tcp). A request record (field_ctx.req) whose connection's
 * syscalls carried its TCP state has two: retransmits and srtt. Absent for
 * other events. */
#include <errno.h>

#include "fields_int.h"
#include "req_record.h"
#include "tcp_record.h"

/* A request record's TCP state (req_record.has_tcp) */
static int req__tcp(const struct field_ref *ref, const struct req_record *q,
		    struct field_value *out)
{
	if (!q || !q->has_tcp)
		return -ENOENT;
	if (ref->info->id == F_TCP_RETRANSMITS)
		return value__u64(out, q->tcp_retrans);
	if (ref->info->id == F_TCP_SRTT && q->tcp_srtt_us)
		return value__u64(out, q->tcp_srtt_us * 1000ull);
	return -ENOENT;
}

int fields__extract_tcp(const struct field_ref *ref, const struct ievt *ev,
			struct field_ctx *ctx, unsigned n, struct field_value *out)
{
	const struct tcp_record *r = ctx->tcp;

	(void)ev;
	if (n)
		return -ENOENT;
	if (!r)
		return req__tcp(ref, ctx->req, out);
	switch (ref->info->id) {
	case F_TCP_SIDE:
		return value__cstr(out, r->side == REQ_SIDE_SERVER ? "server" : "client");
	case F_TCP_OUTCOME:
		return value__cstr(out, tcp_outcome__name(r->outcome));
	case F_TCP_ESTABLISHED:
		return value__bool(out, r->established);
	case F_TCP_START:
		out->type = FT_ABSTIME;
		out->u = r->ts_start;
		return 0;
	case F_TCP_DURATION:
		return value__u64(out, r->duration);
	case F_TCP_DURATION_HUMAN:
		return value__human_ns(out, r->duration, ctx);
	case F_TCP_CONNECT:
		return r->connect_ns ? value__u64(out, r->connect_ns) : -ENOENT;
	case F_TCP_BYTES_SENT:
		return value__u64(out, r->bytes_sent);
	case F_TCP_BYTES_RECEIVED:
		return value__u64(out, r->bytes_received);
	case F_TCP_RETRANSMITS:
		return value__u64(out, r->retransmits);
	case F_TCP_SRTT:
		return r->srtt_us ? value__u64(out, r->srtt_us * 1000ull) : -ENOENT;
	case F_TCP_RESETS_SENT:
		return value__u64(out, r->resets_sent);
	case F_TCP_RESETS_RECEIVED:
		return value__u64(out, r->resets_received);
	case F_TCP_CIP:
		return req_end__ip(r->family, &r->client, out);
	case F_TCP_SIP:
		return req_end__ip(r->family, &r->server, out);
	case F_TCP_CPORT:
		return value__u64(out, r->client.port);
	case F_TCP_SPORT:
		return value__u64(out, r->server.port);
	case F_TCP_CLIENT:
		return req_end__text(ctx, r->family, &r->client, out);
	case F_TCP_SERVER:
		return req_end__text(ctx, r->family, &r->server, out);
	case F_TCP_CLIENT_PROC:
		return req_end__proc(&r->client, out);
	case F_TCP_SERVER_PROC:
		return req_end__proc(&r->server, out);
	case F_TCP_CLIENT_PID:
		return r->client.local && r->client.pid ? value__i64(out, r->client.pid) : -ENOENT;
	case F_TCP_SERVER_PID:
		return r->server.local && r->server.pid ? value__i64(out, r->server.pid) : -ENOENT;
	case F_TCP_CLIENT_CONTAINER:
		return req_end__container(&r->client, false, out);
	case F_TCP_SERVER_CONTAINER:
		return req_end__container(&r->server, false, out);
	default:
		return -ENOENT;
	}
}
