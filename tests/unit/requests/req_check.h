/* Checks the request parsers' tests share (every parser's): a parse of an
 * exact-size heap copy (so that valgrind or ASan sees a read past LEN), every
 * prefix of a message, a refusal, and the other protocols' first bytes. */
#ifndef UNIT_REQ_CHECK_H
#define UNIT_REQ_CHECK_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/t_check.h"
#include "req_head.h"

typedef int (*req_parse_fn)(const uint8_t *buf, size_t len, bool request, struct req_head *out);

static inline int req_parse(req_parse_fn parse, const uint8_t *msg, size_t n, bool request,
			    struct req_head *out)
{
	uint8_t *copy = malloc(n ? n : 1);
	int r;

	if (n)
		memcpy(copy, msg, n);
	r = parse(copy, n, request, out);
	free(copy);
	return r;
}

/* Every prefix of MSG (N bytes) gives -EAGAIN, or 0 with no field other than
 * the whole message's: strings may be cut, code and status not yet known. */
static inline void req_prefixes_at(int line, req_parse_fn parse, const uint8_t *msg, size_t n,
				   bool request)
{
	struct req_head full, h;
	int failed = t_failed, r;
	size_t k;

	CHECK_INT(req_parse(parse, msg, n, request, &full), 0);
	for (k = 0; k <= n; k++) {
		r = req_parse(parse, msg, k, request, &h);
		CHECK(r == 0 || r == -EAGAIN);
		if (r)
			continue;
		CHECK_INT(h.proto, full.proto);
		CHECK_INT(h.request, request);
		CHECK_STR(h.method, full.method);
		CHECK(strncmp(h.target, full.target, strlen(h.target)) == 0);
		CHECK(!h.code[0] || !strcmp(h.code, full.code));
		CHECK(h.status == -1 || h.status == full.status);
		CHECK_INT(h.error, full.error);
		CHECK_INT(h.len_known, true);
		CHECK_EQ(h.total_len, full.total_len);
	}
	if (t_failed != failed)
		fprintf(stderr, "  (prefixes of line %d)\n", line);
}
#define req_prefixes(parse, msg, n, request) req_prefixes_at(__LINE__, parse, msg, n, request)

/* Every prefix of MSG (N bytes) of a protocol whose message names come
 * after its length (Dubbo, RocketMQ): -EAGAIN below MIN bytes, then 0 with
 * the whole message's direction and length, each other field either the
 * whole message's or not known yet (empty, 0, -1). */
static inline void req_prefixes_known_at(int line, req_parse_fn parse, const uint8_t *msg,
					 size_t n, const struct req_head *full, size_t min)
{
	int failed = t_failed;
	struct req_head p;

	for (size_t k = 0; k <= n; k++) {
		int r = req_parse(parse, msg, k, full->request, &p);

		if (k < min) {
			CHECK_INT(r, -EAGAIN);
			continue;
		}
		CHECK_INT(r, 0);
		CHECK_INT(p.proto, full->proto);
		CHECK_INT(p.request, full->request);
		CHECK(p.id == 0 || p.id == full->id);
		CHECK(!p.no_resp || full->no_resp);
		CHECK(p.status == -1 || p.status == full->status);
		CHECK(!p.error || full->error);
		CHECK(p.len_known && p.total_len == full->total_len);
		CHECK(!p.method[0] || !strcmp(p.method, full->method));
		CHECK(!p.target[0] || !strcmp(p.target, full->target));
		CHECK(!p.code[0] || !strcmp(p.code, full->code));
	}
	if (t_failed != failed)
		fprintf(stderr, "  (prefixes of line %d)\n", line);
}

/* MSG (N bytes) as WANT says (its protocol, direction, id, one-way,
 * status, error, names), its length N; then its prefixes as above. */
