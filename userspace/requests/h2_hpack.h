/* One direction of an HTTP/2 connection's header compression (HPACK, RFC
 * 7541): its dynamic table, kept by following every header block the
 * direction carries, in order. Decoding is libnghttp2's (Debian's
 * libnghttp2): its inflater does the Huffman code, the table and its size
 * updates, and refuses what breaks the rules. */
#ifndef REQUESTS_H2_HPACK_H
#define REQUESTS_H2_HPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "req_head.h"

/* What a header block says that a request's record keeps. */
struct h2_fields {
	char method[REQ_METHOD_MAX];	/* :method, "" none */
	char path[REQ_TARGET_MAX];	/* :path without its query, "" none */
	int32_t status;			/* :status, -1 none */
	bool grpc;			/* content-type application/grpc[+...|;...] */
	int32_t grpc_status;		/* grpc-status, -1 none */
	/* grpc-message, its percent-encoding undone (cut to fit), "" none */
	char grpc_message[REQ_MESSAGE_MAX];
};

struct h2_hpack;

/* NULL (errno ENOMEM) or a direction's decoder, its table empty and its
 * size bound the default 4096. */
struct h2_hpack *h2_hpack__new(void);
void h2_hpack__free(struct h2_hpack *hp);
/* The decoding peer's SETTINGS_HEADER_TABLE_SIZE is SIZE: the encoder may
 * use a table up to that. Only raised: a smaller one binds the encoder once
 * it has acknowledged it, and a size update within the old bound is valid
 * either way. */
void h2_hpack__bound(struct h2_hpack *hp, uint32_t size);
/* Decodes the whole header block B (N bytes) into F (cleared first).
 * -EBADMSG: the block breaks HPACK (a bad index, a bad Huffman code, an
 * oversized table): the table can no longer be trusted. */
int h2_hpack__decode(struct h2_hpack *hp, const uint8_t *b, size_t n, struct h2_fields *f);

#endif
