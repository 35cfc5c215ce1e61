/* tls__parse: an OpenSSL 3.0.19 s_client ClientHello (SNI db.example.com)
 * and the s_server's answer (ServerHello, ChangeCipherSpec, encrypted records;
 * cut at 200 bytes as a snaplen would) and the client's next write, captured
 * byte for byte through a relay on 127.0.0.1; every prefix; the other
 * protocols' first bytes; hand-made ClientHellos with hostile lengths. Each
 * parse reads an exact-size heap copy so that valgrind or ASan sees any read
 * past LEN. */
#include "tls.h"
#include "req_check.h"

static const uint8_t client_hello[] =
	"\x16\x03\x01\x01;\x01\x00\x01" "7\x03\x03\xf3\x1f,D\x99(@\xea;I\xb2!\x8a" "F"
	"G\xab" "9\x8a\xd8\x92gI5\xc3\x83\xd5u\xc4v\x0d\xd3O \x22gE\xbb\x8c}\xd9\x0f"
	"\xd3\x01\x88\xfd\xacn\x85\xe9\x17\x92(1\xd8\xd4~\xfcj\xad\xdf`\xeb#\x9b>\x00"
	">\x13\x02\x13\x03\x13\x01\xc0,\xc0" "0\x00\x9f\xcc\xa9\xcc\xa8\xcc\xaa\xc0"
	"+\xc0/\x00\x9e\xc0$\xc0(\x00k\xc0#\xc0'\x00g\xc0\x0a\xc0\x14\x00" "9\xc0\x09"
	"\xc0\x13\x00" "3\x00\x9d\x00\x9c\x00=\x00<\x00" "5\x00/\x00\xff\x01\x00\x00"
	"\xb0\x00\x00\x00\x13\x00\x11\x00\x00\x0e" "db.example.com\x00\x0b\x00\x04"
	"\x03\x00\x01\x02\x00\x0a\x00\x16\x00\x14\x00\x1d\x00\x17\x00\x1e\x00\x19\x00"
	"\x18\x01\x00\x01\x01\x01\x02\x01\x03\x01\x04\x00#\x00\x00\x00\x16\x00\x00"
	"\x00\x17\x00\x00\x00\x0d\x00*\x00(\x04\x03\x05\x03\x06\x03\x08\x07\x08\x08"
	"\x08\x09\x08\x0a\x08\x0b\x08\x04\x08\x05\x08\x06\x04\x01\x05\x01\x06\x01\x03"
	"\x03\x03\x01\x03\x02\x04\x02\x05\x02\x06\x02\x00+\x00\x09\x08\x03\x04\x03"
	"\x03\x03\x02\x03\x01\x00-\x00\x02\x01\x01\x00" "3\x00&\x00$\x00\x1d\x00 \xa8"
	"\xc2R\x0d\x0d*\x95/J\xde\xf4\xa6\xad\xe2\xb7" "316\xfc\xef\xb7" "a\x01\x1b"
	"x\x22\xd1\x82\xee\x88H'";  /* 320 bytes */
static const uint8_t server_flight[] =
	"\x16\x03\x03\x00z\x02\x00\x00v\x03\x03\xd1\x93\x1f\xf8\xaa\xe8g\xc2\x10\x02"
	"V\xb8\xc9L\xc5\xf9M\x12\x7f\x9fZd\xe5\xdf\x1e%4a\xe6+v% \x22gE\xbb\x8c}\xd9"
	"\x0f\xd3\x01\x88\xfd\xacn\x85\xe9\x17\x92(1\xd8\xd4~\xfcj\xad\xdf`\xeb#\x9b"
	">\x13\x02\x00\x00.\x00+\x00\x02\x03\x04\x00" "3\x00$\x00\x1d\x00 \x90\xee"
	"\xf3\xff\xfe\xd6p3\x01\xbdhs'\xb3+\xb0\xa6\x9f\xe2}\xc7\xceMc\xd5" "3\xbf"
	"\xef" "e\xce\xd1\x15\x14\x03\x03\x00\x01\x01\x17\x03\x03\x00\x17\x1a\xe5" "d"
	"\x12y\xb8\x88t\xe5" "E\xd8" "BC\xfb" "7\xb4" "F\x9a" "6\xd2T\x1e\xee\x17\x03"
	"\x03\x03" "5D\x87\x10|\xa0\xb3\x9a*s{\xa1u<%e\xd4\xdc\x1f\x9d\x8b\xa5\xef"
	"\xdc\x13@\xd2\xf2\x1f+\xd6\xf8\xf4" "e\x86";  /* 200 bytes */
