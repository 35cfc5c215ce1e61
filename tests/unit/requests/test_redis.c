/* redis__parse on messages captured from Debian 12's redis-cli 7.0.15 (to
 * nc -l) and redis-server 7.0.15 (replies to raw RESP commands), then on
 * truncated, pipelined and hostile bytes and on other protocols' first bytes.
 * Every parse runs on a copy of exactly LEN bytes, so that valgrind and ASan
 * see any read past it. */
#include <errno.h>
#include <stdint.h>

#include "../common/t_check.h"
#include "redis.h"
#include "req_check.h"

static struct req_head h;

static int parse(const void *bytes, size_t len, bool request)
{
	uint8_t *copy = malloc(len ? len : 1);
	int r;

	memcpy(copy, bytes, len);
	r = redis__parse(copy, len, request, &h);
	free(copy);
	return r;
}

#define S(lit) (lit), sizeof(lit) - 1

/* redis-cli SET mykey hello */
static const char req_set[] = "*3\r\n$3\r\nSET\r\n$5\r\nmykey\r\n$5\r\nhello\r\n";
/* redis-cli config get maxmemory: lowercase as typed */
static const char req_config[] = "*3\r\n$6\r\nconfig\r\n$3\r\nget\r\n$9\r\nmaxmemory\r\n";
/* printf 'PING\r\n' | nc: an inline command */
static const char req_inline[] = "PING\r\n";

/* redis-server's replies to HELLO 3, HSET h f v, HGETALL h, SMEMBERS nosuch,
 * GET nokey, COMMAND INFO GET, sent at once */
static const char resp3[] =
	"%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n"
	"7.0.15\r\n$5\r\nproto\r\n:3\r\n$2\r\nid\r\n:12\r\n$4\r\nmode\r\n"
	"$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\n"
	"modules\r\n*0\r\n:1\r\n%1\r\n$1\r\nf\r\n$1\r\nv\r\n~0\r\n_\r\n"
	"*1\r\n*10\r\n$3\r\nget\r\n:2\r\n~2\r\n+readonly\r\n+fast\r\n:1\r\n"
	":1\r\n:1\r\n~3\r\n+@read\r\n+@string\r\n+@fast\r\n~0\r\n~1\r\n"
	"%3\r\n$5\r\nflags\r\n~2\r\n+RO\r\n+access\r\n$12\r\n"
	"begin_search\r\n%2\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n"
	"%1\r\n$5\r\nindex\r\n:1\r\n$9\r\nfind_keys\r\n%2\r\n$4\r\ntype\r\n"
	"$5\r\nrange\r\n$4\r\nspec\r\n%3\r\n$7\r\nlastkey\r\n:0\r\n$7\r\n"
	"keystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n~0\r\n";

static const struct {
	const char *bytes;
	bool error;
	const char *code;
	int as_request;		/* parsed as a request */
} replies[] = {
	{ "+OK\r\n", false, "", -ENOMSG },				/* SET */
	{ "$5\r\nhello\r\n", false, "", -ENOMSG },			/* GET mykey */
	{ "$-1\r\n", false, "", -ENOMSG },				/* GET nokey */
	{ ":1\r\n", false, "", -ENOMSG },				/* INCR counter */
	/* LRANGE list 0 -1: an array of bulk strings, as a request is (and
	 * "c" could be a command); the direction tells them apart */
	{ "*3\r\n$1\r\nc\r\n$1\r\nb\r\n$1\r\na\r\n", false, "", 0 },
	{ "*2\r\n$5\r\nhello\r\n*2\r\n$1\r\nc\r\n$1\r\nb\r\n", false, "", -ENOMSG },	/* EXEC */
	{ "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
	  true, "WRONGTYPE", -ENOMSG },				/* LPUSH mykey x */
	{ "-ERR unknown command 'FOO', with args beginning with: \r\n", true, "ERR", -ENOMSG },
};

/* Every prefix of a message: -EAGAIN, or 0 with the fields of the whole one
 * (a key appears whole or not at all) and no length past the prefix. */
