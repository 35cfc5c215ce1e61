/* The pairing's state machine. A TCP connection alternates between bytes in
 * the request direction (client to server) and bytes in the response
 * direction. Protocols whose every message states its length (HTTP, Redis,
 * Kafka, DNS over TCP, PostgreSQL) are walked message by message, so
 * pipelined requests are counted one by one and a response ends at its last
 * byte (a Kafka response goes to the request of its correlation id;
 * PostgreSQL's messages are grouped into requests and responses by
 * pair_pg.c); for the others (MySQL, TLS, unknown bytes) a burst in one
 * direction is one request or one response, and a response ends where the
 * next request begins (or at close, or when the connection stays idle). MySQL's server speaks
 * first: its greeting is kept for the login's exchange (HANDSHAKE), which
 * ends at the server's OK or ERR, an auth switch's round trips included;
 * a command the server never answers (STMT_CLOSE, STMT_SEND_LONG_DATA)
 * and a prepare end at their length, a prepare's answer at its
 * definitions' end, and a prepared statement's commands get its SQL
 * (pair_my.c).
 * UDP datagrams are DNS messages matched by transaction id. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "container.h"
#include "dns.h"
#include "dubbo.h"
#include "h2_frame.h"
#include "http.h"
#include "kafka.h"
#include "mysql.h"
#include "pair_int.h"
#include "pgsql.h"
#include "redis.h"
#include "rocketmq.h"
#include "tls.h"

#ifndef IPPROTO_TCP
#define IPPROTO_TCP 6
#define IPPROTO_UDP 17
#endif
/* req_io.family: sysdig's PPM_AF_INET and PPM_AF_INET6 */
#define PAIR_AF_INET 2
#define PAIR_AF_INET6 10

static int proto__parse(uint8_t proto, bool udp, const uint8_t *b, size_t n, bool request,
			struct req_head *h)
{
	switch (proto) {
	case REQ_PROTO_HTTP: return http__parse(b, n, request, h);
	case REQ_PROTO_DNS: return udp ? dns__parse(b, n, request, h) : dns__parse_tcp(b, n, request, h);
	case REQ_PROTO_REDIS: return redis__parse(b, n, request, h);
	case REQ_PROTO_MYSQL: return mysql__parse(b, n, request, h);
	case REQ_PROTO_PGSQL: return pgsql__parse_walk(b, n, request, h);
	case REQ_PROTO_TLS: return tls__parse(b, n, request, h);
	case REQ_PROTO_KAFKA: return kafka__parse(b, n, request, h);
	case REQ_PROTO_DUBBO: return dubbo__parse(b, n, request, h);
	case REQ_PROTO_ROCKETMQ: return rocketmq__parse(b, n, request, h);
	}
	req_head__clear(h);
	return -ENOMSG;
}

/* The protocol whose parser takes the bytes, tried from the most telling
 * first bytes to the least; REQ_PROTO_NONE when none does. *AGAIN: some
 * parser needs more bytes to tell. */
static uint8_t proto__detect(bool udp, const uint8_t *b, size_t n, bool request,
			     struct req_head *h, bool *again)
{
	static const uint8_t order[] = { REQ_PROTO_HTTP, REQ_PROTO_TLS, REQ_PROTO_DUBBO,
					 REQ_PROTO_PGSQL, REQ_PROTO_MYSQL, REQ_PROTO_REDIS,
					 REQ_PROTO_DNS, REQ_PROTO_ROCKETMQ, REQ_PROTO_KAFKA };
	int r;

	*again = false;
	if (udp) {
		r = dns__parse(b, n, request, h);
		return r == 0 ? REQ_PROTO_DNS : REQ_PROTO_NONE;
	}
	for (size_t i = 0; i < sizeof(order); i++) {
		/* a Kafka response is a length and a number: anything */
		if (order[i] == REQ_PROTO_KAFKA && !request)
			continue;
		/* (PostgreSQL's COPY data and the like only after its start) */
		r = order[i] == REQ_PROTO_PGSQL ? pgsql__parse(b, n, request, h)
						: proto__parse(order[i], false, b, n, request, h);
		if (r == 0)
			return order[i];
		if (r == -EAGAIN)
			*again = true;
	}
	req_head__clear(h);
	return REQ_PROTO_NONE;
}

/* Whether each message of PROTO states its length: walked message by
 * message, one message per request and per response (PostgreSQL's are
 * grouped: pair_pg.c). */
static bool proto__walks(uint8_t proto)
{
	return proto == REQ_PROTO_HTTP || proto == REQ_PROTO_REDIS || proto == REQ_PROTO_DNS ||
	       proto == REQ_PROTO_KAFKA || proto == REQ_PROTO_DUBBO || proto == REQ_PROTO_ROCKETMQ ||
	       proto == REQ_PROTO_PGSQL;
}

/* Protocols whose every message says whether it is a request and carries an
 * id its response repeats: answered in any order, and either side may send
 * requests (a Dubbo heartbeat, a RocketMQ broker's transaction check). */
static bool proto__by_id(uint8_t proto)
{
	return proto == REQ_PROTO_DUBBO || proto == REQ_PROTO_ROCKETMQ;
}

static struct pair_req *q_newest(struct pair_conn *c)
{
	return c->n ? pair_q__at(c, c->n - 1) : NULL;
}

/* Q's own request is still being read: a server that answered before it read
 * the body (nginx discarding a body it has no use for, a 401 or 413 to an
 * upload) reads the rest after its response. Those bytes are Q's, and its
 * record waits for them (or for the connection's end or idle expiry). */
static bool q_body_due(struct pair_conn *c, const struct pair_req *q)
{
	return ((c->req_need && c->req_need != PAIR_LEN_OPEN) || c->req_chunks.state ||
		c->req_body_lost) &&
	       q == q_newest(c);
}

/* A chunked body whose walk was lost (req__chunked) runs to a read that
 * starts a request: the server may have answered it before it came, so its
 * answer does not end it. */
static bool body_lost__ends(struct pair_conn *c, const uint8_t *b, size_t avail)
{
	struct req_head h;

	if (!c->req_body_lost || !avail || http__parse(b, avail, true, &h))
		return false;
	c->req_body_lost = false;
	c->req_need = 0;
	return true;
}

/* Of the LEFT bytes from B (AVAIL of them captured), those of the current
 * request's chunked body. A walk that cannot go on (bytes that are no chunked
 * coding, a chunk's size line past the snaplen) leaves the rest to the rule
 * for bodies of unknown length: they run to the response (counted). */
static uint64_t req__chunked(struct pairer *p, struct pair_conn *c, const uint8_t *b,
			     size_t avail, uint64_t left)
{
	long n = avail ? http__chunks(&c->req_chunks, b, avail) : 0;

	if (n < 0) {
		p->c.n_unparsed++;
		c->req_need = PAIR_LEN_OPEN;
		c->req_body_lost = true;
		return left;
	}
	if (!c->req_chunks.state)
		return (uint64_t)n;	/* its end */
	if (left > avail && !http__chunks_skip(&c->req_chunks, left - avail)) {
		p->c.n_uncaptured++;
		c->req_need = PAIR_LEN_OPEN;
		c->req_body_lost = true;
	}
	return left;
}

