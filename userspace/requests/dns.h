/* DNS (RFC 1035) over UDP and TCP: a query's or a response's id, question
 * name and type, and a response's rcode. */
#ifndef REQUESTS_DNS_H
#define REQUESTS_DNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "req_head.h"

/* As req_head.h says, for one UDP payload. The QR bit must match REQUEST;
 * opcode QUERY and one question only. id: the transaction id; target: the
 * question's name, dotted, without the final dot ("." for the root; bytes
 * outside printable ASCII, dots and backslashes written \DDD as dig does);
 * method: the query type's name (A, AAAA, ..., else "TYPE<n>"). A response:
 * status its rcode, error when that is not 0 (NOERROR). -EAGAIN while the
 * header or question is incomplete. total_len: LEN, the datagram. */
int dns__parse(const uint8_t *buf, size_t len, bool request, struct req_head *out);

/* As dns__parse, for TCP, where each message follows its 2-byte length;
 * total_len: 2 + that length. */
int dns__parse_tcp(const uint8_t *buf, size_t len, bool request, struct req_head *out);

#endif
