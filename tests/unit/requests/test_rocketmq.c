/* rocketmq__parse on frames laid out from RocketMQ's remoting protocol
 * (rpc_wire.h): JSON headers (a SEND_MESSAGE with its topic, a
 * SEND_MESSAGE_V2 with the short key, a PULL_MESSAGE, their responses, an
 * error, a one-way request), binary (ROCKETMQ) headers, every prefix of
 * them; then hostile and other protocols' bytes. Every parse runs on a copy
 * of exactly LEN bytes (req_parse). */
#include <errno.h>
#include <stdint.h>

#include "req_check.h"
#include "rocketmq.h"
#include "rpc_wire.h"

static struct rw w;
static struct req_head h;

/* A request (METHOD, TARGET, OPAQUE, NO_RESP) or a response (OPAQUE,
 * STATUS, ERROR, CODE), and every prefix. */
static void check_at(int line, bool request, const char *method, const char *target,
		     uint32_t opaque, bool no_resp, int status, bool error, const char *code)
{
	struct req_head want = { .proto = REQ_PROTO_ROCKETMQ, .request = request, .id = opaque,
				 .no_resp = no_resp, .status = status, .error = error };

	snprintf(want.method, sizeof(want.method), "%s", method);
	snprintf(want.target, sizeof(want.target), "%s", target);
	snprintf(want.code, sizeof(want.code), "%s", code);
	req_check_known_at(line, rocketmq__parse, w.b, w.n, &want, 10);
}
#define check_req(m, t, op, oneway) check_at(__LINE__, true, m, t, op, oneway, -1, false, "")
#define check_resp(op, status, error, code) \
	check_at(__LINE__, false, "", "", op, false, status, error, code)

#define SEND_EXT "\"topic\":\"TopicTest\",\"producerGroup\":\"pg\",\"queueId\":\"1\"," \
	"\"sysFlag\":\"0\",\"bornTimestamp\":\"1700000000000\",\"flag\":\"0\"," \
	"\"properties\":\"UNIQ_KEY\\u0001AC1\\u0002WAIT\\u0001true\\u0002\",\"batch\":\"false\""

static void test_json(void)
{
	mq_json(&w, 10, SEND_EXT, 0, 3, NULL, "Hello RocketMQ");
	check_req("SEND_MESSAGE", "TopicTest", 3, false);
	/* V2's short keys: "a" the group, "b" the topic */
	mq_json(&w, 310, "\"a\":\"pg\",\"b\":\"TopicV2\",\"c\":\"TBW102\",\"d\":\"4\"", 0, 4, NULL,
		"body");
	check_req("SEND_MESSAGE_V2", "TopicV2", 4, false);
	/* "b" names the topic only in V2's header */
	mq_json(&w, 11, "\"b\":\"x\",\"consumerGroup\":\"cg\",\"topic\":\"PullTopic\"", 0, 5, NULL, "");
	check_req("PULL_MESSAGE", "PullTopic", 5, false);
	mq_json(&w, 34, "", 0, 6, NULL, "{\"clientID\":\"c1\"}");
	check_req("HEART_BEAT", "", 6, false);
	mq_json(&w, 105, "\"topic\":\"TopicTest\"", 0, 7, NULL, "");
	check_req("GET_ROUTEINFO_BY_TOPIC", "TopicTest", 7, false);
	/* no name for it: the number; one-way (flag bit 1) */
	mq_json(&w, 9999, "", 2, 8, NULL, "");
	check_req("9999", "", 8, true);
	/* the responses: flag bit 0 */
	mq_json(&w, 0, "\"msgId\":\"AC1\",\"queueId\":\"1\",\"queueOffset\":\"7\"", 1, 3, NULL, "");
	check_resp(3, 0, false, "");
	mq_json(&w, 17, "", 1, 5, "topic[X] not exist, apply first please!", "");
	check_resp(5, 17, true, "TOPIC_NOT_EXIST");
	mq_json(&w, 1, "", 1, 9, "error", "");
	check_resp(9, 1, true, "SYSTEM_ERROR");
	/* a pull with no new message: no failure */
	mq_json(&w, 19, "", 1, 10, "no message", "");
	check_resp(10, 19, false, "PULL_NOT_FOUND");
	/* REQUEST_CODE_NOT_SUPPORTED does not fit: its number */
	mq_json(&w, 3, "", 1, 11, NULL, "");
	check_resp(11, 3, true, "3");
	/* whitespace, nested and other values where they may be */
	{
		static const char hj[] = "{ \"code\" : 11 , \"extFields\" : { \"topic\" : \"T\\\"q\" } ,"
			" \"x\" : [ 1 , -2.5e3 , true , null , { \"y\" : [ ] } ] , \"flag\" : 0 ,"
			" \"opaque\" : 12 }";

		mq_frame(&w, 0, hj, sizeof(hj) - 1, "", 0);
		check_req("PULL_MESSAGE", "T\"q", 12, false);
	}
}

