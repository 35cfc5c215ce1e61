/* What a protocol parser learns from the first bytes of one message on a
 * connection: the request analysis (issue 23) pairs requests and responses
 * from these. Parsers are pure functions of the bytes: any bytes may arrive
 * (a socket carries what the peer sends, cut at the snaplen), so each checks
 * every length before it reads, never allocates, and never reads past LEN. */
#ifndef REQUESTS_REQ_HEAD_H
#define REQUESTS_REQ_HEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum req_proto {
	REQ_PROTO_NONE = 0,	/* not known: paired as bytes only */
	REQ_PROTO_HTTP,
	REQ_PROTO_DNS,
	REQ_PROTO_REDIS,
	REQ_PROTO_MYSQL,
	REQ_PROTO_PGSQL,
	REQ_PROTO_TLS,		/* encrypted: paired as bytes only, labelled */
	REQ_PROTO_HTTP2,	/* HTTP/2, a request per stream */
	REQ_PROTO_GRPC,		/* HTTP/2 whose content-type is application/grpc */
	REQ_PROTO_KAFKA,
	REQ_PROTO_DUBBO,	/* Dubbo 2 (dubbo://), magic 0xdabb */
	REQ_PROTO_ROCKETMQ,	/* RocketMQ's remoting protocol */
	REQ_PROTO_MAX
};

enum req_pubsub {
	REQ_PUBSUB_NONE = 0,
	REQ_PUBSUB_MESSAGE,	/* [p|s]message, channel(, pattern), payload */
	REQ_PUBSUB_CONFIRM,	/* [p|s][un]subscribe, channel, subscriptions left */
	REQ_PUBSUB_MONITOR,	/* MONITOR; a reply: one of its lines ("+TIME [DB ADDR] ...") */
	REQ_PUBSUB_RESET,	/* RESET: no subscriptions, no MONITOR any more */
};

/* Redis' CLIENT REPLY: whether the server answers the commands after it */
enum req_reply {
	REQ_REPLY_SAME = 0,	/* not a CLIENT REPLY */
	REQ_REPLY_ON,		/* answered, and so are the commands after */
	REQ_REPLY_OFF,		/* neither it nor the commands after, until ON */
	REQ_REPLY_SKIP,		/* neither it nor the next command */
};

#define REQ_METHOD_MAX 24	/* ..., Kafka API, Dubbo method, RocketMQ code */
#define REQ_TARGET_MAX 256	/* ..., Kafka or RocketMQ topic, Dubbo service */
#define REQ_CODE_MAX 24		/* SQLSTATE, MySQL SQL state, Redis error word, gRPC code */
#define REQ_MESSAGE_MAX 128	/* an error's message: gRPC's grpc-message */

/* A word a parser looks for, with its length (no strlen at each try): for
 * tables such as HTTP's methods and Redis' inline commands. */
struct req_word {
	const char *name;
	size_t len;
};
#define REQ_WORD(s) { s, sizeof(s) - 1 }

struct req_head {
	uint8_t proto;		/* enum req_proto */
	bool request;		/* a request; else a response */
	bool error;		/* a response saying the request failed */
	bool len_known;		/* total_len is the whole message */
	int32_t status;		/* HTTP status, DNS rcode, MySQL or Kafka error number; -1: none */
	uint32_t id;		/* DNS transaction id, Kafka correlation id, Dubbo
				 * request id (its low 32 bits), RocketMQ opaque */
	bool no_resp;		/* a request answered by none (Dubbo, RocketMQ
				 * one-way, MySQL's STMT_CLOSE) */
	bool head_cut;		/* the bytes end before all the message's names and
				 * status are read (Dubbo, RocketMQ: the pairing
				 * carries a short read's to the next) */
	uint32_t kafka_api;	/* Kafka request: api key << 16 | version, for its
				 * response's parse (kafka.h) */
	bool upgrade_h2c;	/* HTTP: an Upgrade header naming h2c */
	/* Redis pub/sub and MONITOR (enum req_pubsub): on a response, a
	 * message, an (un)subscribe confirmation or a MONITOR line by its
	 * shape, and push a RESP3 push (>), which is never a reply; on a
	 * request, REQ_PUBSUB_CONFIRM for a (P|S)(UN)SUBSCRIBE, answered by
	 * one confirmation per channel, MONITOR and RESET. count:
	 * a request's channels (0: none named), a confirmation's subscriptions
	 * left. */
	uint8_t pubsub;
	bool push;
	uint32_t count;
	uint8_t reply;		/* Redis request: enum req_reply */
	bool chunked;		/* HTTP: the head is whole and a chunked body
				 * follows (http__chunks walks it) */
	uint32_t head_len;	/* HTTP: the head's bytes, when its end is among
				 * them (0: not) */
	uint64_t total_len;	/* bytes of the whole message (header and body) when
				 * len_known: the next pipelined message starts there */
	uint64_t stmt;		/* PostgreSQL Parse and Bind: the prepared
				 * statement's name, hashed (req_name__hash; the
				 * unnamed one's too); MySQL: the statement id + 1
				 * of a STMT_* command or a STMT_PREPARE's OK;
				 * 0: none, or cut */
	char method[REQ_METHOD_MAX];
	char target[REQ_TARGET_MAX];
	char code[REQ_CODE_MAX];
};

/* Every parser, PROTO__parse(buf, len, request, out):
 *   REQUEST says which way the bytes go (client to server: a request); a
 *   protocol whose messages say which they are (Dubbo, RocketMQ: either side
 *   may send requests) reports that in OUT->request instead.
 *   0: BUF starts a message of this protocol; OUT is filled as far as the
 *      LEN bytes go (strings NUL-terminated and cut to their size).
 *   -ENOMSG: BUF cannot start a message of this protocol.
 *   -EAGAIN: too few bytes to tell (the caller may retry with more).
 * OUT is cleared first (status -1, strings empty) whatever the result; the
 * bytes past a string's NUL are left as they were, so a parser terminates
 * every string it writes. */
void req_head__clear(struct req_head *h);
const char *req_proto__name(enum req_proto p);
/* gRPC's name for status CODE (OK, NOT_FOUND, ...), "" past the 17 known. */
const char *req_grpc__name(int32_t code);

/* A name of LEN bytes as a 64-bit hash (FNV-1a), never 0. */
uint64_t req_name__hash(const uint8_t *name, size_t len);

/* Copies the string SRC into DST of SIZE bytes, cut to fit: the bytes past
 * its NUL are not copied (records are built per request, from short strings
 * in long arrays). Returns the copy's length. */
size_t req_str__copy(char *dst, size_t size, const char *src);

#endif