static void check_prefixes(const char *msg, size_t n, bool request)
{
	struct req_head full;

	CHECK_INT(parse(msg, n, request), 0);
	full = h;
	for (size_t k = 0; k < n; k++) {
		int r = parse(msg, k, request);

		CHECK(r == 0 || r == -EAGAIN);
		if (r)
			continue;
		CHECK_STR(h.method, full.method);
		CHECK(!h.target[0] || !strcmp(h.target, full.target));
		CHECK_EQ(h.error, full.error);
		CHECK_STR(h.code, full.code);
		CHECK(!h.len_known || h.total_len <= k);
	}
}

static void test_requests(void)
{
	CHECK_INT(parse(S(req_set), true), 0);
	CHECK_INT(h.proto, REQ_PROTO_REDIS);
	CHECK(h.request);
	CHECK(!h.error);
	CHECK_INT(h.status, -1);
	CHECK_INT(h.id, 0);
	CHECK_STR(h.method, "SET");
	CHECK_STR(h.target, "mykey");
	CHECK_STR(h.code, "");
	CHECK(h.len_known);
	CHECK_INT(h.total_len, sizeof(req_set) - 1);

	/* two-word commands keep their first word; the target is the first
	 * argument whatever it is, here the subcommand */
	CHECK_INT(parse(S(req_config), true), 0);
	CHECK_STR(h.method, "CONFIG");
	CHECK_STR(h.target, "get");
	CHECK_INT(h.total_len, sizeof(req_config) - 1);

	CHECK_INT(parse(S(req_inline), true), 0);
	CHECK_INT(h.proto, REQ_PROTO_REDIS);
	CHECK(h.request);
	CHECK_STR(h.method, "PING");
	CHECK_STR(h.target, "");
	CHECK(h.len_known);
	CHECK_INT(h.total_len, 6);

	/* telnet style, lowercase, bare LF (written by the redis docs' example) */
	CHECK_INT(parse(S("get  mykey extra\n"), true), 0);
	CHECK_STR(h.method, "GET");
	CHECK_STR(h.target, "mykey");
	CHECK_INT(h.total_len, 17);

	/* a command alone: no target; pipelined requests are walked */
	{
		static const char pipe[] = "*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n";
		size_t at;

		CHECK_INT(parse(S(pipe), true), 0);
		CHECK_STR(h.method, "PING");
		CHECK_STR(h.target, "");
		CHECK_INT(h.total_len, 14);
		at = h.total_len;
		CHECK_INT(parse(pipe + at, sizeof(pipe) - 1 - at, true), 0);
		CHECK_STR(h.method, "GET");
		CHECK_STR(h.target, "k");
		CHECK_INT(at + h.total_len, sizeof(pipe) - 1);
	}

	/* a value cut by LEN: what is there, length unknown */
	CHECK_INT(parse(req_set, 20, true), 0);
	CHECK_STR(h.method, "SET");
	CHECK_STR(h.target, "");
	CHECK(!h.len_known);
	CHECK_INT(h.total_len, 0);

	check_prefixes(S(req_set), true);
	check_prefixes(S(req_config), true);
	check_prefixes(S(req_inline), true);
}