static const uint8_t client_finished[] =
	"\x14\x03\x03\x00\x01\x01\x17\x03\x03\x00" "E\x5c\x88H\xff\xc1\xf6'\xb1\x08"
	"\xf2\x17X\x92\xf9\xd1(\xf1\x8b" "9O\x89" "5\xf8G|\xeb\xea\x1b\xa5\xfe\x02"
	"\xf0\x99\x8d|\x95\xde" "E\xab\xe3\x9e\x10" "9\xa9)\x13\x0e\x9b\x9e\xbb\xee"
	"\xc0!\x11\xb3\x91{\x22\xb7" "Ft\x8b\x91)\x89\x11\x94!\x09";  /* 80 bytes */

/* A 791-byte MySQL COM_QUERY (length bytes 0x17 0x03 0x00): a TLS 1.0
 * application data record of 3 bytes by its header; the query text where the
 * next record header would be refuses it. */
static const uint8_t my_query_791[] =
	"\x17\x03\x00\x00\x03SELECT * FROM orders WHERE customer_id IN (1, 2, 3)";

static int parse(const uint8_t *msg, size_t n, bool request, struct req_head *out)
{
	return req_parse(tls__parse, msg, n, request, out);
}
#define prefixes(msg, n, request) req_prefixes(tls__parse, msg, n, request)
#define refused(msg, n, request) req_refused(tls__parse, msg, n, request)

static void test_captured(void)
{
	static const char *const flight[] = {
		"SERVER_HELLO", "CHANGE_CIPHER_SPEC", "APPLICATION_DATA", "APPLICATION_DATA",
	};
	static const unsigned flight_len[] = { 127, 6, 28, 826 };
	struct req_head h;
	size_t off, i;

	CHECK_INT(parse(client_hello, sizeof(client_hello) - 1, true, &h), 0);
	CHECK_INT(h.proto, REQ_PROTO_TLS);
	CHECK_INT(h.request, true);
	CHECK_INT(h.error, false);
	CHECK_INT(h.status, -1);
	CHECK_INT(h.id, 0);
	CHECK_STR(h.method, "CLIENT_HELLO");
	CHECK_STR(h.target, "db.example.com");
	CHECK_STR(h.code, "");
	CHECK_INT(h.len_known, true);
	CHECK_INT(h.total_len, 320);
	prefixes(client_hello, sizeof(client_hello) - 1, true);

	CHECK_INT(parse(server_flight, sizeof(server_flight) - 1, false, &h), 0);
	CHECK_INT(h.proto, REQ_PROTO_TLS);
	CHECK_INT(h.request, false);
	CHECK_INT(h.error, false);
	CHECK_INT(h.status, -1);
	CHECK_STR(h.method, "SERVER_HELLO");
	CHECK_STR(h.target, "");
	CHECK_STR(h.code, "");
	CHECK_INT(h.len_known, true);
	CHECK_INT(h.total_len, 127);
	/* Walked by total_len; the last record is cut, its length still known. */
	for (off = 0, i = 0; i < 4; off += h.total_len, i++) {
		CHECK_INT(parse(server_flight + off, sizeof(server_flight) - 1 - off, false, &h), 0);
		CHECK_STR(h.method, flight[i]);
		CHECK_INT(h.total_len, flight_len[i]);
		prefixes(server_flight + off, sizeof(server_flight) - 1 - off, false);
	}

	CHECK_INT(parse(client_finished, sizeof(client_finished) - 1, true, &h), 0);
	CHECK_STR(h.method, "CHANGE_CIPHER_SPEC");
	CHECK_INT(h.total_len, 6);
	CHECK_INT(parse(client_finished + 6, sizeof(client_finished) - 7, true, &h), 0);
	CHECK_STR(h.method, "APPLICATION_DATA");
	CHECK_INT(h.total_len, 74);
	prefixes(client_finished, sizeof(client_finished) - 1, true);

	/* Hellos go one way only. */
	refused(client_hello, sizeof(client_hello) - 1, false);
	refused(server_flight, sizeof(server_flight) - 1, true);
}

