/* Dubbo and RocketMQ in the pairing: detected from a connection's first
 * message, walked message by message, responses matched to their requests
 * by id in any order, one-way requests done at once with no response, a
 * request the other way (a peer's heartbeat, a broker's check) no record;
 * messages split over reads at every byte and cut at the snaplen. Messages
 * from rpc_wire.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pair_check.h"
#include "rpc_wire.h"

#define DEMO "org.apache.dubbo.demo.DemoService"

static uint8_t buf[16384];
static size_t blen;

static void add(const struct rw *w)
{
	memcpy(buf + blen, w->b, w->n);
	blen += w->n;
}

static void rec_at(int line, int i, uint8_t proto, const char *method, const char *target,
		   int status, const char *code, uint64_t req, uint64_t resp)
{
	int failed = t_failed;

	CHECK_INT(recs[i].proto, proto);
	CHECK_STR(recs[i].method, method);
	CHECK_STR(recs[i].target, target);
	CHECK_INT(recs[i].status, status);
	/* (a pull's "no new message" is no failure) */
	CHECK_INT(recs[i].error, code[0] != '\0' && status != 19);
	CHECK_STR(recs[i].code, code);
	CHECK_INT(recs[i].req_bytes, req);
	CHECK_INT(recs[i].resp_bytes, resp);
	CHECK(!recs[i].timed_out && !recs[i].aborted);
	if (t_failed != failed)
		fprintf(stderr, "  (record %d of line %d)\n", i, line);
}
#define rec(...) rec_at(__LINE__, __VA_ARGS__)

/* A provider's connection: three calls in one read, answered out of order
 * (the third first, with an error), then a heartbeat both ways. */
static void test_dubbo_server(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(100, 5, true, 40000, 20880);
	struct rw w;
	size_t q1, q2, q3, r1, r2, r3, hb, hr;

	blen = 0;
	q1 = dw_call(&w, 1, true, DEMO, "sayHello", "a");
	add(&w);
	q2 = dw_call(&w, 2, true, DEMO, "sayGoodbye", "bb");
	add(&w);
	q3 = dw_call(&w, 3, true, "org.apache.dubbo.demo.Other", "fail", "ccc");
	add(&w);
	io_bin(p, s, REQ_DIR_IN, 1000, buf, blen, blen);
	r3 = dw_reply(&w, 3, 70, 0, "boom");
	io_bin(p, s, REQ_DIR_OUT, 1100, w.b, w.n, w.n);
	CHECK_INT(nrec, 0);	/* the first two are still in flight */
	r1 = dw_reply(&w, 1, 20, 0x91, "Hello a");
	io_bin(p, s, REQ_DIR_OUT, 1200, w.b, w.n, w.n);
	CHECK_INT(nrec, 1);
	r2 = dw_reply(&w, 2, 20, 0x90, "java.lang.RuntimeException");
	io_bin(p, s, REQ_DIR_OUT, 1300, w.b, w.n, w.n);
	CHECK_INT(nrec, 3);
	rec(0, REQ_PROTO_DUBBO, "sayHello", DEMO, 20, "", q1, r1);
	rec(1, REQ_PROTO_DUBBO, "sayGoodbye", DEMO, 20, "EXCEPTION", q2, r2);
	rec(2, REQ_PROTO_DUBBO, "fail", "org.apache.dubbo.demo.Other", 70, "SERVICE_ERROR", q3, r3);
	CHECK_EQ(recs[2].duration, 100);
	hb = dw_heartbeat(&w, 4, true);
	io_bin(p, s, REQ_DIR_IN, 2000, w.b, w.n, w.n);
	hr = dw_heartbeat(&w, 4, false);
	io_bin(p, s, REQ_DIR_OUT, 2001, w.b, w.n, w.n);
	CHECK_INT(nrec, 4);
	rec(3, REQ_PROTO_DUBBO, "heartbeat", "", 20, "", hb, hr);
	/* a heartbeat the provider sends (Dubbo before 2.7) and its answer: no
	 * record, nothing else disturbed */
	q1 = dw_call(&w, 5, true, DEMO, "sayHello", "a");
	io_bin(p, s, REQ_DIR_IN, 3000, w.b, w.n, w.n);
	dw_heartbeat(&w, 900, true);
	io_bin(p, s, REQ_DIR_OUT, 3001, w.b, w.n, w.n);
	dw_heartbeat(&w, 900, false);
	io_bin(p, s, REQ_DIR_IN, 3002, w.b, w.n, w.n);
	r1 = dw_reply(&w, 5, 20, 0x91, "Hello a");
	io_bin(p, s, REQ_DIR_OUT, 3003, w.b, w.n, w.n);
	CHECK_INT(nrec, 5);
	rec(4, REQ_PROTO_DUBBO, "sayHello", DEMO, 20, "", q1 + 17, r1);
	pair__free(p);
}

