/* Kafka in the pairing: detected from a client's first request, walked
 * message by message (pipelined requests, several in one read, one over
 * several reads and past the snaplen), responses matched to their requests
 * by correlation id (a Produce with acks=0 gets none), errors from the
 * response as its request's API reads it. Messages from kafka_wire.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kafka_wire.h"
#include "pair_check.h"

/* Bytes laid end to end: several messages in one read or write. */
static uint8_t buf[16384];
static size_t blen;

static void add(const struct kw *w)
{
	memcpy(buf + blen, w->b, w->n);
	blen += w->n;
}

static void rec_at(int line, int i, const char *method, const char *target, int status,
		   uint64_t req, uint64_t resp)
{
	int failed = t_failed;

	CHECK_INT(recs[i].proto, REQ_PROTO_KAFKA);
	CHECK_STR(recs[i].method, method);
	CHECK_STR(recs[i].target, target);
	CHECK_INT(recs[i].status, status);
	CHECK_INT(recs[i].error, status > 0);
	CHECK_INT(recs[i].req_bytes, req);
	CHECK_INT(recs[i].resp_bytes, resp);
	CHECK(!recs[i].timed_out && !recs[i].aborted);
	if (status > 0) {
		char code[16];

		snprintf(code, sizeof(code), "%d", status);
		CHECK_STR(recs[i].code, code);
	}
	if (t_failed != failed)
		fprintf(stderr, "  (record %d of line %d)\n", i, line);
}
#define rec(...) rec_at(__LINE__, __VA_ARGS__)

/* A broker's connection: librdkafka's first three requests in one read,
 * answered in one write; then a Produce and a Fetch one by one. */
static void test_server(void)
{
	static const int16_t ok[] = { 0 };
	struct pairer *p = fresh(0);
	struct req_io s = tcp(100, 5, true, 40000, 9092);
	struct kw w;
	size_t a, m, m3, r1, r2, r3;

	blen = 0;
	a = kw_apiversions(&w, 1);
	add(&w);
	m = kw_metadata(&w, 4, 2, "missing");
	add(&w);
	m3 = kw_metadata(&w, 4, 3, NULL);
	add(&w);
	io_bin(p, s, REQ_DIR_IN, 1000, buf, blen, blen);
	CHECK_INT(nrec, 0);
	blen = 0;
	r1 = kw_apiversions_resp(&w, 1, 0);
	add(&w);
	r2 = kw_metadata_resp(&w, 4, 2, "missing", 3);
	add(&w);
	r3 = kw_metadata_resp(&w, 4, 3, "other", 0);
	add(&w);
	io_bin(p, s, REQ_DIR_OUT, 1500, buf, blen, blen);
	CHECK_INT(nrec, 3);
	rec(0, "ApiVersions", "", 0, a, r1);
	rec(1, "Metadata", "missing", 3, m, r2);
	rec(2, "Metadata", "", 0, m3, r3);
	CHECK_INT(recs[0].side, REQ_SIDE_SERVER);
	CHECK_INT(recs[2].conn_seq, 3);
	CHECK_INT(recs[2].duration, 500);

	m = kw_produce(&w, 7, 4, "agent-test", -1, 500);
	io_bin(p, s, REQ_DIR_IN, 2000, w.b, w.n, w.n);
	r1 = kw_produce_resp(&w, 7, 4, "agent-test", ok, 1);
	io_bin(p, s, REQ_DIR_OUT, 2100, w.b, w.n, w.n);
	CHECK_INT(nrec, 4);
	rec(3, "Produce", "agent-test", 0, m, r1);
	CHECK_INT(recs[3].duration, 100);
	m = kw_fetch(&w, 11, 5, "agent-test");
	io_bin(p, s, REQ_DIR_IN, 3000, w.b, w.n, w.n);
	r1 = kw_fetch_resp(&w, 11, 5, "agent-test", 0, 0, 300, 1);
	io_bin(p, s, REQ_DIR_OUT, 3500, w.b, w.n, w.n);
	CHECK_INT(nrec, 5);
	rec(4, "Fetch", "agent-test", 1, m, r1);
	pair__free(p);
}

/* A client's connection from connect(): three Produces in flight, the
 * first with acks=0 (no response); the responses match by correlation id. */