/* The done requests at the head of the queue go out, in order. */
static void q_emit_done(struct pairer *p, struct pair_conn *c)
{
	while (c->n && pair_q__at(c, 0)->resp_done && !q_body_due(c, pair_q__at(c, 0)))
		pair_emit__req(p, c, pair_q__at(c, 0), false, false, 0);
}

static bool is_request_dir(const struct pair_conn *c, uint8_t dir)
{
	return (c->side == REQ_SIDE_SERVER) == (dir == REQ_DIR_IN);
}

/* SIDE is known: the client and server addresses from the fd table's tuple. */
static void conn__set_side(struct pairer *p, struct pair_conn *c, uint8_t side)
{
	bool src_is_client = c->accepted || side == REQ_SIDE_CLIENT;

	/* off the chain its old addresses hash to, before they change */
	pair_conn__unlink_tuple(p, c);
	c->side = side;
	memcpy(c->cip, src_is_client ? c->tsip : c->tdip, 16);
	memcpy(c->sip, src_is_client ? c->tdip : c->tsip, 16);
	c->cport = src_is_client ? c->tsport : c->tdport;
	c->sport = src_is_client ? c->tdport : c->tsport;
	pair_conn__index_tuple(p, c);
}

static struct pair_conn *conn__get(struct pairer *p, const struct req_io *io)
{
	struct pair_key k;
	struct pair_conn *c;

	pair_key__of(&k, io);
	c = pair_conn__find(p, &k);
	if (!c) {
		c = pair_conn__add(p, &k);
		if (!c)
			return NULL;
		c->family = io->family;
		c->l4proto = io->l4proto;
		c->accepted = io->accepted;
		memcpy(c->tsip, io->sip, 16);
		memcpy(c->tdip, io->dip, 16);
		c->tsport = io->sport;
		c->tdport = io->dport;
		if (io->accepted)
			conn__set_side(p, c, REQ_SIDE_SERVER);
	}
	c->tid = io->tid;
	if (io->has_tcp) {
		c->has_tcp = true;
		c->tcp_retrans = io->tcp_retrans;
		c->tcp_srtt = io->tcp_srtt_us;
	}
	if (io->container != c->ct) {
		container_info__put(c->ct);
		c->ct = io->container ? container_info__ref(io->container) : NULL;
	}
	if (io->comm) {
		strncpy(c->comm, io->comm, sizeof(c->comm) - 1);
		c->comm[sizeof(c->comm) - 1] = '\0';
	}
	return c;
}

struct pair_req *pair_req__begin(struct pairer *p, struct pair_conn *c, uint8_t proto,
				 uint64_t ts, const struct req_head *h, int64_t tid)
{
	struct pair_req *q;

	if (pair_q__room(c)) {
		p->c.n_pipeline_full++;
		return NULL;
	}
	q = pair_q__at(c, c->n++);
	/* field by field: a memset here compiled to a slow string store */
	q->ts_start = ts;
	q->ts_first_resp = q->ts_last_resp = 0;
	q->req_bytes = q->resp_bytes = 0;
	q->resp_need = 0;
	q->status = -1;
	q->dns_id = q->kafka_api = 0;
	q->proto = proto;
	q->has_resp = q->resp_done = q->error = q->head_resp = false;
	q->sub_left = 0;
	q->pg = 0;
	q->seq = ++c->seq;
	q->stream = 0;
	q->h2_status = -1;
	q->id = ++p->next_req_id;
	q->parent = 0;
	q->tid = tid;
	q->held = c->side == REQ_SIDE_SERVER && pair_thread__hold(p, tid, q->id);
	q->has_tcp = c->has_tcp;
	q->retrans0 = q->retrans1 = c->tcp_retrans;
	q->srtt1 = c->tcp_srtt;
	if (c->side == REQ_SIDE_CLIENT)
		q->parent = pair_thread__parent(p, tid);
	pair_cpu__begin(p, c, q);
	memset(q->peer_ip, 0, sizeof(q->peer_ip));
	q->peer_port = 0;
	q->method[0] = q->target[0] = q->code[0] = q->message[0] = '\0';
	q->method_len = q->target_len = q->code_len = q->message_len = 0;
	if (h && h->proto == proto) {
		q->method_len = (uint16_t)req_str__copy(q->method, sizeof(q->method), h->method);
		q->target_len = (uint16_t)req_str__copy(q->target, sizeof(q->target), h->target);
		q->dns_id = h->id;
		q->kafka_api = h->kafka_api;
		q->head_resp = proto == REQ_PROTO_HTTP && !strcmp(h->method, "HEAD");
		if (h->pubsub == REQ_PUBSUB_CONFIRM)
			q->sub_left = h->count ? h->count : 1;
		/* the connection's records name the server asked for, the
		 * plaintext's too */
		if (proto == REQ_PROTO_TLS && q->target_len && !strcmp(q->method, "CLIENT_HELLO")) {
			memcpy(c->sni, q->target, q->target_len + 1u);
			c->sni_len = q->target_len;
		}
	}
	return q;
}

void pair_req__resp_io(struct pairer *p, const struct pair_conn *c, struct pair_req *q,
		       uint64_t ts, int64_t tid)
{
	q->ts_last_resp = ts;
	if (q->has_tcp && c->has_tcp) {
		q->retrans1 = c->tcp_retrans;
		q->srtt1 = c->tcp_srtt;
	}
	if (c->side == REQ_SIDE_SERVER)
		pair_cpu__write(p, q, tid);
}

/* The response has begun or ended for every request in flight that has some:
 * reported in order (at a change back to the request direction). ALL: also
 * those with none (the burst answered them, its message ends were lost). */
static void conn__settle(struct pairer *p, struct pair_conn *c, bool all, uint64_t ts)
{
	while (c->n) {
		struct pair_req *q = pair_q__at(c, 0);

		if (q->resp_done) {
			/* answered by none (one-way), or answered before its body came */
			if (!all && q_body_due(c, q))
				break;
		} else if (!q->has_resp) {
			if (!all)
				break;
			q->has_resp = true;
			q->ts_first_resp = q->ts_last_resp = ts;
		} else if (!all && proto__walks(q->proto) && q->resp_need != PAIR_LEN_OPEN) {
			break;	/* its known length is not reached yet */
		}
		pair_emit__req(p, c, q, false, false, 0);
	}
}

/* Sets up BUF/BLEN/LEN for bytes of direction DIR: carried bytes of that
 * direction go first. Returns the time the first byte came. */
static uint64_t stream__input(struct pairer *p, struct pair_conn *c, const struct req_io *io,
			      uint64_t ts, const uint8_t **buf, size_t *blen, uint64_t *len)
{
	size_t dl = io->data ? io->data_len : 0;

	*buf = io->data;
	*blen = dl;
	*len = io->len;
	/* the other direction's carried bytes wait for its next read: a Kafka
	 * broker reads a request's head, answers the one before, then reads
	 * the rest */
	if (!c->carry_len || c->carry_dir != io->dir)
		return ts;
	if (p->scratch_cap < PAIR_CARRY + dl) {
		uint8_t *n = realloc(p->scratch, PAIR_CARRY + dl);

		if (!n) {
			c->carry_len = 0;
			return ts;
		}
		p->scratch = n;
		p->scratch_cap = PAIR_CARRY + dl;
	}
	memcpy(p->scratch, c->carry, c->carry_len);
	if (dl)
		memcpy(p->scratch + c->carry_len, io->data, dl);
	*buf = p->scratch;
	*blen = c->carry_len + dl;
	*len = c->carry_len + io->len;
	c->carry_len = 0;
	return c->carry_ts;
}

