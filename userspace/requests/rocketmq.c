/* RocketMQ's remoting protocol, from its description (RocketMQ's
 * "remoting protocol" design notes: the frame, the header's fields code,
 * language, version, opaque, flag, remark, extFields; the ROCKETMQ binary
 * layout of them; the request and response codes). A JSON header is read by
 * a small bounded scanner rather than json-c: the parsers use libc only
 * (README), never allocate, and must read a header the snaplen cut. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rocketmq.h"

/* RocketMQ's default frame bound (com.rocketmq.remoting.frameMaxLength) */
#define FRAME_MAX (16u * 1024 * 1024)
#define SER_JSON 0
#define SER_BINARY 1
/* code u16, language u8, version u16, opaque u32, flag u32, two lengths */
#define BIN_FIXED 21
#define LANG_MAX 31
#define FLAG_RESPONSE 1u
#define FLAG_ONEWAY 2u
#define KEY_MAX 16
#define DEPTH_MAX 4

enum { RD_OK = 0, RD_CUT = -1, RD_BAD = -2 };

/* The header's fields as far as they were read. */
struct hdr {
	bool has_code, has_flag, has_opaque;
	int32_t code;
	uint32_t flag, opaque;
	char topic[REQ_TARGET_MAX], b[REQ_TARGET_MAX];
};

/* Request codes (RequestCode) whose names fit req_head's method. */
static const struct { int32_t code; const char *name; } req_names[] = {
	{ 10, "SEND_MESSAGE" }, { 11, "PULL_MESSAGE" }, { 12, "QUERY_MESSAGE" },
	{ 13, "QUERY_BROKER_OFFSET" }, { 14, "QUERY_CONSUMER_OFFSET" },
	{ 15, "UPDATE_CONSUMER_OFFSET" }, { 17, "UPDATE_AND_CREATE_TOPIC" },
	{ 21, "GET_ALL_TOPIC_CONFIG" }, { 25, "UPDATE_BROKER_CONFIG" },
	{ 26, "GET_BROKER_CONFIG" }, { 28, "GET_BROKER_RUNTIME_INFO" },
	{ 30, "GET_MAX_OFFSET" }, { 31, "GET_MIN_OFFSET" }, { 33, "VIEW_MESSAGE_BY_ID" },
	{ 34, "HEART_BEAT" }, { 35, "UNREGISTER_CLIENT" }, { 36, "CONSUMER_SEND_MSG_BACK" },
	{ 37, "END_TRANSACTION" }, { 39, "CHECK_TRANSACTION_STATE" }, { 41, "LOCK_BATCH_MQ" },
	{ 42, "UNLOCK_BATCH_MQ" }, { 43, "GET_ALL_CONSUMER_OFFSET" },
	{ 45, "GET_ALL_DELAY_OFFSET" }, { 100, "PUT_KV_CONFIG" }, { 101, "GET_KV_CONFIG" },
	{ 102, "DELETE_KV_CONFIG" }, { 103, "REGISTER_BROKER" }, { 104, "UNREGISTER_BROKER" },
	{ 105, "GET_ROUTEINFO_BY_TOPIC" }, { 106, "GET_BROKER_CLUSTER_INFO" },
	{ 310, "SEND_MESSAGE_V2" }, { 320, "SEND_BATCH_MESSAGE" },
	{ 324, "SEND_REPLY_MESSAGE" }, { 325, "SEND_REPLY_MESSAGE_V2" },
};

/* Response codes (ResponseCode) whose names fit req_head's code. */
static const struct { int32_t code; const char *name; } resp_names[] = {
	{ 0, "SUCCESS" }, { 1, "SYSTEM_ERROR" }, { 2, "SYSTEM_BUSY" },
	{ 4, "TRANSACTION_FAILED" }, { 10, "FLUSH_DISK_TIMEOUT" },
	{ 11, "SLAVE_NOT_AVAILABLE" }, { 12, "FLUSH_SLAVE_TIMEOUT" },
	{ 13, "MESSAGE_ILLEGAL" }, { 14, "SERVICE_NOT_AVAILABLE" },
	{ 15, "VERSION_NOT_SUPPORTED" }, { 16, "NO_PERMISSION" }, { 17, "TOPIC_NOT_EXIST" },
	{ 18, "TOPIC_EXIST_ALREADY" }, { 19, "PULL_NOT_FOUND" },
	{ 20, "PULL_RETRY_IMMEDIATELY" }, { 21, "PULL_OFFSET_MOVED" },
	{ 22, "QUERY_NOT_FOUND" }, { 24, "SUBSCRIPTION_NOT_EXIST" },
	{ 25, "SUBSCRIPTION_NOT_LATEST" },
};

