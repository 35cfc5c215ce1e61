/* Kafka's wire protocol, from its specification (kafka.apache.org/protocol
 * and the message schemas): big-endian integers; strings and arrays with an
 * int16 or int32 length, or in flexible versions with an unsigned varint of
 * the length plus one (0: null) and tagged fields closing each structure. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kafka.h"

/* Kafka's socket.request.max.bytes default: a larger length is no Kafka. */
#define MSG_MAX (100u * 1024 * 1024)
/* A bound above every version in use (Fetch is at 17), for detection. */
#define VERSION_MAX 24
#define KEY_MAX 99
#define NEVER 0xff

enum { RD_OK = 0, RD_CUT = -1, RD_BAD = -2 };

/* The APIs named here: their first flexible version (request header v2,
 * response header v1), NEVER when none is. */
static const struct {
	const char *name;
	uint8_t flex;
} apis[] = {
	[0] = { "Produce", 9 },		[1] = { "Fetch", 12 },
	[2] = { "ListOffsets", 6 },	[3] = { "Metadata", 9 },
	[4] = { "LeaderAndIsr", 4 },	[5] = { "StopReplica", 2 },
	[6] = { "UpdateMetadata", 6 },	[7] = { "ControlledShutdown", 3 },
	[8] = { "OffsetCommit", 8 },	[9] = { "OffsetFetch", 6 },
	[10] = { "FindCoordinator", 3 },	[11] = { "JoinGroup", 6 },
	[12] = { "Heartbeat", 4 },	[13] = { "LeaveGroup", 4 },
	[14] = { "SyncGroup", 4 },	[15] = { "DescribeGroups", 5 },
	[16] = { "ListGroups", 3 },	[17] = { "SaslHandshake", NEVER },
	[18] = { "ApiVersions", 3 },	[19] = { "CreateTopics", 5 },
	[20] = { "DeleteTopics", 4 },	[21] = { "DeleteRecords", 2 },
	[22] = { "InitProducerId", 2 },	[23] = { "OffsetForLeaderEpoch", 4 },
	[24] = { "AddPartitionsToTxn", 3 },	[25] = { "AddOffsetsToTxn", 3 },
	[26] = { "EndTxn", 3 },		[27] = { "WriteTxnMarkers", 1 },
	[28] = { "TxnOffsetCommit", 3 },	[29] = { "DescribeAcls", 2 },
	[30] = { "CreateAcls", 2 },	[31] = { "DeleteAcls", 2 },
	[32] = { "DescribeConfigs", 4 },	[33] = { "AlterConfigs", 2 },
	[34] = { "AlterReplicaLogDirs", 2 },	[35] = { "DescribeLogDirs", 2 },
	[36] = { "SaslAuthenticate", 2 },	[37] = { "CreatePartitions", 2 },
	[42] = { "DeleteGroups", 2 },	[43] = { "ElectLeaders", 2 },
	[44] = { "IncrementalAlterConfigs", 1 },	[47] = { "OffsetDelete", NEVER },
};

enum {
	API_PRODUCE = 0, API_FETCH = 1, API_METADATA = 3, API_FIND_COORDINATOR = 10,
	API_JOIN_GROUP = 11, API_HEARTBEAT = 12, API_LEAVE_GROUP = 13, API_SYNC_GROUP = 14,
	API_LIST_GROUPS = 16, API_SASL_HANDSHAKE = 17, API_API_VERSIONS = 18,
	API_INIT_PRODUCER_ID = 22, API_SASL_AUTHENTICATE = 36,
};

/* A cursor over one message's captured bytes; FLEX: the flexible encoding. */
struct rd {
	const uint8_t *b;
	size_t n, p;
	bool flex;
};

static bool api_flex(uint16_t key, uint16_t ver)
{
	if (key >= sizeof(apis) / sizeof(apis[0]) || !apis[key].name)
		return false;
	return ver >= apis[key].flex;
}

static int rd_skip(struct rd *r, size_t k)
{
	if (k > r->n - r->p)
		return RD_CUT;
	r->p += k;
	return RD_OK;
}

