/* kafka__parse and kafka__parse_response on messages laid out by the
 * protocol's schemas (kafka_wire.h): requests and responses of several APIs
 * and versions, flexible ones included, every prefix of them; on messages
 * librdkafka and its mock broker sent; then cut, hostile and other
 * protocols' bytes. Every parse runs on a copy of exactly
 * LEN bytes, so that valgrind and ASan see any read past it. */
#include <errno.h>
#include <stdint.h>

#include "http.h"
#include "kafka.h"
#include "kafka_wire.h"
#include "redis.h"
#include "req_check.h"

static struct kw w;
static struct req_head h;

static int parse_resp(const uint8_t *buf, size_t len, uint32_t kapi, struct req_head *out)
{
	uint8_t *copy = malloc(len ? len : 1);
	int r;

	memcpy(copy, buf, len);
	r = kafka__parse_response(copy, len, kapi, out);
	free(copy);
	return r;
}

/* A request: method, target, correlation id, api, whole length, prefixes. */
static void check_req_at(int line, size_t n, const char *method, const char *target,
			 uint32_t corr, uint32_t kapi)
{
	int failed = t_failed;

	CHECK_INT(req_parse(kafka__parse, w.b, n, true, &h), 0);
	CHECK_INT(h.proto, REQ_PROTO_KAFKA);
	CHECK(h.request && !h.error && h.len_known);
	CHECK_STR(h.method, method);
	CHECK_STR(h.target, target);
	CHECK_INT(h.id, corr);
	CHECK_INT(h.kafka_api, kapi);
	CHECK_INT(h.total_len, n);
	CHECK_INT(h.status, -1);
	req_prefixes(kafka__parse, w.b, n, true);
	if (t_failed != failed)
		fprintf(stderr, "  (request of line %d)\n", line);
}
#define check_req(...) check_req_at(__LINE__, __VA_ARGS__)

/* A response to KAPI: its correlation id, error code and whole length, and
 * every prefix: -EAGAIN, or the same length and id with no other error. */
static void check_resp_at(int line, size_t n, uint32_t kapi, uint32_t corr, int status)
{
	int failed = t_failed;
	struct req_head p;

	CHECK_INT(parse_resp(w.b, n, kapi, &h), 0);
	CHECK_INT(h.proto, REQ_PROTO_KAFKA);
	CHECK(!h.request && h.len_known);
	CHECK_INT(h.id, corr);
	CHECK_INT(h.total_len, n);
	CHECK_INT(h.status, status);
	CHECK_INT(h.error, status > 0);
	if (status > 0) {
		char code[16];

		snprintf(code, sizeof(code), "%d", status);
		CHECK_STR(h.code, code);
	} else {
		CHECK_STR(h.code, "");
	}
	CHECK_STR(h.method, "");
	/* without its request only the id */
	CHECK_INT(req_parse(kafka__parse, w.b, n, false, &p), 0);
	CHECK_INT(p.id, corr);
	CHECK_INT(p.status, -1);
	for (size_t k = 0; k < n; k++) {
		int r = parse_resp(w.b, k, kapi, &p);

		CHECK(r == 0 || r == -EAGAIN);
		if (r)
			continue;
		CHECK(k >= 8);
		CHECK_EQ(p.total_len, n);
		CHECK_EQ(p.id, corr);
		CHECK(p.status == -1 || p.status == status);
		CHECK(!p.error || status > 0);
	}
	if (t_failed != failed)
		fprintf(stderr, "  (response of line %d)\n", line);
}
#define check_resp(...) check_resp_at(__LINE__, __VA_ARGS__)