#define NAME_OF(tab, c, dst)                                                        \
	do {                                                                        \
		size_t i_;                                                          \
		for (i_ = 0; i_ < sizeof(tab) / sizeof(tab[0]); i_++)               \
			if (tab[i_].code == (c))                                    \
				break;                                              \
		if (i_ < sizeof(tab) / sizeof(tab[0]))                              \
			snprintf(dst, sizeof(dst), "%s", tab[i_].name);             \
		else                                                                \
			snprintf(dst, sizeof(dst), "%d", (int)(c));                 \
	} while (0)

/* The extFields key naming the topic: "topic", or SendMessageRequestHeaderV2's
 * short "b" (its producerGroup is "a", its topic "b"). */
static bool code__v2(int32_t code)
{
	return code == 310 || code == 320 || code == 325;
}

/* ---- JSON: a cursor over the header's captured bytes ---- */

struct js {
	const uint8_t *b;
	size_t n, p;
};

static void js__ws(struct js *j)
{
	while (j->p < j->n && (j->b[j->p] == ' ' || j->b[j->p] == '\t' || j->b[j->p] == '\n' ||
			       j->b[j->p] == '\r'))
		j->p++;
}

/* A string at the cursor (its quote first) into DST (SIZE; NULL: skipped),
 * escapes kept as they are: the keys and topics read here have none. */
static int js__str(struct js *j, char *dst, size_t size)
{
	size_t at = 0;

	if (dst)
		dst[0] = '\0';
	if (j->p >= j->n)
		return RD_CUT;
	if (j->b[j->p++] != '"')
		return RD_BAD;
	for (;;) {
		uint8_t c;

		if (j->p >= j->n)
			return RD_CUT;
		c = j->b[j->p++];
		if (c == '"')
			return RD_OK;
		if (c < 0x20)
			return RD_BAD;
		if (c == '\\') {
			if (j->p >= j->n)
				return RD_CUT;
			c = j->b[j->p++];
		}
		if (dst && at + 1 < size) {
			dst[at++] = (char)c;
			dst[at] = '\0';
		}
	}
}

/* An integer (JSON numbers without fraction or exponent) into *V. */
static int js__int(struct js *j, int64_t *v)
{
	bool neg = false;
	int digits = 0;

	*v = 0;
	if (j->p < j->n && j->b[j->p] == '-') {
		neg = true;
		j->p++;
	}
	while (j->p < j->n && j->b[j->p] >= '0' && j->b[j->p] <= '9') {
		if (++digits > 12)
			return RD_BAD;
		*v = *v * 10 + (j->b[j->p++] - '0');
	}
	if (j->p >= j->n)
		return RD_CUT;	/* more digits may follow */
	if (!digits)
		return RD_BAD;
	if (neg)
		*v = -*v;
	return RD_OK;
}

static int js__value(struct js *j, int depth);

/* Reads the value of member KEY at the cursor (its colon passed). */
typedef int js_member_fn(struct js *j, const char *key, struct hdr *h, int depth);

static int member__skip(struct js *j, const char *key, struct hdr *h, int depth)
{
	(void)key;
	(void)h;
	return js__value(j, depth);
}

/* Whether the next byte (after whitespace) closes with CLOSE: *END, the
 * cursor past it. */
static int js__end(struct js *j, uint8_t close, bool *end)
{
	js__ws(j);
	if (j->p >= j->n)
		return RD_CUT;
	*end = j->b[j->p] == close;
	if (*end)
		j->p++;
	return RD_OK;
}

/* An object's (FN reads each value) or an array's members, the cursor past
 * its opening bracket. */
static int js__members(struct js *j, int depth, bool object, js_member_fn *fn, struct hdr *h)
{
	uint8_t close = object ? '}' : ']';
	char key[KEY_MAX];
	bool end;
	int e;

	if ((e = js__end(j, close, &end)) != RD_OK || end)
		return e;
	for (;;) {
		if (object) {
			js__ws(j);
			if ((e = js__str(j, key, sizeof(key))) != RD_OK)
				return e;
			js__ws(j);
			if (j->p >= j->n)
				return RD_CUT;
			if (j->b[j->p++] != ':')
				return RD_BAD;
			js__ws(j);
			e = fn(j, key, h, depth + 1);
		} else {
			e = js__value(j, depth + 1);
		}
		if (e != RD_OK)
			return e;
		if ((e = js__end(j, close, &end)) != RD_OK || end)
			return e;
		if (j->b[j->p++] != ',')
			return RD_BAD;
	}
}