static int rd_u(struct rd *r, size_t k, uint32_t *v)
{
	uint32_t x = 0;

	if (k > r->n - r->p)
		return RD_CUT;
	for (size_t i = 0; i < k; i++)
		x = x << 8 | r->b[r->p + i];
	r->p += k;
	*v = x;
	return RD_OK;
}

static int rd_uvar(struct rd *r, uint32_t *v)
{
	uint32_t x = 0;

	for (int i = 0; i < 5; i++) {
		uint8_t c;

		if (r->p >= r->n)
			return RD_CUT;
		c = r->b[r->p++];
		x |= (uint32_t)(c & 0x7f) << (7 * i);
		if (!(c & 0x80))
			return i == 4 && c > 0x0f ? RD_BAD : (*v = x, RD_OK);
	}
	return RD_BAD;
}

/* A length: int16 (strings) or int32 (arrays, bytes), or a varint of the
 * length plus one; -1: null. */
static int rd_len(struct rd *r, size_t fixed, int64_t *n)
{
	uint32_t v = 0;
	int e;

	if (r->flex) {
		e = rd_uvar(r, &v);
		*n = (int64_t)v - 1;
	} else {
		e = rd_u(r, fixed, &v);
		*n = fixed == 2 ? (int16_t)v : (int32_t)v;
	}
	if (!e && *n < -1)
		e = RD_BAD;
	return e;
}

/* A string (nullable or not): *S its bytes, *SN their count (-1: null). */
static int rd_str(struct rd *r, const uint8_t **s, int64_t *sn)
{
	int e = rd_len(r, 2, sn);

	if (e)
		return e;
	*s = r->b + r->p;
	return *sn > 0 ? rd_skip(r, (size_t)*sn) : RD_OK;
}

static int rd_skip_str(struct rd *r)
{
	const uint8_t *s;
	int64_t n;

	return rd_str(r, &s, &n);
}

/* Bytes (a record set): as a string with an int32 length. */
static int rd_skip_bytes(struct rd *r)
{
	int64_t n;
	int e = rd_len(r, 4, &n);

	return e ? e : n > 0 ? rd_skip(r, (size_t)n) : RD_OK;
}

static int rd_array(struct rd *r, int64_t *count)
{
	return rd_len(r, 4, count);
}

/* Tagged fields, in flexible versions: a count, then tag, size, bytes. */
static int rd_tags(struct rd *r)
{
	uint32_t n, tag, size;
	int e;

	if (!r->flex)
		return RD_OK;
	e = rd_uvar(r, &n);
	for (uint32_t i = 0; !e && i < n; i++) {
		e = rd_uvar(r, &tag);
		if (!e)
			e = rd_uvar(r, &size);
		if (!e)
			e = rd_skip(r, size);
	}
	return e;
}

static int rd_skip_i32_array(struct rd *r)
{
	int64_t n;
	int e = rd_array(r, &n);

	return e ? e : n > 0 ? rd_skip(r, (size_t)n * 4) : RD_OK;
}