/* A consumer's one-way calls are done when read whole, no response awaited;
 * a two-way one after them is answered as usual. */
static void test_dubbo_oneway(void)
{
	struct pairer *p = fresh(0);
	struct req_io c = tcp(200, 7, false, 40001, 20880);
	struct rw w;
	size_t q1, q2, r2;

	q1 = dw_call(&w, 1, false, DEMO, "notify", "x");
	io_bin(p, c, REQ_DIR_OUT, 1000, w.b, w.n, w.n);
	CHECK_INT(nrec, 1);
	rec(0, REQ_PROTO_DUBBO, "notify", DEMO, -1, "", q1, 0);
	q2 = dw_call(&w, 2, true, DEMO, "sayHello", "y");
	io_bin(p, c, REQ_DIR_OUT, 1100, w.b, w.n, w.n);
	r2 = dw_reply(&w, 2, 20, 0x91, "Hello y");
	io_bin(p, c, REQ_DIR_IN, 1200, w.b, w.n, w.n);
	CHECK_INT(nrec, 2);
	rec(1, REQ_PROTO_DUBBO, "sayHello", DEMO, 20, "", q2, r2);
	CHECK(!recs[0].timed_out);
	pair__free(p);
}

/* A consumer's three calls in one write answered in one read, in another
 * order; then the same over RocketMQ. */
static void test_one_read(void)
{
	struct pairer *p = fresh(0);
	struct req_io c = tcp(200, 8, false, 40004, 20880);
	size_t q[3], r[3];
	struct rw w;

	blen = 0;
	for (int i = 0; i < 3; i++) {
		static const char *const m[3] = { "a", "bb", "ccc" };

		q[i] = dw_call(&w, 100 + i, true, DEMO, m[i], "x");
		add(&w);
	}
	io_bin(p, c, REQ_DIR_OUT, 1000, buf, blen, blen);
	blen = 0;
	r[1] = dw_reply(&w, 101, 20, 0x91, "B");
	add(&w);
	r[2] = dw_reply(&w, 102, 80, 0, "server error");
	add(&w);
	r[0] = dw_reply(&w, 100, 20, 0x92, NULL);
	add(&w);
	io_bin(p, c, REQ_DIR_IN, 1100, buf, blen, blen);
	CHECK_INT(nrec, 3);
	rec(0, REQ_PROTO_DUBBO, "a", DEMO, 20, "", q[0], r[0]);
	rec(1, REQ_PROTO_DUBBO, "bb", DEMO, 20, "", q[1], r[1]);
	rec(2, REQ_PROTO_DUBBO, "ccc", DEMO, 80, "SERVER_ERROR", q[2], r[2]);
	pair__free(p);

	p = fresh(0);
	c = tcp(200, 9, false, 40005, 9876);
	blen = 0;
	for (int i = 0; i < 3; i++) {
		q[i] = mq_json(&w, 105, "\"topic\":\"T\"", 0, (uint32_t)(7 + i), NULL, "");
		add(&w);
	}
	io_bin(p, c, REQ_DIR_OUT, 1000, buf, blen, blen);
	blen = 0;
	for (int i = 2; i >= 0; i--) {
		r[i] = mq_json(&w, i == 1 ? 17 : 0, "", 1, (uint32_t)(7 + i), NULL, "{}");
		add(&w);
	}
	io_bin(p, c, REQ_DIR_IN, 1100, buf, blen, blen);
	CHECK_INT(nrec, 3);
	rec(0, REQ_PROTO_ROCKETMQ, "GET_ROUTEINFO_BY_TOPIC", "T", 0, "", q[0], r[0]);
	rec(1, REQ_PROTO_ROCKETMQ, "GET_ROUTEINFO_BY_TOPIC", "T", 17, "TOPIC_NOT_EXIST", q[1], r[1]);
	rec(2, REQ_PROTO_ROCKETMQ, "GET_ROUTEINFO_BY_TOPIC", "T", 0, "", q[2], r[2]);
	pair__free(p);
}