static void test_client_acks0(void)
{
	static const int16_t ok[] = { 0 }, err[] = { 6 };
	struct pairer *p = fresh(0);
	struct req_io c = tcp(200, 7, false, 40001, 9092);
	struct kw w;
	size_t q1, q2, q3, r2, r3;

	CHECK_INT(pair__connect(p, &c), 0);
	blen = 0;
	q1 = kw_produce(&w, 7, 10, "fire-and-forget", 0, 40);
	add(&w);
	q2 = kw_produce(&w, 7, 11, "agent-test", -1, 40);
	add(&w);
	io_bin(p, c, REQ_DIR_OUT, 1000, buf, blen, blen);
	q3 = kw_produce(&w, 7, 12, "agent-test", 1, 40);
	io_bin(p, c, REQ_DIR_OUT, 1100, w.b, w.n, w.n);
	r2 = kw_produce_resp(&w, 7, 11, "agent-test", ok, 1);
	io_bin(p, c, REQ_DIR_IN, 1300, w.b, w.n, w.n);
	CHECK_INT(nrec, 2);
	rec(0, "Produce", "fire-and-forget", -1, q1, 0);
	CHECK_INT(recs[0].side, REQ_SIDE_CLIENT);
	CHECK_INT(recs[0].duration, 0);
	CHECK_INT(recs[0].ttfb, 0);
	rec(1, "Produce", "agent-test", 0, q2, r2);
	CHECK_INT(recs[1].duration, 300);
	r3 = kw_produce_resp(&w, 7, 12, "agent-test", err, 1);
	io_bin(p, c, REQ_DIR_IN, 1400, w.b, w.n, w.n);
	CHECK_INT(nrec, 3);
	rec(2, "Produce", "agent-test", 6, q3, r3);
	CHECK_INT(recs[2].conn_seq, 3);

	/* a response whose id no request has (begun before it was followed):
	 * the oldest in flight takes it, in order */
	q1 = kw_metadata(&w, 4, 13, "t");
	io_bin(p, c, REQ_DIR_OUT, 2000, w.b, w.n, w.n);
	r2 = kw_metadata_resp(&w, 4, 99, "t", 0);
	io_bin(p, c, REQ_DIR_IN, 2100, w.b, w.n, w.n);
	CHECK_INT(nrec, 4);
	CHECK_STR(recs[3].method, "Metadata");
	CHECK_INT(recs[3].resp_bytes, r2);

	/* an acks=0 Produce left last: no later response says it is done,
	 * so the close aborts it */
	kw_produce(&w, 7, 14, "fire-and-forget", 0, 40);
	io_bin(p, c, REQ_DIR_OUT, 3000, w.b, w.n, w.n);
	pair__close(p, &c);
	CHECK_INT(nrec, 5);
	CHECK(recs[4].aborted);	/* its Produce's answer is not known here */
	pair__free(p);
}

/* One Produce over several reads: its header cut after 10 bytes (carried),
 * its record batch past the snaplen; its response over three writes; then
 * pipelined requests whose second starts past the captured bytes. */
static void test_split(void)
{
	static const int16_t ok[] = { 0 };
	struct pairer *p = fresh(0);
	struct req_io s = tcp(300, 5, true, 40002, 9092);
	struct pair_counters pc;
	struct kw w;
	size_t q, r, a;

	q = kw_produce(&w, 7, 20, "agent-test", -1, 5000);
	io_bin(p, s, REQ_DIR_IN, 1000, w.b, 10, 10);
	io_bin(p, s, REQ_DIR_IN, 1010, w.b + 10, 3000, 2048);
	io_bin(p, s, REQ_DIR_IN, 1020, w.b + 3010, q - 3010, 2048);
	CHECK_INT(nrec, 0);
	r = kw_produce_resp(&w, 7, 20, "agent-test", ok, 1);
	io_bin(p, s, REQ_DIR_OUT, 1100, w.b, 3, 3);
	io_bin(p, s, REQ_DIR_OUT, 1110, w.b + 3, 9, 9);
	CHECK_INT(nrec, 0);
	io_bin(p, s, REQ_DIR_OUT, 1120, w.b + 12, r - 12, r - 12);
	CHECK_INT(nrec, 1);
	/* its error code was past the first 12 bytes: they were carried */
	rec(0, "Produce", "agent-test", 0, q, r);
	CHECK_INT(recs[0].duration, 120);

	/* a response in two pieces, as librdkafka reads one: its length and
	 * id (8 bytes), then the rest */
	q = kw_metadata(&w, 4, 30, "missing");
	io_bin(p, s, REQ_DIR_IN, 1500, w.b, w.n, w.n);
	r = kw_metadata_resp(&w, 4, 30, "missing", 3);
	io_bin(p, s, REQ_DIR_OUT, 1600, w.b, 8, 8);
	io_bin(p, s, REQ_DIR_OUT, 1610, w.b + 8, r - 8, r - 8);
	CHECK_INT(nrec, 2);
	rec(1, "Metadata", "missing", 3, q, r);

	/* a large Produce and a Metadata in one read of which 2048 bytes
	 * were captured: the Metadata is counted in the Produce's bytes */
	blen = 0;
	q = kw_produce(&w, 7, 21, "agent-test", -1, 3000);
	add(&w);
	a = kw_metadata(&w, 4, 22, "t");
	add(&w);
	io_bin(p, s, REQ_DIR_IN, 2000, buf, blen, 2048);
	pair__counters(p, &pc);
	CHECK_INT(pc.n_uncaptured, 1);
	r = kw_produce_resp(&w, 7, 21, "agent-test", ok, 1);
	io_bin(p, s, REQ_DIR_OUT, 2100, w.b, w.n, w.n);
	CHECK_INT(nrec, 3);
	rec(2, "Produce", "agent-test", 0, q + a, r);
	pair__free(p);
}