static void test_replies(void)
{
	for (size_t i = 0; i < sizeof(replies) / sizeof(replies[0]); i++) {
		size_t n = strlen(replies[i].bytes);

		CHECK_INT(parse(replies[i].bytes, n, false), 0);
		CHECK_INT(h.proto, REQ_PROTO_REDIS);
		CHECK(!h.request);
		CHECK_EQ(h.error, replies[i].error);
		CHECK_STR(h.code, replies[i].code);
		CHECK_STR(h.method, "");
		CHECK_STR(h.target, "");
		CHECK_INT(h.status, -1);
		CHECK(h.len_known);
		CHECK_INT(h.total_len, n);
		CHECK_INT(parse(replies[i].bytes, n, true), replies[i].as_request);
		check_prefixes(replies[i].bytes, n, false);
	}

	/* the RESP3 replies sent at once, walked one by one */
	{
		size_t at = 0, count = 0, n = sizeof(resp3) - 1;
		static const size_t ends[] = { 146, 150, 168, 172, 175, 482 };

		while (at < n && count < 6) {
			CHECK_INT(parse(resp3 + at, n - at, false), 0);
			CHECK(h.len_known);
			at += h.total_len;
			CHECK_INT(at, ends[count]);
			count++;
		}
		CHECK_INT(count, 6);
		CHECK_INT(at, n);
		check_prefixes(resp3, 146, false);
		check_prefixes(resp3 + 175, n - 175, false);
	}

	/* redis-benchmark -P style: pipelined replies */
	{
		static const char pipe[] = "+PONG\r\n+PONG\r\n+PONG\r\n";
		size_t at = 0;

		for (int i = 0; i < 3; i++) {
			CHECK_INT(parse(pipe + at, sizeof(pipe) - 1 - at, false), 0);
			CHECK_INT(h.total_len, 7);
			at += h.total_len;
		}
		CHECK_INT(at, sizeof(pipe) - 1);
	}

	/* RESP3 types, written from the RESP3 specification */
	CHECK_INT(parse(S("#t\r\n"), false), 0);
	CHECK_INT(h.total_len, 4);
	CHECK_INT(parse(S(",3.14\r\n"), false), 0);
	CHECK_INT(h.total_len, 7);
	CHECK_INT(parse(S("(3492890328409238509324850943850943825024385\r\n"), false), 0);
	CHECK_INT(parse(S("=15\r\ntxt:Some string\r\n"), false), 0);
	CHECK_INT(h.total_len, 22);
	CHECK_INT(parse(S("!21\r\nSYNTAX invalid syntax\r\n"), false), 0);
	CHECK(h.error);
	CHECK_STR(h.code, "SYNTAX");
	CHECK_INT(h.total_len, 28);
	CHECK_INT(parse(S(">2\r\n+message\r\n:1\r\n"), false), 0);
	CHECK_INT(h.total_len, 18);

	/* cut values: 0, length unknown; the first line incomplete: -EAGAIN */
	CHECK_INT(parse(S("$100\r\nabc"), false), 0);
	CHECK(!h.len_known);
	CHECK_INT(parse(S("*2\r\n$1\r\na\r\n"), false), 0);
	CHECK(!h.len_known);
	CHECK_INT(parse(S("-ERR partial"), false), -EAGAIN);
	CHECK_INT(parse(S("$10"), false), -EAGAIN);
}