/* A message's start that the read cut: kept for the next read of DIR when it
 * is small and wholly captured. */
static bool stream__carry(struct pair_conn *c, uint8_t dir, const uint8_t *b, size_t avail,
			  uint64_t left, uint64_t ts)
{
	if (avail != left || avail > PAIR_CARRY || !avail)
		return false;
	memmove(c->carry, b, avail);
	c->carry_len = (uint16_t)avail;
	c->carry_dir = dir;
	c->carry_ts = ts;
	return true;
}

/* A MySQL exchange of several round trips in flight, Q: the client's bytes
 * are its request's, and the server's next packet is read again (for the
 * exchange's end). */
static bool exchange__take(struct pair_conn *c, struct pair_req *q, const struct req_io *io,
			   bool flip)
{
	q->req_bytes += io->len;
	if (flip && c->resp_need == PAIR_LEN_OPEN)
		c->resp_need = 0;
	return true;
}

/* A MySQL login in flight: the client's bytes that are no command (its
 * answer to an auth switch, sequence 3 and on) are the login's. */
static bool auth__request(struct pair_conn *c, const struct req_io *io, bool flip)
{
	struct pair_req *q = q_newest(c);
	struct req_head h;

	if (!q || (io->data && mysql__parse(io->data, io->data_len, true, &h) == 0)) {
		c->my_auth = false;	/* its end was not seen */
		return false;
	}
	return exchange__take(c, q, io, flip);
}

/* LOAD DATA LOCAL: once the server asked for the file, the client's bytes
 * (the file's packets, an empty one at its end) are the statement's, and
 * the server's OK or ERR after them its answer's. */
static bool infile__request(struct pair_conn *c, const struct req_io *io, bool flip)
{
	struct pair_req *q = q_newest(c);

	if (!q || q->resp_done) {
		c->my_infile = false;	/* its statement was not followed */
		return false;
	}
	return exchange__take(c, q, io, flip);
}

/* What a MySQL message begun as a request starts: a login is answered by
 * the server's OK or ERR, maybe after an auth switch; after an SSL request
 * the connection is TLS. */
static void auth__begin(struct pair_conn *c, const struct req_head *h)
{
	if (!strcmp(h->method, "HANDSHAKE"))
		c->my_auth = true;
	else if (!strcmp(h->method, "SSLREQUEST"))
		c->proto = REQ_PROTO_TLS;
}

/* Whether Redis answers request H on C, by CLIENT REPLY's mode (Redis'
 * networking.c): OFF silences it and the commands after until an ON, which
 * is answered; SKIP silences it and the next command (unless OFF is in
 * force); their errors too. */
static bool redis__unanswered(struct pair_conn *c, const struct req_head *h)
{
	bool none = c->redis_reply != 0;

	if (h->reply == REQ_REPLY_ON) {
		c->redis_reply = 0;
		return false;
	}
	if (c->redis_reply == REQ_REPLY_SKIP)
		c->redis_reply = 0;
	if (h->reply == REQ_REPLY_OFF)
		c->redis_reply = REQ_REPLY_OFF;
	else if (h->reply == REQ_REPLY_SKIP && c->redis_reply != REQ_REPLY_OFF)
		c->redis_reply = REQ_REPLY_SKIP;
	return none || h->reply == REQ_REPLY_OFF || h->reply == REQ_REPLY_SKIP;
}

/* Bytes in the request direction. */
static void stream__request(struct pairer *p, struct pair_conn *c, const struct req_io *io,
			    bool flip)
{
	uint64_t ts_read = c->side == REQ_SIDE_CLIENT ? io->ts_enter : io->ts, ts;
	const uint8_t *buf;
	size_t blen, off = 0;
	uint64_t len, done = 0;

	if (c->my_auth && auth__request(c, io, flip))
		return;
	if (c->my_infile && infile__request(c, io, flip))
		return;
	if (flip) {
		conn__settle(p, c, c->resp_lost, c->last_ts);
		c->resp_lost = false;
		c->my_defs = c->my_eofs = 0;
		c->my_walked = false;
		if (c->req_need == PAIR_LEN_OPEN && !c->req_body_lost)
			c->req_need = 0;
		if (c->resp_need == PAIR_LEN_OPEN) {
			c->resp_need = 0;
			c->resp_seq = 0;
			c->resp_other = false;
		}
	}
	/* carried bytes began their message earlier */
	ts = stream__input(p, c, io, ts_read, &buf, &blen, &len);
	while (done < len) {
		struct pair_req *q = q_newest(c);
		struct req_head h;
		uint8_t proto;
		bool again = false;
		int r;

		if (c->req_need && body_lost__ends(c, off < blen ? buf + off : NULL,
						   off < blen ? blen - off : 0))
			q_emit_done(p, c);
		if (c->req_need) {
			uint64_t take = len - done < c->req_need ? len - done : c->req_need;

			if (q)
				q->req_bytes += take;
			done += take;
			off = done < blen ? (size_t)done : blen;
			if (c->req_need != PAIR_LEN_OPEN)
				c->req_need -= take;
			/* one-way requests wholly read go out, in order, and
			 * those answered before their body came */
			if (!c->req_need)
				q_emit_done(p, c);
			continue;
		}
		if (c->req_chunks.state) {
			uint64_t take = req__chunked(p, c, off < blen ? buf + off : NULL,
						     off < blen ? blen - off : 0, len - done);

			if (q)
				q->req_bytes += take;
			done += take;
			off = done < blen ? (size_t)done : blen;
			q_emit_done(p, c);
			continue;
		}
		if (off >= blen) {
			/* a message boundary past what was captured */
			if (c->detected && proto__walks(c->proto) && q) {
				p->c.n_uncaptured++;
				q->req_bytes += len - done;
				break;
			}
			proto = c->detected ? c->proto : REQ_PROTO_NONE;
			r = -ENOMSG;
		} else if (c->detected) {
			proto = c->proto;
			r = proto__parse(proto, false, buf + off, blen - off, true, &h);
			again = r == -EAGAIN;
		} else {
			proto = proto__detect(false, buf + off, blen - off, true, &h, &again);
			r = proto ? 0 : -ENOMSG;
			if (proto) {
				c->proto = proto;
				c->detected = true;
			}
		}
		/* a walked message whose header the read cut: kept for the next
		 * (a Dubbo call's method comes after its path, in the body) */
		if ((again || (!r && proto__walks(proto) && !h.len_known && !h.chunked) ||
		     (!r && h.head_cut)) &&
		    stream__carry(c, io->dir, buf + off, blen - off, len - done,
				  off ? ts_read : ts))
			break;
		/* (an upgraded connection's bytes are no protocol's) */
		if (r && c->detected && c->proto != REQ_PROTO_NONE)
			p->c.n_unparsed++;
		if (r && proto == REQ_PROTO_MYSQL && c->my_walked && q) {
			/* no command after one ended at its length: its bytes,
			 * to the answer, as a burst's */
			c->req_need = PAIR_LEN_OPEN;
			continue;
		}
		if (!r && proto__by_id(proto) && !h.request) {
			/* a response the other way (to a request of the server's):
			 * its bytes are the newest request's, no record */
			c->req_need = h.total_len;
			ts = ts_read;
			continue;
		}
		if (!r && proto == REQ_PROTO_PGSQL) {
			uint8_t last = c->pg_last;

			c->pg_last = buf[off];
			/* a Bind, Execute, Sync ... of the newest request's group;
			 * past PAIR_PIPELINE_MAX, of a statement not followed,
			 * counted once at its first message */
			if (pair_pg__joins(q, buf[off]) ||
			    (!pair_pg__starts(last, buf[off]) && pair_q__room(c))) {
				c->req_need = h.total_len;
				ts = ts_read;
				continue;
			}
		}
		/* (past PAIR_PIPELINE_MAX no request begins: the bytes go to the newest) */
		q = pair_req__begin(p, c, proto, ts, r ? NULL : &h, io->tid);
		if (!r && proto == REQ_PROTO_PGSQL) {
			if (q)
				pair_pg__begin(q, buf[off]);
			pair_pg__statement(c, q, &h, buf[off]);
		}
		if (!r && proto == REQ_PROTO_MYSQL) {
			auth__begin(c, &h);
			if (q)
				pair_my__request(c, q, &h);
		}
		if (!r && proto == REQ_PROTO_REDIS && h.pubsub >= REQ_PUBSUB_MONITOR) {
			/* MONITOR's lines come until a RESET (or the close) */
			c->redis_monitor = h.pubsub == REQ_PUBSUB_MONITOR;
			if (h.pubsub == REQ_PUBSUB_RESET) {
				c->redis_subs = 0;
				c->redis_reply = 0;
			}
		}
		if (!r && proto == REQ_PROTO_REDIS && (h.reply || c->redis_reply))
			h.no_resp = redis__unanswered(c, &h);
		if (!r && h.no_resp && q) {
			q->resp_done = true;
			pair_req__release(p, q);
		}
		ts = ts_read;
		c->my_walked = !r && proto == REQ_PROTO_MYSQL && pair_my__ends_at_length(&h);
		if (!r && (proto__walks(proto) || c->my_walked) && h.len_known && h.total_len) {
			/* (MySQL: a command the server never answers, and a
			 * prepare, end at their length, where the next may
			 * begin; the others run to the answer) */
			c->req_need = h.total_len;
		} else if (!r && proto == REQ_PROTO_HTTP && h.chunked) {
			/* its head, then its body walked chunk by chunk */
			c->req_need = h.head_len;
			http__chunks_start(&c->req_chunks);
		} else {
			c->req_need = PAIR_LEN_OPEN;
		}
	}
}