static void copy_str(char *dst, size_t size, const uint8_t *src, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* The first topic's name of an array of topics at R: an entry starts with
 * its name. Nothing when it is cut or null. */
static void first_topic(struct rd *r, struct req_head *out)
{
	const uint8_t *s;
	int64_t count, sn;

	if (rd_array(r, &count) || count < 1 || rd_str(r, &s, &sn) || sn < 1)
		return;
	copy_str(out->target, sizeof(out->target), s, (size_t)sn);
}

/* A request's body at R: its first topic, where the version's layout has one. */
static void request_topic(struct rd *r, uint16_t key, uint16_t ver, struct req_head *out)
{
	switch (key) {
	case API_PRODUCE:
		/* transactional_id from v3, acks, timeout_ms */
		if ((ver >= 3 && rd_skip_str(r)) || rd_skip(r, 6))
			return;
		break;
	case API_FETCH:
		/* replica_id (a tagged field from v15), max_wait_ms, min_bytes,
		 * max_bytes from v3, isolation_level from v4, the session from
		 * v7; from v13 topics are named by id */
		if (ver >= 13 || rd_skip(r, (ver < 15 ? 4 : 0) + 8 + (ver >= 3 ? 4 : 0) +
					 (ver >= 4 ? 1 : 0) + (ver >= 7 ? 8 : 0)))
			return;
		break;
	case API_METADATA:
		/* from v10 each topic is its id, then its name */
		if (ver >= 10) {
			int64_t count, sn;
			const uint8_t *s;

			if (!rd_array(r, &count) && count > 0 && !rd_skip(r, 16) &&
			    !rd_str(r, &s, &sn) && sn > 0)
				copy_str(out->target, sizeof(out->target), s, (size_t)sn);
			return;
		}
		break;
	default:
		return;
	}
	first_topic(r, out);
}

static bool name_ok(const uint8_t *s, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

/* The length prefix: *MLEN the bytes after it; the cursor bounded by them. */
static int frame(const uint8_t *buf, size_t len, size_t min, struct rd *r, uint32_t *mlen)
{
	if (len < 4)
		return -EAGAIN;
	*mlen = (uint32_t)buf[0] << 24 | (uint32_t)buf[1] << 16 | (uint32_t)buf[2] << 8 | buf[3];
	if (*mlen < min || *mlen > MSG_MAX)
		return -ENOMSG;
	r->b = buf;
	r->p = 4;
	r->n = len - 4 < *mlen ? len : (size_t)*mlen + 4;
	r->flex = false;
	return 0;
}

static int parse_request(const uint8_t *buf, size_t len, struct req_head *out)
{
	uint32_t mlen, key = 0, ver = 0, corr = 0;
	struct rd r;
	int e = frame(buf, len, 11, &r, &mlen);

	if (e)
		return e;
	/* each field refused as soon as it is there: a short message of
	 * another protocol is not held back as a Kafka header cut short */
	if (len >= 6 && (buf[4] << 8 | buf[5]) > KEY_MAX)
		return -ENOMSG;
	if (len >= 8 && (buf[6] << 8 | buf[7]) > VERSION_MAX)
		return -ENOMSG;
	if (len >= 9 && buf[8] & 0x80)
		return -ENOMSG;
	if (len < 12)
		return -EAGAIN;
	rd_u(&r, 2, &key);
	rd_u(&r, 2, &ver);
	rd_u(&r, 4, &corr);
	/* header v0 is ControlledShutdown v0's alone: client_id from v1 */
	if (key != 7 || ver != 0) {
		const uint8_t *s;
		int64_t sn;

		/* a client names itself: an empty or null client_id is refused,
		 * so that a response's bytes (a Produce response's first topic
		 * where a request has its client_id) are not taken for one */
		e = rd_str(&r, &s, &sn);
		if (!e && (sn < 1 || !name_ok(s, sn)))
			e = RD_BAD;
		r.flex = api_flex((uint16_t)key, (uint16_t)ver);
		if (!e)
			e = rd_tags(&r);
		if (e)
			return e == RD_CUT && r.n < mlen + 4 ? -EAGAIN : -ENOMSG;
	}
	if (key < sizeof(apis) / sizeof(apis[0]) && apis[key].name)
		copy_str(out->method, sizeof(out->method), (const uint8_t *)apis[key].name,
			 strlen(apis[key].name));
	else
		snprintf(out->method, sizeof(out->method), "api_%u", key);
	out->id = corr;
	out->kafka_api = kafka__api_of((uint16_t)key, (uint16_t)ver);
	request_topic(&r, (uint16_t)key, (uint16_t)ver, out);
	return 0;
}

/* What follows a partition's index and error code in a response. */
typedef int part_fn(struct rd *r, uint16_t ver);

/* Produce's: base_offset, log_append_time_ms from v2, log_start_offset from
 * v5, from v8 record_errors (batch_index, message) and error_message. */
static int produce_part(struct rd *r, uint16_t ver)
{
	int64_t n;
	int e = rd_skip(r, 8 + (ver >= 2 ? 8 : 0) + (ver >= 5 ? 8 : 0));

	if (e || ver < 8)
		return e;
	e = rd_array(r, &n);
	for (int64_t k = 0; !e && k < n; k++) {
		e = rd_skip(r, 4);
		if (!e)
			e = rd_skip_str(r);
		if (!e)
			e = rd_tags(r);
	}
	return e ? e : rd_skip_str(r);
}

/* Fetch's: high_watermark, last_stable_offset from v4, log_start_offset
 * from v5, aborted_transactions (producer_id, first_offset) from v4,
 * preferred_read_replica from v11, the records. */
static int fetch_part(struct rd *r, uint16_t ver)
{
	int64_t n;
	int e = rd_skip(r, 8 + (ver >= 4 ? 8 : 0) + (ver >= 5 ? 8 : 0));

	if (!e && ver >= 4) {
		e = rd_array(r, &n);
		for (int64_t k = 0; !e && k < n; k++) {
			e = rd_skip(r, 16);
			if (!e)
				e = rd_tags(r);
		}
	}
	if (!e && ver >= 11)
		e = rd_skip(r, 4);
	return e ? e : rd_skip_bytes(r);
}

/* Produce's and Fetch's topics: each its name (BY_ID: its id), then its
 * partitions, each its index and error code, then PART's fields. *ERR: the
 * first error not 0. */
static int topics_error(struct rd *r, uint16_t ver, bool by_id, part_fn *part, int16_t *err)
{
	int64_t topics, parts;
	uint32_t v;
	int e = rd_array(r, &topics);

	for (int64_t t = 0; !e && t < topics; t++) {
		e = by_id ? rd_skip(r, 16) : rd_skip_str(r);
		if (!e)
			e = rd_array(r, &parts);
		for (int64_t i = 0; !e && i < parts; i++) {
			e = rd_skip(r, 4);
			if (!e)
				e = rd_u(r, 2, &v);
			if (!e && (*err = (int16_t)v))
				return RD_OK;
			if (!e)
				e = part(r, ver);
			if (!e)
				e = rd_tags(r);
		}
		if (!e)
			e = rd_tags(r);
	}
	return e;
}

/* Fetch's responses: throttle_time_ms from v1, a top-level error (and the
 * session's id) from v7, then per partition; topics by id from v13. */
static int fetch_error(struct rd *r, uint16_t ver, int16_t *err)
{
	uint32_t v;
	int e = rd_skip(r, ver >= 1 ? 4 : 0);

	if (!e && ver >= 7) {
		e = rd_u(r, 2, &v);
		if (!e && (*err = (int16_t)v))
			return RD_OK;
		if (!e)
			e = rd_skip(r, 4);
	}
	return e ? e : topics_error(r, ver, ver >= 13, fetch_part, err);
}

/* Metadata's responses: the brokers, then per topic an error code. */
static int metadata_error(struct rd *r, uint16_t ver, int16_t *err)
{
	int64_t brokers, topics, parts;
	uint32_t v;
	int e = rd_skip(r, ver >= 3 ? 4 : 0);	/* throttle_time_ms */

	if (!e)
		e = rd_array(r, &brokers);
	for (int64_t i = 0; !e && i < brokers; i++) {
		/* node_id, host, port, rack from v1 */
		e = rd_skip(r, 4);
		if (!e)
			e = rd_skip_str(r);
		if (!e)
			e = rd_skip(r, 4);
		if (!e && ver >= 1)
			e = rd_skip_str(r);
		if (!e)
			e = rd_tags(r);
	}
	/* cluster_id from v2, controller_id from v1 */
	if (!e && ver >= 2)
		e = rd_skip_str(r);
	if (!e && ver >= 1)
		e = rd_skip(r, 4);
	if (!e)
		e = rd_array(r, &topics);
	for (int64_t t = 0; !e && t < topics; t++) {
		e = rd_u(r, 2, &v);
		if (!e && (*err = (int16_t)v))
			return RD_OK;
		/* name, topic_id from v10, is_internal from v1 */
		if (!e)
			e = rd_skip_str(r);
		if (!e)
			e = rd_skip(r, (ver >= 10 ? 16 : 0) + (ver >= 1 ? 1 : 0));
		if (!e)
			e = rd_array(r, &parts);
		for (int64_t i = 0; !e && i < parts; i++) {
			/* error_code, index, leader_id, leader_epoch from v7,
			 * replicas, isr, offline replicas from v5 */
			e = rd_skip(r, 10 + (ver >= 7 ? 4 : 0));
			if (!e)
				e = rd_skip_i32_array(r);
			if (!e)
				e = rd_skip_i32_array(r);
			if (!e && ver >= 5)
				e = rd_skip_i32_array(r);
			if (!e)
				e = rd_tags(r);
		}
		if (!e && ver >= 8)
			e = rd_skip(r, 4);	/* topic_authorized_operations */
		if (!e)
			e = rd_tags(r);
	}
	return e;
}

/* APIs whose response starts with its error code, after throttle_time_ms
 * from the version given (NEVER: none); -1 for the others. */
static int top_error_throttle_from(uint16_t key, uint16_t ver)
{
	switch (key) {
	case API_API_VERSIONS: case API_SASL_HANDSHAKE: case API_SASL_AUTHENTICATE:
		return NEVER;
	case API_FIND_COORDINATOR:
		return ver >= 4 ? -1 : 1;	/* from v4 an array of coordinators */
	case API_JOIN_GROUP:
		return 2;
	case API_HEARTBEAT: case API_LEAVE_GROUP: case API_SYNC_GROUP: case API_LIST_GROUPS:
		return 1;
	case API_INIT_PRODUCER_ID:
		return 0;
	}
	return -1;
}

/* The body's error code at R: RD_OK with *ERR, or where it is not read. */
static int body_error(struct rd *r, uint16_t key, uint16_t ver, int16_t *err)
{
	int from = top_error_throttle_from(key, ver);
	uint32_t v;
	int e;

	switch (key) {
	case API_PRODUCE: return topics_error(r, ver, false, produce_part, err);
	case API_FETCH: return fetch_error(r, ver, err);
	case API_METADATA: return metadata_error(r, ver, err);
	}
	if (from < 0)
		return RD_BAD;
	e = rd_skip(r, ver >= from ? 4 : 0);
	if (!e)
		e = rd_u(r, 2, &v);
	if (!e)
		*err = (int16_t)v;
	return e;
}

static int parse_response(const uint8_t *buf, size_t len, bool known, uint32_t kapi,
			  struct req_head *out)
{
	uint16_t key = (uint16_t)(kapi >> 16), ver = (uint16_t)kapi;
	uint32_t mlen, corr = 0;
	int16_t err = 0;
	struct rd r;
	int e = frame(buf, len, 4, &r, &mlen);

	if (e)
		return e;
	if (rd_u(&r, 4, &corr))
		return -EAGAIN;
	out->id = corr;
	if (!known)
		return 0;
	/* ApiVersions answers with header v0 always: a client that asked
	 * for a version the broker lacks must still read it */
	r.flex = key != API_API_VERSIONS && api_flex(key, ver);
	e = rd_tags(&r);
	if (!e)
		e = body_error(&r, key, ver, &err);
	/* the bytes end before an error code or where one may still stand:
	 * more of them may tell (a client reads a response's length and
	 * correlation id first) */
	if (e == RD_CUT && r.n < (size_t)mlen + 4)
		return -EAGAIN;
	if (e)
		return 0;
	out->status = err;
	if (err) {
		out->error = true;
		snprintf(out->code, sizeof(out->code), "%d", err);
	}
	return 0;
}

static int parse(const uint8_t *buf, size_t len, bool request, bool known, uint32_t kapi,
		 struct req_head *out)
{
	int r;

	req_head__clear(out);
	out->proto = REQ_PROTO_KAFKA;
	out->request = request;
	r = request ? parse_request(buf, len, out)
		    : parse_response(buf, len, known, kapi, out);
	if (r) {
		req_head__clear(out);
		return r;
	}
	out->total_len = ((uint64_t)buf[0] << 24 | (uint64_t)buf[1] << 16 |
			  (uint64_t)buf[2] << 8 | buf[3]) + 4;
	out->len_known = true;
	return 0;
}

int kafka__parse(const uint8_t *buf, size_t len, bool request, struct req_head *out)
{
	return parse(buf, len, request, false, 0, out);
}

int kafka__parse_response(const uint8_t *buf, size_t len, uint32_t kapi, struct req_head *out)
{
	return parse(buf, len, false, true, kapi, out);
}
