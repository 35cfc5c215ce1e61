/* PostgreSQL frontend/backend protocol 3.0: a message's type and what its
 * first bytes say (query text, command tag, SQLSTATE). */
#ifndef REQUESTS_PGSQL_H
#define REQUESTS_PGSQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "req_head.h"

/* As req_head.h says, for one message: a type byte and a 4-byte big-endian
 * length (4 to 1 GiB, itself included). A request: QUERY and PARSE (target
 * the query text head, control bytes and bytes outside ASCII as '?', tab, CR
 * and LF as a space), BIND, EXECUTE, DESCRIBE, CLOSE,
 * SYNC, FLUSH, TERMINATE, AUTH (the answer to an authentication request:
 * password, SASL or GSS; no target), or one with no type byte: STARTUP
 * (protocol 3.0; target USER@DATABASE from its parameters, or USER when it
 * names no database), SSLREQUEST, GSSENCREQUEST, CANCEL. A
 * response: ERROR (error, code the SQLSTATE, target the message head),
 * NOTICE, COMMAND_COMPLETE (method the tag's first word, "SELECT", target
 * the whole tag, "SELECT 1"), ROW_DESCRIPTION, DATA_ROW, READY_FOR_QUERY,
 * PARSE_COMPLETE, BIND_COMPLETE, CLOSE_COMPLETE, NO_DATA, EMPTY_QUERY,
 * PORTAL_SUSPENDED, PARAMETER_DESCRIPTION, AUTHENTICATION, PARAMETER_STATUS,
 * BACKEND_KEY_DATA, NOTIFICATION. status stays -1. The one-byte answer to
 * SSLRequest ('S'/'N') has no length: -EAGAIN (the pairing takes it apart). total_len: 1 + the length
 * (the length for the messages without a type byte), known from the header:
 * len_known is true once the length is in BUF, even when the message is cut.
 * stmt: a Parse's statement name, or the one a Bind runs, hashed (the
 * unnamed statement's too), once the name is whole in BUF. */
int pgsql__parse(const uint8_t *buf, size_t len, bool request, struct req_head *out);
/* The same, on a connection already found to be PostgreSQL's: also the
 * messages that never start one, COPY's (COPY_DATA, COPY_DONE, COPY_FAIL;
 * COPY_IN_RESPONSE, COPY_OUT_RESPONSE, COPY_BOTH_RESPONSE) and the function
 * call's (FUNCTION_CALL, FUNCTION_CALL_RESPONSE), and NegotiateProtocolVersion
 * (NEGOTIATE_VERSION). */
int pgsql__parse_walk(const uint8_t *buf, size_t len, bool request, struct req_head *out);

#endif