static inline void req_check_known_at(int line, req_parse_fn parse, const uint8_t *msg, size_t n,
				      const struct req_head *want, size_t min)
{
	int failed = t_failed;
	struct req_head h;

	CHECK_INT(req_parse(parse, msg, n, want->request, &h), 0);
	CHECK_INT(h.proto, want->proto);
	CHECK_INT(h.request, want->request);
	CHECK_INT(h.id, want->id);
	CHECK_INT(h.no_resp, want->no_resp);
	CHECK_INT(h.status, want->status);
	CHECK_INT(h.error, want->error);
	CHECK_STR(h.method, want->method);
	CHECK_STR(h.target, want->target);
	CHECK_STR(h.code, want->code);
	CHECK(h.len_known && h.total_len == n);
	req_prefixes_known_at(line, parse, msg, n, &h, min);
	if (t_failed != failed)
		fprintf(stderr, "  (message of line %d)\n", line);
}

/* -ENOMSG, OUT cleared. LINE: the caller's line (or the foreign entry's index). */
static inline void req_refused_at(int line, req_parse_fn parse, const uint8_t *msg, size_t n,
				  bool request)
{
	struct req_head h;
	int r = req_parse(parse, msg, n, request, &h);

	CHECK(r == -ENOMSG && h.proto == REQ_PROTO_NONE && h.status == -1 && !h.method[0]);
	if (r != -ENOMSG)
		fprintf(stderr, "  (at %d: %d)\n", line, r);
}
#define req_refused(parse, msg, n, request) req_refused_at(__LINE__, parse, msg, n, request)

#define REQ_BYTES(lit) (const uint8_t *)(lit), sizeof(lit) - 1

/* Typical first bytes of each protocol: HTTP, RESP and DNS by their
 * specifications, MySQL as MariaDB 10.11 sends them, PostgreSQL as psql 15 and
 * its server, TLS as OpenSSL 3.0 (the first bytes of its records), Kafka by
 * its schemas (a Metadata v4 request, an ApiVersions v0 answer), Dubbo and
 * RocketMQ by their specifications (a Hessian2 call and its answer; a JSON
 * SEND_MESSAGE, a binary SUCCESS). */