/* A call and its answer split over two reads at every byte; a call cut at
 * the snaplen. */
static void test_dubbo_split(void)
{
	struct rw q, r;
	size_t k;

	dw_call(&q, 9, true, DEMO, "sayHello", "world");
	dw_reply(&r, 9, 60, 0, "not found");
	for (k = 1; k < q.n; k++) {
		struct pairer *p = fresh(0);
		struct req_io s = tcp(100, 5, true, 40000, 20880);
		int failed = t_failed;

		io_bin(p, s, REQ_DIR_IN, 1000, q.b, k, k);
		io_bin(p, s, REQ_DIR_IN, 1001, q.b + k, q.n - k, q.n - k);
		io_bin(p, s, REQ_DIR_OUT, 1100, r.b, (k % r.n) ? k % r.n : r.n, r.n);
		if (k % r.n)
			io_bin(p, s, REQ_DIR_OUT, 1101, r.b + k % r.n, r.n - k % r.n, r.n);
		CHECK_INT(nrec, 1);
		rec(0, REQ_PROTO_DUBBO, "sayHello", DEMO, 60, "SERVICE_NOT_FOUND", q.n, r.n);
		if (t_failed != failed)
			fprintf(stderr, "  (split at %zu)\n", k);
		pair__free(p);
	}
	/* the snaplen cuts the call before its method: the path is read, and
	 * the next call is still found by its length */
	{
		struct pairer *p = fresh(0);
		struct req_io s = tcp(100, 5, true, 40000, 20880);

		blen = 0;
		add(&q);
		dw_call(&r, 10, true, DEMO, "second", "x");
		add(&r);
		io_bin(p, s, REQ_DIR_IN, 1000, buf, q.n, 64);
		io_bin(p, s, REQ_DIR_IN, 1001, buf + q.n, r.n, 64);
		dw_reply(&r, 10, 20, 0x91, "ok");
		io_bin(p, s, REQ_DIR_OUT, 1100, r.b, r.n, r.n);
		dw_reply(&r, 9, 20, 0x91, "ok");
		io_bin(p, s, REQ_DIR_OUT, 1101, r.b, r.n, r.n);
		CHECK_INT(nrec, 2);
		CHECK_STR(recs[0].method, "");
		CHECK_STR(recs[0].target, DEMO);
		CHECK_STR(recs[1].method, "");
		CHECK_INT(recs[1].status, 20);
		pair__free(p);
	}
}

#define SEND_EXT "\"topic\":\"TopicTest\",\"producerGroup\":\"pg\",\"queueId\":\"1\""

/* A broker's connection: a SEND_MESSAGE and its response; three pipelined
 * requests answered out of order, one with an error; a one-way request;
 * the broker's own request to the client in between. */
