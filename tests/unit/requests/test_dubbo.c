/* dubbo__parse on messages laid out from Dubbo 2's protocol specification
 * (rpc_wire.h): a Hessian2 invocation of DemoService's sayHello and its
 * answers (a value, an exception, error statuses), heartbeats, a one-way
 * call, every prefix of them; then hostile and other protocols' bytes. Every
 * parse runs on a copy of exactly LEN bytes (req_parse), so that ASan sees a
 * read past it. */
#include <errno.h>
#include <stdint.h>

#include "dubbo.h"
#include "req_check.h"
#include "rpc_wire.h"

#define DEMO "org.apache.dubbo.demo.DemoService"

static struct rw w;
static struct req_head h;

/* A request (METHOD, TARGET, ID, NO_RESP) or a response (ID, STATUS,
 * CODE: its error when not ""), and every prefix. */
static void check_at(int line, bool request, const char *method, const char *target, uint32_t id,
		     bool no_resp, int status, const char *code)
{
	struct req_head want = { .proto = REQ_PROTO_DUBBO, .request = request, .id = id,
				 .no_resp = no_resp, .status = status, .error = code[0] != '\0' };

	snprintf(want.method, sizeof(want.method), "%s", method);
	snprintf(want.target, sizeof(want.target), "%s", target);
	snprintf(want.code, sizeof(want.code), "%s", code);
	req_check_known_at(line, dubbo__parse, w.b, w.n, &want, 16);
}
#define check_call(m, t, id, oneway) check_at(__LINE__, true, m, t, id, oneway, -1, "")
#define check_reply(id, status, code) check_at(__LINE__, false, "", "", id, false, status, code)

