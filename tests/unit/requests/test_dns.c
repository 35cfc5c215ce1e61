/* dns__parse and dns__parse_tcp on queries captured from Debian 12's dig
 * 9.18 (to nc -l), a response captured from this host's resolver, and
 * responses written by RFC 1035; then truncated, pipelined and hostile bytes
 * and other protocols' first bytes. Every parse runs on a copy of exactly LEN
 * bytes, so that valgrind and ASan see any read past it. */
#include <errno.h>
#include <stdint.h>

#include "../common/t_check.h"
#include "dns.h"
#include "req_check.h"

static struct req_head h;

static int parse(const void *bytes, size_t len, bool request, bool tcp)
{
	uint8_t *copy = malloc(len ? len : 1);
	int r;

	memcpy(copy, bytes, len);
	r = tcp ? dns__parse_tcp(copy, len, request, &h) : dns__parse(copy, len, request, &h);
	free(copy);
	return r;
}

#define S(lit) (lit), sizeof(lit) - 1

/* dig @127.0.0.1 -p PORT example.com A (EDNS with a cookie) */
static const char q_a[] =
	"\x10\xcc\x01\x20\x00\x01\x00\x00\x00\x00\x00\x01\x07\x65\x78\x61"
	"\x6d\x70\x6c\x65\x03\x63\x6f\x6d\x00\x00\x01\x00\x01\x00\x00\x29"
	"\x04\xd0\x00\x00\x00\x00\x00\x0c\x00\x0a\x00\x08\x64\xfc\xed\x78"
	"\x31\x03\xa1\xe5";
/* dig @127.0.0.1 -p PORT www.example.org AAAA +tcp */
static const char q_tcp[] =
	"\x00\x38\x25\x12\x01\x20\x00\x01\x00\x00\x00\x00\x00\x01\x03\x77"
	"\x77\x77\x07\x65\x78\x61\x6d\x70\x6c\x65\x03\x6f\x72\x67\x00\x00"
	"\x1c\x00\x01\x00\x00\x29\x04\xd0\x00\x00\x00\x00\x00\x0c\x00\x0a"
	"\x00\x08\xae\x10\x04\xa5\xc8\x43\x31\x03";
/* the resolver's answer to q_a here: NXDOMAIN (this host resolves nothing) */
static const char r_nx[] =
	"\x10\xcc\x81\x83\x00\x01\x00\x00\x00\x00\x00\x01\x07\x65\x78\x61"
	"\x6d\x70\x6c\x65\x03\x63\x6f\x6d\x00\x00\x01\x00\x01\x00\x00\x29"
	"\x20\x00\x00\x00\x00\x00\x00\x00";
/* written by RFC 1035: example.com A answered, the answer's name compressed */
static const char r_ok[] =
	"\xbe\xef\x81\x80\x00\x01\x00\x01\x00\x00\x00\x00"
	"\x07""example\x03""com\x00\x00\x01\x00\x01"
	"\xc0\x0c\x00\x01\x00\x01\x00\x00\x0e\x10\x00\x04\x5d\xb8\xd8\x22";

/* Every prefix: -EAGAIN, or 0 with the fields of the whole message. */
static void check_prefixes(const char *msg, size_t n, bool request, bool tcp)
{
	struct req_head full;

	CHECK_INT(parse(msg, n, request, tcp), 0);
	full = h;
	for (size_t k = 0; k < n; k++) {
		int r = parse(msg, k, request, tcp);

		CHECK(r == 0 || r == -EAGAIN);
		if (r)
			continue;
		CHECK_INT(h.id, full.id);
		CHECK_STR(h.method, full.method);
		CHECK_STR(h.target, full.target);
		CHECK_INT(h.status, full.status);
		CHECK_EQ(h.error, full.error);
		CHECK(h.len_known);
		CHECK_INT(h.total_len, tcp ? full.total_len : k);
	}
}