static void test_mq_server(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(300, 9, true, 40002, 10911);
	struct rw w;
	size_t q1, r1, q2, q3, q4, r2, r3, r4, q5;

	q1 = mq_json(&w, 10, SEND_EXT, 0, 1, NULL, "Hello RocketMQ");
	io_bin(p, s, REQ_DIR_IN, 1000, w.b, w.n, w.n);
	r1 = mq_json(&w, 0, "\"msgId\":\"AC1\",\"queueId\":\"1\"", 1, 1, NULL, "");
	io_bin(p, s, REQ_DIR_OUT, 1050, w.b, w.n, w.n);
	CHECK_INT(nrec, 1);
	rec(0, REQ_PROTO_ROCKETMQ, "SEND_MESSAGE", "TopicTest", 0, "", q1, r1);
	blen = 0;
	q2 = mq_json(&w, 11, "\"topic\":\"A\"", 0, 2, NULL, "");
	add(&w);
	q3 = mq_json(&w, 310, "\"a\":\"pg\",\"b\":\"B\"", 0, 3, NULL, "x");
	add(&w);
	{
		static const char *const ext[] = { "topic", "C", NULL };

		q4 = mq_bin(&w, 10, 453, 4, 0, NULL, ext, "y");
		add(&w);
	}
	io_bin(p, s, REQ_DIR_IN, 2000, buf, blen, blen);
	r4 = mq_bin(&w, 0, 453, 4, 1, NULL, NULL, "");
	io_bin(p, s, REQ_DIR_OUT, 2001, w.b, w.n, w.n);
	/* CHECK_TRANSACTION_STATE, one-way, from the broker */
	mq_json(&w, 39, "\"tranStateTableOffset\":\"1\"", 2, 77, NULL, "");
	io_bin(p, s, REQ_DIR_OUT, 2002, w.b, w.n, w.n);
	r3 = mq_json(&w, 17, "", 1, 3, "topic[B] not exist", "");
	io_bin(p, s, REQ_DIR_OUT, 2003, w.b, w.n, w.n);
	CHECK_INT(nrec, 1);
	r2 = mq_json(&w, 19, "", 1, 2, "no new message", "");
	io_bin(p, s, REQ_DIR_OUT, 2004, w.b, w.n, w.n);
	CHECK_INT(nrec, 4);
	rec(1, REQ_PROTO_ROCKETMQ, "PULL_MESSAGE", "A", 19, "PULL_NOT_FOUND", q2, r2);
	CHECK(!recs[1].error);
	rec(2, REQ_PROTO_ROCKETMQ, "SEND_MESSAGE_V2", "B", 17, "TOPIC_NOT_EXIST", q3, r3);
	rec(3, REQ_PROTO_ROCKETMQ, "SEND_MESSAGE", "C", 0, "", q4, r4);
	/* one-way (flag bit 1): done at once */
	q5 = mq_json(&w, 15, "\"topic\":\"D\"", 2, 5, NULL, "");
	io_bin(p, s, REQ_DIR_IN, 3000, w.b, w.n, w.n);
	CHECK_INT(nrec, 5);
	rec(4, REQ_PROTO_ROCKETMQ, "UPDATE_CONSUMER_OFFSET", "D", -1, "", q5, 0);
	pair__free(p);
}

/* RocketMQ's request and response split over two reads at every byte. */
static void test_mq_split(void)
{
	struct rw q, r;

	mq_json(&q, 10, SEND_EXT, 0, 42, NULL, "body");
	mq_json(&r, 2, "", 1, 42, "busy", "");
	for (size_t k = 1; k < q.n; k++) {
		struct pairer *p = fresh(0);
		struct req_io c = tcp(400, 3, false, 40003, 10911);
		size_t kr = k % r.n ? k % r.n : r.n;
		int failed = t_failed;

		io_bin(p, c, REQ_DIR_OUT, 1000, q.b, k, k);
		io_bin(p, c, REQ_DIR_OUT, 1001, q.b + k, q.n - k, q.n - k);
		io_bin(p, c, REQ_DIR_IN, 1100, r.b, kr, kr);
		if (kr < r.n)
			io_bin(p, c, REQ_DIR_IN, 1101, r.b + kr, r.n - kr, r.n - kr);
		CHECK_INT(nrec, 1);
		rec(0, REQ_PROTO_ROCKETMQ, "SEND_MESSAGE", "TopicTest", 2, "SYSTEM_BUSY", q.n, r.n);
		if (t_failed != failed)
			fprintf(stderr, "  (split at %zu)\n", k);
		pair__free(p);
	}
}

int main(void)
{
	test_dubbo_server();
	test_dubbo_oneway();
	test_one_read();
	test_dubbo_split();
	test_mq_server();
	test_mq_split();
	return t_report();
}