/* The request in flight whose response message is in progress: the one an
 * id matched (resp_seq), else the first whose response has not ended. */
static struct pair_req *resp__target(struct pair_conn *c)
{
	struct pair_req *first = NULL;

	for (uint32_t i = 0; i < c->n; i++) {
		struct pair_req *x = pair_q__at(c, i);

		if (x->resp_done)
			continue;
		if (!c->resp_seq || x->seq == c->resp_seq)
			return x;
		if (!first)
			first = x;
	}
	return first;
}

/* Dubbo's and RocketMQ's responses come in any order: the request in flight
 * with the id ID, else (begun before the connection was followed, or the id
 * past the captured bytes) Q, the first unanswered. */
static struct pair_req *resp__by_id(struct pair_conn *c, struct pair_req *q, uint32_t id)
{
	for (uint32_t i = 0; i < c->n; i++) {
		struct pair_req *x = pair_q__at(c, i);

		if (!x->resp_done && !x->has_resp && x->dns_id == id)
			return x;
	}
	return q;
}

/* A Kafka response starting at B (N captured bytes), correlation id H->id:
 * the request in flight it answers, from Q (the first unanswered) on. Those
 * before it have no response (a Produce with acks=0): done as they stand.
 * H is then the response as its request's API reads it; *AGAIN when N bytes
 * end before its error code (H: the id alone). No request of that id (begun
 * before the connection was followed): Q, in order. */
static struct pair_req *resp__kafka(struct pairer *p, struct pair_conn *c, struct pair_req *q,
				    const uint8_t *b, size_t n, struct req_head *h, bool *again)
{
	uint32_t i = 0, j;

	while (pair_q__at(c, i) != q)
		i++;
	for (j = i; j < c->n; j++)
		if (!pair_q__at(c, j)->resp_done && pair_q__at(c, j)->dns_id == h->id)
			break;
	if (j == c->n)
		return q;
	for (; i < j; i++) {
		struct pair_req *x = pair_q__at(c, i);

		if (!x->resp_done && !x->has_resp) {
			x->resp_done = true;
			pair_req__release(p, x);
		}
	}
	q = pair_q__at(c, j);
	*again = kafka__parse_response(b, n, q->kafka_api, h) == -EAGAIN;
	if (*again)
		kafka__parse(b, n, false, h);
	return q;
}

/* Q's response, NEED bytes from TS, ends the connection's protocol: the
 * bytes after are found again from themselves, or (DETECTED) stay bytes. */
static void resp__switch(struct pair_conn *c, struct pair_req *q, uint64_t ts, uint64_t need,
			 bool detected)
{
	q->has_resp = true;
	q->ts_first_resp = ts;
	q->resp_need = need;
	c->proto = REQ_PROTO_NONE;
	c->detected = detected;
}

/* PostgreSQL's SSLRequest or GSSENCRequest Q answered by the byte C at TS:
 * accepted ('S', 'G'): then TLS, found again from its bytes (the TLS probes'
 * plaintext is PostgreSQL's), or GSSAPI's, bytes only; refused ('N'): the
 * startup follows in the clear. */
static void resp__pg_answer(struct pair_conn *c, struct pair_req *q, uint8_t b, uint64_t ts)
{
	if (b == 'S' || b == 'G') {
		resp__switch(c, q, ts, 1, b == 'G');
		return;
	}
	q->has_resp = true;
	q->ts_first_resp = ts;
	q->resp_need = 1;
}

/* A PostgreSQL response message, H, at B (AVAIL captured bytes) for Q:
 * its error, and whether Q's response goes on after it (c->resp_more).
 * False: Q has no more coming, and the message is a later request's. */
static bool resp__pg(struct pair_conn *c, struct pair_req *q, const uint8_t *b, size_t avail,
		     const struct req_head *h)
{
	enum pair_pg_end e = pair_pg__resp(q, b, avail, h);

	if (e == PG_NOT_MINE)
		return false;
	c->resp_more = e == PG_MORE;
	if (h->error && !q->error) {
		q->error = true;
		q->code_len = (uint16_t)req_str__copy(q->code, sizeof(q->code), h->code);
	}
	return true;
}

/* The requests after Q, whose error made the server skip every message up to
 * the next Sync, up to the one holding that Sync: answered by none. */
static void resp__pg_skipped(struct pairer *p, struct pair_conn *c, const struct pair_req *q)
{
	uint32_t i = 0;

	while (i < c->n && pair_q__at(c, i) != q)
		i++;
	for (i++; i < c->n; i++) {
		struct pair_req *x = pair_q__at(c, i);

		if (x->resp_done)
			continue;
		x->resp_done = true;
		pair_req__release(p, x);
		if (pair_pg__synced(x))
			break;
	}
}

