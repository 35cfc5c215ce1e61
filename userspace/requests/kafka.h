/* Kafka's wire protocol: a request's API, correlation id and first topic; a
 * response's correlation id and error code. Every message is a 4-byte
 * big-endian length and that many bytes, so pipelined ones are walked. */
#ifndef REQUESTS_KAFKA_H
#define REQUESTS_KAFKA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "req_head.h"

/* As req_head.h says. A request: its header (v0, v1 with client_id, v2 with
 * tagged fields: which one its api key and version use) must be whole, else
 * -EAGAIN; method the API's name ("Produce", "api_77" for a key not named
 * here), id the correlation id, kafka_api the key and version
 * (kafka__api_of), target the first topic of a Produce, Fetch (up to v12;
 * from v13 topics are ids: none) or Metadata request when LEN holds it whole.
 * A response: only its correlation id (id) can be read without its request
 * (kafka__parse_response reads the rest): it is never detected from its bytes. total_len: the length prefix and
 * the message. */
int kafka__parse(const uint8_t *buf, size_t len, bool request, struct req_head *out);

/* A response to the request whose kafka_api KAPI was: as kafka__parse, and
 * its error code in status (0: none) and, when not 0, error set and code
 * the number as text; -EAGAIN when LEN ends inside the message before its
 * error code is known (kafka__parse still reads its id). Errors are read for ApiVersions, Metadata (per topic),
 * Produce and Fetch (per partition, the first not 0 among those captured;
 * Fetch's top-level one from v7), and the top-level one of FindCoordinator
 * (up to v3), JoinGroup, Heartbeat, LeaveGroup, SyncGroup, ListGroups,
 * SaslHandshake, SaslAuthenticate and InitProducerId; status stays -1 for
 * the other APIs, or when the bytes end before the error code. */
int kafka__parse_response(const uint8_t *buf, size_t len, uint32_t kapi, struct req_head *out);

/* req_head.kafka_api of a request with that api key and version. */
static inline uint32_t kafka__api_of(uint16_t key, uint16_t version)
{
	return (uint32_t)key << 16 | version;
}

#endif
