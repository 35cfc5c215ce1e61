/* MySQL and MariaDB client/server protocol: a command packet's command and
 * text, or a response's first packet (OK, ERR, EOF, result set). */
#ifndef REQUESTS_MYSQL_H
#define REQUESTS_MYSQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "req_head.h"

/* As req_head.h says, for one packet: 3-byte little-endian payload length,
 * sequence id, payload. A request (sequence 0): method the command's name
 * (QUERY, STMT_PREPARE, STMT_EXECUTE, INIT_DB, PING, QUIT, ...; unknown
 * commands refused), target the query text head (QUERY, STMT_PREPARE),
 * schema (INIT_DB), table (FIELD_LIST, to its NUL) or statement id (STMT_*;
 * the thread id for PROCESS_KILL), control bytes and bytes outside ASCII
 * written '?' (tab, CR, LF as a space); a NUL in SQL text refuses the
 * packet unless it is its last byte (the C string's end mariadb-slap sends),
 * which ends the text. A response (sequence 1 or more): method OK, ERR
 * (error, status the error number, code the SQL state when sent; OK and ERR
 * up to 64 KiB), EOF or RESULTSET (the column count packet). The server's
 * greeting (sequence 0, protocol 10) and the client's handshake response
 * (sequence 1) are refused both ways. total_len: 4 + the payload length, known from the header
 * (len_known even when BUF is cut); a result set spans many packets, so where
 * a response ends is the pairing's business, not this parser's. */
int mysql__parse(const uint8_t *buf, size_t len, bool request, struct req_head *out);

#endif
