/* MySQL and MariaDB client/server protocol: a command packet's command and
 * text, or a response's first packet (OK, ERR, EOF, result set); the
 * handshake's greeting and login. */
#ifndef REQUESTS_MYSQL_H
#define REQUESTS_MYSQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "req_head.h"

/* As req_head.h says, for one packet: 3-byte little-endian payload length,
 * sequence id, payload. A request: a command (sequence 0): method the
 * command's name (QUERY, STMT_PREPARE, STMT_EXECUTE, INIT_DB, PING, QUIT,
 * ...; unknown commands refused), target the query text head (QUERY,
 * STMT_PREPARE), schema (INIT_DB), table (FIELD_LIST, to its NUL) or
 * statement id (STMT_*, MariaDB's STMT_BULK_EXECUTE too, and stmt the
 * id + 1; the thread id for
 * PROCESS_KILL; no_resp for STMT_CLOSE and STMT_SEND_LONG_DATA, which the
 * server never answers), control bytes and
 * bytes outside ASCII written '?' (tab, CR, LF as a space); a NUL in SQL
 * text refuses the packet unless it is its last byte (the C string's end
 * mariadb-slap sends), which ends the text. Or the login (sequence 1, the
 * 4.1 HandshakeResponse): method HANDSHAKE, target "USER@DATABASE" or
 * "USER" when it names no database; just its fixed 32 bytes with CLIENT_SSL:
 * method SSLREQUEST (TLS follows). A response (sequence 1 or more): method
 * OK (stmt the statement id + 1 when it is shaped as COM_STMT_PREPARE's),
 * ERR (error, status the error number, code the SQL state when sent; OK
 * and ERR up to 64 KiB), EOF, RESULTSET (the column count packet),
 * LOCAL_INFILE (LOAD DATA LOCAL's request for the client's file) or
 * PROGRESS (MariaDB's progress report, an ERR of number 0xffff, no error:
 * the answer follows it); or the
 * server's greeting (sequence 0, protocol 10, with PROTOCOL_41): method
 * GREETING, target the server's version. total_len: 4 + the payload length,
 * known from the header (len_known even when BUF is cut); a result set spans
 * many packets, so where a response ends is the pairing's business, not this
 * parser's. */
int mysql__parse(const uint8_t *buf, size_t len, bool request, struct req_head *out);

/* The server's bytes while a login is answered, maybe several packets (an
 * auth switch request, more auth data, then the answer): 0 and OUT as
 * mysql__parse's for the OK or ERR that ends the handshake, the first among
 * BUF's packets; -EAGAIN when BUF holds none (the exchange goes on);
 * -ENOMSG when a packet is none of these. */
int mysql__auth_end(const uint8_t *buf, size_t len, struct req_head *out);

#endif