static void test_requests(void)
{
	size_t n;

	/* librdkafka 2.0's versions */
	n = kw_produce(&w, 7, 5, "agent-test", -1, 100);
	check_req(n, "Produce", "agent-test", 5, kafka__api_of(0, 7));
	n = kw_fetch(&w, 11, 9, "agent-test");
	check_req(n, "Fetch", "agent-test", 9, kafka__api_of(1, 11));
	n = kw_metadata(&w, 4, 2, "missing");
	check_req(n, "Metadata", "missing", 2, kafka__api_of(3, 4));
	n = kw_metadata(&w, 4, 3, NULL);
	check_req(n, "Metadata", "", 3, kafka__api_of(3, 4));
	n = kw_apiversions(&w, 1);
	check_req(n, "ApiVersions", "", 1, kafka__api_of(18, 3));
	/* older and flexible layouts */
	n = kw_produce(&w, 2, 70000, "t", 1, 0);
	check_req(n, "Produce", "t", 70000, kafka__api_of(0, 2));
	n = kw_produce(&w, 9, 6, "flexible-topic", -1, 300);
	check_req(n, "Produce", "flexible-topic", 6, kafka__api_of(0, 9));
	n = kw_fetch(&w, 0, 1, "old");
	check_req(n, "Fetch", "old", 1, kafka__api_of(1, 0));
	n = kw_fetch(&w, 4, 1, "four");
	check_req(n, "Fetch", "four", 1, kafka__api_of(1, 4));
	n = kw_fetch(&w, 12, 8, "twelve");
	check_req(n, "Fetch", "twelve", 8, kafka__api_of(1, 12));
	/* from v13 a topic is its id: no name */
	n = kw_fetch(&w, 13, 8, "by-id");
	check_req(n, "Fetch", "", 8, kafka__api_of(1, 13));
	n = kw_metadata(&w, 9, 4, "nine");
	check_req(n, "Metadata", "nine", 4, kafka__api_of(3, 9));
	n = kw_metadata(&w, 12, 4, "twelve");
	check_req(n, "Metadata", "twelve", 4, kafka__api_of(3, 12));

	/* Heartbeat v3 and an API not named here: the header alone */
	kw_req(&w, 12, 3, 44, false);
	kw_str(&w, "group");
	n = kw_end(&w);
	check_req(n, "Heartbeat", "", 44, kafka__api_of(12, 3));
	kw_req(&w, 77, 0, 45, false);
	n = kw_end(&w);
	check_req(n, "api_77", "", 45, kafka__api_of(77, 0));
	/* ControlledShutdown v0: header v0, no client_id */
	kw_begin(&w, false);
	kw_be(&w, 7, 2);
	kw_be(&w, 0, 2);
	kw_be(&w, 3, 4);
	kw_be(&w, 1, 4);	/* broker_id */
	n = kw_end(&w);
	check_req(n, "ControlledShutdown", "", 3, kafka__api_of(7, 0));
}

