/* Kafka messages for the tests, laid out field by field as the protocol's
 * message schemas say (kafka.apache.org/protocol): requests of Produce,
 * Fetch, Metadata and ApiVersions and their responses, in versions near
 * those librdkafka 2.0 speaks (Produce v7, Fetch v11, Metadata v2,
 * ApiVersions v3), older ones and flexible ones (Produce v9, Fetch v12,
 * Metadata v9 and v12). */
#ifndef UNIT_KAFKA_WIRE_H
#define UNIT_KAFKA_WIRE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct kw {
	uint8_t b[8192];
	size_t n;
	bool flex;	/* the body's encoding: compact strings and arrays, tags */
};

static void kw_be(struct kw *w, uint64_t v, int k)
{
	for (int i = k - 1; i >= 0; i--)
		w->b[w->n++] = (uint8_t)(v >> (8 * i));
}

static void kw_uvar(struct kw *w, uint32_t v)
{
	while (v >= 0x80) {
		w->b[w->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	w->b[w->n++] = (uint8_t)v;
}

static void kw_raw(struct kw *w, const void *p, size_t k)
{
	memcpy(w->b + w->n, p, k);
	w->n += k;
}

/* A string in the body's encoding; NULL: null. */
static void kw_str(struct kw *w, const char *s)
{
	size_t k = s ? strlen(s) : 0;

	if (w->flex)
		kw_uvar(w, s ? (uint32_t)k + 1 : 0);
	else
		kw_be(w, s ? k : 0xffff, 2);
	kw_raw(w, s, k);
}

/* An array's count in the body's encoding. */
static void kw_count(struct kw *w, int32_t n)
{
	if (w->flex)
		kw_uvar(w, (uint32_t)(n + 1));
	else
		kw_be(w, (uint32_t)n, 4);
}

/* No tagged fields (flexible versions only). */
static void kw_tags(struct kw *w)
{
	if (w->flex)
		kw_uvar(w, 0);
}

/* The length prefix, filled by kw_end. */
static void kw_begin(struct kw *w, bool flex)
{
	w->n = 0;
	w->flex = flex;
	kw_be(w, 0, 4);
}

static size_t kw_end(struct kw *w)
{
	uint32_t len = (uint32_t)w->n - 4;

	w->b[0] = (uint8_t)(len >> 24);
	w->b[1] = (uint8_t)(len >> 16);
	w->b[2] = (uint8_t)(len >> 8);
	w->b[3] = (uint8_t)len;
	return w->n;
}

/* Request header v1, or v2 (FLEX: its client_id stays an int16 string). */
static void kw_req(struct kw *w, int key, int ver, int32_t corr, bool flex)
{
	kw_begin(w, false);
	kw_be(w, (uint16_t)key, 2);
	kw_be(w, (uint16_t)ver, 2);
	kw_be(w, (uint32_t)corr, 4);
	kw_str(w, "rdkafka");
	w->flex = flex;
	kw_tags(w);
}

/* Response header v0, or v1 with tags. */
static void kw_resp(struct kw *w, int32_t corr, bool flex)
{
	kw_begin(w, flex);
	kw_be(w, (uint32_t)corr, 4);
	kw_tags(w);
}

/* Produce of one record batch (BATCH bytes of zeros) to TOPIC partition 0. */
static size_t kw_produce(struct kw *w, int ver, int32_t corr, const char *topic, int acks,
			 size_t batch)
{
	kw_req(w, 0, ver, corr, ver >= 9);
	if (ver >= 3)
		kw_str(w, NULL);		/* transactional_id */
	kw_be(w, (uint16_t)acks, 2);
	kw_be(w, 30000, 4);			/* timeout_ms */
	kw_count(w, 1);
	kw_str(w, topic);
	kw_count(w, 1);
	kw_be(w, 0, 4);				/* partition */
	if (w->flex)
		kw_uvar(w, (uint32_t)batch + 1);
	else
		kw_be(w, batch, 4);
	memset(w->b + w->n, 0, batch);
	w->n += batch;
	kw_tags(w);
	kw_tags(w);
	kw_tags(w);
	return kw_end(w);
}

/* Its response: one topic, a partition per error code of ERRS (N). */
static size_t kw_produce_resp(struct kw *w, int ver, int32_t corr, const char *topic,
			      const int16_t *errs, int n)
{
	kw_resp(w, corr, ver >= 9);
	kw_count(w, 1);
	kw_str(w, topic);
	kw_count(w, n);
	for (int i = 0; i < n; i++) {
		kw_be(w, (uint32_t)i, 4);
		kw_be(w, (uint16_t)errs[i], 2);
		kw_be(w, errs[i] ? UINT64_MAX : 42, 8);		/* base_offset */
		if (ver >= 2)
			kw_be(w, UINT64_MAX, 8);		/* log_append_time_ms */
		if (ver >= 5)
			kw_be(w, 0, 8);				/* log_start_offset */
		if (ver >= 8) {
			kw_count(w, 0);				/* record_errors */
			kw_str(w, errs[i] ? "no" : NULL);	/* error_message */
		}
		kw_tags(w);
	}
	kw_tags(w);
	kw_be(w, 0, 4);					/* throttle_time_ms */
	kw_tags(w);
	return kw_end(w);
}

/* Fetch of TOPIC partition 0 (v13 and on: by a topic id). */
static size_t kw_fetch(struct kw *w, int ver, int32_t corr, const char *topic)
{
	kw_req(w, 1, ver, corr, ver >= 12);
	kw_be(w, UINT32_MAX, 4);		/* replica_id */
	kw_be(w, 500, 4);			/* max_wait_ms */
	kw_be(w, 1, 4);				/* min_bytes */
	if (ver >= 3)
		kw_be(w, 52428800, 4);		/* max_bytes */
	if (ver >= 4)
		kw_be(w, 0, 1);			/* isolation_level */
	if (ver >= 7) {
		kw_be(w, 0, 4);			/* session_id */
		kw_be(w, UINT32_MAX, 4);	/* session_epoch */
	}
	kw_count(w, 1);
	if (ver >= 13)
		kw_raw(w, "0123456789abcdef", 16);
	else
		kw_str(w, topic);
	kw_count(w, 1);
	kw_be(w, 0, 4);				/* partition */
	if (ver >= 9)
		kw_be(w, UINT32_MAX, 4);	/* current_leader_epoch */
	kw_be(w, 0, 8);				/* fetch_offset */
	if (ver >= 12)
		kw_be(w, UINT32_MAX, 4);	/* last_fetched_epoch */
	if (ver >= 5)
		kw_be(w, UINT64_MAX, 8);	/* log_start_offset */
	kw_be(w, 1048576, 4);			/* partition_max_bytes */
	kw_tags(w);
	kw_tags(w);
	if (ver >= 7)
		kw_count(w, 0);			/* forgotten_topics_data */
	if (ver >= 11)
		kw_str(w, "");			/* rack_id */
	kw_tags(w);
	return kw_end(w);
}

/* Its response: TOP (v7 and on) and one partition's error PART with
 * RECORDS bytes, then a second partition whose error is PART2. */
static size_t kw_fetch_resp(struct kw *w, int ver, int32_t corr, const char *topic, int16_t top,
			    int16_t part, size_t records, int16_t part2)
{
	kw_resp(w, corr, ver >= 12);
	if (ver >= 1)
		kw_be(w, 0, 4);				/* throttle_time_ms */
	if (ver >= 7) {
		kw_be(w, (uint16_t)top, 2);
		kw_be(w, 0, 4);				/* session_id */
	}
	kw_count(w, 1);
	if (ver >= 13)
		kw_raw(w, "0123456789abcdef", 16);
	else
		kw_str(w, topic);
	kw_count(w, 2);
	for (int i = 0; i < 2; i++) {
		kw_be(w, (uint32_t)i, 4);
		kw_be(w, (uint16_t)(i ? part2 : part), 2);
		kw_be(w, 7, 8);				/* high_watermark */
		if (ver >= 4)
			kw_be(w, 7, 8);			/* last_stable_offset */
		if (ver >= 5)
			kw_be(w, 0, 8);			/* log_start_offset */
		if (ver >= 4) {
			kw_count(w, 1);			/* aborted_transactions */
			kw_be(w, 1, 8);
			kw_be(w, 2, 8);
			kw_tags(w);
		}
		if (ver >= 11)
			kw_be(w, UINT32_MAX, 4);	/* preferred_read_replica */
		if (w->flex)
			kw_uvar(w, (uint32_t)records + 1);
		else
			kw_be(w, records, 4);
		memset(w->b + w->n, 0, records);
		w->n += records;
		kw_tags(w);
	}
	kw_tags(w);
	kw_tags(w);
	return kw_end(w);
}

/* Metadata of TOPIC (NULL: all topics). */
static size_t kw_metadata(struct kw *w, int ver, int32_t corr, const char *topic)
{
	kw_req(w, 3, ver, corr, ver >= 9);
	if (!topic) {
		kw_count(w, -1);
	} else {
		kw_count(w, 1);
		if (ver >= 10)
			kw_raw(w, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
		kw_str(w, topic);
		kw_tags(w);
	}
	if (ver >= 4)
		kw_be(w, 0, 1);			/* allow_auto_topic_creation */
	if (ver >= 8 && ver <= 10)
		kw_be(w, 0, 1);			/* include_cluster_authorized_operations */
	if (ver >= 8)
		kw_be(w, 0, 1);			/* include_topic_authorized_operations */
	kw_tags(w);
	return kw_end(w);
}

/* Its response: one broker, a topic "ok" of two partitions, then TOPIC
 * with error ERR. */
static size_t kw_metadata_resp(struct kw *w, int ver, int32_t corr, const char *topic, int16_t err)
{
	kw_resp(w, corr, ver >= 9);
	if (ver >= 3)
		kw_be(w, 0, 4);				/* throttle_time_ms */
	kw_count(w, 1);
	kw_be(w, 1, 4);
	kw_str(w, "127.0.0.1");
	kw_be(w, 39181, 4);
	if (ver >= 1)
		kw_str(w, NULL);			/* rack */
	kw_tags(w);
	if (ver >= 2)
		kw_str(w, "mockCluster");
	if (ver >= 1)
		kw_be(w, 1, 4);				/* controller_id */
	kw_count(w, 2);
	for (int t = 0; t < 2; t++) {
		kw_be(w, (uint16_t)(t ? err : 0), 2);
		kw_str(w, t ? topic : "ok");
		if (ver >= 10)
			kw_raw(w, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
		if (ver >= 1)
			kw_be(w, 0, 1);			/* is_internal */
		kw_count(w, t ? 0 : 2);
		for (int i = 0; !t && i < 2; i++) {
			kw_be(w, 0, 2);
			kw_be(w, (uint32_t)i, 4);
			kw_be(w, 1, 4);			/* leader_id */
			if (ver >= 7)
				kw_be(w, 0, 4);		/* leader_epoch */
			kw_count(w, 1);
			kw_be(w, 1, 4);
			kw_count(w, 1);
			kw_be(w, 1, 4);
			if (ver >= 5)
				kw_count(w, 0);
			kw_tags(w);
		}
		if (ver >= 8)
			kw_be(w, 0x80000000u, 4);	/* topic_authorized_operations */
		kw_tags(w);
	}
	if (ver >= 8 && ver <= 10)
		kw_be(w, 0x80000000u, 4);
	kw_tags(w);
	return kw_end(w);
}

/* ApiVersions v3 (header v2) and its answer (header v0 always): ERR, then
 * two APIs' ranges. */
static size_t kw_apiversions(struct kw *w, int32_t corr)
{
	kw_req(w, 18, 3, corr, true);
	kw_str(w, "librdkafka");
	kw_str(w, "2.0.2");
	kw_tags(w);
	return kw_end(w);
}

static size_t kw_apiversions_resp(struct kw *w, int32_t corr, int16_t err)
{
	kw_resp(w, corr, false);
	w->flex = true;
	kw_be(w, (uint16_t)err, 2);
	kw_count(w, 2);
	for (int k = 0; k < 2; k++) {
		kw_be(w, (uint16_t)k, 2);
		kw_be(w, 0, 2);
		kw_be(w, 9, 2);
		kw_tags(w);
	}
	kw_be(w, 0, 4);				/* throttle_time_ms */
	kw_tags(w);
	return kw_end(w);
}

#endif