static void test_hostile(void)
{
	char big[600];

	/* huge counts: a request's beyond redis' own bound; a reply's walked
	 * only as far as its bytes go */
	CHECK_INT(parse(S("*2147483647\r\n$3\r\nGET\r\n"), true), -ENOMSG);
	CHECK_INT(parse(S("*2147483647\r\n:1\r\n:2\r\n"), false), 0);
	CHECK(!h.len_known);
	CHECK_INT(parse(S("*2147483648\r\n"), false), -ENOMSG);
	CHECK_INT(parse(S("*99999999999999999999\r\n"), false), -ENOMSG);
	CHECK_INT(parse(S("%1073741824\r\n"), false), 0);
	CHECK(!h.len_known);
	CHECK_INT(parse(S("*-5\r\n"), false), -ENOMSG);
	CHECK_INT(parse(S("*-1\r\n"), false), 0);		/* RESP2 null array */
	CHECK_INT(h.total_len, 5);
	CHECK_INT(parse(S("*0\r\n"), true), -ENOMSG);
	CHECK_INT(parse(S("*1\r\n$-1\r\n"), true), -ENOMSG);
	CHECK_INT(parse(S("*1\r\n:1\r\n"), true), -ENOMSG);
	/* bulk lengths: beyond 512 MB, past LEN, wrong end */
	CHECK_INT(parse(S("$536870913\r\n"), false), -ENOMSG);
	CHECK_INT(parse(S("$536870912\r\nab"), false), 0);
	CHECK(!h.len_known);
	CHECK_INT(parse(S("$5\r\nhelloXX"), false), -ENOMSG);
	CHECK_INT(parse(S("$5\r\nhello\rX"), false), -ENOMSG);
	CHECK_INT(parse(S("*1\r\n$5\r\nhelloXX"), true), -ENOMSG);
	CHECK_INT(parse(S("$-2\r\n"), false), -ENOMSG);
	CHECK_INT(parse(S("$\r\n"), false), -ENOMSG);
	CHECK_INT(parse(S(":12345678901234567890\r\n"), false), -ENOMSG);
	CHECK_INT(parse(S(":-12\r\n"), false), 0);
	CHECK_INT(parse(S(":9223372036854775807\r\n"), false), 0);
	CHECK_INT(parse(S(":9223372036854775808\r\n"), false), -ENOMSG);
	CHECK_INT(parse(S(">9999999999999999999\r\n"), false), -ENOMSG);	/* found by fuzzing */
	CHECK_INT(parse(S("*999999999999999999\r\n"), false), -ENOMSG);
	/* depth: 16 levels taken, 17 refused */
	{
		char deep[17 * 4 + 5];
		size_t n = 0;

		for (int i = 0; i < 17; i++, n += 4)
			memcpy(deep + n, "*1\r\n", 4);
		memcpy(deep + n, ":1\r\n", 4);
		CHECK_INT(parse(deep + 4, n, false), 0);
		CHECK_INT(h.total_len, n);
		CHECK_INT(parse(deep, n + 4, false), -ENOMSG);
	}
	/* line ends and bytes: bare LF, CR without LF, NUL, control bytes */
	CHECK_INT(parse(S("+OK\n"), false), -ENOMSG);
	CHECK_INT(parse(S("+OK\rX"), false), -ENOMSG);
	CHECK_INT(parse(S("+O\0K\r\n"), false), -ENOMSG);
	CHECK_INT(parse(S("-E\x01R\r\n"), false), -ENOMSG);
	CHECK_INT(parse(S("+caf\xc3\xa9\r\n"), false), 0);	/* UTF-8 is text */
	CHECK_INT(parse(S("#x\r\n"), false), -ENOMSG);
	CHECK_INT(parse(S("_x\r\n"), false), -ENOMSG);
	CHECK_INT(parse(S("|1\r\n"), false), -ENOMSG);		/* attributes: not taken */
	/* commands: letters only, 32 at most, cut to the method's size */
	CHECK_INT(parse(S("*1\r\n$3\r\n\xff\xfe\xfd\r\n"), true), -ENOMSG);
	CHECK_INT(parse(S("*1\r\n$3\r\nG\0T\r\n"), true), -ENOMSG);
	CHECK_INT(parse(S("*1\r\n$3\r\n1ET\r\n"), true), -ENOMSG);
	CHECK_INT(parse(S("*1\r\n$0\r\n\r\n"), true), -ENOMSG);
	CHECK_INT(parse(S("*1\r\n$33\r\nabcdefghijabcdefghijabcdefghijabc\r\n"), true), -ENOMSG);
	CHECK_INT(parse(S("*1\r\n$30\r\nabcdefghijabcdefghijabcdefghij\r\n"), true), 0);
	CHECK_STR(h.method, "ABCDEFGHIJABCDEFGHIJABC");
	/* keys: a NUL ends the string, a long key is cut */
	CHECK_INT(parse(S("*2\r\n$3\r\nGET\r\n$3\r\na\0b\r\n"), true), 0);
	CHECK_STR(h.target, "a");
	CHECK_INT(h.total_len, 22);
	memcpy(big, "*2\r\n$3\r\nGET\r\n$300\r\n", 19);
	memset(big + 19, 'k', 300);
	memcpy(big + 319, "\r\n", 2);
	CHECK_INT(parse(big, 321, true), 0);
	CHECK_INT(strlen(h.target), REQ_TARGET_MAX - 1);
	CHECK_INT(h.total_len, 321);
	/* inline: known commands only, whole printable lines */
	CHECK_INT(parse(S("hello world\r\n"), true), -ENOMSG);
	CHECK_INT(parse(S("Hi there\r\n"), true), -ENOMSG);
	CHECK_INT(parse(S("PINGX\r\n"), true), -ENOMSG);
	/* the longest name taken inline, and one letter more; a word of 16
	 * letters, whole or cut (a connect storm's message) */
	CHECK_INT(parse(S("subscribe news\r\n"), true), 0);
	CHECK_STR(h.method, "SUBSCRIBE");
	CHECK_INT(parse(S("SUBSCRIBES news\r\n"), true), -ENOMSG);
	CHECK_INT(parse(S("SUBSCRI"), true), -EAGAIN);
	CHECK_INT(parse(S("qqqqqqqqqqqqqqqq"), true), -ENOMSG);
	CHECK_INT(parse(S("qqqqqqqqqqqqqqqq\r\n"), true), -ENOMSG);
	CHECK_INT(parse(S("PI"), true), -EAGAIN);
	CHECK_INT(parse(S("PING"), true), -EAGAIN);
	CHECK_INT(parse(S("GET k\x01\r\n"), true), -ENOMSG);
	CHECK_INT(parse(S("GET k\rx\r\n"), true), -ENOMSG);
	/* empty lines, which Redis skips: redis-cli --pipe's last write (its
	 * ECHO of 20 random bytes, digits here), and before other arrays; not
	 * before an inline command */
	CHECK_INT(parse(S("\r\n*2\r\n$4\r\nECHO\r\n$20\r\n81640728352139208617\r\n"), true), 0);
	CHECK_STR(h.method, "ECHO");
	CHECK(h.len_known);
	CHECK_INT(h.total_len, 43);
	CHECK_INT(parse(S("\n\r\n*1\r\n$4\r\nPING\r\nGET"), true), 0);
	CHECK_STR(h.method, "PING");
	CHECK_INT(h.total_len, 17);
	CHECK_INT(parse(S("\r\nGET k\r\n"), true), -ENOMSG);
	CHECK_INT(parse(S("\r\n"), true), -EAGAIN);
	CHECK_INT(parse(S("\r\n\n\r"), true), -EAGAIN);
	CHECK_INT(parse(S("\r\r\n"), true), -ENOMSG);
	CHECK_INT(parse(S(""), true), -EAGAIN);
	CHECK_INT(parse(S(""), false), -EAGAIN);
	/* an inline line longer than redis takes, with no end */
	{
		size_t n = 70 * 1024;
		char *line = malloc(n);

		memcpy(line, "GET ", 4);
		memset(line + 4, 'a', n - 4);
		CHECK_INT(parse(line, n, true), -ENOMSG);
		free(line);
	}
}

