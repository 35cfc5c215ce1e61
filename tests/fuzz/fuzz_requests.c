/* The request analysis' protocol parsers (userspace/requests/): any bytes a
 * socket may carry, in both directions, through every parser. Besides ASan and
 * UBSan, the contract of req_head.h is checked: only 0, -ENOMSG or -EAGAIN,
 * strings terminated inside their arrays, a message length only with a
 * result, the protocol named as the parser's. http__head_end finds a head's
 * end inside the bytes, and the same end when they come in two pieces. A
 * Kafka response is read as the answer to the API and version the first
 * byte names (bits 1-3: one of eight APIs, bits 4-7: the version). Dubbo and
 * RocketMQ say themselves whether a message is a request: read either way.
 * http__chunks walks a chunked body to the same end, or the same refusal,
 * whole or in two pieces, and never past the bytes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dns.h"
#include "dubbo.h"
#include "http.h"
#include "kafka.h"
#include "mysql.h"
#include "pgsql.h"
#include "redis.h"
#include "req_head.h"
#include "rocketmq.h"
#include "tls.h"

typedef int (*parse_fn)(const uint8_t *buf, size_t len, bool request, struct req_head *out);

/* What ends a MySQL login, read from the server's bytes (either way here). */
static int mysql_auth_end(const uint8_t *buf, size_t len, bool request, struct req_head *out)
{
	(void)request;
	return mysql__auth_end(buf, len, out);
}

/* A Kafka response to the request the first byte names (set per input). */
static uint32_t kafka_api;

static int kafka_response(const uint8_t *buf, size_t len, bool request, struct req_head *out)
{
	(void)request;
	return kafka__parse_response(buf, len, kafka_api, out);
}

static const struct {
	parse_fn fn;
	enum req_proto proto;
} parsers[] = {
	{ http__parse, REQ_PROTO_HTTP },
	{ dns__parse, REQ_PROTO_DNS },
	{ dns__parse_tcp, REQ_PROTO_DNS },
	{ redis__parse, REQ_PROTO_REDIS },
	{ mysql__parse, REQ_PROTO_MYSQL },
	{ mysql_auth_end, REQ_PROTO_MYSQL },
	{ pgsql__parse, REQ_PROTO_PGSQL },
	{ pgsql__parse_walk, REQ_PROTO_PGSQL },
	{ tls__parse, REQ_PROTO_TLS },
	{ kafka__parse, REQ_PROTO_KAFKA },
	{ kafka_response, REQ_PROTO_KAFKA },
	{ dubbo__parse, REQ_PROTO_DUBBO },
	{ rocketmq__parse, REQ_PROTO_ROCKETMQ },
};

static void check(int r, const struct req_head *h, enum req_proto proto)
{
	if (r != 0 && r != -ENOMSG && r != -EAGAIN)
		__builtin_trap();
	if (!memchr(h->method, '\0', sizeof(h->method)) ||
	    !memchr(h->target, '\0', sizeof(h->target)) ||
	    !memchr(h->code, '\0', sizeof(h->code)))
		__builtin_trap();
	if (r == 0 && h->proto != proto)
		__builtin_trap();
	if (r == 0 && h->len_known && h->total_len == 0)
		__builtin_trap();
	/* one-way is said of requests only */
	if (r == 0 && h->no_resp && !h->request)
		__builtin_trap();
}

/* The whole of BUF at once, and cut at AT. */
static void check_head_end(const uint8_t *buf, size_t n, size_t at)
{
	uint8_t st = HTTP_HEAD_START;
	size_t whole = http__head_end(&st, buf, n), first, second;

	if (whole > n || (whole && (buf[whole - 1] != '\n' || whole < 2)))
		__builtin_trap();
	st = HTTP_HEAD_START;
	first = http__head_end(&st, buf, at);
	second = first ? 0 : http__head_end(&st, buf + at, n - at);
	if ((first ? first : second ? at + second : 0) != whole)
		__builtin_trap();
}

/* A chunked body: the whole of BUF at once, and cut at AT. */
static void check_chunks(const uint8_t *buf, size_t n, size_t at)
{
	struct http_chunks ch;
	long whole, first, second;
	bool ended;

	http__chunks_start(&ch);
	whole = http__chunks(&ch, buf, n);
	if (whole > (long)n || (whole == 0 && n) || (whole >= 0 && whole < (long)n && ch.state))
		__builtin_trap();
	ended = whole >= 0 && !ch.state;
	http__chunks_start(&ch);
	first = http__chunks(&ch, buf, at);
	if (first < 0 || !ch.state) {
		/* refused or ended in the first piece: so it is whole */
		if (first != whole)
			__builtin_trap();
		return;
	}
	if (first != (long)at)
		__builtin_trap();
	second = http__chunks(&ch, buf + at, n - at);
	if (second < 0 ? whole >= 0 : (long)at + second != whole || ended != !ch.state)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint16_t kafka_keys[8] = { 0, 1, 3, 18, 12, 10, 11, 22 };
	uint8_t *buf;
	bool request;

	if (size < 1)
		return 0;
	request = data[0] & 1;
	kafka_api = kafka__api_of(kafka_keys[(data[0] >> 1) & 7], data[0] >> 4);
	/* an exact-size copy: a read past the end is an ASan report */
	buf = malloc(size - 1 ? size - 1 : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	for (size_t i = 0; i < sizeof(parsers) / sizeof(parsers[0]); i++) {
		struct req_head h;

		memset(&h, 0xA5, sizeof(h));	/* the parser must clear it */
		check(parsers[i].fn(buf, size - 1, request, &h), &h, parsers[i].proto);
	}
	check_head_end(buf, size - 1, (size_t)(data[0] >> 1) % size);
	check_chunks(buf, size - 1, (size_t)(data[0] >> 1) % size);
	free(buf);
	return 0;
}
