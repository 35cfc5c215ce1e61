/* HTTP/1.0 and HTTP/1.1: the request line (method, path without the query)
 * or the status line (status), and the message's length from its headers. */
#ifndef REQUESTS_HTTP_H
#define REQUESTS_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "req_head.h"

/* As req_head.h says. A request: METHOD (GET, HEAD, POST, PUT, DELETE,
 * CONNECT, OPTIONS, TRACE, PATCH; others refused), target the path without
 * the query (the path of an absolute-form target, host:port for CONNECT, "*"
 * for OPTIONS). A response: status 100-599; error only for 5xx (a 4xx is the
 * client's mistake, kept in status). HTTP/2 is refused. -EAGAIN only while the
 * start line is incomplete; headers cut by LEN give 0 with len_known false.
 * total_len: through the blank line after the headers, plus Content-Length;
 * unknown for chunked bodies, bad or conflicting Content-Length, and
 * responses delimited by closing the connection; none for 1xx, 204 and 304.
 * Stateless, so a response to HEAD that states a Content-Length is taken to
 * carry that body: the caller, which knows the request, corrects it. */
int http__parse(const uint8_t *buf, size_t len, bool request, struct req_head *out);

/* A response of STATUS is interim (RFC 9110 15.2): 1xx but 101. Any number
 * of them (100 Continue, 103 Early Hints) may come before a request's final
 * response, on the same request. 101 Switching Protocols is the final one,
 * and the connection's bytes after it are another protocol's. */
bool http__interim(int32_t status);

/* Where the head of a message that came in pieces ends (the empty line after
 * its header fields), sought piece by piece: *STATE is HTTP_HEAD_START at the
 * message's first byte, and carries from one piece to the next what the bytes
 * so far ended in. Returns the offset in BUF just past the head's end, or 0
 * when BUF does not reach it. Lines end in CRLF or a bare LF, as http__parse
 * takes them. */
#define HTTP_HEAD_START 1
size_t http__head_end(uint8_t *state, const uint8_t *buf, size_t len);

/* A chunked body (RFC 9112 7.1) walked piece by piece, from the byte after
 * its head (req_head.chunked): http__chunks_start, then each piece's bytes in
 * order. */
struct http_chunks {
	uint64_t left;		/* data bytes of the current chunk still to come */
	uint8_t state;		/* 0: not walking */
	uint8_t digits;
};
void http__chunks_start(struct http_chunks *ch);
/* The bytes of BUF that are the body's: LEN when its end is not among them,
 * else up to its last CRLF, and ch->state 0 then. -EPROTO for bytes that are
 * no chunked coding (ch->state 0 too). */
long http__chunks(struct http_chunks *ch, const uint8_t *buf, size_t len);
/* N bytes not seen (past the snaplen): true when all are inside one chunk's
 * data, so the walk goes on after them. */
bool http__chunks_skip(struct http_chunks *ch, uint64_t n);

#endif