/* The response message now starting at B (AVAIL captured bytes) for Q; R and
 * H: what the parser made of them. */
static void resp__begin(struct pair_conn *c, struct pair_req *q, const uint8_t *b, size_t avail,
			uint64_t ts, int r, const struct req_head *hp)
{
	if (!r && c->proto == REQ_PROTO_HTTP && hp->status == 101 && hp->upgrade_h2c) {
		/* h2c's upgrade: HTTP/2 from the head's end, where Q's
		 * response comes as stream 1; the head's bytes are Q's */
		q->resp_need = hp->len_known ? hp->total_len : PAIR_LEN_OPEN;
		c->resp_scan = hp->len_known ? 0 : HTTP_HEAD_START;
		c->h2_upgrade = true;
		return;
	}
	if (!r && c->proto == REQ_PROTO_HTTP && hp->status >= 200 && hp->status < 300 &&
	    q->method_len == 7 && !memcmp(q->method, "CONNECT", 7)) {
		/* a tunnel (a proxy's CONNECT): its 2xx is a head alone
		 * (RFC 9110 9.3.6), then the bytes are what the tunnel carries,
		 * TLS mostly, found again from them */
		q->status = hp->status;
		resp__switch(c, q, ts, hp->head_len ? hp->head_len : PAIR_LEN_OPEN, false);
		return;
	}
	if (!r && c->proto == REQ_PROTO_HTTP && http__interim(hp->status)) {
		/* not Q's response, which follows: only its bytes are Q's. It
		 * has no body; a head the read cut ends at its empty line. */
		q->resp_need = hp->len_known ? hp->total_len : PAIR_LEN_OPEN;
		c->resp_scan = hp->len_known ? 0 : HTTP_HEAD_START;
		return;
	}
	if (!q->has_resp) {
		q->has_resp = true;
		q->ts_first_resp = ts;
		if (!r) {
			q->status = hp->status;
			q->error = hp->error;
			q->code_len = (uint16_t)req_str__copy(q->code, sizeof(q->code), hp->code);
		}
	}
	if (!r && c->proto == REQ_PROTO_HTTP && hp->status == 101)
		c->proto = REQ_PROTO_NONE;	/* HTTP/1 ends here: bytes from now on */
	if (!r && proto__walks(c->proto) && hp->len_known && !q->head_resp) {
		q->resp_need = hp->total_len ? hp->total_len : PAIR_LEN_OPEN;
	} else if (!r && c->proto == REQ_PROTO_HTTP && hp->chunked && !q->head_resp) {
		/* its head, then its body walked chunk by chunk */
		q->resp_need = hp->head_len;
		http__chunks_start(&c->resp_chunks);
	} else {
		q->resp_need = PAIR_LEN_OPEN;
		if (proto__walks(c->proto))
			c->resp_lost = true;
	}
}

/* Of the LEFT bytes from B (AVAIL of them captured), those of Q's chunked
 * response body. A walk that cannot go on leaves the rest to the rule for
 * bodies of unknown length, as before the walk: the response runs to the
 * next request (counted). */
static uint64_t resp__chunked(struct pairer *p, struct pair_conn *c, struct pair_req *q,
			      const uint8_t *b, size_t avail, uint64_t left)
{
	long n = avail ? http__chunks(&c->resp_chunks, b, avail) : 0;

	if (n < 0) {
		p->c.n_unparsed++;
	} else if (!c->resp_chunks.state) {
		return (uint64_t)n;	/* its end */
	} else if (left <= avail || http__chunks_skip(&c->resp_chunks, left - avail)) {
		return left;
	} else {
		p->c.n_uncaptured++;
	}
	q->resp_need = c->resp_need = PAIR_LEN_OPEN;
	c->resp_lost = true;
	return left;
}

/* An interim response's head cut by a read, sought in the AVAIL captured of
 * the LEFT bytes from B: the bytes of it there, or PAIR_LEN_OPEN for all of
 * them (its end not found: sought in the next read if all were captured). */
static uint64_t resp__scan(struct pair_conn *c, const uint8_t *b, size_t avail, uint64_t left)
{
	size_t end = http__head_end(&c->resp_scan, b, avail);

	if (end) {
		c->resp_scan = 0;
	} else if (avail < left) {
		/* its end is past the snaplen: lost */
		c->resp_scan = 0;
		c->resp_lost = true;
	}
	return end ? end : PAIR_LEN_OPEN;
}

/* MySQL's server speaks first: its greeting, before any request, is no
 * response; its bytes go to the first request's response. */
static bool greeting__take(struct pair_conn *c, const struct req_io *io)
{
	struct req_head h;

	if (c->seq)
		return false;
	if (!c->greet_bytes &&
	    (c->detected || c->last_dir || !io->data ||
	     mysql__parse(io->data, io->data_len, false, &h) || strcmp(h.method, "GREETING")))
		return false;
	c->proto = REQ_PROTO_MYSQL;
	c->detected = true;
	c->greet_bytes += io->len;
	return true;
}

/* A MySQL login in flight, Q: the server's OK or ERR among B's N bytes
 * ends it with its result; an auth switch before it is part of its
 * response. */
static void auth__response(struct pair_conn *c, struct pair_req *q, const uint8_t *b, size_t n)
{
	struct req_head h;
	int r = mysql__auth_end(b, n, &h);

	if (r == -EAGAIN)
		return;
	c->my_auth = false;
	if (r)
		return;
	q->status = h.status;
	q->error = h.error;
	q->code_len = (uint16_t)req_str__copy(q->code, sizeof(q->code), h.code);
}

/* Q's 101 to h2c has ended at OFF of BUF (BLEN captured, LEFT bytes to
 * come of IO's): the rest is HTTP/2's. */
static void stream__upgrade(struct pairer *p, struct pair_conn *c, struct pair_req *q,
			    const struct req_io *io, const uint8_t *buf, size_t blen, size_t off,
			    uint64_t left)
{
	struct req_io rest = *io;

	c->h2_upgrade = false;
	if (pair_h2__upgrade(p, c, q)) {
		c->proto = REQ_PROTO_NONE;	/* bytes from now on, as any 101 */
		return;
	}
	if (!left)
		return;
	rest.data = off < blen ? buf + off : NULL;
	rest.data_len = off < blen ? (uint32_t)(blen - off) : 0;
	rest.len = left;
	pair_h2__io(p, c, &rest, false);
}

/* Redis: whether the reply H is no answer to Q (the first request whose
 * response is to come, or NULL): a RESP3 push, or, on a connection that
 * subscribed, a message or a confirmation beyond the channels an
 * (un)subscribe in flight named, or on one that asked MONITOR, its lines.
 * A confirmation Q waits for is Q's. Each confirmation leaves the
 * connection's subscription count. */