static void test_responses(void)
{
	static const int16_t ok[] = { 0, 0 }, second[] = { 0, 6 }, first[] = { 10, 6 };
	size_t n;

	n = kw_produce_resp(&w, 7, 5, "agent-test", ok, 2);
	check_resp(n, kafka__api_of(0, 7), 5, 0);
	/* the first partition's error not 0, wherever it stands */
	n = kw_produce_resp(&w, 7, 5, "agent-test", second, 2);
	check_resp(n, kafka__api_of(0, 7), 5, 6);
	n = kw_produce_resp(&w, 8, 5, "agent-test", second, 2);
	check_resp(n, kafka__api_of(0, 8), 5, 6);
	n = kw_produce_resp(&w, 9, 5, "agent-test", first, 2);
	check_resp(n, kafka__api_of(0, 9), 5, 10);
	n = kw_produce_resp(&w, 9, 5, "agent-test", second, 2);
	check_resp(n, kafka__api_of(0, 9), 5, 6);
	n = kw_produce_resp(&w, 0, 5, "agent-test", second, 2);
	check_resp(n, kafka__api_of(0, 0), 5, 6);

	n = kw_fetch_resp(&w, 11, 9, "agent-test", 0, 0, 200, 0);
	check_resp(n, kafka__api_of(1, 11), 9, 0);
	n = kw_fetch_resp(&w, 11, 9, "agent-test", 0, 0, 200, 1);
	check_resp(n, kafka__api_of(1, 11), 9, 1);
	n = kw_fetch_resp(&w, 11, 9, "agent-test", 70, 0, 0, 0);
	check_resp(n, kafka__api_of(1, 11), 9, 70);
	n = kw_fetch_resp(&w, 4, 9, "agent-test", 0, 3, 10, 0);
	check_resp(n, kafka__api_of(1, 4), 9, 3);
	n = kw_fetch_resp(&w, 12, 9, "agent-test", 0, 0, 20, 74);
	check_resp(n, kafka__api_of(1, 12), 9, 74);
	n = kw_fetch_resp(&w, 13, 9, NULL, 0, 100, 20, 0);
	check_resp(n, kafka__api_of(1, 13), 9, 100);
	/* an error past the captured bytes: unknown, not 0 */
	n = kw_fetch_resp(&w, 11, 9, "agent-test", 0, 0, 3000, 1);
	CHECK_INT(parse_resp(w.b, 2048, kafka__api_of(1, 11), &h), -EAGAIN);
	CHECK_INT(req_parse(kafka__parse, w.b, 2048, false, &h), 0);
	CHECK_INT(h.status, -1);
	CHECK(!h.error);
	CHECK_INT(h.total_len, n);

	n = kw_metadata_resp(&w, 4, 2, "missing", 3);
	check_resp(n, kafka__api_of(3, 4), 2, 3);
	n = kw_metadata_resp(&w, 4, 2, "there", 0);
	check_resp(n, kafka__api_of(3, 4), 2, 0);
	n = kw_metadata_resp(&w, 0, 2, "missing", 3);
	check_resp(n, kafka__api_of(3, 0), 2, 3);
	n = kw_metadata_resp(&w, 9, 2, "missing", 3);
	check_resp(n, kafka__api_of(3, 9), 2, 3);
	n = kw_metadata_resp(&w, 12, 2, "missing", 29);
	check_resp(n, kafka__api_of(3, 12), 2, 29);

	/* ApiVersions: header v0 even to v3 */
	n = kw_apiversions_resp(&w, 1, 0);
	check_resp(n, kafka__api_of(18, 3), 1, 0);
	n = kw_apiversions_resp(&w, 1, 35);
	check_resp(n, kafka__api_of(18, 3), 1, 35);

	/* Heartbeat v3: throttle_time_ms, then its error; v0 the error first */
	kw_resp(&w, 44, false);
	kw_be(&w, 0, 4);
	kw_be(&w, 27, 2);
	n = kw_end(&w);
	check_resp(n, kafka__api_of(12, 3), 44, 27);
	kw_resp(&w, 44, false);
	kw_be(&w, 25, 2);
	n = kw_end(&w);
	check_resp(n, kafka__api_of(12, 0), 44, 25);
	/* Heartbeat v4: flexible, header v1 */
	kw_resp(&w, 44, true);
	kw_be(&w, 0, 4);
	kw_be(&w, 22, 2);
	kw_tags(&w);
	n = kw_end(&w);
	check_resp(n, kafka__api_of(12, 4), 44, 22);
	/* an API whose errors are not read: no status */
	kw_resp(&w, 46, false);
	kw_be(&w, 0, 4);
	kw_be(&w, 15, 2);
	n = kw_end(&w);
	check_resp(n, kafka__api_of(8, 7), 46, -1);
}

/* librdkafka 2.0.2 and its mock broker (Debian 12), as strace saw their
 * sendmsg calls in e2e_req_kafka's kprod: a producer's first ApiVersions
 * (v3, which the mock lacks: 35), Metadata v2 of agent-test and of a topic
 * the broker calls unknown (3), a Produce v7 of ten records, a Produce
 * response with the error the test pushed (10), and a Fetch v11. */
static const char rd_apiversions[] = "\x00\x00\x00+\x00\x12\x00\x03\x00\x00\x00\x01"
	"\x00\x0ekprod-producer\x00\x0blibrdkafka\x06" "2.0.2\x00";
static const char rd_apiversions_35[] = "\x00\x00\x00\x11\x00\x00\x00\x01\x00#\x01\x00\x12"
	"\x00\x00\x00\x02\x00\x00\x00\x00";