/* Other protocols' first bytes, both ways. */
static void test_others(void)
{
	static const struct {
		const char *name;
		const char *bytes;
		size_t len;
	} others[] = {
		{ "http request", S("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") },
		{ "http request, lowercase get", S("get /index.html HTTP/1.0\r\n\r\n") },
		{ "http response", S("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") },
		/* dig's query for example.com A */
		{ "dns query", S("\x10\xcc\x01\x20\x00\x01\x00\x00\x00\x00\x00\x01\x07""example"
				 "\x03""com\x00\x00\x01\x00\x01") },
		/* MySQL 8 server greeting, client COM_QUERY, an ERR packet */
		{ "mysql greeting", S("\x4a\x00\x00\x00\x0a""8.0.36\x00\x08\x00\x00\x00") },
		{ "mysql query", S("\x21\x00\x00\x00\x03select @@version_comment limit 1") },
		{ "mysql query, 42 bytes", S("\x2a\x00\x00\x00\x03select 1") },
		{ "mysql error", S("\x17\x00\x00\x01\xff\x48\x04#HY000No tables used") },
		/* PostgreSQL SSLRequest, StartupMessage, Query, ErrorResponse */
		{ "pg sslrequest", S("\x00\x00\x00\x08\x04\xd2\x16\x2f") },
		{ "pg startup", S("\x00\x00\x00\x25\x00\x03\x00\x00user\x00postgres\x00") },
		{ "pg query", S("Q\x00\x00\x00\x0dselect 1;\x00") },
		{ "pg error", S("E\x00\x00\x00\x60SERROR\x00VERROR\x00""C42P01\x00") },
		/* TLS 1.2 ClientHello record start */
		{ "tls client hello", S("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\x8a\x1e") },
		{ "tls server hello", S("\x16\x03\x03\x00\x7a\x02\x00\x00\x76\x03\x03") },
	};

	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		int rq = parse(others[i].bytes, others[i].len, true);
		int rs = parse(others[i].bytes, others[i].len, false);

		if (rq != -ENOMSG || rs != -ENOMSG)
			fprintf(stderr, "%s: %d %d\n", others[i].name, rq, rs);
		CHECK_INT(rq, -ENOMSG);
		CHECK_INT(rs, -ENOMSG);
		/* nor is any prefix taken */
		for (size_t n = 0; n < others[i].len; n++) {
			CHECK(parse(others[i].bytes, n, true) != 0);
			CHECK(parse(others[i].bytes, n, false) != 0);
		}
	}
	/* Ambiguous: an HTTP request line cut before " HTTP/" could still be an
	 * inline GET; it is refused as soon as the line is whole. */
	CHECK_INT(parse(S("GET / HT"), true), -EAGAIN);
}