static bool redis__push(struct pair_conn *c, const struct pair_req *q, const struct req_head *h)
{
	bool confirm = h->pubsub == REQ_PUBSUB_CONFIRM, push = false;

	if (h->pubsub == REQ_PUBSUB_MONITOR)
		return c->redis_monitor;
	if (!(confirm && q && q->sub_left)) {
		if (!h->push && !((h->pubsub == REQ_PUBSUB_MESSAGE || confirm) && c->redis_subs))
			return false;
		push = true;
	}
	if (confirm && h->count != UINT32_MAX)
		c->redis_subs = h->count;
	return push;
}

/* Redis with no request in flight: LEN bytes from DATA (BLEN of them
 * captured) are the rest of a push (resp_need), then whole pushes. True
 * when all of them were, each counted; a push that goes on past them
 * leaves its rest in resp_need. */
static bool redis__unasked(struct pairer *p, struct pair_conn *c, const uint8_t *data,
			   size_t blen, uint64_t len)
{
	uint64_t done = 0;

	if (c->resp_other && c->resp_need && c->resp_need != PAIR_LEN_OPEN) {
		done = c->resp_need < len ? c->resp_need : len;
		c->resp_need -= done;
		if (!c->resp_need)
			c->resp_other = false;
	}
	while (done < len) {
		struct req_head h;

		if (done >= blen || redis__parse(data + done, blen - done, false, &h) ||
		    !h.len_known || !redis__push(c, NULL, &h))
			return false;
		p->c.n_pushes++;
		if (h.total_len > len - done) {
			c->resp_need = h.total_len - (len - done);
			c->resp_other = true;
			return true;
		}
		done += h.total_len;
	}
	return true;
}

/* Bytes in the response direction. */
static void stream__response(struct pairer *p, struct pair_conn *c, const struct req_io *io,
			     bool flip)
{
	uint64_t ts = io->ts, ts_carry, len, done = 0;
	struct pair_req *auth;
	const uint8_t *buf;
	size_t blen, off = 0;

	if (!c->n) {
		if (greeting__take(c, io))
			return;
		if (c->proto == REQ_PROTO_REDIS &&
		    redis__unasked(p, c, io->data, io->data ? io->data_len : 0, io->len))
			return;
		if (flip || !c->last_dir)
			p->c.n_unmatched++;
		if (c->carry_dir == io->dir)
			c->carry_len = 0;
		return;
	}
	if (flip && c->req_need == PAIR_LEN_OPEN && !c->req_body_lost)
		c->req_need = 0;
	/* carried bytes began their message earlier */
	ts_carry = stream__input(p, c, io, ts, &buf, &blen, &len);
	if (c->greet_bytes) {
		pair_q__at(c, 0)->resp_bytes += c->greet_bytes;
		c->greet_bytes = 0;
	}
	/* a login's result: set after the loop, over its first packet's */
	auth = c->my_auth ? resp__target(c) : NULL;
	while (done < len) {
		struct pair_req *q = resp__target(c);

		if (!q) {
			/* pushes after the last reply */
			if (c->proto == REQ_PROTO_REDIS && !c->resp_need &&
			    redis__unasked(p, c, off < blen ? buf + off : NULL,
					   off < blen ? blen - off : 0, len - done))
				break;
			/* more than was asked: the newest takes it, if any */
			if (c->n) {
				q_newest(c)->resp_bytes += len - done;
				pair_req__resp_io(p, c, q_newest(c), ts, io->tid);
			} else {
				p->c.n_unmatched++;
			}
			break;
		}
		if (c->resp_chunks.state && !c->resp_need) {
			uint64_t take = resp__chunked(p, c, q, off < blen ? buf + off : NULL,
						      off < blen ? blen - off : 0, len - done);

			q->resp_bytes += take;
			pair_req__resp_io(p, c, q, ts, io->tid);
			done += take;
			off = done < blen ? (size_t)done : blen;
			if (!c->resp_chunks.state && !c->resp_need) {
				/* its last chunk: the response ended */
				q->resp_done = true;
				pair_req__release(p, q);
				q_emit_done(p, c);
			}
			continue;
		}
		if (!c->resp_need && c->proto == REQ_PROTO_MYSQL && pair_my__walking(c)) {
			/* a prepare's definitions, packet by packet */
			uint64_t need = 0;

			switch (pair_my__next(c, off < blen ? buf + off : NULL,
					      off < blen ? blen - off : 0, &need)) {
			case MY_CUT:
				if (stream__carry(c, io->dir, buf + off, blen - off, len - done,
						  off ? ts : ts_carry))
					goto out;
				c->my_defs = c->my_eofs = 0;
				/* fall through */
			case MY_LOST:
				c->resp_need = PAIR_LEN_OPEN;
				c->resp_more = false;
				break;
			case MY_DONE:
				/* Q has all it gets: the packet is the next one's */
				q->resp_done = true;
				pair_req__release(p, q);
				q_emit_done(p, c);
				continue;
			case MY_PKT:
				c->resp_need = need;
				c->resp_more = pair_my__walking(c);
				break;
			}
			goto take;
		}
		if (!c->resp_need && !c->resp_scan) {
			/* one parse per message: the carry's test and the response's head */
			struct req_head h;
			bool walk = false;
			int r;

			c->resp_more = false;
			if (c->proto == REQ_PROTO_PGSQL && off < blen && pair_pg__one_byte(q)) {
				/* one byte, no length */
				resp__pg_answer(c, q, buf[off], off ? ts : ts_carry);
				c->resp_need = q->resp_need;
				goto take;
			}
			r = off < blen ? proto__parse(c->proto, false, buf + off, blen - off, false, &h)
				       : -ENOMSG;

			/* (a 101's whole head says what the connection becomes;
			 * an HTTP head the read cut, its length) */
			if ((r == -EAGAIN || (!r && h.head_cut) ||
			     (!r && c->proto == REQ_PROTO_HTTP && h.status == 101 && !h.len_known) ||
			     (!r && c->proto == REQ_PROTO_HTTP && !h.len_known && !h.head_len)) &&
			    proto__walks(c->proto) && c->detected &&
			    stream__carry(c, io->dir, buf + off, blen - off, len - done, ts))
				break;
			if (!r && c->proto == REQ_PROTO_REDIS && (h.pubsub || h.push) &&
			    redis__push(c, q, &h)) {
				/* no reply: its bytes are no part of Q's response */
				p->c.n_pushes++;
				c->resp_need = h.len_known ? h.total_len : PAIR_LEN_OPEN;
				c->resp_other = true;
				goto take;
			}
			if (!r && proto__by_id(c->proto) && h.request) {
				/* a request the other way (a peer's heartbeat, a
				 * broker's check): its bytes go with Q's, no record */
				c->resp_need = h.total_len;
				c->resp_other = true;
				goto take;
			}
			if (!r && c->proto == REQ_PROTO_PGSQL && off < blen &&
			    !resp__pg(c, q, buf + off, blen - off, &h)) {
				/* Q has all it gets: the message is the next one's */
				q->resp_done = true;
				pair_req__release(p, q);
				q_emit_done(p, c);
				continue;
			}
			if (!r && proto__by_id(c->proto)) {
				q = resp__by_id(c, q, h.id);
				c->resp_seq = q->seq;
			}
			if (!r && c->proto == REQ_PROTO_KAFKA) {
				bool again = false;

				q = resp__kafka(p, c, q, buf + off, blen - off, &h, &again);
				/* its error code in the next read (librdkafka reads
				 * the length and id first): the head carried to it */
				if (again && stream__carry(c, io->dir, buf + off, blen - off,
							   len - done, ts))
					break;
			}
			if (!r && c->proto == REQ_PROTO_MYSQL && h.total_len &&
			    !strcmp(h.method, "PROGRESS")) {
				/* MariaDB's progress report: no answer, the
				 * next packet may be (or another report) */
				c->resp_need = h.total_len;
				c->resp_more = true;
				goto take;
			}
			if (!r && c->proto == REQ_PROTO_MYSQL)
				walk = pair_my__answer(c, q, &h, buf + off, blen - off);
			resp__begin(c, q, off < blen ? buf + off : NULL, off < blen ? blen - off : 0,
				    off ? ts : ts_carry, r, &h);
			if (walk) {
				/* a prepare's OK: its definitions follow */
				q->resp_need = h.total_len;
				c->resp_more = pair_my__walking(c);
			}
			c->resp_need = q->resp_need;
		}
		if (c->resp_scan)
			c->resp_need = resp__scan(c, off < blen ? buf + off : NULL,
						  off < blen ? blen - off : 0, len - done);
take:
		{
			uint64_t take = len - done < c->resp_need ? len - done : c->resp_need;

			/* (a request the other way is no part of Q's response) */
			if (!c->resp_other) {
				q->resp_bytes += take;
				pair_req__resp_io(p, c, q, ts, io->tid);
			}
			done += take;
			off = done < blen ? (size_t)done : blen;
			if (c->resp_need != PAIR_LEN_OPEN) {
				c->resp_need -= take;
				if (!c->resp_need && c->h2_upgrade) {
					stream__upgrade(p, c, q, io, buf, blen, off, len - done);
					return;
				}
				if (!c->resp_need) {
					c->resp_seq = 0;
					if (c->resp_other) {
						c->resp_other = false;
						continue;
					}
				}
				/* an interim response ended: the next message is Q's
				 * too; a chunked one's head: its body follows; an
				 * (un)subscribe's confirmation: one per channel */
				if (!c->resp_need && q->sub_left > 1) {
					q->sub_left--;
				} else if (!c->resp_need && q->has_resp && !c->resp_chunks.state &&
					   !c->resp_more) {
					q->resp_done = true;
					pair_req__release(p, q);
					if (pair_pg__failed(q))
						resp__pg_skipped(p, c, q);
					/* done ones at the head go out in order */
					q_emit_done(p, c);
				}
			}
		}
	}
out:
	if (auth)
		auth__response(c, auth, buf, blen);
}