/* Reads and writes as librdkafka's broker and client make them: a request's
 * 12-byte head, then its rest; a response's 8-byte head, then its rest; the
 * other direction's bytes in between (the answer to the request before, the
 * next request): each head waits for its rest. */
static void test_interleaved(void)
{
	static const int16_t ok[] = { 0 }, err[] = { 10 };
	struct pairer *p = fresh(0);
	struct req_io s = tcp(500, 5, true, 40005, 9092);
	struct req_io c = tcp(501, 6, false, 40006, 9092);
	struct kw a, b, ra, rb;

	kw_produce(&a, 7, 1, "agent-test", -1, 200);
	kw_produce(&b, 7, 2, "agent-test", -1, 200);
	kw_produce_resp(&ra, 7, 1, "agent-test", ok, 1);
	kw_produce_resp(&rb, 7, 2, "agent-test", err, 1);
	io_bin(p, s, REQ_DIR_IN, 1000, a.b, 12, 12);
	io_bin(p, s, REQ_DIR_IN, 1001, a.b + 12, a.n - 12, a.n - 12);
	io_bin(p, s, REQ_DIR_IN, 1002, b.b, 12, 12);
	io_bin(p, s, REQ_DIR_OUT, 1100, ra.b, ra.n, ra.n);
	io_bin(p, s, REQ_DIR_IN, 1101, b.b + 12, b.n - 12, b.n - 12);
	io_bin(p, s, REQ_DIR_OUT, 1200, rb.b, rb.n, rb.n);
	CHECK_INT(nrec, 2);
	rec(0, "Produce", "agent-test", 0, a.n, ra.n);
	rec(1, "Produce", "agent-test", 10, b.n, rb.n);
	CHECK_INT(recs[1].duration, 198);

	io_bin(p, c, REQ_DIR_OUT, 2000, a.b, a.n, a.n);
	io_bin(p, c, REQ_DIR_IN, 2100, ra.b, 8, 8);
	io_bin(p, c, REQ_DIR_OUT, 2101, b.b, b.n, b.n);
	io_bin(p, c, REQ_DIR_IN, 2102, ra.b + 8, ra.n - 8, ra.n - 8);
	io_bin(p, c, REQ_DIR_IN, 2200, rb.b, 8, 8);
	io_bin(p, c, REQ_DIR_IN, 2201, rb.b + 8, rb.n - 8, rb.n - 8);
	CHECK_INT(nrec, 4);
	rec(2, "Produce", "agent-test", 0, a.n, ra.n);
	rec(3, "Produce", "agent-test", 10, b.n, rb.n);
	CHECK_INT(recs[2].side, REQ_SIDE_CLIENT);
	pair__free(p);
}

/* Other protocols' connections are not taken for Kafka: Redis and HTTP
 * keep theirs; bytes that are no request stay unknown. */
static void test_not_kafka(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(400, 5, true, 40003, 6379);
	struct req_io u = tcp(401, 5, true, 40004, 7000);
	struct kw w;

	IN(p, s, 1000, "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n");
	OUT(p, s, 1100, "$-1\r\n");
	CHECK_INT(nrec, 1);
	CHECK_INT(recs[0].proto, REQ_PROTO_REDIS);
	/* a Kafka response's bytes read first: no request, nothing detected */
	kw_metadata_resp(&w, 4, 2, "t", 0);
	io_bin(p, u, REQ_DIR_OUT, 2000, w.b, w.n, w.n);
	io_bin(p, u, REQ_DIR_IN, 2100, w.b, w.n, w.n);
	io_bin(p, u, REQ_DIR_OUT, 2200, w.b, w.n, w.n);
	pair__close(p, &u);
	CHECK_INT(nrec, 2);
	CHECK_INT(recs[1].proto, REQ_PROTO_NONE);
	pair__free(p);
}

int main(void)
{
	test_server();
	test_client_acks0();
	test_split();
	test_interleaved();
	test_not_kafka();
	return t_report();
}
