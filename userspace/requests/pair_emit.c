/* A request's record: its timing and results, and both ends of the
 * connection, the other end named when its process is on this host too. */
#include <stddef.h>
#include <string.h>

#include "container.h"
#include "pair_int.h"

#ifndef IPPROTO_UDP
#define IPPROTO_UDP 17
#endif

/* A local end's process and container, as they were at the connection's
 * last I/O (the process may be gone since; the connection holds a reference
 * on the container). */
static void end__local(struct req_end *e, int64_t pid, int64_t tid, const char *comm,
		       const struct container_info *ct)
{
	e->local = true;
	e->pid = pid;
	e->tid = tid;
	memcpy(e->comm, comm, sizeof(e->comm));
	e->container = ct;
}

/* An end with no process seen on this host: its address only. */
static void end__remote(struct req_end *e)
{
	e->local = false;
	e->pid = e->tid = 0;
	memset(e->comm, 0, sizeof(e->comm));
	e->container = NULL;
}

/* Which request R is, the same on both sides: its number on a TCP
 * connection; over UDP (a server's socket answers many clients, each
 * numbering its own queries) the client's port and the DNS id. */
static uint32_t times__key(const struct req_record *r)
{
	if (r->l4proto == IPPROTO_UDP)
		return (uint32_t)r->client.port << 16 | (r->dns_id & 0xffff);
	return r->conn_seq;
}

/* The other side's record of R's request on this host, made before R: left
 * on C when it was made (C was known then), else kept on PEER (R's side was
 * first seen after it). Only a record of the same request: the same key and
 * sizes (a side first seen mid-connection numbers its requests from there). */
static const struct pair_times *times__other(const struct req_record *r, uint32_t key,
					     const struct pair_conn *c, const struct pair_conn *peer)
{
	const struct pair_times *t = &c->other[key % c->times_cap];

	if (t->key != key && peer)
		t = &peer->own[key % peer->times_cap];
	if (t->key != key || t->req_bytes != (uint32_t)r->req_bytes ||
	    t->resp_bytes != (uint32_t)r->resp_bytes)
		return NULL;
	return t;
}

/* Both sides of one request on this host: the later record is made to nest
 * with the earlier (the server's inside the client's). Exit-only capture
 * times each call at its exit, and on loopback a server's read can return
 * before the client's write does (or a client's read before the server's
 * write): microseconds that would otherwise let a server seem slower than
 * its client. Each record's times stay on its connection and the other's,
 * by request number, for the other side's record of it: a pipelined batch
 * has many in flight. */
static void times__nest(struct req_record *r, struct pair_conn *c, struct pair_conn *peer)
{
	uint32_t key = times__key(r);
	const struct pair_times *o = key ? times__other(r, key, c, peer) : NULL;
	struct pair_times t;

	if (o && c->side == REQ_SIDE_SERVER) {
		if (r->ts_start < o->start)
			r->ts_start = o->start;
		if (r->ts_end > o->end)
			r->ts_end = o->end;
		if (r->ts_end < r->ts_start)
			r->ts_end = r->ts_start;
	} else if (o) {
		if (r->ts_start > o->start)
			r->ts_start = o->start;
		if (r->ts_end < o->end)
			r->ts_end = o->end;
	}
	if (o) {
		if (r->ts_first_resp && r->ts_first_resp < r->ts_start)
			r->ts_first_resp = r->ts_start;
		if (r->ts_first_resp > r->ts_end)
			r->ts_first_resp = r->ts_end;
	}
	if (!key)
		return;
	t.key = key;
	t.req_bytes = (uint32_t)r->req_bytes;
	t.resp_bytes = (uint32_t)r->resp_bytes;
	t.start = r->ts_start;
	t.end = r->ts_end;
	c->own[key % c->times_cap] = t;
	if (peer)
		peer->other[key % peer->times_cap] = t;
}

_Static_assert(sizeof(((struct req_record *)0)->target) == sizeof(((struct pair_req *)0)->target) &&
		       sizeof(((struct req_record *)0)->method) == sizeof(((struct pair_req *)0)->method) &&
		       sizeof(((struct req_record *)0)->code) == sizeof(((struct pair_req *)0)->code) &&
		       sizeof(((struct req_record *)0)->message) ==
			       sizeof(((struct pair_req *)0)->message),
	       "a request's strings fit its record's");