static void test_foreign(void)
{
	req_refuse_foreign(tls__parse, REQ_PROTO_TLS);
	refused(my_query_791, sizeof(my_query_791) - 1, true);
}

/* A record holding a ClientHello whose extensions are EXT (N bytes). */
static size_t make_hello(uint8_t *buf, const uint8_t *ext, size_t n)
{
	size_t hlen = 2 + 32 + 1 + 4 + 2 + 2 + n, off = 0;

	buf[off++] = 22, buf[off++] = 3, buf[off++] = 1;
	buf[off++] = (uint8_t)((hlen + 4) >> 8), buf[off++] = (uint8_t)(hlen + 4);
	buf[off++] = 1, buf[off++] = 0, buf[off++] = (uint8_t)(hlen >> 8), buf[off++] = (uint8_t)hlen;
	buf[off++] = 3, buf[off++] = 3;
	memset(buf + off, 0xab, 32), off += 32;
	buf[off++] = 0;					/* no session id */
	buf[off++] = 0, buf[off++] = 2, buf[off++] = 0x13, buf[off++] = 0x01;
	buf[off++] = 1, buf[off++] = 0;			/* null compression */
	buf[off++] = (uint8_t)(n >> 8), buf[off++] = (uint8_t)n;
	memcpy(buf + off, ext, n);
	return off + n;
}

