/* RocketMQ's remoting protocol: a frame is its length (4 bytes), a word
 * whose high byte is the header's serialization (JSON or RocketMQ's binary
 * layout) and low 24 bits its length, the header, the body. Requests and
 * responses carry the same opaque, so pipelined ones are answered in any
 * order. */
#ifndef REQUESTS_ROCKETMQ_H
#define REQUESTS_ROCKETMQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "req_head.h"

/* As req_head.h says; the 8-byte prefix and the header's first bytes must be
 * there, else -EAGAIN. Whether it is a request is what its flag says (a
 * broker sends requests to clients too); REQUEST when the bytes end before
 * the flag. id: the opaque, when captured. A request: method the code's
 * name (SEND_MESSAGE, PULL_MESSAGE, ...) or number, target the topic of its
 * extFields (`topic`, or `b` in SEND_MESSAGE_V2's short header), no_resp
 * when one-way. A response: status its code, error when not SUCCESS (0) nor
 * one of a pull's ordinary answers (PULL_NOT_FOUND, PULL_RETRY_IMMEDIATELY,
 * PULL_OFFSET_MOVED), code the code's name, or its number when the name
 * does not fit. total_len: the length prefix and the frame. */
int rocketmq__parse(const uint8_t *buf, size_t len, bool request, struct req_head *out);

#endif