static void test_calls(void)
{
	char path[400];

	dw_call(&w, 7, true, DEMO, "sayHello", "world");
	check_call("sayHello", DEMO, 7, false);
	/* the id's low 32 bits */
	dw_call(&w, 0x100000009ull, true, DEMO, "sayHello", "world");
	check_call("sayHello", DEMO, 9, false);
	/* one-way: no response comes */
	dw_call(&w, 8, false, DEMO, "sayHelloAsync", "x");
	check_call("sayHelloAsync", DEMO, 8, true);
	/* a method longer than req_head's is cut; a long path too */
	dw_call(&w, 1, true, DEMO, "aMethodNameLongerThanTwentyThree", "x");
	check_call("aMethodNameLongerThanTw", DEMO, 1, false);
	memset(path, 'p', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	dw_call(&w, 2, true, path, "m", "x");
	CHECK_INT(req_parse(dubbo__parse, w.b, w.n, true, &h), 0);
	CHECK_INT(strlen(h.target), REQ_TARGET_MAX - 1);
	CHECK_STR(h.method, "m");
	/* a path in chunks: 'R' (more follow) then 'S' */
	dw_head(&w, DUBBO_REQ | DUBBO_TWOWAY | DUBBO_HESSIAN2, 0, 3);
	hs_str(&w, "2.0.2");
	rw_raw(&w, "R\x00\x04org.S\x00\x03svc", 13);
	hs_str(&w, NULL);	/* no service version */
	hs_str(&w, "get");
	dw_end(&w);
	check_call("get", "org.svc", 3, false);
	/* UTF-8 counted in characters: "é" is one */
	dw_head(&w, DUBBO_REQ | DUBBO_TWOWAY | DUBBO_HESSIAN2, 0, 4);
	hs_str(&w, "2.0.2");
	rw_raw(&w, "\x04\x63\x61\x66\xc3\xa9", 6);
	hs_str(&w, "1.0");
	hs_str(&w, "m");
	dw_end(&w);
	check_call("m", "caf\xc3\xa9", 4, false);
	/* another serialization (fastjson, 6): the header only */
	dw_call(&w, 5, true, DEMO, "sayHello", "world");
	w.b[2] = DUBBO_REQ | DUBBO_TWOWAY | 6;
	check_call("", "", 5, false);
}

static void test_replies(void)
{
	/* id, status, type (a value, null, an exception, one with
	 * attachments), value, the error */
	static const struct {
		uint32_t id;
		uint8_t status, type;
		const char *value, *code;
	} t[] = {
		{ 7, 20, 0x91, "Hello world", "" },
		{ 7, 20, 0x92, NULL, "" },
		{ 7, 20, 0x90, "java.lang.IllegalStateException", "EXCEPTION" },
		{ 7, 20, 0x93, "java.lang.IllegalStateException", "EXCEPTION" },
		{ 11, 70, 0, "Service error", "SERVICE_ERROR" },
		{ 12, 31, 0, "Waiting server-side response timeout", "SERVER_TIMEOUT" },
		{ 13, 60, 0, "Not found exported service", "SERVICE_NOT_FOUND" },
		/* SERVER_THREADPOOL_EXHAUSTED_ERROR does not fit: its number */
		{ 14, 100, 0, "Thread pool is EXHAUSTED!", "100" },
		{ 15, 40, 0, "bad", "BAD_REQUEST" },
		{ 16, 30, 0, "timeout", "CLIENT_TIMEOUT" },
		{ 17, 50, 0, "bad", "BAD_RESPONSE" },
		{ 18, 80, 0, "err", "SERVER_ERROR" },
		{ 19, 90, 0, "err", "CLIENT_ERROR" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		dw_reply(&w, t[i].id, t[i].status, t[i].type, t[i].value);
		check_reply(t[i].id, t[i].status, t[i].code);
	}
}

static void test_events(void)
{
	dw_heartbeat(&w, 21, true);
	check_call("heartbeat", "", 21, false);
	dw_heartbeat(&w, 21, false);
	check_reply(21, 20, "");
	/* an event with other data (READONLY) */
	dw_head(&w, DUBBO_REQ | DUBBO_EVENT | DUBBO_HESSIAN2, 0, 22);
	hs_str(&w, "R");
	dw_end(&w);
	check_call("event", "", 22, true);
	/* an empty heartbeat */
	dw_head(&w, DUBBO_REQ | DUBBO_TWOWAY | DUBBO_EVENT | DUBBO_HESSIAN2, 0, 23);
	dw_end(&w);
	check_call("heartbeat", "", 23, false);
}

/* A two-way Hessian2 call whose body is the N bytes B: no names read. */
static void body_call(const char *b, size_t n)
{
	dw_head(&w, DUBBO_REQ | DUBBO_TWOWAY | DUBBO_HESSIAN2, 0, 1);
	rw_raw(&w, b, n);
	dw_end(&w);
	check_call("", "", 1, false);
}

static void test_hostile(void)
{
	dw_call(&w, 7, true, DEMO, "sayHello", "world");
	/* each byte refused as it comes: magic, flags, length's sign */
	w.b[1] = 0xbc;
	req_refused(dubbo__parse, w.b, 2, true);
	w.b[1] = 0xbb;
	w.b[2] = DUBBO_REQ | DUBBO_TWOWAY;	/* no serialization */
	req_refused(dubbo__parse, w.b, 3, true);
	w.b[2] = DUBBO_REQ | DUBBO_TWOWAY | DUBBO_HESSIAN2;
	w.b[12] = 0x80;	/* negative */
	req_refused(dubbo__parse, w.b, 13, true);
	req_refused(dubbo__parse, w.b, w.n, true);
	/* the largest length: the body past the bytes, the names read */
	w.b[12] = 0x7f;
	w.b[13] = w.b[14] = w.b[15] = 0xff;
	CHECK_INT(req_parse(dubbo__parse, w.b, w.n, true, &h), 0);
	CHECK_EQ(h.total_len, 16ull + 0x7fffffff);
	CHECK_STR(h.method, "sayHello");
	/* a response's two-way bit, an unknown status */
	dw_reply(&w, 7, 20, 0x91, "x");
	w.b[2] |= DUBBO_TWOWAY;
	req_refused(dubbo__parse, w.b, 3, false);
	w.b[2] &= (uint8_t)~DUBBO_TWOWAY;
	w.b[3] = 21;
	req_refused(dubbo__parse, w.b, 4, false);
	/* a string longer than the body, not Hessian2's strings (a lone
	 * continuation byte, an int), a chunk chain that never ends within the
	 * bytes: the names not read */
	body_call("\x05" "2.0.2\x33\xff" "abc", 10);
	body_call("\x05" "2.0.2\x02\x80\x80\x01m\x01m", 11);
	body_call("\x91\x01m\x01m\x01m", 7);
	{
		char chain[400];

		for (int i = 0; i < 100; i++)
			memcpy(chain + 4 * i, "R\x00\x01x", 4);
		body_call(chain, sizeof(chain));
	}
	/* other protocols' bytes, both ways */
	req_refuse_foreign(dubbo__parse, REQ_PROTO_DUBBO);
	req_refused(dubbo__parse, (const uint8_t *)"GET / HTTP/1.1\r\n", 16, true);
	CHECK_INT(req_parse(dubbo__parse, (const uint8_t *)"\xda", 1, true, &h), -EAGAIN);
	CHECK_INT(req_parse(dubbo__parse, (const uint8_t *)"", 0, false, &h), -EAGAIN);
}

int main(void)
{
	test_calls();
	test_replies();
	test_events();
	test_hostile();
	return t_report();
}