/* Random bytes, and random bytes after a valid start: any result, never a
 * read past LEN (valgrind, ASan), always a valid result code. */
static void test_random(void)
{
	static const char *const starts[] = { "*", "*3\r\n$3\r\nSET\r\n", "$", "%2\r\n", "+", "-", "GET " };
	uint32_t x = 12345;
	uint8_t buf[64];

	for (int i = 0; i < 20000; i++) {
		size_t n = i % sizeof(buf), s = 0;
		int r;

		if (i & 1) {
			const char *st = starts[(i >> 1) % (sizeof(starts) / sizeof(starts[0]))];

			s = strlen(st) < n ? strlen(st) : n;
			memcpy(buf, st, s);
		}
		for (size_t k = s; k < n; k++) {
			x = x * 1103515245 + 12345;
			buf[k] = (uint8_t)(x >> 16);
			if (x & 0x100000)
				buf[k] = "\r\n$*:+-0123"[buf[k] % 11];
		}
		r = parse(buf, n, i & 2);
		CHECK(r == 0 || r == -ENOMSG || r == -EAGAIN);
		/* (a pub/sub message's length comes from its payload's header) */
		if (r == 0 && h.len_known)
			CHECK(h.total_len > 0 && (h.total_len <= n || h.pubsub == REQ_PUBSUB_MESSAGE));
	}
}

/* Pub/sub, as Debian 12's redis-server 7.0.15 sent it to raw RESP2 and
 * RESP3 (HELLO 3) connections: the shapes the parser reports; which of them
 * answer a request is the pairing's (test_pair_redis). */