void pair_emit__req(struct pairer *p, struct pair_conn *c, struct pair_req *q, bool timed_out,
		    bool aborted, uint64_t timeout_end)
{
	struct req_record r;
	struct req_end *local, *other;
	struct pair_conn *peer;
	bool udp = c->l4proto == IPPROTO_UDP;

	/* every field is set below: per request, a clear of the whole record
	 * was a tenth of the agent's time under Redis -P 16 */
	r.proto = q->proto;
	r.side = c->side;
	r.family = c->family;
	r.l4proto = c->l4proto;
	r.error = q->error;
	r.timed_out = timed_out;
	r.aborted = aborted;
	r.both_sides = false;
	r.tls = c->tls;
	r.status = q->status;
	r.dns_id = q->dns_id;
	r.conn_id = c->id;
	r.conn_seq = q->seq;
	r.id = q->id;
	r.parent = q->parent;
	r.ts_start = q->ts_start;
	r.ts_first_resp = q->has_resp ? q->ts_first_resp : 0;
	r.ts_end = timed_out ? timeout_end : q->has_resp ? q->ts_last_resp : q->ts_start;
	r.req_bytes = q->req_bytes;
	r.resp_bytes = q->resp_bytes;
	/* same sizes as the record's: the lengths fit */
	memcpy(r.method, q->method, q->method_len + 1u);
	memcpy(r.target, q->target, q->target_len + 1u);
	memcpy(r.code, q->code, q->code_len + 1u);
	memcpy(r.message, q->message, q->message_len + 1u);
	memcpy(r.sni, c->sni, c->sni_len + 1u);
	if (udp) {
		/* each datagram's peer; this end's address as the fd table has it */
		const uint8_t *lip = c->tsport ? c->tsip : c->tdip;
		uint16_t lport = c->tsport ? c->tsport : c->tdport;
		bool server = c->side == REQ_SIDE_SERVER;

		memcpy(r.client.ip, server ? q->peer_ip : lip, 16);
		r.client.port = server ? q->peer_port : lport;
		memcpy(r.server.ip, server ? lip : q->peer_ip, 16);
		r.server.port = server ? lport : q->peer_port;
	} else {
		memcpy(r.client.ip, c->cip, 16);
		r.client.port = c->cport;
		memcpy(r.server.ip, c->sip, 16);
		r.server.port = c->sport;
	}
	local = c->side == REQ_SIDE_SERVER ? &r.server : &r.client;
	other = c->side == REQ_SIDE_SERVER ? &r.client : &r.server;
	end__local(local, c->pid, c->tid, c->comm, c->ct);
	peer = udp ? pair_conn__by_tuple(p, r.client.ip, r.client.port, r.server.ip,
					 r.server.port, c->l4proto, c->side == REQ_SIDE_SERVER ?
					 REQ_SIDE_CLIENT : REQ_SIDE_SERVER, c)
		   : pair_conn__peer(p, c);
	if (peer) {
		end__local(other, peer->pid, peer->tid, peer->comm, peer->ct);
		r.both_sides = true;
		/* either end may close before the other's record is made (the
		 * server before its client reads the last byte; a client's close
		 * stamped before the server's, which sent the FIN it read) */
		if (!udp) {
			peer->peer_known = true;
			peer->peer_pid = c->pid;
			peer->peer_tid = c->tid;
			memcpy(peer->peer_comm, c->comm, sizeof(peer->peer_comm));
			if (peer->peer_ct != c->ct) {
				container_info__put(peer->peer_ct);
				peer->peer_ct = c->ct ? container_info__ref(c->ct) : NULL;
			}
		}
	} else if (c->peer_known) {
		end__local(other, c->peer_pid, c->peer_tid, c->peer_comm, c->peer_ct);
		r.both_sides = true;
	} else {
		end__remote(other);
	}
	if (!timed_out)
		times__nest(&r, c, peer);
	r.duration = r.ts_end > r.ts_start ? r.ts_end - r.ts_start : 0;
	r.ttfb = q->has_resp && r.ts_first_resp > r.ts_start ? r.ts_first_resp - r.ts_start : 0;
	pair_cpu__record(p, q, &r);
	r.has_tcp = q->has_tcp;
	if (q->has_tcp && !q->has_resp && c->has_tcp) {
		/* no response: up to now (a timeout, the close) */
		q->retrans1 = c->tcp_retrans;
		q->srtt1 = c->tcp_srtt;
	}
	r.tcp_retrans = q->retrans1 - q->retrans0;
	r.tcp_srtt_us = q->srtt1;
	pair_req__release(p, q);
	pair_q__drop(c, q);
	p->c.n_requests++;
	p->c.n_timeouts += timed_out;
	p->c.n_aborted += aborted;
	p->emit(p->ctx, &r);
}

void pair_emit__answered(struct pairer *p, struct pair_conn *c, uint64_t *dropped)
{
	while (c->n) {
		struct pair_req *q = pair_q__at(c, 0);

		if (q->has_resp) {
			pair_emit__req(p, c, q, false, false, 0);
			continue;
		}
		(*dropped)++;
		pair_req__release(p, q);
		pair_q__pop(c);
	}
}
