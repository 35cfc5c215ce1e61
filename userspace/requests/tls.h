/* TLS (SSL 3.0 to TLS 1.3) records: which kind, and a ClientHello's server
 * name. The rest is encrypted: such connections are paired as bytes only. */
#ifndef REQUESTS_TLS_H
#define REQUESTS_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "req_head.h"

/* As req_head.h says, for one record: content type 20-23, version 3.0-3.4,
 * length up to 2^14 + 2048 (0 only for application data). method:
 * CLIENT_HELLO (requests only; target the SNI host name when all of it is in
 * BUF and printable), SERVER_HELLO (responses only), HANDSHAKE (other or
 * encrypted handshake messages), APPLICATION_DATA, ALERT, CHANGE_CIPHER_SPEC.
 * When BUF holds the start of the next record, that must be a record header
 * too. total_len: 5 + the record length, known from the header (len_known
 * even when BUF is cut). */
int tls__parse(const uint8_t *buf, size_t len, bool request, struct req_head *out);

#endif
