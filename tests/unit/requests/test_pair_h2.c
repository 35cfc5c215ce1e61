/* HTTP/2 in the pairing (pair_h2.c): a request per stream, many in flight
 * on one connection and answered in any order; header blocks decoded with
 * their HPACK tables (built here by libnghttp2's encoder, as a real peer's
 * would be, dynamic table and Huffman code included); gRPC's status from its
 * trailers; a stream reset; frames cut anywhere by the reads; a connection
 * seen mid-way, or cut at the snaplen, whose headers are counted unknown and
 * never guessed; the framing checks (h2_frame.h). */
#include <errno.h>
#include <nghttp2/nghttp2.h>

#include "h2_frame.h"
#include "pair_check.h"

#define WIRE_MAX 65536

struct wire {
	uint8_t b[WIRE_MAX];
	size_t n;
};

static void w_put(struct wire *w, const void *p, size_t n)
{
	if (w->n + n > WIRE_MAX)
		abort();
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

static void w_frame(struct wire *w, uint8_t type, uint8_t flags, uint32_t stream,
		    const void *payload, size_t len)
{
	uint8_t h[9] = { (uint8_t)(len >> 16), (uint8_t)(len >> 8), (uint8_t)len, type, flags,
			 (uint8_t)(stream >> 24), (uint8_t)(stream >> 16), (uint8_t)(stream >> 8),
			 (uint8_t)stream };

	w_put(w, h, 9);
	if (len)
		w_put(w, payload, len);
}

static void w_preface(struct wire *w)
{
	w_put(w, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 24);
}

static void w_settings(struct wire *w, uint16_t id, uint32_t v)
{
	uint8_t e[6] = { (uint8_t)(id >> 8), (uint8_t)id, (uint8_t)(v >> 24), (uint8_t)(v >> 16),
			 (uint8_t)(v >> 8), (uint8_t)v };

	w_frame(w, H2_SETTINGS, 0, 0, id ? e : NULL, id ? 6 : 0);
}

/* W starts with the client's preface and an empty SETTINGS. */
static void w_open(struct wire *w)
{
	w_preface(w);
	w_settings(w, 0, 0);
}

/* A fresh pairer, and each end's encoder (each direction has its table). */
static struct pairer *fx__open(nghttp2_hd_deflater **cd, nghttp2_hd_deflater **sd)
{
	if (nghttp2_hd_deflate_new(cd, 4096) || nghttp2_hd_deflate_new(sd, 4096))
		abort();
	return fresh(16);
}

static void fx__close(struct pairer *p, nghttp2_hd_deflater *cd, nghttp2_hd_deflater *sd)
{
	nghttp2_hd_deflate_del(cd);
	nghttp2_hd_deflate_del(sd);
	pair__free(p);
}

#define NV(n, v) { (uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, sizeof(v) - 1, 0 }

/* A HEADERS frame on STREAM of the fields NV, encoded by DEFLATER. */
static size_t w_headers(struct wire *w, nghttp2_hd_deflater *d, uint32_t stream, uint8_t flags,
			const nghttp2_nv *nv, size_t n)
{
	uint8_t block[4096];
	ssize_t len = nghttp2_hd_deflate_hd(d, block, sizeof(block), nv, n);

	if (len < 0)
		abort();
	w_frame(w, H2_HEADERS, flags | H2_F_END_HEADERS, stream, block, (size_t)len);
	return 9 + (size_t)len;
}

static void feed(struct pairer *p, struct req_io io, uint8_t dir, uint64_t ts, const struct wire *w)
{
	io_do(p, io, dir, ts, 0, (const char *)w->b, w->n, 0);
}

static const nghttp2_nv get_a[] = {
	NV(":method", "GET"), NV(":scheme", "http"), NV(":authority", "svc.test"),
	NV(":path", "/a?q=1"), NV("user-agent", "unit/1.0"), NV("x-trace", "abcdef0123456789"),
};
static const nghttp2_nv get_b[] = {
	NV(":method", "GET"), NV(":scheme", "http"), NV(":authority", "svc.test"),
	NV(":path", "/b"), NV("user-agent", "unit/1.0"), NV("x-trace", "abcdef0123456789"),
};
static const nghttp2_nv post_c[] = {
	NV(":method", "POST"), NV(":scheme", "http"), NV(":authority", "svc.test"),
	NV(":path", "/c"), NV("user-agent", "unit/1.0"), NV("content-type", "text/plain"),
};
static const nghttp2_nv st200[] = { NV(":status", "200"), NV("server", "unit-srv") };
static const nghttp2_nv st404[] = { NV(":status", "404"), NV("server", "unit-srv") };
static const nghttp2_nv st503[] = { NV(":status", "503"), NV("server", "unit-srv") };

static void check_rec(const struct req_record *r, uint8_t proto, const char *method,
		      const char *path, int status, bool error)
{
	CHECK_INT(r->proto, proto);
	CHECK_STR(r->method, method);
	CHECK_STR(r->target, path);
	CHECK_INT(r->status, status);
	CHECK_INT(r->error, error);
	CHECK(!r->aborted && !r->timed_out);
}

/* One request, one response, on the server's side: its sizes are its
 * stream's frames. */
static void test_one(void)
{
	nghttp2_hd_deflater *cd, *sd;
	struct pairer *p = fx__open(&cd, &sd);
	struct req_io s = tcp(10, 5, true, 40000, 80);
	struct wire a = { .n = 0 }, b = { .n = 0 };
	size_t qh, rh;

	w_open(&a);
	qh = w_headers(&a, cd, 1, H2_F_END_STREAM, get_a, 6);
	feed(p, s, REQ_DIR_IN, 100, &a);
	w_settings(&b, 0, 0);
	rh = w_headers(&b, sd, 1, 0, st200, 2);
	w_frame(&b, H2_DATA, H2_F_END_STREAM, 1, "hi", 2);
	feed(p, s, REQ_DIR_OUT, 150, &b);
	CHECK_INT(nrec, 1);
	check_rec(&recs[0], REQ_PROTO_HTTP2, "GET", "/a", 200, false);
	CHECK_INT(recs[0].side, REQ_SIDE_SERVER);
	CHECK_INT(recs[0].req_bytes, qh);
	CHECK_INT(recs[0].resp_bytes, rh + 9 + 2);
	CHECK_INT(recs[0].ts_start, 100);
	CHECK_INT(recs[0].ts_end, 150);
	CHECK_INT(recs[0].conn_seq, 1);
	fx__close(p, cd, sd);
}

/* Three streams in flight, answered out of order, the DATA of two
 * interleaved; later blocks lean on the dynamic table the first filled. */
static void test_multiplexed(void)
{
	nghttp2_hd_deflater *cd, *sd;
	struct pairer *p = fx__open(&cd, &sd);
	struct req_io s = tcp(11, 5, true, 40001, 80);
	struct wire a = { .n = 0 }, b = { .n = 0 }, c = { .n = 0 }, d = { .n = 0 };
	struct pair_counters k;

	w_open(&a);
	w_headers(&a, cd, 1, H2_F_END_STREAM, get_a, 6);
	w_headers(&a, cd, 3, H2_F_END_STREAM, get_b, 6);
	w_headers(&a, cd, 5, 0, post_c, 6);
	w_frame(&a, H2_DATA, H2_F_END_STREAM, 5, "body", 4);
	feed(p, s, REQ_DIR_IN, 100, &a);
	/* 5 first, then 3's head, 1 whole, 3's end */
	w_headers(&b, sd, 5, 0, st503, 2);
	w_frame(&b, H2_DATA, H2_F_END_STREAM, 5, "down", 4);
	w_headers(&b, sd, 3, 0, st404, 2);
	w_frame(&b, H2_DATA, 0, 3, "no", 2);
	feed(p, s, REQ_DIR_OUT, 200, &b);
	CHECK_INT(nrec, 1);
	check_rec(&recs[0], REQ_PROTO_HTTP2, "POST", "/c", 503, true);
	CHECK_INT(recs[0].conn_seq, 3);
	w_headers(&c, sd, 1, H2_F_END_STREAM, st200, 2);
	feed(p, s, REQ_DIR_OUT, 300, &c);
	CHECK_INT(nrec, 2);
	check_rec(&recs[1], REQ_PROTO_HTTP2, "GET", "/a", 200, false);
	CHECK_INT(recs[1].ts_end, 300);
	w_frame(&d, H2_DATA, H2_F_END_STREAM, 3, "pe", 2);
	feed(p, s, REQ_DIR_OUT, 400, &d);
	CHECK_INT(nrec, 3);
	check_rec(&recs[2], REQ_PROTO_HTTP2, "GET", "/b", 404, false);
	CHECK_INT(recs[2].ts_first_resp, 200);
	CHECK_INT(recs[2].ts_end, 400);
	pair__counters(p, &k);
	CHECK_INT(k.n_h2_lost, 0);
	CHECK_INT(k.n_h2_unknown, 0);
	CHECK_INT(k.n_unmatched, 0);
	fx__close(p, cd, sd);
}

/* The same conversation fed in reads of every size from 3 bytes (the
 * preface's "PRI", which no HTTP/1 method starts with): frame headers,
 * header blocks and the preface cut anywhere give the same records. */
static void test_cut_reads(void)
{
	for (size_t step = 3; step <= 64; step++) {
		nghttp2_hd_deflater *cd, *sd;
		struct pairer *p = fx__open(&cd, &sd);
		struct req_io s = tcp(12, 5, true, 40002, 80);
		struct wire a = { .n = 0 }, b = { .n = 0 };
		int before = t_failed;

		w_open(&a);
		w_headers(&a, cd, 1, H2_F_END_STREAM, get_a, 6);
		w_headers(&a, cd, 3, H2_F_END_STREAM, get_b, 6);
		w_headers(&b, sd, 1, 0, st200, 2);
		w_frame(&b, H2_DATA, H2_F_END_STREAM, 1, "hi", 2);
		w_headers(&b, sd, 3, H2_F_END_STREAM, st404, 2);
		for (size_t off = 0; off < a.n; off += step)
			io_do(p, s, REQ_DIR_IN, 100 + off, 0, (const char *)a.b + off,
			      a.n - off < step ? a.n - off : step, 0);
		for (size_t off = 0; off < b.n; off += step)
			io_do(p, s, REQ_DIR_OUT, 1000 + off, 0, (const char *)b.b + off,
			      b.n - off < step ? b.n - off : step, 0);
		CHECK_INT(nrec, 2);
		check_rec(&recs[0], REQ_PROTO_HTTP2, "GET", "/a", 200, false);
		check_rec(&recs[1], REQ_PROTO_HTTP2, "GET", "/b", 404, false);
		if (t_failed != before)
			fprintf(stderr, "  (reads of %zu bytes)\n", step);
		fx__close(p, cd, sd);
	}
}

static const nghttp2_nv grpc_req[] = {
	NV(":method", "POST"), NV(":scheme", "http"), NV(":authority", "svc:50051"),
	NV(":path", "/pkg.Store/Get"), NV("content-type", "application/grpc"), NV("te", "trailers"),
};
static const nghttp2_nv grpc_req2[] = {
	NV(":method", "POST"), NV(":scheme", "http"), NV(":authority", "svc:50051"),
	NV(":path", "/pkg.Store/Put"), NV("content-type", "application/grpc+proto"), NV("te", "trailers"),
};
static const nghttp2_nv grpc_head[] = { NV(":status", "200"), NV("content-type", "application/grpc") };
static const nghttp2_nv grpc_nf[] = { NV("grpc-status", "5"), NV("grpc-message", "no such key") };
static const nghttp2_nv grpc_ok[] = { NV("grpc-status", "0") };
/* grpc-message percent-encoded: "%25" and "%C3%A9" decoded, a '%' without
 * two hex digits kept */
static const nghttp2_nv grpc_only[] = {
	NV(":status", "200"), NV("content-type", "application/grpc"), NV("grpc-status", "12"),
	NV("grpc-message", "no %25 caf%C3%a9 %zz %4"),
};
#define LONG_MSG "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
static const nghttp2_nv grpc_long[] = {	/* 256 bytes and a NUL as %00 */
	NV("grpc-status", "13"), NV("grpc-message", LONG_MSG LONG_MSG LONG_MSG LONG_MSG "%00x"),
};

/* gRPC: its status from the trailers (an error rides on HTTP 200), from a
 * trailers-only response, or from the HTTP status when it has none. */
static void test_grpc(void)
{
	nghttp2_hd_deflater *cd, *sd;
	struct pairer *p = fx__open(&cd, &sd);
	struct req_io c = tcp(13, 7, false, 40003, 50051);
	struct wire a = { .n = 0 }, b = { .n = 0 };
	static const char msg[] = "\0\0\0\0\3abc";

	w_open(&a);
	w_headers(&a, cd, 1, 0, grpc_req, 6);
	w_frame(&a, H2_DATA, H2_F_END_STREAM, 1, msg, 8);
	w_headers(&a, cd, 3, 0, grpc_req2, 6);
	w_frame(&a, H2_DATA, H2_F_END_STREAM, 3, msg, 8);
	w_headers(&a, cd, 5, 0, grpc_req, 6);
	w_frame(&a, H2_DATA, H2_F_END_STREAM, 5, msg, 8);
	w_headers(&a, cd, 7, 0, grpc_req2, 6);
	w_frame(&a, H2_DATA, H2_F_END_STREAM, 7, msg, 8);
	/* the client writes: its side from the connect's tuple */
	io_do(p, c, REQ_DIR_OUT, 100, 90, (const char *)a.b, a.n, 0);
	w_headers(&b, sd, 1, 0, grpc_head, 2);
	w_frame(&b, H2_DATA, 0, 1, msg, 8);
	w_headers(&b, sd, 1, H2_F_END_STREAM, grpc_nf, 2);
	w_headers(&b, sd, 3, 0, grpc_head, 2);
	w_headers(&b, sd, 3, H2_F_END_STREAM, grpc_ok, 1);
	w_headers(&b, sd, 5, H2_F_END_STREAM, grpc_only, 4);
	w_headers(&b, sd, 7, H2_F_END_STREAM, st503, 2);
	io_do(p, c, REQ_DIR_IN, 200, 0, (const char *)b.b, b.n, 0);
	CHECK_INT(nrec, 4);
	check_rec(&recs[0], REQ_PROTO_GRPC, "POST", "/pkg.Store/Get", 5, true);
	CHECK_STR(recs[0].code, "NOT_FOUND");
	CHECK_STR(recs[0].message, "no such key");
	CHECK_STR(recs[1].message, "");
	CHECK_STR(recs[2].message, "no % caf\xc3\xa9 %zz %4");
	CHECK_STR(recs[3].message, "");	/* HTTP's 503: no grpc-message */
	CHECK_INT(recs[0].side, REQ_SIDE_CLIENT);
	CHECK_INT(recs[0].ts_start, 90);	/* the write's entry */
	check_rec(&recs[1], REQ_PROTO_GRPC, "POST", "/pkg.Store/Put", 0, false);
	CHECK_STR(recs[1].code, "OK");
	check_rec(&recs[2], REQ_PROTO_GRPC, "POST", "/pkg.Store/Get", 12, true);
	CHECK_STR(recs[2].code, "UNIMPLEMENTED");
	check_rec(&recs[3], REQ_PROTO_GRPC, "POST", "/pkg.Store/Put", 14, true);
	CHECK_STR(recs[3].code, "UNAVAILABLE");
	/* a message past REQ_MESSAGE_MAX is cut to fit */
	nrec = 0;
	a.n = b.n = 0;
	w_headers(&a, cd, 9, 0, grpc_req, 6);
	w_frame(&a, H2_DATA, H2_F_END_STREAM, 9, msg, 8);
	io_do(p, c, REQ_DIR_OUT, 300, 290, (const char *)a.b, a.n, 0);
	w_headers(&b, sd, 9, 0, grpc_head, 2);
	w_headers(&b, sd, 9, H2_F_END_STREAM, grpc_long, 2);
	io_do(p, c, REQ_DIR_IN, 400, 0, (const char *)b.b, b.n, 0);
	CHECK_INT(nrec, 1);
	CHECK_STR(recs[0].code, "INTERNAL");
	CHECK_INT(strlen(recs[0].message), REQ_MESSAGE_MAX - 1);
	CHECK(!strncmp(recs[0].message, LONG_MSG LONG_MSG, REQ_MESSAGE_MAX - 1));
	fx__close(p, cd, sd);
}

/* A stream reset by the client (a cancelled call) ends aborted; the close
 * cuts what is still in flight. */
static void test_reset_and_close(void)
{
	nghttp2_hd_deflater *cd, *sd;
	struct pairer *p = fx__open(&cd, &sd);
	struct req_io s = tcp(14, 5, true, 40004, 80);
	struct wire a = { .n = 0 }, b = { .n = 0 }, r = { .n = 0 };
	static const uint8_t cancel[4] = { 0, 0, 0, 8 };

	w_open(&a);
	w_headers(&a, cd, 1, H2_F_END_STREAM, get_a, 6);
	w_headers(&a, cd, 3, H2_F_END_STREAM, get_b, 6);
	feed(p, s, REQ_DIR_IN, 100, &a);
	w_frame(&r, H2_RST_STREAM, 0, 1, cancel, 4);
	feed(p, s, REQ_DIR_IN, 150, &r);
	CHECK_INT(nrec, 1);
	CHECK_STR(recs[0].target, "/a");
	CHECK(recs[0].aborted);
	CHECK_INT(recs[0].status, -1);
	w_headers(&b, sd, 3, 0, st200, 2);
	feed(p, s, REQ_DIR_OUT, 200, &b);
	pair__close(p, &s);
	CHECK_INT(nrec, 2);
	CHECK_STR(recs[1].target, "/b");
	CHECK_INT(recs[1].status, 200);
	CHECK(recs[1].aborted);
	fx__close(p, cd, sd);
}

/* A connection first seen mid-way (opened before the agent): its frames are
 * known, its tables are not, so its requests are counted with no headers at
 * all, even where a block would decode from the static table alone. */
static void test_mid_way(void)
{
	nghttp2_hd_deflater *cd, *sd;
	struct pairer *p = fx__open(&cd, &sd);
	struct req_io s = tcp(15, 5, true, 40005, 80);
	struct wire skip = { .n = 0 }, a = { .n = 0 }, b = { .n = 0 };
	struct pair_counters k;

	/* what went before the agent: the tables fill */
	w_headers(&skip, cd, 1, H2_F_END_STREAM, get_a, 6);
	w_headers(&skip, sd, 1, H2_F_END_STREAM, st200, 2);
	w_headers(&a, cd, 3, H2_F_END_STREAM, get_b, 6);
	feed(p, s, REQ_DIR_IN, 100, &a);
	w_headers(&b, sd, 3, 0, st404, 2);
	w_frame(&b, H2_DATA, H2_F_END_STREAM, 3, "no", 2);
	feed(p, s, REQ_DIR_OUT, 200, &b);
	CHECK_INT(nrec, 1);
	CHECK_INT(recs[0].proto, REQ_PROTO_HTTP2);
	CHECK_STR(recs[0].method, "");
	CHECK_STR(recs[0].target, "");
	CHECK_INT(recs[0].status, -1);
	CHECK_INT(recs[0].req_bytes, a.n);
	CHECK_INT(recs[0].resp_bytes, b.n);
	pair__counters(p, &k);
	CHECK_INT(k.n_h2_unknown, 1);
	CHECK_INT(k.n_h2_lost, 2);
	fx__close(p, cd, sd);
}

/* TLS's order: the server's SETTINGS come before the client's preface is
 * read; the tables are fresh. Without the preface after it, the start was
 * missed: the tables are not trusted. */
static void test_server_first(void)
{
	for (int missed = 0; missed < 2; missed++) {
		nghttp2_hd_deflater *cd, *sd;
		struct pairer *p = fx__open(&cd, &sd);
		struct req_io s = tcp(16, 5, true, 40006, 443);
		struct wire srv = { .n = 0 }, a = { .n = 0 }, b = { .n = 0 };

		w_settings(&srv, 0, 0);
		feed(p, s, REQ_DIR_OUT, 50, &srv);
		if (!missed) {
			w_open(&a);
		}
		w_headers(&a, cd, 1, H2_F_END_STREAM, get_a, 6);
		feed(p, s, REQ_DIR_IN, 100, &a);
		w_headers(&b, sd, 1, H2_F_END_STREAM, st200, 2);
		feed(p, s, REQ_DIR_OUT, 200, &b);
		CHECK_INT(nrec, 1);
		if (missed)
			check_rec(&recs[0], REQ_PROTO_HTTP2, "", "", -1, false);
		else
			check_rec(&recs[0], REQ_PROTO_HTTP2, "GET", "/a", 200, false);
		fx__close(p, cd, sd);
	}
}

/* A header table larger than the default, allowed by the decoder's
 * SETTINGS_HEADER_TABLE_SIZE: the encoder's size update is taken. */
static void test_table_size(void)
{
	struct pairer *p = fresh(16);
	struct req_io s = tcp(17, 5, true, 40007, 80);
	nghttp2_hd_deflater *cd;
	struct wire a = { .n = 0 }, srv = { .n = 0 };
	struct pair_counters k;

	nghttp2_hd_deflate_new(&cd, 65536);
	w_settings(&srv, H2_SETTINGS_HEADER_TABLE_SIZE, 65536);
	w_preface(&a);
	feed(p, s, REQ_DIR_IN, 10, &a);
	feed(p, s, REQ_DIR_OUT, 20, &srv);
	a.n = 0;
	nghttp2_hd_deflate_change_table_size(cd, 65536);
	w_headers(&a, cd, 1, H2_F_END_STREAM, get_a, 6);
	feed(p, s, REQ_DIR_IN, 100, &a);
	pair__counters(p, &k);
	CHECK_INT(k.n_h2_lost, 0);
	pair__flush(p);
	nghttp2_hd_deflate_del(cd);
	pair__free(p);
	/* nothing answered: counted open, its headers were read */
	CHECK_INT(nrec, 0);
	CHECK_INT(k.n_h2_unknown, 0);
}

/* A read cut at the snaplen with a frame header past it: the frames are
 * lost until a read starts with whole frames, and the table with them; the
 * requests after are counted with unknown headers. */
static void test_snaplen(void)
{
	nghttp2_hd_deflater *cd, *sd;
	struct pairer *p = fx__open(&cd, &sd);
	struct req_io s = tcp(18, 5, true, 40008, 80);
	struct wire a = { .n = 0 }, b = { .n = 0 }, a2 = { .n = 0 }, b2 = { .n = 0 };
	static uint8_t body[3000];
	struct pair_counters k;

	w_open(&a);
	w_headers(&a, cd, 1, H2_F_END_STREAM, get_a, 6);
	w_headers(&a, cd, 3, H2_F_END_STREAM, get_b, 6);
	feed(p, s, REQ_DIR_IN, 100, &a);
	w_headers(&b, sd, 1, 0, st200, 2);
	w_frame(&b, H2_DATA, H2_F_END_STREAM, 1, body, sizeof(body));
	w_headers(&b, sd, 3, H2_F_END_STREAM, st404, 2);
	/* captured to the middle of the body: 3's headers are past it */
	io_do(p, s, REQ_DIR_OUT, 200, 0, (const char *)b.b, 2048, b.n);
	CHECK_INT(nrec, 1);
	check_rec(&recs[0], REQ_PROTO_HTTP2, "GET", "/a", 200, false);
	w_headers(&a2, cd, 5, H2_F_END_STREAM, get_a, 6);
	feed(p, s, REQ_DIR_IN, 300, &a2);
	w_headers(&b2, sd, 5, H2_F_END_STREAM, st200, 2);
	feed(p, s, REQ_DIR_OUT, 400, &b2);
	pair__counters(p, &k);
	CHECK_INT(k.n_h2_desync, 1);
	CHECK_INT(k.n_h2_lost, 1);
	/* 3 was answered past the snaplen: it stays in flight; 5's request
	 * was read, its response's headers were not */
	CHECK_INT(nrec, 2);
	CHECK_STR(recs[1].target, "/a");
	CHECK_INT(recs[1].conn_seq, 3);
	CHECK_INT(recs[1].status, -1);
	CHECK_INT(k.n_h2_unknown, 1);
	fx__close(p, cd, sd);
}

/* Hostile blocks: a bad index, a block cut short, a CONTINUATION on another
 * stream, padding longer than the frame. The table is lost (counted), the
 * requests are still counted, nothing is guessed. */
static void test_hostile(void)
{
	static const uint8_t bad_index[] = { 0xff, 0x7f };	/* index 254: no such entry */
	static const uint8_t cut[] = { 0x82, 0x44 };		/* a literal path, no length */
	static const uint8_t pad[] = { 200, 0x82 };
	const uint8_t *blocks[] = { bad_index, cut, pad };
	const size_t lens[] = { sizeof(bad_index), sizeof(cut), sizeof(pad) };
	const uint8_t flags[] = { 0, 0, H2_F_PADDED };

	for (int i = 0; i < 3; i++) {
		struct pairer *p = fresh(16);
		struct req_io s = tcp(19, 5, true, 40009, 80);
		struct wire a = { .n = 0 };
		struct pair_counters k;

		w_preface(&a);
		w_frame(&a, H2_HEADERS, flags[i] | H2_F_END_HEADERS | H2_F_END_STREAM, 1, blocks[i],
			lens[i]);
		feed(p, s, REQ_DIR_IN, 100, &a);
		pair__counters(p, &k);
		CHECK_INT(k.n_h2_lost, 1);
		CHECK_INT(k.n_h2_unknown, 1);
		pair__close(p, &s);
		CHECK_INT(nrec, 1);
		CHECK_STR(recs[0].method, "");
		CHECK(recs[0].aborted);
		pair__free(p);
	}
}

/* Past PAIR_PIPELINE_MAX streams in flight a stream is counted, not followed;
 * an interim (1xx) header block is no response; a server push's block keeps
 * the table (the pushed response is no record), so the blocks after it,
 * leaning on what it added, still decode. */
static void test_bounds_interim_push(void)
{
	nghttp2_hd_deflater *cd, *sd;
	struct pairer *p = fx__open(&cd, &sd);
	struct req_io s = tcp(20, 5, true, 40010, 80);
	struct wire a = { .n = 0 }, b = { .n = 0 };
	static const nghttp2_nv early[] = { NV(":status", "103"), NV("link", "</s.css>; rel=preload") };
	static const nghttp2_nv pushed[] = {
		NV(":method", "GET"), NV(":scheme", "http"), NV(":authority", "svc.test"),
		NV(":path", "/pushed.css"), NV("x-push-only", "a-value-only-the-push-block-indexes"),
	};
	static const nghttp2_nv st200x[] = {
		NV(":status", "200"), NV("x-push-only", "a-value-only-the-push-block-indexes"),
	};
	uint8_t block[512], pp[600];
	struct pair_counters k;
	ssize_t n;

	w_open(&a);
	for (uint32_t i = 0; i < PAIR_PIPELINE_MAX + 1; i++)
		w_headers(&a, cd, 1 + 2 * i, H2_F_END_STREAM, get_a, 6);
	feed(p, s, REQ_DIR_IN, 100, &a);
	pair__counters(p, &k);
	CHECK_INT(k.n_pipeline_full, 1);
	/* stream 1: a 103, then a push promise (stream 2), then its 200 */
	w_headers(&b, sd, 1, 0, early, 2);
	n = nghttp2_hd_deflate_hd(sd, block, sizeof(block), pushed, 5);
	CHECK(n > 0);
	pp[0] = 0, pp[1] = 0, pp[2] = 0, pp[3] = 2;	/* the promised stream */
	memcpy(pp + 4, block, (size_t)n);
	w_frame(&b, H2_PUSH_PROMISE, H2_F_END_HEADERS, 1, pp, 4 + (size_t)n);
	w_headers(&b, sd, 1, H2_F_END_STREAM, st200x, 2);
	feed(p, s, REQ_DIR_OUT, 200, &b);
	CHECK_INT(nrec, 1);
	check_rec(&recs[0], REQ_PROTO_HTTP2, "GET", "/a", 200, false);
	CHECK_INT(recs[0].resp_bytes, b.n);
	CHECK_INT(recs[0].ts_first_resp, 200);
	pair__counters(p, &k);
	CHECK_INT(k.n_h2_lost, 0);
	fx__close(p, cd, sd);
}

static void test_framing(void)
{
	struct wire w = { .n = 0 };
	struct h2_head h;
	size_t off, len;
	static const uint8_t prio_pad[] = { 2, 0, 0, 0, 3, 16, 0x82, 0x84, 0, 0 };

	CHECK_INT(h2__preface((const uint8_t *)"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\nxx", 26), 0);
	CHECK_INT(h2__preface((const uint8_t *)"PRI * HTTP/2", 12), -EAGAIN);
	CHECK_INT(h2__preface((const uint8_t *)"GET / HTTP/1.1", 14), -ENOMSG);
	w_settings(&w, 3, 100);
	w_frame(&w, H2_WINDOW_UPDATE, 0, 0, "\0\1\0\0", 4);
	CHECK_INT(h2__frames(w.b, w.n), 0);
	CHECK_INT(h2__frames(w.b, w.n - 1), -ENOMSG);
	CHECK_INT(h2__frames(w.b, 5), -ENOMSG);
	/* a SETTINGS frame on a stream, an unknown flag, a PING of 7 bytes */
	w.n = 0;
	w_frame(&w, H2_SETTINGS, 0, 1, NULL, 0);
	CHECK_INT(h2__frames(w.b, w.n), -ENOMSG);
	w.n = 0;
	w_frame(&w, H2_DATA, 0x40, 1, "x", 1);
	CHECK_INT(h2__frames(w.b, w.n), -ENOMSG);
	w.n = 0;
	w_frame(&w, H2_PING, 0, 0, "1234567", 7);
	CHECK_INT(h2__frames(w.b, w.n), -ENOMSG);
	/* HTTP/1 is no frame */
	CHECK_INT(h2__frames((const uint8_t *)"GET / HTTP/1.1\r\n\r\n", 18), -ENOMSG);
	/* padding and priority around a block */
	h.type = H2_HEADERS;
	h.flags = H2_F_PADDED | H2_F_PRIORITY;
	CHECK_INT(h2__block(&h, prio_pad, sizeof(prio_pad), &off, &len), 0);
	CHECK_INT(off, 6);
	CHECK_INT(len, 2);
	CHECK_INT(h2__block(&h, prio_pad, 5, &off, &len), -EBADMSG);
	h.flags = H2_F_PADDED;
	CHECK_INT(h2__block(&h, (const uint8_t *)"\x09\x82", 2, &off, &len), -EBADMSG);
}

/* h2c's upgrade (RFC 7540 3.2): an HTTP/1.1 request asking for h2c, the
 * server's 101 and at once its SETTINGS and stream 1's response, the
 * client's preface after the 101, then a request on stream 3. The upgrade
 * request is stream 1's record (its method and path from HTTP/1.1, its
 * status from HTTP/2), on both sides and with the server's bytes cut into
 * reads of every size; a 101 to another protocol (WebSocket) leaves the
 * connection bytes, as before. */
static const char up_req[] = "GET /up?x=1 HTTP/1.1\r\nHost: svc\r\nConnection: Upgrade, "
			     "HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAA\r\n\r\n";
static const char up_101[] = "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\n"
			     "Upgrade: H2C\r\n\r\n";

static void test_upgrade(void)
{
	for (size_t step = 0; step <= 96; step += step < 16 ? 1 : 8) {
		for (int server = 0; server < 2; server++) {
			nghttp2_hd_deflater *cd, *sd;
			struct pairer *p = fx__open(&cd, &sd);
			struct req_io io = server ? tcp(17, 5, true, 40007, 80) :
					   tcp(17, 7, false, 40007, 80);
			uint8_t in = server ? REQ_DIR_IN : REQ_DIR_OUT;
			uint8_t out = server ? REQ_DIR_OUT : REQ_DIR_IN;
			struct wire a = { .n = 0 }, b = { .n = 0 }, c2 = { .n = 0 }, d = { .n = 0 };
			int before = t_failed;

			w_put(&a, up_req, sizeof(up_req) - 1);
			w_put(&b, up_101, sizeof(up_101) - 1);
			w_settings(&b, 0, 0);
			w_headers(&b, sd, 1, 0, st200, 2);
			w_frame(&b, H2_DATA, H2_F_END_STREAM, 1, "upgraded", 8);
			w_open(&c2);
			w_headers(&c2, cd, 3, H2_F_END_STREAM, get_b, 6);
			w_headers(&d, sd, 3, H2_F_END_STREAM, st404, 2);
			io_do(p, io, in, 100, 90, (const char *)a.b, a.n, 0);
			if (!step) {
				io_do(p, io, out, 200, 0, (const char *)b.b, b.n, 0);
			} else {
				for (size_t off = 0; off < b.n; off += step)
					io_do(p, io, out, 200 + off, 0, (const char *)b.b + off,
					      b.n - off < step ? b.n - off : step, 0);
			}
			CHECK_INT(nrec, 1);
			check_rec(&recs[0], REQ_PROTO_HTTP2, "GET", "/up", 200, false);
			CHECK_INT(recs[0].req_bytes, a.n);
			CHECK_INT(recs[0].resp_bytes, b.n - 9);	/* not the SETTINGS */
			io_do(p, io, in, 1000, 990, (const char *)c2.b, c2.n, 0);
			io_do(p, io, out, 1100, 0, (const char *)d.b, d.n, 0);
			CHECK_INT(nrec, 2);
			check_rec(&recs[1], REQ_PROTO_HTTP2, "GET", "/b", 404, false);
			if (t_failed != before)
				fprintf(stderr, "  (upgrade, %s side, reads of %zu bytes)\n",
					server ? "server" : "client", step);
			fx__close(p, cd, sd);
		}
	}
	{
		/* WebSocket's 101: bytes from then on, no HTTP/2 */
		static const char ws_req[] = "GET /ws HTTP/1.1\r\nHost: svc\r\nUpgrade: websocket\r\n"
					     "Connection: Upgrade\r\n\r\n";
		static const char ws_101[] = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
					     "Connection: Upgrade\r\n\r\n";
		struct pairer *p = fresh(16);
		struct req_io s = tcp(18, 5, true, 40008, 80);

		io_do(p, s, REQ_DIR_IN, 100, 0, ws_req, sizeof(ws_req) - 1, 0);
		io_do(p, s, REQ_DIR_OUT, 200, 0, ws_101, sizeof(ws_101) - 1, 0);
		io_do(p, s, REQ_DIR_IN, 300, 0, "\x81\x02hi", 4, 0);
		io_do(p, s, REQ_DIR_OUT, 400, 0, "\x81\x02ok", 4, 0);
		pair__close(p, &s);
		CHECK(nrec >= 1);
		CHECK_INT(recs[0].proto, REQ_PROTO_HTTP);
		CHECK_INT(recs[0].status, 101);
		for (int i = 0; i < nrec; i++)
			CHECK(recs[i].proto != REQ_PROTO_HTTP2);
		pair__free(p);
	}
}

int main(void)
{
	test_framing();
	test_one();
	test_multiplexed();
	test_cut_reads();
	test_grpc();
	test_reset_and_close();
	test_mid_way();
	test_server_first();
	test_table_size();
	test_snaplen();
	test_hostile();
	test_bounds_interim_push();
	test_upgrade();
	return t_report();
}
