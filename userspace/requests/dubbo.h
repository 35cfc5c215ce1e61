/* Dubbo 2's protocol (dubbo://): a 16-byte header (magic 0xdabb, flags,
 * status, a 64-bit request id, the body's length) and a body serialized as
 * the flags say. Requests and responses carry the same id, so pipelined ones
 * are answered in any order. */
#ifndef REQUESTS_DUBBO_H
#define REQUESTS_DUBBO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "req_head.h"

/* As req_head.h says; the header's 16 bytes must be there, else -EAGAIN.
 * REQUEST is not checked against the message: request is what its flags
 * say (a peer may send heartbeats either way). id: the low 32 bits of the
 * request id; total_len: header and body. A request: no_resp when it is
 * one-way; with Hessian2's serialization, target the service's path and
 * method its method, as far as LEN holds them; an event's method is
 * "heartbeat" (its body null) or "event". A response: status its status
 * byte, error and code (its name) when it is not OK (20), or when a Hessian2
 * OK response carries an exception (code "EXCEPTION"). */
int dubbo__parse(const uint8_t *buf, size_t len, bool request, struct req_head *out);

#endif