/* Any value, skipped; nesting bounded. */
static int js__value(struct js *j, int depth)
{
	static const char *const words[] = { "true", "false", "null" };
	int64_t v;
	uint8_t c;

	js__ws(j);
	if (j->p >= j->n)
		return RD_CUT;
	c = j->b[j->p];
	if (c == '"')
		return js__str(j, NULL, 0);
	if (c == '{' || c == '[') {
		if (depth >= DEPTH_MAX)
			return RD_BAD;
		j->p++;
		return js__members(j, depth, c == '{', member__skip, NULL);
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		int e = js__int(j, &v);

		if (e != RD_OK)
			return e;
		/* a fraction or exponent: skipped */
		while (j->p < j->n && j->b[j->p] && strchr(".eE+-0123456789", j->b[j->p]))
			j->p++;
		return j->p < j->n ? RD_OK : RD_CUT;
	}
	for (size_t i = 0; i < 3; i++) {
		size_t k = strlen(words[i]);

		if (c != (uint8_t)words[i][0])
			continue;
		if (k > j->n - j->p)
			return memcmp(j->b + j->p, words[i], j->n - j->p) ? RD_BAD : RD_CUT;
		if (memcmp(j->b + j->p, words[i], k))
			return RD_BAD;
		j->p += k;
		return RD_OK;
	}
	return RD_BAD;
}

/* An extFields member: "topic" and "b" kept, whole ones only. */
static int member__ext(struct js *j, const char *key, struct hdr *h, int depth)
{
	char *dst;
	int e;

	if (strcmp(key, "topic") && strcmp(key, "b"))
		return js__value(j, depth);
	if (j->p >= j->n)
		return RD_CUT;
	if (j->b[j->p] != '"')
		return js__value(j, depth);
	dst = key[0] == 't' ? h->topic : h->b;
	e = js__str(j, dst, REQ_TARGET_MAX);
	if (e != RD_OK)
		dst[0] = '\0';
	return e;
}

/* A member of the header: code, flag and opaque are numbers; extFields an
 * object (or null). */
static int member__hdr(struct js *j, const char *key, struct hdr *h, int depth)
{
	int64_t v;
	int e;

	if (!strcmp(key, "extFields")) {
		if (j->p >= j->n)
			return RD_CUT;
		if (j->b[j->p] != '{')
			return js__value(j, depth);
		j->p++;
		return js__members(j, depth, true, member__ext, h);
	}
	if (strcmp(key, "code") && strcmp(key, "flag") && strcmp(key, "opaque"))
		return js__value(j, depth);
	if ((e = js__int(j, &v)) != RD_OK)
		return e;
	if (v < INT32_MIN || v > UINT32_MAX)
		return RD_BAD;
	if (key[0] == 'c') {
		h->has_code = true;
		h->code = (int32_t)v;
	} else if (key[0] == 'f') {
		h->has_flag = true;
		h->flag = (uint32_t)v;
	} else {
		h->has_opaque = true;
		h->opaque = (uint32_t)v;
	}
	return RD_OK;
}

/* The JSON header B (N captured bytes): RD_OK when whole, RD_CUT when the
 * bytes end first, RD_BAD when it is no such object or has no code. */
static int hdr__json(const uint8_t *b, size_t n, struct hdr *h)
{
	struct js j = { b, n, 1 };
	int e;

	if (b[0] != '{')
		return RD_BAD;
	e = js__members(&j, 0, true, member__hdr, h);
	return e == RD_OK && !h->has_code ? RD_BAD : e;
}

/* ---- ROCKETMQ's binary layout ---- */

static uint32_t be(const uint8_t *b, size_t k)
{
	uint32_t x = 0;

	for (size_t i = 0; i < k; i++)
		x = x << 8 | b[i];
	return x;
}

