/* A TCP_CLOSE event's params into a TCP record (tcp_record.h). The bytes come
 * from the ring or a file: every length is checked before it is read. */
#include <errno.h>
#include <string.h>

#include "schema.h"
#include "tcp_event.h"

/* The params' lengths, in the event's order (proto/events.def); the tuple's
 * is checked by its family. */
static const uint16_t tcp_param_len[] = { 8, 1, 1, 8, 8, 8, 8, 8, 4, 4, 4, 4, 16 };
enum { P_PID, P_SIDE, P_OUTCOME, P_START, P_CONNECT, P_DURATION, P_SENT, P_RECEIVED,
       P_RETRANS, P_SRTT, P_RST_SENT, P_RST_RECV, P_COMM, P_TUPLE, P__COUNT };
_Static_assert(sizeof(tcp_param_len) / sizeof(tcp_param_len[0]) == P_TUPLE,
	       "a length per fixed param");
_Static_assert(PPME_TCP_CLOSE_E_NPARAMS == P__COUNT, "TCP_CLOSE's params");

static void end__set(struct req_end *e, const uint8_t *ip, size_t alen, const uint8_t *port)
{
	uint16_t p;

	memset(e, 0, sizeof(*e));
	memcpy(e->ip, ip, alen);
	memcpy(&p, port, 2);
	e->port = p;
}

int tcp_record__decode(struct tcp_record *r, const struct schema_params *pp, uint64_t ts)
{
	const uint8_t *t;
	struct req_end *local;
	size_t alen;

	if (pp->n != P__COUNT)
		return -EINVAL;
	for (unsigned i = 0; i < P_TUPLE; i++)
		if (pp->len[i] != tcp_param_len[i])
			return -EINVAL;
	t = pp->val[P_TUPLE];
	if (pp->len[P_TUPLE] == 13 && t[0] == PPM_AF_INET)
		alen = 4;
	else if (pp->len[P_TUPLE] == 37 && t[0] == PPM_AF_INET6)
		alen = 16;
	else
		return -EINVAL;
	r->side = pp->val[P_SIDE][0];
	r->outcome = pp->val[P_OUTCOME][0];
	if ((r->side != REQ_SIDE_CLIENT && r->side != REQ_SIDE_SERVER) ||
	    r->outcome >= TCP_OUTCOME__COUNT)
		return -EINVAL;
	r->family = t[0];
	r->established = r->outcome == TCP_OUTCOME_CLOSED || r->outcome == TCP_OUTCOME_RESET;
	r->ts_start = schema__u64(pp->val[P_START]);
	r->connect_ns = schema__u64(pp->val[P_CONNECT]);
	r->duration = schema__u64(pp->val[P_DURATION]);
	r->ts_end = ts;
	r->bytes_sent = schema__u64(pp->val[P_SENT]);
	r->bytes_received = schema__u64(pp->val[P_RECEIVED]);
	r->retransmits = schema__u32(pp->val[P_RETRANS]);
	r->srtt_us = schema__u32(pp->val[P_SRTT]);
	r->resets_sent = schema__u32(pp->val[P_RST_SENT]);
	r->resets_received = schema__u32(pp->val[P_RST_RECV]);
	end__set(&r->client, t + 1, alen, t + 1 + alen);
	end__set(&r->server, t + 3 + alen, alen, t + 3 + 2 * alen);
	local = r->side == REQ_SIDE_SERVER ? &r->server : &r->client;
	local->local = true;
	local->pid = (int64_t)schema__u64(pp->val[P_PID]);
	local->tid = local->pid;
	/* 16 bytes, NUL-padded: at most 15 of a name */
	memcpy(local->comm, pp->val[P_COMM], sizeof(local->comm));
	local->comm[sizeof(local->comm) - 1] = 0;
	return 0;
}