/* A UDP socket's side, from its first datagram; indexed by tuple so the
 * other side's records name it: a client by its connected tuple, a server by
 * its own address (for any client). */
static void dgram__set_side(struct pairer *p, struct pair_conn *c, uint8_t side)
{
	c->side = side;
	c->proto = REQ_PROTO_DNS;
	c->detected = true;
	if (side == REQ_SIDE_CLIENT && c->tsport && c->tdport) {
		conn__set_side(p, c, side);
	} else if (side == REQ_SIDE_SERVER) {
		memset(c->cip, 0, 16);
		c->cport = 0;
		memcpy(c->sip, c->tsport ? c->tsip : c->tdip, 16);
		c->sport = c->tsport ? c->tsport : c->tdport;
		pair_conn__index_tuple(p, c);
	}
}

/* A UDP datagram: one DNS message. */
static void dgram__io(struct pairer *p, struct pair_conn *c, const struct req_io *io)
{
	const uint8_t *peer = io->has_peer ? io->peer_ip : c->tdip;
	uint16_t pport = io->has_peer ? io->peer_port : c->tdport;
	struct req_head h;
	struct pair_req *q;

	if (!io->data || (dns__parse(io->data, io->data_len, true, &h) &&
			  dns__parse(io->data, io->data_len, false, &h))) {
		p->c.n_unparsed++;
		return;
	}
	/* this end's port comes with the first message after the kernel bound
	 * the socket (a sendto's enter names none): the records name it, and
	 * the other side's find it by it */
	if (!c->tsport && io->sport) {
		memcpy(c->tsip, io->sip, 16);
		c->tsport = io->sport;
		if (c->side == REQ_SIDE_CLIENT && c->tdport)
			conn__set_side(p, c, c->side);
	}
	if (!c->side)
		dgram__set_side(p, c, h.request == (io->dir == REQ_DIR_IN) ? REQ_SIDE_SERVER
									  : REQ_SIDE_CLIENT);
	if (h.request) {
		q = pair_req__begin(p, c, REQ_PROTO_DNS,
				    c->side == REQ_SIDE_CLIENT ? io->ts_enter : io->ts, &h, io->tid);
		if (!q)
			return;
		q->req_bytes = io->len;
		memcpy(q->peer_ip, peer, 16);
		q->peer_port = pport;
		return;
	}
	for (uint32_t i = 0; i < c->n; i++) {
		q = pair_q__at(c, i);
		if (q->dns_id != h.id || q->peer_port != pport || memcmp(q->peer_ip, peer, 16))
			continue;
		q->has_resp = q->resp_done = true;
		q->ts_first_resp = q->ts_last_resp = io->ts;
		q->resp_bytes = io->len;
		q->status = h.status;
		q->error = h.error;
		pair_emit__req(p, c, q, false, false, 0);
		return;
	}
	p->c.n_unmatched++;
}

/* Which side a connection is on, from its first bytes when the fd table did
 * not say (a socket found in /proc, or from connect: the client). */
static void conn__guess_side(struct pairer *p, struct pair_conn *c, const struct req_io *io)
{
	struct req_head h;
	bool again;
	size_t n = io->data ? io->data_len : 0;
	bool in = io->dir == REQ_DIR_IN;

	if (n && (h2__preface(io->data, n) == 0 ||
		  proto__detect(false, io->data, n, true, &h, &again)))
		conn__set_side(p, c, in ? REQ_SIDE_SERVER : REQ_SIDE_CLIENT);
	else if (n && proto__detect(false, io->data, n, false, &h, &again))
		conn__set_side(p, c, in ? REQ_SIDE_CLIENT : REQ_SIDE_SERVER);
	else if (c->tsport && c->tdport && c->tsport != c->tdport)
		/* a server speaking first whose bytes no parser takes (SMTP's
		 * banner): a service's port is below the ephemeral ports clients
		 * are given (32768 and up) */
		conn__set_side(p, c, c->tsport > c->tdport ? REQ_SIDE_CLIENT : REQ_SIDE_SERVER);
	else
		/* whoever speaks first is taken for the client */
		conn__set_side(p, c, in ? REQ_SIDE_SERVER : REQ_SIDE_CLIENT);
}

/* server_side_once: whether client connection C goes quiet, its server's
 * side being followed too. What it has in flight then is the server side's to
 * report (the server reads every request the client wrote). A server side
 * that made a record of C's connection is followed, though it may have
 * closed since: a server that closes first (HTTP/1.0, a connect storm) does
 * so before its client reads the reply. */