static void test_binary(void)
{
	static const char *const ext[] = { "topic", "BinTopic", "queueId", "2", NULL };
	static const char *const v2[] = { "a", "pg", "b", "BinV2", NULL };

	mq_bin(&w, 10, 453, 21, 0, NULL, ext, "payload");
	check_req("SEND_MESSAGE", "BinTopic", 21, false);
	mq_bin(&w, 310, 453, 22, 0, "", v2, "payload");
	check_req("SEND_MESSAGE_V2", "BinV2", 22, false);
	mq_bin(&w, 34, 453, 23, 2, NULL, NULL, "");
	check_req("HEART_BEAT", "", 23, true);
	mq_bin(&w, 0, 453, 21, 1, NULL, NULL, "");
	check_resp(21, 0, false, "");
	mq_bin(&w, 2, 453, 22, 1, "[TIMEOUT_CLEAN_QUEUE]broker busy", NULL, "");
	check_resp(22, 2, true, "SYSTEM_BUSY");
}

static void test_hostile(void)
{
	static const char *const ext[] = { "topic", "BinTopic", NULL };

	mq_json(&w, 10, SEND_EXT, 0, 3, NULL, "Hello");
	/* each field refused as it comes: length, serialization, header length */
	w.b[0] = 0x02;	/* past RocketMQ's 16 MiB frames */
	req_refused(rocketmq__parse, w.b, 4, true);
	w.b[0] = 0;
	w.b[4] = 2;
	req_refused(rocketmq__parse, w.b, 5, true);
	w.b[4] = 0;
	w.b[5] = 0x7f;	/* the header longer than the frame */
	req_refused(rocketmq__parse, w.b, 8, true);
	w.b[5] = 0;
	w.b[8] = '[';
	req_refused(rocketmq__parse, w.b, 9, true);
	w.b[8] = '{';
	/* not JSON inside, or no code in a whole header */
	w.b[9] = 'x';
	req_refused(rocketmq__parse, w.b, w.n, true);
	mq_frame(&w, 0, "{\"flag\":0}", 10, "", 0);
	req_refused(rocketmq__parse, w.b, w.n, true);
	mq_frame(&w, 0, "{\"code\":1", 9, "", 0);	/* the object not closed */
	req_refused(rocketmq__parse, w.b, w.n, true);
	mq_frame(&w, 0, "{\"code\":12345678901234}", 23, "", 0);
	req_refused(rocketmq__parse, w.b, w.n, true);
	{
		char deep[64] = "{\"x\":";

		for (int i = 0; i < 10; i++)
			strcat(deep, "[");
		mq_frame(&w, 0, deep, strlen(deep), "", 0);
		req_refused(rocketmq__parse, w.b, w.n, true);
	}
	/* binary: a language, a flag, lengths that do not add up */
	mq_bin(&w, 10, 453, 21, 0, NULL, ext, "x");
	w.b[10] = 200;
	req_refused(rocketmq__parse, w.b, 11, true);
	mq_bin(&w, 10, 453, 21, 0, NULL, ext, "x");
	w.b[20] = 4;
	req_refused(rocketmq__parse, w.b, 21, true);
	mq_bin(&w, 10, 453, 21, 0, NULL, ext, "x");
	w.b[24] = 0xff;	/* the remark's length */
	req_refused(rocketmq__parse, w.b, w.n, true);
	mq_bin(&w, 10, 453, 21, 0, NULL, ext, "x");
	w.b[29] = 0xff;	/* a key's length */
	req_refused(rocketmq__parse, w.b, w.n, true);
	mq_bin(&w, 10, 453, 21, 0, NULL, ext, "x");
	w.b[8 + 21 + 2 + 5 + 3] = 0xff;	/* a value's length */
	req_refused(rocketmq__parse, w.b, w.n, true);
	/* the largest frame */
	mq_json(&w, 10, SEND_EXT, 0, 3, NULL, "Hello");
	w.b[0] = 1;
	w.b[1] = w.b[2] = w.b[3] = 0;
	CHECK_INT(req_parse(rocketmq__parse, w.b, w.n, true, &h), 0);
	CHECK_EQ(h.total_len, 4 + (16u << 20));
	CHECK_STR(h.target, "TopicTest");
	req_refuse_foreign(rocketmq__parse, REQ_PROTO_ROCKETMQ);
	req_refused(rocketmq__parse, (const uint8_t *)"*1\r\n$4\r\nPING\r\n", 14, true);
}

int main(void)
{
	test_json();
	test_binary();
	test_hostile();
	return t_report();
}