static void test_pubsub(void)
{
	static const struct {
		const char *bytes;
		bool push;
		uint8_t pubsub;
		uint32_t count;
	} shapes[] = {
		/* SUBSCRIBE c1 c2: one confirmation per channel */
		{ "*3\r\n$9\r\nsubscribe\r\n$2\r\nc1\r\n:1\r\n", false, REQ_PUBSUB_CONFIRM, 1 },
		{ "*3\r\n$9\r\nsubscribe\r\n$2\r\nc2\r\n:2\r\n", false, REQ_PUBSUB_CONFIRM, 2 },
		/* a PUBLISH c1 hello; PSUBSCRIBE c* and a PUBLISH c1 hi */
		{ "*3\r\n$7\r\nmessage\r\n$2\r\nc1\r\n$5\r\nhello\r\n", false, REQ_PUBSUB_MESSAGE, 0 },
		{ "*4\r\n$8\r\npmessage\r\n$2\r\nc*\r\n$2\r\nc1\r\n$2\r\nhi\r\n", false,
		  REQ_PUBSUB_MESSAGE, 0 },
		/* PING while subscribed: a reply of two elements */
		{ "*2\r\n$4\r\npong\r\n$0\r\n\r\n", false, REQ_PUBSUB_NONE, 0 },
		/* UNSUBSCRIBE: the last channel left, and none subscribed */
		{ "*3\r\n$11\r\nunsubscribe\r\n$2\r\nc2\r\n:0\r\n", false, REQ_PUBSUB_CONFIRM, 0 },
		{ "*3\r\n$11\r\nunsubscribe\r\n$-1\r\n:0\r\n", false, REQ_PUBSUB_CONFIRM, 0 },
		/* RESP3: confirmations and messages are pushes, as an invalidation */
		{ ">3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:2\r\n", true, REQ_PUBSUB_CONFIRM, 2 },
		{ ">3\r\n$11\r\nunsubscribe\r\n_\r\n:0\r\n", true, REQ_PUBSUB_CONFIRM, 0 },
		{ ">3\r\n$7\r\nmessage\r\n$1\r\na\r\n$1\r\nx\r\n", true, REQ_PUBSUB_MESSAGE, 0 },
		{ ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n", true, REQ_PUBSUB_NONE, 0 },
		/* LRANGE of a list holding "message", "c1", "x": a message's shape */
		{ "*3\r\n$7\r\nmessage\r\n$2\r\nc1\r\n$1\r\nx\r\n", false, REQ_PUBSUB_MESSAGE, 0 },
		/* not these shapes: a word of another case, other counts, no bulk first */
		{ "*3\r\n$7\r\nMESSAGE\r\n$2\r\nc1\r\n$1\r\nx\r\n", false, REQ_PUBSUB_NONE, 0 },
		{ "*2\r\n$7\r\nmessage\r\n$2\r\nc1\r\n", false, REQ_PUBSUB_NONE, 0 },
		{ "*4\r\n$7\r\nmessage\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n", false, REQ_PUBSUB_NONE, 0 },
		{ "*3\r\n+message\r\n$2\r\nc1\r\n$1\r\nx\r\n", false, REQ_PUBSUB_NONE, 0 },
		{ "*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n$1\r\n1\r\n", false, REQ_PUBSUB_CONFIRM,
		  UINT32_MAX },
	};

	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		size_t n = strlen(shapes[i].bytes);

		CHECK_INT(parse(shapes[i].bytes, n, false), 0);
		CHECK(h.len_known);
		CHECK_INT(h.total_len, n);
		CHECK_EQ(h.push, shapes[i].push);
		CHECK_INT(h.pubsub, shapes[i].pubsub);
		CHECK_INT(h.count, shapes[i].count);
		CHECK(!h.error);
	}
	/* a message whose payload the capture cut: its whole length, from the
	 * payload's header; cut in that header: not known */
	CHECK_INT(parse(S("*3\r\n$7\r\nmessage\r\n$2\r\nc1\r\n$100000\r\nxxxx"), false), 0);
	CHECK_INT(h.pubsub, REQ_PUBSUB_MESSAGE);
	CHECK(h.len_known);
	CHECK_INT(h.total_len, 34 + 100000 + 2);
	CHECK_INT(parse(S(">3\r\n$7\r\nmessage\r\n$2\r\nc1\r\n$100"), false), 0);
	CHECK(h.push && !h.len_known);
	/* a confirmation cut before its count: the count is not known */
	CHECK_INT(parse(S("*3\r\n$9\r\nsubscribe\r\n$2\r\nc1\r\n"), false), 0);
	CHECK_INT(h.pubsub, REQ_PUBSUB_CONFIRM);
	CHECK_INT(h.count, UINT32_MAX);
	CHECK(!h.len_known);

	/* requests: the (un)subscribe commands and their channels, by
	 * redis-cli (arrays) and inline */
	CHECK_INT(parse(S("*3\r\n$9\r\nSUBSCRIBE\r\n$2\r\nc1\r\n$2\r\nc2\r\n"), true), 0);
	CHECK_STR(h.method, "SUBSCRIBE");
	CHECK_INT(h.pubsub, REQ_PUBSUB_CONFIRM);
	CHECK_INT(h.count, 2);
	CHECK_INT(parse(S("*2\r\n$10\r\npsubscribe\r\n$2\r\nc*\r\n"), true), 0);
	CHECK_INT(h.pubsub, REQ_PUBSUB_CONFIRM);
	CHECK_INT(h.count, 1);
	CHECK_INT(parse(S("*1\r\n$11\r\nUNSUBSCRIBE\r\n"), true), 0);
	CHECK_INT(h.pubsub, REQ_PUBSUB_CONFIRM);
	CHECK_INT(h.count, 0);
	CHECK_INT(parse(S("SUBSCRIBE c1  c2\tc3\r\n"), true), 0);
	CHECK_INT(h.pubsub, REQ_PUBSUB_CONFIRM);
	CHECK_INT(h.count, 3);
	CHECK_INT(parse(S("*2\r\n$7\r\nPUBLISH\r\n$2\r\nc1\r\n"), true), 0);
	CHECK_INT(h.pubsub, REQ_PUBSUB_NONE);
	CHECK_INT(parse(S("*2\r\n$9\r\nSUBSCRIBX\r\n$2\r\nc1\r\n"), true), 0);
	CHECK_INT(h.pubsub, REQ_PUBSUB_NONE);
	CHECK_INT(parse(S("*2\r\n$4\r\nSPOP\r\n$2\r\nc1\r\n"), true), 0);
	CHECK_INT(h.pubsub, REQ_PUBSUB_NONE);

	/* MONITOR, its lines (a SET of "a b" and a GET), RESET; statuses
	 * that are no such line */
	CHECK_INT(parse(S("*1\r\n$7\r\nmonitor\r\n"), true), 0);
	CHECK_INT(h.pubsub, REQ_PUBSUB_MONITOR);
	CHECK_INT(parse(S("MONITOR\r\n"), true), 0);
	CHECK_INT(h.pubsub, REQ_PUBSUB_MONITOR);
	CHECK_INT(parse(S("*1\r\n$5\r\nRESET\r\n"), true), 0);
	CHECK_INT(h.pubsub, REQ_PUBSUB_RESET);
	CHECK_INT(parse(S("+1795910577.955001 [0 127.0.0.1:58616] \"SET\" \"k\" \"a b\"\r\n"), false), 0);
	CHECK_INT(h.pubsub, REQ_PUBSUB_MONITOR);
	CHECK_INT(h.total_len, 56);
	CHECK_INT(parse(S("+1795910578.054880 [0 127.0.0.1:58616] \"GET\" \"k\"\r\n"), false), 0);
	CHECK_INT(h.pubsub, REQ_PUBSUB_MONITOR);
	CHECK_INT(parse(S("+OK\r\n"), false), 0);
	CHECK_INT(h.pubsub, REQ_PUBSUB_NONE);
	CHECK_INT(parse(S("+1795910577 [0]\r\n"), false), 0);
	CHECK_INT(h.pubsub, REQ_PUBSUB_NONE);
	CHECK_INT(parse(S("+1.5 x\r\n"), false), 0);
	CHECK_INT(h.pubsub, REQ_PUBSUB_NONE);
	CHECK_INT(parse(S("$22\r\n1795910577.955001 [0 1\r\n"), false), 0);
	CHECK_INT(h.pubsub, REQ_PUBSUB_NONE);
}