static bool conn__quiet(struct pairer *p, struct pair_conn *c)
{
	if (c->quiet)
		return true;
	if (!p->o.server_side_once || c->side != REQ_SIDE_CLIENT ||
	    (!c->peer_known && !pair_conn__peer(p, c)))
		return false;
	c->quiet = true;
	for (uint32_t i = 0; i < c->n; i++)
		pair_req__release(p, pair_q__at(c, i));
	c->head = c->n = 0;
	c->req_need = c->resp_need = 0;
	c->req_chunks.state = 0;
	c->req_body_lost = false;
	c->resp_chunks.state = 0;
	c->resp_seq = 0;
	c->resp_other = false;
	c->resp_more = false;
	c->resp_scan = 0;
	c->h2_upgrade = false;
	c->carry_len = 0;
	p->c.n_client_quiet++;
	return true;
}

/* A busy quiet connection goes to pair__set_quiet's callback (once). */
static void conn__hand_quiet(struct pairer *p, struct pair_conn *c)
{
	struct pair_quiet_end e;

	pair_conn__quiet_end(c, &e);
	if (p->quiet(p->quiet_ctx, &e, true) == 0) {
		c->quiet_handed = true;
		p->c.n_quiet_handed++;
	} else {
		p->c.n_quiet_refused++;
	}
}

/* A connection made by connect() is taken for the client's until its first
 * bytes say otherwise: a request read on it makes it a server's (a peer that
 * connects out to serve). */
static void conn__check_connect_side(struct pairer *p, struct pair_conn *c,
				     const struct req_io *io)
{
	struct req_head h;
	bool again;

	c->side_connect = false;
	if (io->dir == REQ_DIR_IN && io->data && io->data_len &&
	    proto__detect(false, io->data, io->data_len, true, &h, &again))
		conn__set_side(p, c, REQ_SIDE_SERVER);
}

int pair__connect(struct pairer *p, const struct req_io *io)
{
	struct pair_conn *c;

	if (io->l4proto != IPPROTO_TCP || io->accepted || !io->sport || !io->dport ||
	    (io->family != PAIR_AF_INET && io->family != PAIR_AF_INET6))
		return -EINVAL;
	c = conn__get(p, io);
	if (c && !c->side) {
		conn__set_side(p, c, REQ_SIDE_CLIENT);
		c->side_connect = true;
	}
	return 0;
}

/* C's TLS plaintext comes from now on (req_io.tls): what its ciphertext
 * made so far (the handshake) is reported as it stands, an exchange still
 * unanswered counted and dropped, and the stream starts over, its protocol
 * found from the plaintext. */
static void conn__tls_begin(struct pairer *p, struct pair_conn *c)
{
	uint64_t cut = p->c.n_tls_unanswered;

	pair_emit__answered(p, c, &p->c.n_tls_unanswered);
	/* An exchange the plaintext cut short (the handshake's last flight:
	 * its answer went to the kernel as ciphertext) is no request: its
	 * number goes to the plaintext's first, as on the other end, which
	 * may never have seen that flight. Unanswered ones are the queue's
	 * last, so they were numbered last. */
	c->seq -= (uint32_t)(p->c.n_tls_unanswered - cut);
	c->tls = true;
	pair_h2__free(c->h2);
	c->h2 = NULL;
	c->proto = REQ_PROTO_NONE;
	c->detected = false;
	c->last_dir = 0;
	c->req_need = c->resp_need = 0;
	c->req_chunks.state = 0;
	c->req_body_lost = false;
	c->resp_chunks.state = 0;
	c->resp_seq = 0;
	c->resp_other = false;
	c->resp_more = false;
	c->pg_last = 0;
	c->resp_lost = false;
	c->resp_scan = 0;
	c->h2_upgrade = false;
	c->greet_bytes = 0;
	c->my_auth = false;
	c->carry_len = 0;
}

/* Whether C's bytes IO start HTTP/2, and how (enum pair_h2_start): the
 * client's preface; the server's SETTINGS as the first bytes seen (a server
 * may speak first); else nothing but whole frames (its start missed). Tried
 * while no protocol is found. -1: not HTTP/2. */
static int conn__h2_begins(const struct pair_conn *c, const struct req_io *io)
{
	bool req = is_request_dir(c, io->dir);
	uint8_t w[H2_PREFACE_LEN];
	size_t k = 0, d;
	int r;

	if (c->detected || !io->data || !io->data_len)
		return -1;
	if (req) {
		/* the preface's start may be carried from a short read */
		if (c->carry_len && c->carry_dir == io->dir) {
			k = c->carry_len < H2_PREFACE_LEN ? c->carry_len : H2_PREFACE_LEN;
			memcpy(w, c->carry, k);
		}
		d = io->data_len < H2_PREFACE_LEN - k ? io->data_len : H2_PREFACE_LEN - k;
		memcpy(w + k, io->data, d);
		/* a read of its first 3 bytes on ("PRI", no HTTP/1 method) is
		 * enough: the rest is checked as it comes */
		r = h2__preface(w, k + d);
		if (r == 0 || (r == -EAGAIN && k + d >= 3))
			return PAIR_H2_PREFACE;
	}
	if (io->data_len != io->len || h2__frames(io->data, io->data_len))
		return -1;
	/* a SETTINGS frame, not an ACK */
	if (!req && !c->last_dir && io->data[3] == H2_SETTINGS && !(io->data[4] & H2_F_END_STREAM))
		return PAIR_H2_SERVER_FIRST;
	return PAIR_H2_MID;
}

int pair__io(struct pairer *p, const struct req_io *io)
{
	struct pair_conn *c;
	bool flip;

	if ((io->dir != REQ_DIR_IN && io->dir != REQ_DIR_OUT) || !io->len ||
	    (io->l4proto != IPPROTO_TCP && io->l4proto != IPPROTO_UDP))
		return -EINVAL;
	c = conn__get(p, io);
	if (!c)
		return 0;
	if (io->l4proto == IPPROTO_UDP) {
		dgram__io(p, c, io);
	} else {
		if (io->tls != c->tls) {
			/* the socket's own bytes beside its plaintext */
			if (!io->tls) {
				p->c.n_tls_cipher++;
				return 0;
			}
			conn__tls_begin(p, c);
		}
		if (!c->side)
			conn__guess_side(p, c, io);
		else if (c->side_connect)
			conn__check_connect_side(p, c, io);
		flip = c->last_dir && c->last_dir != io->dir;
		if (!conn__quiet(p, c)) {
			int how = c->h2 ? -1 : conn__h2_begins(c, io);

			if (how >= 0)
				/* the preface's start carried from a short read */
				pair_h2__start(p, c, (enum pair_h2_start)how,
					       how == PAIR_H2_PREFACE && c->carry_dir == io->dir ?
					       c->carry_len : 0);
			if (c->h2)
				pair_h2__io(p, c, io, is_request_dir(c, io->dir));
			else if (is_request_dir(c, io->dir))
				stream__request(p, c, io, flip);
			else
				stream__response(p, c, io, flip);
		} else {
			/* its requests are the server side's records, but the
			 * thread writing them makes a client's request */
			if (p->role && is_request_dir(c, io->dir))
				p->role(p->role_ctx, io->tid, false);
			if (c->quiet_io < PAIR_QUIET_AFTER && ++c->quiet_io == PAIR_QUIET_AFTER &&
			    p->quiet)
				conn__hand_quiet(p, c);
		}
	}
	c->last_dir = io->dir;
	c->last_ts = io->ts;
	return 0;
}