static void test_real(void)
{
	CHECK_INT(parse(S(q_a), true, false), 0);
	CHECK_INT(h.proto, REQ_PROTO_DNS);
	CHECK(h.request);
	CHECK(!h.error);
	CHECK_INT(h.status, -1);
	CHECK_INT(h.id, 0x10cc);
	CHECK_STR(h.method, "A");
	CHECK_STR(h.target, "example.com");
	CHECK_STR(h.code, "");
	CHECK(h.len_known);
	CHECK_INT(h.total_len, 52);
	CHECK_INT(parse(S(q_a), false, false), -ENOMSG);	/* QR says query */

	CHECK_INT(parse(S(q_tcp), true, true), 0);
	CHECK_INT(h.proto, REQ_PROTO_DNS);
	CHECK(h.request);
	CHECK_INT(h.id, 0x2512);
	CHECK_STR(h.method, "AAAA");
	CHECK_STR(h.target, "www.example.org");
	CHECK_INT(h.status, -1);
	CHECK(h.len_known);
	CHECK_INT(h.total_len, 58);
	/* the same bytes over UDP: the prefix is taken for the id, the flags for
	 * counts; refused */
	CHECK_INT(parse(S(q_tcp), true, false), -ENOMSG);
	/* the payload alone over UDP */
	CHECK_INT(parse(q_tcp + 2, sizeof(q_tcp) - 3, true, false), 0);
	CHECK_INT(h.total_len, 56);

	CHECK_INT(parse(S(r_nx), false, false), 0);
	CHECK_INT(h.proto, REQ_PROTO_DNS);
	CHECK(!h.request);
	CHECK_INT(h.id, 0x10cc);
	CHECK_STR(h.method, "A");
	CHECK_STR(h.target, "example.com");
	CHECK_INT(h.status, 3);
	CHECK(h.error);
	CHECK_STR(h.code, "");
	CHECK_INT(h.total_len, 40);
	CHECK_INT(parse(S(r_nx), true, false), -ENOMSG);

	CHECK_INT(parse(S(r_ok), false, false), 0);
	CHECK_INT(h.id, 0xbeef);
	CHECK_STR(h.method, "A");
	CHECK_STR(h.target, "example.com");
	CHECK_INT(h.status, 0);
	CHECK(!h.error);
	CHECK_INT(h.total_len, sizeof(r_ok) - 1);

	check_prefixes(S(q_a), true, false);
	check_prefixes(S(q_tcp), true, true);
	check_prefixes(S(r_nx), false, false);
	check_prefixes(S(r_ok), false, false);
}

static void test_tcp(void)
{
	char two[2 * 58], resp[2 + sizeof(r_ok) - 1];

	/* two queries pipelined on one connection, walked */
	memcpy(two, q_tcp, 58);
	memcpy(two + 58, q_tcp, 58);
	two[58 + 3] = 0x13;
	CHECK_INT(parse(two, sizeof(two), true, true), 0);
	CHECK_INT(h.total_len, 58);
	CHECK_INT(h.id, 0x2512);
	CHECK_INT(parse(two + 58, sizeof(two) - 58, true, true), 0);
	CHECK_INT(h.id, 0x2513);
	CHECK_INT(h.total_len, 58);

	/* a response over TCP, SERVFAIL */
	resp[0] = 0;
	resp[1] = sizeof(r_ok) - 1;
	memcpy(resp + 2, r_ok, sizeof(r_ok) - 1);
	resp[2 + 3] = (char)0x82;
	CHECK_INT(parse(resp, sizeof(resp), false, true), 0);
	CHECK_INT(h.status, 2);
	CHECK(h.error);
	CHECK_INT(h.total_len, sizeof(resp));
	check_prefixes(resp, sizeof(resp), false, true);

	/* lengths: below a header, and a question running past the length */
	CHECK_INT(parse(S("\x00\x0b\x10\xcc\x01\x20\x00\x01\x00\x00\x00\x00\x00"), true, true), -ENOMSG);
	CHECK_INT(parse(S("\x00\x10\x10\xcc\x01\x20\x00\x01\x00\x00\x00\x00\x00\x00"
			  "\x07""exa\x00\x00\x01\x00\x01"), true, true), -ENOMSG);
	CHECK_INT(parse(S("\x00"), true, true), -EAGAIN);
	CHECK_INT(parse(S(""), true, true), -EAGAIN);
	/* a length far past the bytes: what is there, the length from the prefix */
	CHECK_INT(parse(S("\xff\xff\x10\xcc\x01\x20\x00\x01\x00\x00\x00\x00\x00\x00"
			  "\x01""a\x00\x00\x01\x00\x01"), true, true), 0);
	CHECK_INT(h.total_len, 65537);
}