static const char rd_metadata[] = "\x00\x00\x00(\x00\x03\x00\x02\x00\x00\x00\x03\x00\x0e"
	"kprod-producer\x00\x00\x00\x01\x00\x0a" "agent-test";
static const char rd_metadata_resp[] = "\x00\x00\x00k\x00\x00\x00\x03\x00\x00\x00\x01"
	"\x00\x00\x00\x01\x00\x09" "127.0.0.1\x00\x00\xb5\x09\xff\xff\x00\x17mockCluster"
	"155e98443e50\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x0a" "agent-test\x00\x00"
	"\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00"
	"\x01\x00\x00\x00\x01\x00\x00\x00\x01";
static const char rd_metadata_missing[] = "\x00\x00\x00+\x00\x03\x00\x02\x00\x00\x00\x1a"
	"\x00\x0ekprod-producer\x00\x00\x00\x01\x00\x0d" "agent-missing";
static const char rd_metadata_3[] = "\x00\x00\x00T\x00\x00\x00\x1a\x00\x00\x00\x01\x00\x00"
	"\x00\x01\x00\x09" "127.0.0.1\x00\x00\xb5\x09\xff\xff\x00\x17mockCluster155e98443e50"
	"\x00\x00\x00\x00\x00\x00\x00\x01\x00\x03\x00\x0d" "agent-missing\x00\x00\x00\x00\x00";
static const char rd_produce[] = "\x00\x00\x01\x19\x00\x00\x00\x07\x00\x00\x00\x04\x00\x0e"
	"kprod-producer\xff\xff\xff\xff\x00\x00u0\x00\x00\x00\x01\x00\x0a" "agent-test\x00\x00"
	"\x00\x01\x00\x00\x00\x00\x00\x00\x00\xdd\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
	"\x00\xd1\x00\x00\x00\x00\x02\x1b\x81mx\x00\x00\x00\x00\x00\x09\x00\x00\x01\xa2\x1c"
	"\x0b\x83\xf5\x00\x00\x01\xa2\x1c\x0b\x83\xf6\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
	"\xff\xff\xff\xff\x00\x00\x00\x0a\x1e\x00\x00\x00\x01\x12message 0\x00\x1e\x00\x00\x02"
	"\x01\x12message 1\x00\x1e\x00\x00\x04\x01\x12message 2\x00\x1e\x00\x02\x06\x01\x12"
	"message 3\x00\x1e\x00\x02\x08\x01\x12message 4\x00\x1e\x00\x02\x0a\x01\x12message 5"
	"\x00\x1e\x00\x02\x0c\x01\x12message 6\x00\x1e\x00\x02\x0e\x01\x12message 7\x00\x1e"
	"\x00\x02\x10\x01\x12message 8\x00\x1e\x00\x02\x12\x01\x12message 9\x00";
static const char rd_produce_10[] = "\x00\x00\x00:\x00\x00\x00\x18\x00\x00\x00\x01\x00\x0a"
	"agent-test\x00\x00\x00\x01\x00\x00\x00\x00\x00\x0a\xff\xff\xff\xff\xff\xff\xff\xff"
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x00\x00\x00\x00";
static const char rd_fetch[] = "\x00\x00\x00g\x00\x01\x00\x0b\x00\x00\x00\x08\x00\x0e"
	"kprod-consumer\xff\xff\xff\xff\x00\x00\x00" "d\x00\x00\x00\x01\x03 \x00\x00\x01\x00"
	"\x00\x00\x00\xff\xff\xff\xff\x00\x00\x00\x01\x00\x0a" "agent-test\x00\x00\x00\x01\x00"
	"\x00\x00\x00\xff\xff\xff\xff\x00\x00\x00\x00\x00\x00\x00\x1e\xff\xff\xff\xff\xff\xff"
	"\xff\xff\x00\x00\x01,\x00\x00\x00\x00\x00\x00";

/* Message M (N bytes) into W: its length. */
static size_t rd(const char *m, size_t n)
{
	memcpy(w.b, m, n);
	return n;
}