/* The binary header B (N of its HL bytes captured). */
static int hdr__binary(const uint8_t *b, size_t n, uint32_t hl, struct hdr *h)
{
	uint32_t rlen, elen;
	size_t p;

	if (n >= 3 && b[2] > LANG_MAX)
		return RD_BAD;
	if (n >= 2) {
		h->has_code = true;
		h->code = (int32_t)be(b, 2);
	}
	if (n >= 9) {
		h->has_opaque = true;
		h->opaque = be(b + 5, 4);
	}
	/* the flag has two bits: response, one-way */
	for (p = 9; p < 13 && p < n; p++)
		if (b[p] & (p < 12 ? 0xff : ~3u))
			return RD_BAD;
	if (n >= 13) {
		h->has_flag = true;
		h->flag = b[12];
	}
	if (n < 17)
		return RD_CUT;
	rlen = be(b + 13, 4);
	if (rlen > hl - BIN_FIXED)
		return RD_BAD;
	p = 17 + (size_t)rlen;
	if (n < p + 4)
		return RD_CUT;
	elen = be(b + p, 4);
	/* the header is these fields and nothing else */
	if (elen != hl - BIN_FIXED - rlen)
		return RD_BAD;
	p += 4;
	while (p < hl) {
		uint32_t kl, vl;
		char *dst = NULL;

		/* a key's length, and a value's */
		if (hl - p < 6)
			return RD_BAD;
		if (n < p + 2)
			return RD_CUT;
		kl = be(b + p, 2);
		if (kl > hl - p - 6)
			return RD_BAD;
		if (n < p + 2 + kl + 4)
			return RD_CUT;
		if (kl == 5 && !memcmp(b + p + 2, "topic", 5))
			dst = h->topic;
		else if (kl == 1 && b[p + 2] == 'b')
			dst = h->b;
		p += 2 + kl;
		vl = be(b + p, 4);
		p += 4;
		if (vl > hl - p)
			return RD_BAD;
		if (n < p + vl)
			return RD_CUT;
		if (dst) {
			size_t k = vl < REQ_TARGET_MAX - 1 ? vl : REQ_TARGET_MAX - 1;

			memcpy(dst, b + p, k);
			dst[k] = '\0';
			/* a topic is a name: no NUL inside */
			if (strlen(dst) != k)
				dst[0] = '\0';
		}
		p += vl;
	}
	return RD_OK;
}

/* A response code that is no failure: a pull's ordinary outcomes (no new
 * message yet, retry, the offset moved). */
static bool resp__ok(int32_t code)
{
	return code == 0 || code == 19 || code == 20 || code == 21;
}

int rocketmq__parse(const uint8_t *buf, size_t len, bool request, struct req_head *out)
{
	uint32_t total = 0, hl = 0;
	struct hdr h;
	size_t have;
	int e;

	req_head__clear(out);
	if (len >= 4) {
		total = be(buf, 4);
		if (total > FRAME_MAX || total < 4 + 2)
			return -ENOMSG;
	}
	if (len >= 5 && buf[4] != SER_JSON && buf[4] != SER_BINARY)
		return -ENOMSG;
	if (len >= 8) {
		hl = be(buf + 5, 3);
		if (hl > total - 4 || hl < (buf[4] == SER_JSON ? 2 : BIN_FIXED))
			return -ENOMSG;
	}
	if (len >= 9 && buf[4] == SER_JSON && buf[8] != '{')
		return -ENOMSG;
	/* JSON: '{' and what follows it; binary: the code */
	if (len < 10)
		return -EAGAIN;
	memset(&h, 0, offsetof(struct hdr, topic));
	h.topic[0] = h.b[0] = '\0';
	have = len - 8 < hl ? len - 8 : hl;
	e = buf[4] == SER_JSON ? hdr__json(buf + 8, have, &h) : hdr__binary(buf + 8, have, hl, &h);
	/* a whole header must read whole */
	if (e == RD_BAD || (e == RD_CUT && have == hl))
		return -ENOMSG;
	out->proto = REQ_PROTO_ROCKETMQ;
	out->len_known = true;
	out->total_len = 4 + (uint64_t)total;
	out->request = h.has_flag ? !(h.flag & FLAG_RESPONSE) : request;
	out->id = h.opaque;
	out->head_cut = e == RD_CUT;
	if (!h.has_code)
		return 0;
	if (out->request) {
		out->no_resp = h.has_flag && (h.flag & FLAG_ONEWAY);
		NAME_OF(req_names, h.code, out->method);
		if (h.topic[0])
			memcpy(out->target, h.topic, sizeof(out->target));
		else if (h.b[0] && code__v2(h.code))
			memcpy(out->target, h.b, sizeof(out->target));
		return 0;
	}
	out->status = h.code;
	out->error = !resp__ok(h.code);
	if (h.code)
		NAME_OF(resp_names, h.code, out->code);
	return 0;
}