/* A query for NAME (wire form, N bytes) with TYPE and CLASS. */
static int query(const char *name, size_t n, uint16_t type, uint16_t class)
{
	uint8_t m[600] = { 0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0 };

	memcpy(m + 12, name, n);
	m[12 + n] = type >> 8;
	m[13 + n] = type & 0xff;
	m[14 + n] = class >> 8;
	m[15 + n] = class & 0xff;
	return parse(m, 16 + n, true, false);
}

static void test_names(void)
{
	char name[600];
	size_t n = 0;

	CHECK_INT(query(S("\x01""1\x01""0\x01""0\x03""127\x07""in-addr\x04""arpa\x00"), 12, 1), 0);
	CHECK_STR(h.method, "PTR");
	CHECK_STR(h.target, "1.0.0.127.in-addr.arpa");
	CHECK_INT(query(S("\x00"), 2, 1), 0);
	CHECK_STR(h.method, "NS");
	CHECK_STR(h.target, ".");
	CHECK_INT(query(S("\x04_sip\x04_tcp\x01x\x00"), 33, 1), 0);
	CHECK_STR(h.method, "SRV");
	CHECK_STR(h.target, "_sip._tcp.x");
	CHECK_INT(query(S("\x01x\x00"), 4242, 1), 0);
	CHECK_STR(h.method, "TYPE4242");
	CHECK_INT(query(S("\x01x\x00"), 65, 0x8001), 0);	/* mDNS unicast-response bit */
	CHECK_STR(h.method, "HTTPS");
	CHECK_INT(query(S("\x01x\x00"), 255, 255), 0);
	CHECK_STR(h.method, "ANY");
	/* dots, backslashes, NULs, non-ASCII, spaces inside labels: dig's escapes */
	CHECK_INT(query(S("\x03""a.b\x04\\\x00\xff \x00"), 16, 1), 0);
	CHECK_STR(h.target, "a\\046b.\\092\\000\\255\\032");
	CHECK_STR(h.method, "TXT");

	/* type 0, classes other than IN, CH, HS, NONE, ANY */
	CHECK_INT(query(S("\x01x\x00"), 0, 1), -ENOMSG);
	CHECK_INT(query(S("\x01x\x00"), 1, 0), -ENOMSG);
	CHECK_INT(query(S("\x01x\x00"), 1, 2), -ENOMSG);
	/* labels of 64 and more: the 0x40 and 0x80 kinds are refused */
	memset(name, 'a', sizeof(name));
	name[0] = 64;
	name[65] = 0;
	CHECK_INT(query(name, 66, 1, 1), -ENOMSG);
	name[0] = 63;
	name[64] = 0;
	CHECK_INT(query(name, 65, 1, 1), 0);
	CHECK_INT(strlen(h.target), 63);
	/* 255 bytes in all: four 63-byte labels are 257 */
	memset(name, 'a', sizeof(name));
	for (n = 0; n < 4 * 64; n += 64)
		name[n] = 63;
	name[n] = 0;
	CHECK_INT(query(name, n + 1, 1, 1), -ENOMSG);
	name[3 * 64] = 61;
	name[3 * 64 + 62] = 0;
	CHECK_INT(query(name, 3 * 64 + 63, 1, 1), 0);
	CHECK_INT(strlen(h.target), 253);
	/* a name cut to the target: 63 bytes escaped 4 times over */
	memset(name, 0, sizeof(name));
	name[0] = 63;
	name[64] = 63;
	name[128] = 0;
	CHECK_INT(query(name, 129, 1, 1), 0);
	CHECK(strlen(h.target) <= REQ_TARGET_MAX - 1 && strlen(h.target) >= REQ_TARGET_MAX - 4);

	/* compression: a pointer to itself, a loop, forwards, into the header */
	CHECK_INT(query(S("\xc0\x0c"), 1, 1), -ENOMSG);
	CHECK_INT(query(S("\x01""a\xc0\x0c"), 1, 1), -ENOMSG);
	CHECK_INT(query(S("\x01""a\xc0\x20\x00"), 1, 1), -ENOMSG);
	CHECK_INT(query(S("\x01""a\xc0\x02"), 1, 1), -ENOMSG);
	CHECK_INT(query(S("\x01""a\x40"), 1, 1), -ENOMSG);
	CHECK_INT(query(S("\x01""a\x80"), 1, 1), -ENOMSG);
	/* a backward pointer to a name's end is followed: "a" then the root */
	CHECK_INT(query(S("\x01""a\x00\xc0\x0e"), 1, 1), 0);
}

