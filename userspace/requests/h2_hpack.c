/* HPACK through libnghttp2's inflater (h2_hpack.h). */
#include <errno.h>
#include <nghttp2/nghttp2.h>
#include <stdlib.h>
#include <string.h>

#include "h2_hpack.h"

struct h2_hpack {
	nghttp2_hd_inflater *in;
	uint32_t bound;
};

struct h2_hpack *h2_hpack__new(void)
{
	struct h2_hpack *hp = calloc(1, sizeof(*hp));

	if (!hp)
		return NULL;
	if (nghttp2_hd_inflate_new(&hp->in)) {
		free(hp);
		errno = ENOMEM;
		return NULL;
	}
	hp->bound = NGHTTP2_DEFAULT_HEADER_TABLE_SIZE;
	return hp;
}

void h2_hpack__free(struct h2_hpack *hp)
{
	if (!hp)
		return;
	nghttp2_hd_inflate_del(hp->in);
	free(hp);
}

void h2_hpack__bound(struct h2_hpack *hp, uint32_t size)
{
	if (size <= hp->bound)
		return;
	if (nghttp2_hd_inflate_change_table_size(hp->in, size) == 0)
		hp->bound = size;
}

static bool name__is(const nghttp2_nv *nv, const char *name)
{
	size_t n = strlen(name);

	return nv->namelen == n && !memcmp(nv->name, name, n);
}

/* VALUE (N bytes) into DST of SIZE, cut at STOP (a query's '?') if given. */
static void value__copy(char *dst, size_t size, const uint8_t *v, size_t n, char stop)
{
	size_t k = 0;

	while (k < n && k + 1 < size && v[k] && (!stop || v[k] != stop))
		k++;
	memcpy(dst, v, k);
	dst[k] = '\0';
}

static int hex__val(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* grpc-message's VALUE (N bytes) into DST of SIZE: gRPC percent-encodes the
 * bytes of its UTF-8 text outside printable ASCII, and '%'. A '%' not
 * followed by two hex digits stays as it is; a NUL byte ends the text. */
static void message__copy(char *dst, size_t size, const uint8_t *v, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k + 1 < size; i++) {
		int hi, lo;
		uint8_t c = v[i];

		if (c == '%' && i + 2 < n && (hi = hex__val(v[i + 1])) >= 0 &&
		    (lo = hex__val(v[i + 2])) >= 0) {
			c = (uint8_t)(hi << 4 | lo);
			i += 2;
		}
		if (!c)
			break;
		dst[k++] = (char)c;
	}
	dst[k] = '\0';
}

/* A decimal of at most 3 digits (a status), else -1. */
static int32_t value__num(const uint8_t *v, size_t n)
{
	int32_t x = 0;

	if (!n || n > 3)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		x = x * 10 + (v[i] - '0');
	}
	return x;
}

static void field__take(const nghttp2_nv *nv, struct h2_fields *f)
{
	static const char grpc[] = "application/grpc";

	if (name__is(nv, ":method"))
		value__copy(f->method, sizeof(f->method), nv->value, nv->valuelen, 0);
	else if (name__is(nv, ":path"))
		value__copy(f->path, sizeof(f->path), nv->value, nv->valuelen, '?');
	else if (name__is(nv, ":status"))
		f->status = value__num(nv->value, nv->valuelen);
	else if (name__is(nv, "grpc-status"))
		f->grpc_status = value__num(nv->value, nv->valuelen);
	else if (name__is(nv, "grpc-message"))
		message__copy(f->grpc_message, sizeof(f->grpc_message), nv->value, nv->valuelen);
	else if (name__is(nv, "content-type"))
		/* application/grpc, +proto, +json, ;charset... */
		f->grpc = nv->valuelen >= sizeof(grpc) - 1 &&
			  !memcmp(nv->value, grpc, sizeof(grpc) - 1) &&
			  (nv->valuelen == sizeof(grpc) - 1 || nv->value[sizeof(grpc) - 1] == '+' ||
			   nv->value[sizeof(grpc) - 1] == ';');
}

int h2_hpack__decode(struct h2_hpack *hp, const uint8_t *b, size_t n, struct h2_fields *f)
{
	f->method[0] = f->path[0] = f->grpc_message[0] = '\0';
	f->status = f->grpc_status = -1;
	f->grpc = false;
	for (;;) {
		nghttp2_nv nv;
		int flags = 0;
		ssize_t r = nghttp2_hd_inflate_hd2(hp->in, &nv, &flags, b, n, 1);

		if (r < 0)
			return -EBADMSG;
		b += r;
		n -= (size_t)r;
		if (flags & NGHTTP2_HD_INFLATE_EMIT)
			field__take(&nv, f);
		if (flags & NGHTTP2_HD_INFLATE_FINAL) {
			nghttp2_hd_inflate_end_headers(hp->in);
			return 0;
		}
		if (!(flags & NGHTTP2_HD_INFLATE_EMIT) && !n)
			return -EBADMSG;	/* the block ended inside a field */
	}
}