static void test_hostile(void)
{
	struct req_head h;
	uint8_t buf[600], ext[400];
	size_t n, i;

	CHECK_INT(parse(NULL, 0, true, &h), -EAGAIN);
	CHECK_INT(h.status, -1);
	/* Content types, versions, lengths. */
	refused((const uint8_t *)"\x18\x03\x03\x00\x10", 5, true);
	refused((const uint8_t *)"\x13\x03\x03\x00\x10", 5, false);
	refused((const uint8_t *)"\x17\x02\x00\x00\x10", 5, true);
	refused((const uint8_t *)"\x17\x03\x05\x00\x10", 5, true);
	refused((const uint8_t *)"\x17\x03\x03\x48\x01", 5, true);
	refused((const uint8_t *)"\x17\x03\x03\xff", 4, true);
	refused((const uint8_t *)"\x16\x03\x03\x00\x00", 5, true);
	refused((const uint8_t *)"\x14\x03\x03\x00\x02\x01\x01", 7, true);
	refused((const uint8_t *)"\x14\x03\x03\x00\x01\x02", 6, true);
	refused((const uint8_t *)"\x15\x03\x03\x00\x01\x02", 6, false);
	CHECK_INT(parse((const uint8_t *)"\x17\x03\x03\x48\x00", 5, true, &h), 0);
	CHECK_INT(h.total_len, 5 + 16384 + 2048);
	CHECK_INT(parse((const uint8_t *)"\x17\x03\x01\x00\x00\x17\x03\x01\x00\x20", 10, true, &h), 0);
	CHECK_INT(h.total_len, 5);
	CHECK_INT(parse((const uint8_t *)"\x15\x03\x03\x00\x02\x02\x28", 7, false, &h), 0);
	CHECK_STR(h.method, "ALERT");
	/* A hello too short, or of version 2. */
	refused((const uint8_t *)"\x16\x03\x01\x00\x30\x01\x00\x00\x10\x03\x03", 11, true);
	refused((const uint8_t *)"\x16\x03\x01\x00\x30\x01\x00\x00\x40\x02\x00", 11, true);

	/* A good SNI; then one name with a NUL, one past its extension, one
	 * past the list, a list length of 0xffff: no target, never a read past. */
	memcpy(ext, "\x00\x00\x00\x0f\x00\x0d\x00\x00\x0a" "db.example", 19);
	n = make_hello(buf, ext, 19);
	CHECK_INT(parse(buf, n, true, &h), 0);
	CHECK_STR(h.method, "CLIENT_HELLO");
	CHECK_STR(h.target, "db.example");
	CHECK_INT(h.total_len, n);
	prefixes(buf, n, true);
	memcpy(ext, "\x00\x00\x00\x0f\x00\x0d\x00\x00\x0a" "db\x00" "example", 19);
	n = make_hello(buf, ext, 19);
	CHECK_INT(parse(buf, n, true, &h), 0);
	CHECK_STR(h.target, "");
	memcpy(ext, "\x00\x00\x00\x0f\x00\x0d\x00\x00\x0b" "db.example", 19);
	n = make_hello(buf, ext, 19);
	CHECK_INT(parse(buf, n, true, &h), 0);
	CHECK_STR(h.target, "");
	memcpy(ext, "\x00\x00\x00\x10\x00\x0d\x00\x00\x0a" "db.example", 19);
	n = make_hello(buf, ext, 19);
	CHECK_INT(parse(buf, n, true, &h), 0);
	CHECK_STR(h.target, "");
	memcpy(ext, "\x00\x00\xff\xff\xff\xff\x00\xff\xff" "db.example", 19);
	n = make_hello(buf, ext, 19);
	CHECK_INT(parse(buf, n, true, &h), 0);
	CHECK_STR(h.target, "");
	/* Another extension first, with a length past the buffer. */
	memcpy(ext, "\x00\x17\xff\xf0\x00\x00\x00\x0f\x00\x0d\x00\x00\x0a" "db.example", 23);
	n = make_hello(buf, ext, 23);
	CHECK_INT(parse(buf, n, true, &h), 0);
	CHECK_STR(h.target, "");
	/* Many empty extensions, then the name: all walked. */
	memset(ext, 0, sizeof(ext));
	for (i = 0; i < 80; i++)
		memcpy(ext + 4 * i, "\x00\x17\x00\x00", 4);
	memcpy(ext + 320, "\x00\x00\x00\x0f\x00\x0d\x00\x00\x0a" "db.example", 19);
	n = make_hello(buf, ext, 339);
	CHECK_INT(parse(buf, n, true, &h), 0);
	CHECK_STR(h.target, "db.example");
	/* Session id and cipher suite lengths past everything. */
	n = make_hello(buf, ext, 0);
	buf[43] = 0xff;
	CHECK_INT(parse(buf, n, true, &h), 0);
	CHECK_STR(h.target, "");
	/* Random bytes behind a valid header, and random bytes: never a crash. */
	srand(11);
	for (i = 0; i < 20000; i++) {
		size_t k, m = (size_t)rand() % sizeof(buf);

		for (k = 0; k < m; k++)
			buf[k] = (uint8_t)rand();
		if (i & 2)
			memcpy(buf, "\x16\x03\x01\x02\x00\x01", m < 6 ? m : 6);
		if (parse(buf, m, i & 1, &h) == 0)
			CHECK(h.proto == REQ_PROTO_TLS && h.len_known && h.total_len >= 5);
	}
}

int main(void)
{
	test_captured();
	test_foreign();
	test_hostile();
	return t_report();
}