static void test_header(void)
{
	uint8_t m[sizeof(q_a) - 1];

#define FLIP(off, val, req, want) do { memcpy(m, q_a, sizeof(m)); m[off] = (val); \
	CHECK_INT(parse(m, sizeof(m), req, false), want); } while (0)
	FLIP(2, 0x01 | 0x28, true, -ENOMSG);	/* opcode 5, UPDATE */
	FLIP(2, 0x01 | 0x10, true, -ENOMSG);	/* opcode 2, STATUS */
	FLIP(2, 0x01 | 0x04, true, -ENOMSG);	/* AA in a query */
	FLIP(2, 0x01 | 0x02, true, -ENOMSG);	/* TC in a query */
	FLIP(3, 0x80, true, -ENOMSG);		/* RA in a query */
	FLIP(3, 0x40, true, -ENOMSG);		/* Z */
	FLIP(3, 0x03, true, -ENOMSG);		/* an rcode in a query */
	FLIP(3, 0x00, true, 0);			/* no RD, no AD */
	FLIP(5, 0x00, true, -ENOMSG);		/* no question */
	FLIP(5, 0x02, true, -ENOMSG);		/* two */
	FLIP(4, 0x01, true, -ENOMSG);		/* 257 */
	FLIP(7, 0x01, true, -ENOMSG);		/* an answer in a query */
	FLIP(9, 0x01, true, -ENOMSG);		/* authority in a query */
	FLIP(11, 0x02, true, 0);		/* OPT and TSIG */
	FLIP(11, 0x03, true, -ENOMSG);
#undef FLIP
	memcpy(m, r_nx, sizeof(r_nx) - 1);
#define FLIP(off, val, want) do { memcpy(m, r_nx, sizeof(r_nx) - 1); m[off] = (val); \
	CHECK_INT(parse(m, sizeof(r_nx) - 1, false, false), want); } while (0)
	FLIP(3, 0x80 | 10, 0);			/* NOTZONE */
	FLIP(3, 0x80 | 11, -ENOMSG);		/* unassigned */
	FLIP(3, 0x80 | 0x40, -ENOMSG);		/* Z */
	FLIP(7, 0xff, 0);			/* counts a message could hold */
	FLIP(6, 0xff, -ENOMSG);			/* counts none could */
	FLIP(2, 0x85, 0);			/* AA, RD */