static void test_librdkafka(void)
{
#define RD(m) rd(m, sizeof(m) - 1)
	check_req(RD(rd_apiversions), "ApiVersions", "", 1, kafka__api_of(18, 3));
	check_resp(RD(rd_apiversions_35), kafka__api_of(18, 3), 1, 35);
	check_req(RD(rd_metadata), "Metadata", "agent-test", 3, kafka__api_of(3, 2));
	check_resp(RD(rd_metadata_resp), kafka__api_of(3, 2), 3, 0);
	check_req(RD(rd_metadata_missing), "Metadata", "agent-missing", 26, kafka__api_of(3, 2));
	check_resp(RD(rd_metadata_3), kafka__api_of(3, 2), 26, 3);
	check_req(RD(rd_produce), "Produce", "agent-test", 4, kafka__api_of(0, 7));
	check_resp(RD(rd_produce_10), kafka__api_of(0, 7), 24, 10);
	check_req(RD(rd_fetch), "Fetch", "agent-test", 8, kafka__api_of(1, 11));
#undef RD
}

static void test_hostile(void)
{
	size_t n;

	/* too few bytes to tell */
	CHECK_INT(req_parse(kafka__parse, (const uint8_t *)"\0\0\0", 3, true, &h), -EAGAIN);
	CHECK_INT(req_parse(kafka__parse, (const uint8_t *)"\0\0\0\x10\0\0\0", 7, true, &h), -EAGAIN);
	CHECK_INT(req_parse(kafka__parse, (const uint8_t *)"\0\0\0\x10\0\0\0", 7, false, &h), -EAGAIN);
	/* lengths: over 100 MiB, under a header */
	req_refused(kafka__parse, (const uint8_t *)"\x07\0\0\0\0\0\0\x01\0\0\0\x01\0\x01x", 15, true);
	req_refused(kafka__parse, (const uint8_t *)"\x07\0\0\0\0\0\0\x01", 8, false);
	req_refused(kafka__parse, (const uint8_t *)"\0\0\0\x03\0\0\0\x01", 8, false);
	req_refused(kafka__parse, (const uint8_t *)"\0\0\0\x07\0\0\0\x01\0\0\0", 11, true);
	/* a key, version or correlation id out of range */
	req_refused(kafka__parse, (const uint8_t *)"\0\0\0\x0b\0\x64\0\0\0\0\0\x01\0\x01x", 15, true);
	req_refused(kafka__parse, (const uint8_t *)"\0\0\0\x0b\0\0\0\x40\0\0\0\x01\0\x01x", 15, true);
	req_refused(kafka__parse, (const uint8_t *)"\0\0\0\x0b\0\0\0\x01\x80\0\0\x01\0\x01x", 15, true);
	/* client_id: null, empty, a control byte, past the message */
	req_refused(kafka__parse, (const uint8_t *)"\0\0\0\x0a\0\x03\0\x01\0\0\0\x01\xff\xff", 14, true);
	req_refused(kafka__parse, (const uint8_t *)"\0\0\0\x0a\0\x03\0\x01\0\0\0\x01\0\0", 14, true);
	req_refused(kafka__parse, (const uint8_t *)"\0\0\0\x0b\0\x03\0\x01\0\0\0\x01\0\x01\n", 15, true);
	req_refused(kafka__parse, (const uint8_t *)"\0\0\0\x0b\0\x03\0\x01\0\0\0\x01\0\x09x", 15, true);
	/* ... cut by LEN: too few to tell */
	CHECK_INT(req_parse(kafka__parse, (const uint8_t *)"\0\0\0\x20\0\x03\0\x01\0\0\0\x01\0\x09x",
			    15, true, &h), -EAGAIN);
	/* flexible header: tagged fields past the message, a varint of 6 bytes */
	req_refused(kafka__parse, (const uint8_t *)"\0\0\0\x0d\0\x12\0\x03\0\0\0\x01\0\x01x\x01\x05",
		    17, true);
	req_refused(kafka__parse, (const uint8_t *)"\0\0\0\x11\0\x12\0\x03\0\0\0\x01\0\x01x"
		    "\xff\xff\xff\xff\xff\x01", 21, true);

	/* a topic cut by LEN (a read, or the snaplen): no target, still a request */
	n = kw_produce(&w, 7, 5, "agent-test", -1, 100);
	CHECK_INT(req_parse(kafka__parse, w.b, 40, true, &h), 0);
	CHECK_STR(h.method, "Produce");
	CHECK_STR(h.target, "");
	CHECK_INT(h.total_len, n);
	/* a topic's length past the message (its int16 at 33) */
	w.b[33] = 0x7f;
	CHECK_INT(req_parse(kafka__parse, w.b, n, true, &h), 0);
	CHECK_STR(h.target, "");
	/* a topic name longer than the target: cut */
	{
		char big[400];

		memset(big, 'a', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		n = kw_produce(&w, 7, 5, big, -1, 0);
		CHECK_INT(req_parse(kafka__parse, w.b, n, true, &h), 0);
		CHECK_INT(strlen(h.target), REQ_TARGET_MAX - 1);
	}
	/* responses whose counts run past the bytes: walked to their end */
	kw_resp(&w, 9, false);
	kw_be(&w, 0x7fffffff, 4);
	n = kw_end(&w);
	check_resp(n, kafka__api_of(0, 7), 9, -1);
	kw_resp(&w, 9, true);
	kw_raw(&w, "\0\0\0\0\xff\xff\xff\xff\x0f", 9);
	n = kw_end(&w);
	check_resp(n, kafka__api_of(3, 9), 9, -1);
	kw_resp(&w, 9, true);
	kw_raw(&w, "\x01\x80\x80\x80\x80\x80\x01", 7);
	n = kw_end(&w);
	check_resp(n, kafka__api_of(3, 9), 9, -1);

	/* random bytes behind a valid length and header: never a crash */
	srand(35);
	for (int i = 0; i < 20000; i++) {
		size_t m = 12 + (size_t)rand() % 300;
		uint32_t kapi = kafka__api_of((uint16_t)(rand() % 20), (uint16_t)(rand() % 14));

		for (size_t k = 0; k < m; k++)
			w.b[k] = (uint8_t)rand();
		memcpy(w.b, "\0\0\0", 3);
		w.b[4] = 0;
		if (req_parse(kafka__parse, w.b, m, i & 1, &h) == 0)
			CHECK(h.proto == REQ_PROTO_KAFKA && h.len_known);
		if (parse_resp(w.b, m, kapi, &h) == 0)
			CHECK(h.proto == REQ_PROTO_KAFKA && h.len_known && h.total_len >= 4);
	}
}

/* Other protocols' first bytes are no Kafka request; Kafka's are no other
 * protocol's message (the other parsers' tests check req_foreign too). */
static void test_foreign(void)
{
	size_t sizes[4];
	uint8_t msgs[4][512];

	for (size_t i = 0; i < sizeof(req_foreign) / sizeof(req_foreign[0]); i++) {
		const struct req_foreign *f = &req_foreign[i];

		if (f->proto == REQ_PROTO_KAFKA)
			continue;
		CHECK(req_parse(kafka__parse, f->bytes, f->n, true, &h) != 0);
	}
	sizes[0] = kw_produce(&w, 7, 1, "agent-test", -1, 50);
	memcpy(msgs[0], w.b, sizes[0]);
	sizes[1] = kw_apiversions_resp(&w, 1, 0);
	memcpy(msgs[1], w.b, sizes[1]);
	sizes[2] = kw_metadata(&w, 4, 2, "t");
	memcpy(msgs[2], w.b, sizes[2]);
	sizes[3] = kw_produce_resp(&w, 7, 3, "agent-test", (const int16_t[]){ 0 }, 1);
	memcpy(msgs[3], w.b, sizes[3]);
	for (int i = 0; i < 4; i++)
		for (int d = 0; d < 2; d++) {
			CHECK(req_parse(http__parse, msgs[i], sizes[i], d, &h) != 0);
			CHECK(req_parse(redis__parse, msgs[i], sizes[i], d, &h) != 0);
		}
}

int main(void)
{
	test_requests();
	test_responses();
	test_librdkafka();
	test_hostile();
	test_foreign();
	return t_report();
}