static const struct req_foreign {
	enum req_proto proto;
	bool request;
	const uint8_t *bytes;
	size_t n;
} req_foreign[] = {
	{ REQ_PROTO_HTTP, true, REQ_BYTES("GET /index.html HTTP/1.1\r\nHost: a\r\n\r\n") },
	{ REQ_PROTO_HTTP, true, REQ_BYTES("POST /x HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi") },
	{ REQ_PROTO_HTTP, false, REQ_BYTES("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") },
	{ REQ_PROTO_REDIS, true, REQ_BYTES("*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n") },
	{ REQ_PROTO_REDIS, false, REQ_BYTES("+OK\r\n") },
	{ REQ_PROTO_REDIS, false, REQ_BYTES("-ERR unknown command\r\n") },
	{ REQ_PROTO_DNS, true, REQ_BYTES("\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00"
		"\x07" "example\x03" "com\x00\x00\x01\x00\x01") },
	{ REQ_PROTO_DNS, true, REQ_BYTES("\x9a\x4c\x01\x20\x00\x01\x00\x00\x00\x00\x00\x01"
		"\x07" "example\x03" "com\x00\x00\x01\x00\x01") },
	{ REQ_PROTO_DNS, true, REQ_BYTES("\x00\x1d\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00"
		"\x00\x07" "example\x03" "com\x00\x00\x01\x00\x01") },
	{ REQ_PROTO_DNS, false, REQ_BYTES("\x12\x34\x81\x80\x00\x01\x00\x01\x00\x00\x00\x00"
		"\x07" "example\x03" "com\x00\x00\x01\x00\x01\xc0\x0c\x00\x01\x00\x01\x00\x00\x0e"
		"\x10\x00\x04\x5d\xb8\xd8\x22") },
	{ REQ_PROTO_MYSQL, true, REQ_BYTES("\x10\x00\x00\x00\x03select 1 as one") },
	{ REQ_PROTO_MYSQL, true, REQ_BYTES("\x01\x00\x00\x00\x0e") },
	{ REQ_PROTO_MYSQL, false, REQ_BYTES("\x07\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00") },
	{ REQ_PROTO_MYSQL, false, REQ_BYTES("\x02\x00\x00\x01\x01\x01") },
	{ REQ_PROTO_MYSQL, false, REQ_BYTES("\x64\x00\x00\x00\x0a" "5.5.5-10.11.19-MariaDB") },
	{ REQ_PROTO_PGSQL, true, REQ_BYTES("\x00\x00\x00\x38\x00\x03\x00\x00user\x00" "alice\x00"
		"database\x00shop\x00\x00") },
	{ REQ_PROTO_PGSQL, true, REQ_BYTES("\x00\x00\x00\x08\x04\xd2\x16\x2f") },
	{ REQ_PROTO_PGSQL, true, REQ_BYTES("Q\x00\x00\x00\x14select 1 as one\x00") },
	{ REQ_PROTO_PGSQL, true, REQ_BYTES("P\x00\x00\x00\x26\x00SELECT a FROM t1 WHERE a = $1;"
		"\x00\x00\x00") },
	{ REQ_PROTO_PGSQL, false, REQ_BYTES("Z\x00\x00\x00\x05I") },
	{ REQ_PROTO_PGSQL, false, REQ_BYTES("C\x00\x00\x00\x0dSELECT 1\x00") },
	{ REQ_PROTO_PGSQL, false, REQ_BYTES("E\x00\x00\x00\x69SERROR\x00VERROR\x00" "C42P01\x00"
		"Mrelation \"nosuch\" does not exist\x00P15\x00" "Fparse_relation.c\x00L1392\x00"
		"RparserOpenTable\x00\x00") },
	{ REQ_PROTO_TLS, true, REQ_BYTES("\x16\x03\x01\x01\x3b\x01\x00\x01\x37\x03\x03\xae\x50") },
	{ REQ_PROTO_TLS, false, REQ_BYTES("\x16\x03\x03\x00\x7a\x02\x00\x00\x76\x03\x03\xd1\x93") },
	{ REQ_PROTO_TLS, true, REQ_BYTES("\x17\x03\x03\x00\x13\xc1\x25\x62\xc5\x3d\xdc\xe3") },
	{ REQ_PROTO_KAFKA, true, REQ_BYTES("\x00\x00\x00\x19\x00\x03\x00\x04\x00\x00\x00\x02"
		"\x00\x07rdkafka\x00\x00\x00\x01\x00\x01t\x00") },
	{ REQ_PROTO_KAFKA, false, REQ_BYTES("\x00\x00\x00\x10\x00\x00\x00\x01\x00\x00\x00\x00"
		"\x00\x01\x00\x00\x00\x00\x00\x09") },
	{ REQ_PROTO_DUBBO, true, REQ_BYTES("\xda\xbb\xc2\x00\x00\x00\x00\x00\x00\x00\x00\x07"
		"\x00\x00\x00\xf0\x05" "2.0.2\x30\x21org.apache.dubbo.demo.DemoService") },
	{ REQ_PROTO_DUBBO, false, REQ_BYTES("\xda\xbb\x02\x14\x00\x00\x00\x00\x00\x00\x00\x07"
		"\x00\x00\x00\x0d\x91\x0bHello world") },
	{ REQ_PROTO_ROCKETMQ, true, REQ_BYTES("\x00\x00\x00\xa0\x00\x00\x00\x90"
		"{\"code\":10,\"extFields\":{\"topic\":\"TopicTest\"") },
	{ REQ_PROTO_ROCKETMQ, false, REQ_BYTES("\x00\x00\x00\x19\x01\x00\x00\x15\x00\x00\x00\x01\xc5"
		"\x00\x00\x00\x15\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00") },
};

/* The other protocols' first bytes are refused, both ways. */
static inline void req_refuse_foreign(req_parse_fn parse, enum req_proto self)
{
	size_t i;

	for (i = 0; i < sizeof(req_foreign) / sizeof(req_foreign[0]); i++) {
		const struct req_foreign *f = &req_foreign[i];

		if (f->proto == self)
			continue;
		req_refused_at((int)i, parse, f->bytes, f->n, f->request);
		req_refused_at((int)i, parse, f->bytes, f->n, !f->request);
	}
}

#endif