#undef FLIP
	CHECK_INT(parse(q_a, 11, true, false), -EAGAIN);
}

/* Other protocols' first bytes, both ways, over UDP and TCP. */
static void test_others(void)
{
	static const struct {
		const char *name;
		const char *bytes;
		size_t len;
	} others[] = {
		{ "http request", S("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: curl/7.88.1\r\n\r\n") },
		{ "http response", S("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") },
		{ "redis request", S("*3\r\n$3\r\nSET\r\n$5\r\nmykey\r\n$5\r\nhello\r\n") },
		{ "redis inline", S("PING\r\n") },
		{ "redis reply", S("*3\r\n$1\r\nc\r\n$1\r\nb\r\n$1\r\na\r\n") },
		{ "mysql greeting", S("\x4a\x00\x00\x00\x0a""8.0.36\x00\x08\x00\x00\x00\x2c\x29\x6b\x6f"
				      "\x4a\x63\x08\x00\xff\xff\xff\x02\x00\xff\xdf\x15\x00\x00") },
		{ "mysql query", S("\x21\x00\x00\x00\x03select @@version_comment limit 1") },
		{ "mysql error", S("\x17\x00\x00\x01\xff\x48\x04#HY000No tables used") },
		{ "mysql ok", S("\x07\x00\x00\x02\x00\x00\x00\x02\x00\x00\x00") },
		{ "pg sslrequest", S("\x00\x00\x00\x08\x04\xd2\x16\x2f") },
		{ "pg startup", S("\x00\x00\x00\x25\x00\x03\x00\x00user\x00postgres\x00"
				  "database\x00postgres\x00\x00") },
		{ "pg query", S("Q\x00\x00\x00\x0dselect 1;\x00") },
		{ "pg error", S("E\x00\x00\x00\x60SERROR\x00VERROR\x00""C42P01\x00Mrelation") },
		{ "tls client hello", S("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\x8a\x1e\x2b\x5c"
					"\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\xee\xff") },
		{ "tls server hello", S("\x16\x03\x03\x00\x7a\x02\x00\x00\x76\x03\x03\x11\x22\x33") },
	};

	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		for (int way = 0; way < 4; way++) {
			int r = parse(others[i].bytes, others[i].len, way & 1, way & 2);

			if (r != -ENOMSG)
				fprintf(stderr, "%s, way %d: %d\n", others[i].name, way, r);
			CHECK_INT(r, -ENOMSG);
			/* nor is any prefix taken */
			for (size_t n = 0; n < others[i].len; n++)
				CHECK(parse(others[i].bytes, n, way & 1, way & 2) != 0);
		}
}

/* Random bytes after a plausible header: any valid result, no read past LEN. */
static void test_random(void)
{
	uint32_t x = 777;
	uint8_t buf[80];

	for (int i = 0; i < 40000; i++) {
		size_t n = i % sizeof(buf);
		int r;

		for (size_t k = 0; k < n; k++) {
			x = x * 1103515245 + 12345;
			buf[k] = (uint8_t)(x >> 16);
			if ((x & 0x300000) == 0)
				buf[k] = (x & 0x400000) ? 0xc0 : (uint8_t)(buf[k] % 8);
		}
		if ((i & 4) && n > 12)
			memcpy(buf + 2, (i & 8) ? "\x81\x80\x00\x01" : "\x01\x00\x00\x01", 4);
		r = parse(buf, n, i & 1, i & 2);
		CHECK(r == 0 || r == -ENOMSG || r == -EAGAIN);
		if (r == 0)
			CHECK(h.len_known && h.total_len >= 12 && h.target[0]);
	}
}

int main(void)
{
	test_real();
	test_tcp();
	test_names();
	test_header();
	test_others();
	req_refuse_foreign(dns__parse, REQ_PROTO_DNS);
	req_refuse_foreign(dns__parse_tcp, REQ_PROTO_DNS);
	test_random();
	return t_report();
}