/* CLIENT REPLY's mode, as a command array and inline, in any case; other
 * CLIENT subcommands, a mode word cut by the read or none given say none */
static void test_client_reply(void)
{
	static const struct {
		const char *bytes;
		uint8_t reply;
	} cases[] = {
		{ "*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$3\r\nOFF\r\n", REQ_REPLY_OFF },
		{ "*3\r\n$6\r\nclient\r\n$5\r\nreply\r\n$4\r\nskip\r\n", REQ_REPLY_SKIP },
		{ "*3\r\n$6\r\nClient\r\n$5\r\nReply\r\n$2\r\nOn\r\n", REQ_REPLY_ON },
		{ "CLIENT REPLY OFF\r\n", REQ_REPLY_OFF },
		{ "client  reply\tskip\r\n", REQ_REPLY_SKIP },
		{ "CLIENT REPLY ON\r\n", REQ_REPLY_ON },
		{ "*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$5\r\nMAYBE\r\n", REQ_REPLY_SAME },
		{ "*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$3\r\nOF", REQ_REPLY_SAME },
		{ "*2\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n", REQ_REPLY_SAME },
		{ "*3\r\n$6\r\nCLIENT\r\n$7\r\nSETNAME\r\n$3\r\nOFF\r\n", REQ_REPLY_SAME },
		{ "*3\r\n$3\r\nSET\r\n$5\r\nREPLY\r\n$3\r\nOFF\r\n", REQ_REPLY_SAME },
		{ "CLIENT LIST\r\n", REQ_REPLY_SAME },
		{ "CLIENT REPLY\r\n", REQ_REPLY_SAME },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_INT(parse(cases[i].bytes, strlen(cases[i].bytes), true), 0);
		CHECK_INT(h.reply, cases[i].reply);
	}
}

int main(void)
{
	test_client_reply();
	test_requests();
	test_replies();
	test_pubsub();
	test_hostile();
	test_others();
	req_refuse_foreign(redis__parse, REQ_PROTO_REDIS);
	test_random();
	return t_report();
}
