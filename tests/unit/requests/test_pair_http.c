/* The pairing of HTTP interim responses (1xx, RFC 9110 15.2): an upload with
 * Expect: 100-continue as nginx 1.22 answers it (100 Continue, the body, 201),
 * on one side and on both; several interim responses, 103 Early Hints with
 * Link headers, cut across reads at every byte; pipelined requests each with
 * its own; a close or a timeout after the 100; and 101 Switching Protocols,
 * which is the final response, after which the connection is not HTTP;
 * a proxy's CONNECT, after whose 2xx the tunnel's bytes are found again.
 * Bodies read after their answer, and chunked bodies walked to their end,
 * requests' and responses'. */
#include <stdio.h>
#include <string.h>

#include "pair_check.h"

/* As Python's socket client sent them to nginx 1.22.1, and nginx's answers. */
static const char up_head[] = "POST /upload/c0-u0.bin HTTP/1.1\r\nHost: e2e\r\n"
			      "Content-Length: 204800\r\nExpect: 100-continue\r\n\r\n";
static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
static const char created[] = "HTTP/1.1 201 Created\r\nServer: nginx/1.22.1\r\n"
			      "Date: Mon, 23 Nov 2026 22:25:30 GMT\r\nContent-Length: 0\r\n"
			      "Location: http://x:18111/upload/a.bin\r\nConnection: keep-alive\r\n\r\n";
static const char get_small[] = "GET /small.txt HTTP/1.1\r\nHost: e2e\r\n\r\n";
static const char small_ok[] = "HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nContent-Length: 11\r\n"
			       "\r\nsmall file\n";
/* RFC 8297's example */
static const char hints[] = "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload; as=style\r\n"
			    "Link: </script.js>; rel=preload; as=script\r\n\r\n";
#define BODY_LEN 204800u

static char body[2048];	/* what a 2048-byte snaplen captures of each read */

/* The body after the 100: NREADS reads (server) or writes (client) of equal
 * size from TS on, 100 ns apart. */
static void send_body(struct pairer *p, struct req_io io, uint8_t dir, uint64_t ts, int nreads)
{
	for (int i = 0; i < nreads; i++)
		io_do(p, io, dir, ts + 100 * (uint64_t)i, 0, body, sizeof(body), BODY_LEN / nreads);
}

static void check_upload(const struct req_record *r, uint64_t duration)
{
	CHECK_INT(r->proto, REQ_PROTO_HTTP);
	CHECK_STR(r->method, "POST");
	CHECK_STR(r->target, "/upload/c0-u0.bin");
	CHECK_INT(r->status, 201);
	CHECK(!r->error && !r->aborted && !r->timed_out);
	CHECK_INT(r->req_bytes, strlen(up_head) + BODY_LEN);
	CHECK_INT(r->resp_bytes, strlen(cont) + strlen(created));
	CHECK_INT(r->duration, duration);
	/* the final response's first byte, in one write with its last */
	CHECK_INT(r->ttfb, duration);
}

/* nginx's side: the head, 100 Continue, the body over four reads, 201; then
 * a GET on the same connection. */
static void test_continue_server(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(100, 5, true, 40000, 80);
	struct pair_counters k;

	IN(p, s, 1000, up_head);
	OUT(p, s, 1100, cont);
	send_body(p, s, REQ_DIR_IN, 1200, 4);
	CHECK_INT(nrec, 0);	/* the 100 answered nothing */
	OUT(p, s, 5000, created);
	CHECK_INT(nrec, 1);
	check_upload(&recs[0], 4000);
	CHECK_INT(recs[0].conn_seq, 1);
	IN(p, s, 6000, get_small);
	OUT(p, s, 6100, small_ok);
	CHECK_INT(nrec, 2);
	CHECK_STR(recs[1].target, "/small.txt");
	CHECK_INT(recs[1].status, 200);
	CHECK_INT(recs[1].conn_seq, 2);
	CHECK_INT(recs[1].req_bytes, strlen(get_small));
	CHECK_INT(recs[1].resp_bytes, strlen(small_ok));
	CHECK_INT(recs[1].duration, 100);
	pair__counters(p, &k);
	CHECK_INT(k.n_unmatched, 0);
	CHECK_INT(k.n_unparsed, 0);
	pair__free(p);
}

/* The uploader and nginx on one host: each side's record says 201 with the
 * same bytes, the server's inside the client's. */
static void test_continue_both_sides(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(100, 5, true, 40000, 80), c = tcp(300, 3, false, 40000, 80);

	io_do(p, c, REQ_DIR_OUT, 900, 850, up_head, strlen(up_head), 0);
	IN(p, s, 1000, up_head);
	OUT(p, s, 1100, cont);
	IN(p, c, 1150, cont);
	send_body(p, c, REQ_DIR_OUT, 1200, 2);
	send_body(p, s, REQ_DIR_IN, 1250, 8);
	OUT(p, s, 5000, created);
	IN(p, c, 5050, created);
	CHECK_INT(nrec, 2);
	CHECK_INT(recs[0].side, REQ_SIDE_SERVER);
	check_upload(&recs[0], 4000);
	CHECK_INT(recs[1].side, REQ_SIDE_CLIENT);
	check_upload(&recs[1], 5050 - 850);
	CHECK(recs[0].both_sides && recs[1].both_sides);
	pair__free(p);
}

/* A client reads RESP (one or more responses) from CUTS[0] to CUTS[1], then
 * to CUTS[2], ...: one read each, 10 ns apart from 2000 on. */
static void read_cut(struct pairer *p, struct req_io c, const char *resp, const size_t *cuts,
		     int n)
{
	for (int i = 0; i + 1 < n; i++)
		if (cuts[i + 1] > cuts[i])
			io_do(p, c, REQ_DIR_IN, 2000 + 10 * (uint64_t)i, 0, resp + cuts[i],
			      cuts[i + 1] - cuts[i], 0);
}

/* 100, 103 with Link headers, then 200: in one read, and in two reads cut at
 * every byte (a status line, a header line, the empty line ending a head).
 * The final response's first byte begins the time to first byte. (A final
 * response whose head the read cut after its status line is not walked to
 * its end: its record comes at the close, as for any HTTP response.) */
static void test_several_cut(void)
{
	char resp[512];
	size_t n = (size_t)snprintf(resp, sizeof(resp), "%s%s%s", cont, hints, small_ok);
	size_t final_at = strlen(cont) + strlen(hints);

	for (size_t cut = 0; cut < n; cut++) {
		struct pairer *p = fresh(0);
		struct req_io c = tcp(300, 3, false, 40000, 80);
		size_t cuts[] = { 0, cut, n };
		int failed = t_failed;

		io_do(p, c, REQ_DIR_OUT, 1000, 1000, get_small, strlen(get_small), 0);
		read_cut(p, c, resp, cuts, 3);
		pair__close(p, &c);
		CHECK_INT(nrec, 1);
		CHECK_INT(recs[0].status, 200);
		CHECK_INT(recs[0].resp_bytes, n);
		CHECK_INT(recs[0].req_bytes, strlen(get_small));
		CHECK_INT(recs[0].duration, 1010);
		/* the final's first byte came in the first read (at 2000) or
		 * the second (2010) */
		CHECK_INT(recs[0].ttfb, cut > final_at ? 1000 : 1010);
		CHECK(!recs[0].aborted);
		pair__free(p);
		if (t_failed != failed) {
			fprintf(stderr, "  (cut at %zu)\n", cut);
			break;
		}
	}
}

/* A 103 longer than what the pairing keeps of a cut head (many Link headers),
 * read in pieces of 7 bytes, then its final response in one read: the 103's
 * end is still found, so the final one is walked to its end. */
static void test_long_hints(void)
{
	char resp[2048];
	size_t n = 0, cuts[300];
	int nc = 0;
	struct pairer *p = fresh(0);
	struct req_io c = tcp(300, 3, false, 40000, 80);

	n += (size_t)snprintf(resp + n, sizeof(resp) - n, "HTTP/1.1 103 Early Hints\r\n");
	for (int i = 0; i < 20; i++)
		n += (size_t)snprintf(resp + n, sizeof(resp) - n,
				      "Link: </asset%02d.js>; rel=preload; as=script\r\n", i);
	n += (size_t)snprintf(resp + n, sizeof(resp) - n, "\r\n");
	for (size_t at = 0; at < n; at += 7)
		cuts[nc++] = at;
	cuts[nc++] = n;
	n += (size_t)snprintf(resp + n, sizeof(resp) - n, "%s", small_ok);
	cuts[nc++] = n;
	io_do(p, c, REQ_DIR_OUT, 1000, 1000, get_small, strlen(get_small), 0);
	read_cut(p, c, resp, cuts, nc);
	CHECK_INT(nrec, 1);
	CHECK_INT(recs[0].status, 200);
	CHECK_INT(recs[0].resp_bytes, n);
	CHECK(!recs[0].aborted);
	/* in one read captured up to the 103's middle: its end, and its final
	 * response's status, are past the snaplen. The read answers the
	 * request, and the next request is paired as ever. */
	io_do(p, c, REQ_DIR_OUT, 3000, 3000, get_small, strlen(get_small), 0);
	io_do(p, c, REQ_DIR_IN, 3100, 0, resp, 100, n);
	io_do(p, c, REQ_DIR_OUT, 4000, 4000, get_small, strlen(get_small), 0);
	io_do(p, c, REQ_DIR_IN, 4100, 0, small_ok, strlen(small_ok), 0);
	CHECK_INT(nrec, 3);
	CHECK_INT(recs[1].status, -1);
	CHECK_INT(recs[1].resp_bytes, n);
	CHECK_INT(recs[1].duration, 100);
	CHECK(!recs[1].aborted);
	CHECK_INT(recs[2].status, 200);
	CHECK_INT(recs[2].resp_bytes, strlen(small_ok));
	pair__free(p);
}

/* Two GETs in one write; each answered by a 103 and its final response, all
 * in one read, then cut at every byte of either 103. */
static void test_pipelined(void)
{
	static const char two[] = "GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n";
	static const char nf[] = "HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\nno!";
	char resp[512];
	size_t n = (size_t)snprintf(resp, sizeof(resp), "%s%s%s%s", hints, small_ok, hints, nf);
	size_t first = strlen(hints) + strlen(small_ok);

	for (size_t cut = 0; cut <= first + strlen(hints); cut++) {
		struct pairer *p = fresh(0);
		struct req_io c = tcp(300, 3, false, 40000, 80);
		size_t cuts[] = { 0, cut, n };
		int failed = t_failed;

		if (cut == strlen(hints) + 1)
			cut = first;	/* past the first 200 */
		cuts[1] = cut;
		io_do(p, c, REQ_DIR_OUT, 1000, 1000, two, strlen(two), 0);
		read_cut(p, c, resp, cuts, 3);
		CHECK_INT(nrec, 2);
		CHECK_STR(recs[0].target, "/a");
		CHECK_INT(recs[0].status, 200);
		CHECK_INT(recs[0].resp_bytes, first);
		CHECK_STR(recs[1].target, "/b");
		CHECK_INT(recs[1].status, 404);
		CHECK_INT(recs[1].resp_bytes, n - first);
		CHECK_INT(recs[1].conn_seq, 2);
		pair__free(p);
		if (t_failed != failed) {
			fprintf(stderr, "  (cut at %zu)\n", cut);
			break;
		}
	}
}

/* The connection closes after the 100, or no final response comes within
 * the timeout: the request was not answered. */
static void test_interim_only(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(100, 5, true, 40000, 80);

	IN(p, s, 1000, up_head);
	OUT(p, s, 1100, cont);
	send_body(p, s, REQ_DIR_IN, 1200, 2);
	pair__close(p, &s);
	CHECK_INT(nrec, 1);
	CHECK(recs[0].aborted);
	CHECK_INT(recs[0].status, -1);
	CHECK_INT(recs[0].ttfb, 0);
	CHECK_INT(recs[0].req_bytes, strlen(up_head) + BODY_LEN);
	CHECK_INT(recs[0].resp_bytes, strlen(cont));
	IN(p, s, 2000, up_head);
	OUT(p, s, 2100, cont);
	pair__expire(p, 2000 + 10000000001ull);
	CHECK_INT(nrec, 2);
	CHECK(recs[1].timed_out);
	CHECK_INT(recs[1].status, -1);
	pair__free(p);
}

/* RFC 6455's opening handshake and frames: the 101 is the request's final
 * response (with the server's first frame in the same write), and the
 * frames after it are bytes of another protocol, not HTTP. */
static void test_switching(void)
{
	static const char up[] = "GET /chat HTTP/1.1\r\nHost: server.example.com\r\nUpgrade: websocket\r\n"
				 "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
				 "Sec-WebSocket-Version: 13\r\n\r\n";
	static const char sw[] = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
				 "Connection: Upgrade\r\n"
				 "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n\x81\x05Hello";
	static const char masked[] = "\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58";
	struct pairer *p = fresh(0);
	struct req_io s = tcp(100, 5, true, 40000, 80);
	struct pair_counters k;

	IN(p, s, 1000, up);
	OUT(p, s, 1100, sw);
	io_do(p, s, REQ_DIR_IN, 2000, 0, masked, sizeof(masked) - 1, 0);
	io_do(p, s, REQ_DIR_OUT, 2100, 0, "\x81\x05Hello", 7, 0);
	io_do(p, s, REQ_DIR_IN, 3000, 0, masked, sizeof(masked) - 1, 0);
	CHECK_INT(nrec, 2);
	CHECK_INT(recs[0].proto, REQ_PROTO_HTTP);
	CHECK_STR(recs[0].target, "/chat");
	CHECK_INT(recs[0].status, 101);
	CHECK_INT(recs[0].resp_bytes, strlen(sw));	/* the server's first frame too */
	CHECK_INT(recs[0].duration, 100);
	CHECK_INT(recs[1].proto, REQ_PROTO_NONE);
	CHECK_INT(recs[1].req_bytes, sizeof(masked) - 1);
	CHECK_INT(recs[1].resp_bytes, 7);
	CHECK_INT(recs[1].conn_seq, 2);
	pair__counters(p, &k);
	CHECK_INT(k.n_unparsed, 0);
	pair__free(p);
}

/* A proxy's tunnel (CONNECT, RFC 9110 9.3.6), as curl 7.88 asked tinyproxy
 * 1.11.1 for one: the 2xx is a head alone, after which the bytes are what
 * the tunnel carries, found again from them: TLS records here, HTTP in a
 * plain tunnel (curl -p). A refused CONNECT leaves the connection HTTP. */
static void test_connect(void)
{
	static const char conn[] = "CONNECT 127.0.0.1:18443 HTTP/1.1\r\nHost: 127.0.0.1:18443\r\n"
				   "User-Agent: curl/7.88.1\r\n\r\n";
	static const char est[] = "HTTP/1.0 200 Connection established\r\n"
				  "Proxy-agent: tinyproxy/1.11.1\r\n\r\n";
	static const char denied[] = "HTTP/1.0 403 Access violation\r\nContent-Type: text/html\r\n"
				     "Content-Length: 5\r\n\r\nnope!";
	static const char hello[] = "\x16\x03\x01\x00\x30\x01\x00\x00\x2c\x03\x03";
	static const char server_hello[] = "\x16\x03\x03\x00\x30\x02\x00\x00\x2c\x03\x03";
	struct pairer *p = fresh(0);
	struct req_io s = tcp(100, 5, true, 40000, 8888);
	struct req_io t = tcp(100, 6, true, 40001, 8888);
	struct req_io d = tcp(100, 7, true, 40002, 8888);
	struct pair_counters k;

	IN(p, s, 1000, conn);
	OUT(p, s, 3000, est);
	CHECK_INT(nrec, 1);	/* at its head's end: nothing else is its */
	CHECK_STR(recs[0].method, "CONNECT");
	CHECK_STR(recs[0].target, "127.0.0.1:18443");
	CHECK_INT(recs[0].status, 200);
	CHECK_INT(recs[0].duration, 2000);
	CHECK_INT(recs[0].resp_bytes, strlen(est));
	io_do(p, s, REQ_DIR_IN, 4000, 0, hello, sizeof(hello) - 1, 517);
	io_do(p, s, REQ_DIR_OUT, 4100, 0, server_hello, sizeof(server_hello) - 1, 1223);
	IN(p, s, 5000, "\x17\x03\x03\x00\x20");
	CHECK_INT(nrec, 2);
	CHECK_INT(recs[1].proto, REQ_PROTO_TLS);
	CHECK_STR(recs[1].method, "CLIENT_HELLO");
	CHECK_INT(recs[1].req_bytes, 517);
	CHECK_INT(recs[1].resp_bytes, 1223);
	CHECK_INT(recs[1].conn_seq, 2);

	IN(p, t, 1000, "CONNECT 127.0.0.1:18090 HTTP/1.1\r\nHost: 127.0.0.1:18090\r\n\r\n");
	OUT(p, t, 1100, est);
	IN(p, t, 2000, get_small);
	OUT(p, t, 2100, small_ok);
	CHECK_INT(nrec, 4);
	CHECK_INT(recs[3].proto, REQ_PROTO_HTTP);
	CHECK_STR(recs[3].target, "/small.txt");
	CHECK_INT(recs[3].resp_bytes, strlen(small_ok));

	IN(p, d, 1000, "CONNECT 10.0.0.9:25 HTTP/1.1\r\nHost: 10.0.0.9:25\r\n\r\n");
	OUT(p, d, 1100, denied);
	IN(p, d, 2000, get_small);
	OUT(p, d, 2100, small_ok);
	CHECK_INT(nrec, 6);
	CHECK_INT(recs[4].status, 403);
	CHECK_INT(recs[4].resp_bytes, strlen(denied));
	CHECK_INT(recs[5].proto, REQ_PROTO_HTTP);
	CHECK_STR(recs[5].target, "/small.txt");
	pair__counters(p, &k);
	CHECK_INT(k.n_unparsed, 0);
	CHECK_INT(k.n_unmatched, 0);
	pair__free(p);
}

/* nginx answering a location of `return 200` at once and reading the body
 * after (its lingering discard), on a keep-alive connection: a body of known
 * length, then a chunked one past the snaplen in part, then a chunked one
 * read before the answer with the next request in the same read. Each is one
 * record with every byte of its request, held until the last one came, and
 * the request after each is a record of its own. */
static const char ok_early[] = "HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nContent-Type: "
			       "application/octet-stream\r\nContent-Length: 3\r\n\r\nok\n";
static void test_body_after_answer(void)
{
	static const char cl_head[] = "POST /early/a HTTP/1.1\r\nHost: e2e\r\nContent-Length: 30000\r\n\r\n";
	static const char ch_head[] = "POST /early/b HTTP/1.1\r\nHost: e2e\r\n"
				      "Transfer-Encoding: chunked\r\n\r\n";
	/* a chunk of 0x1800 bytes: its data runs past a 2048-byte capture */
	static char big[6200];
	static const char ch_tail[] = "\r\n11;x=y\r\n01234567890123456\r\n0\r\nX-T: 1\r\n\r\n";
	static char both[512];
	struct pairer *p = fresh(0);
	struct req_io s = tcp(100, 5, true, 40000, 80);
	struct pair_counters k;
	size_t big_len, n;

	/* 1. Content-Length: the head, the answer, the body in three reads */
	IN(p, s, 1000, cl_head);
	OUT(p, s, 1100, ok_early);
	CHECK_INT(nrec, 0);	/* answered, its body to come */
	for (int i = 0; i < 3; i++)
		io_do(p, s, REQ_DIR_IN, 1200 + 10 * (uint64_t)i, 0, body, sizeof(body), 10000);
	CHECK_INT(nrec, 1);
	CHECK_STR(recs[0].method, "POST");
	CHECK_STR(recs[0].target, "/early/a");
	CHECK_INT(recs[0].status, 200);
	CHECK_INT(recs[0].req_bytes, strlen(cl_head) + 30000);
	CHECK_INT(recs[0].resp_bytes, strlen(ok_early));
	CHECK_INT(recs[0].duration, 100);	/* to its answer's last byte */
	IN(p, s, 2000, get_small);
	OUT(p, s, 2100, small_ok);
	CHECK_INT(nrec, 2);
	CHECK_STR(recs[1].target, "/small.txt");
	CHECK_INT(recs[1].req_bytes, strlen(get_small));

	/* 2. chunked: the head, the answer, then 1800 data bytes read 4096 at a
	 * time of which 2048 captured, then the rest with a trailer */
	memcpy(big, "1800\r\n", 6);
	memset(big + 6, 'b', 0x1800);
	big_len = 6 + 0x1800;
	IN(p, s, 3000, ch_head);
	OUT(p, s, 3100, ok_early);
	io_do(p, s, REQ_DIR_IN, 3200, 0, big, 2048, 4096);
	io_do(p, s, REQ_DIR_IN, 3210, 0, big + 4096, 2048, big_len - 4096);
	CHECK_INT(nrec, 2);	/* its end not read yet */
	IN(p, s, 3220, ch_tail);
	CHECK_INT(nrec, 3);
	CHECK_STR(recs[2].target, "/early/b");
	CHECK_INT(recs[2].req_bytes, strlen(ch_head) + big_len + strlen(ch_tail));
	CHECK_INT(recs[2].status, 200);

	/* 3. chunked, whole before the answer, the next request in its read */
	n = (size_t)snprintf(both, sizeof(both), "%s5\r\nhello\r\n0\r\n\r\n%s", ch_head, get_small);
	IN(p, s, 4000, both);
	OUT(p, s, 4100, ok_early);
	OUT(p, s, 4110, small_ok);
	CHECK_INT(nrec, 5);
	CHECK_STR(recs[3].target, "/early/b");
	CHECK_INT(recs[3].req_bytes, n - strlen(get_small));
	CHECK_INT(recs[3].resp_bytes, strlen(ok_early));
	CHECK_STR(recs[4].target, "/small.txt");
	CHECK_INT(recs[4].req_bytes, strlen(get_small));
	CHECK_INT(recs[4].resp_bytes, strlen(small_ok));
	pair__counters(p, &k);
	CHECK_INT(k.n_unmatched, 0);
	CHECK_INT(k.n_unparsed, 0);
	CHECK_INT(k.n_uncaptured, 0);

	/* 4. a body that never comes: the close reports it, not aborted (its
	 * answer came whole) */
	IN(p, s, 5000, cl_head);
	OUT(p, s, 5100, ok_early);
	CHECK_INT(nrec, 5);
	pair__close(p, &s);
	CHECK_INT(nrec, 6);
	CHECK_INT(recs[5].req_bytes, strlen(cl_head));
	CHECK(!recs[5].aborted);
	pair__free(p);
}

/* As Node 18's HTTP server answers: a chunk per res.write, the last at res.end. */
static const char node_head[] = "HTTP/1.1 200 OK\r\nDate: Sat, 28 Nov 2026 14:10:00 GMT\r\n"
				"Connection: keep-alive\r\nKeep-Alive: timeout=5\r\n"
				"Transfer-Encoding: chunked\r\n\r\n";
static const char node_body[] = "a\r\npart one, \r\n9\r\npart two\n\r\n0\r\n\r\n";

/* A chunked body whose next size line is past the snaplen cannot be walked,
 * nor bytes that are no chunked coding: each counted, and the rest of the
 * body runs to the next read that starts a request (or the close), whether
 * the answer came before the rest or after it. */
static void test_chunks_lost(void)
{
	static const char ch_head[] = "POST /up HTTP/1.1\r\nHost: e2e\r\n"
				      "Transfer-Encoding: chunked\r\n\r\n";
	static const char bad[] = "3\r\nabcx\r\n0\r\n\r\n";
	static char data[2048];
	struct pairer *p = fresh(0);
	struct req_io s = tcp(100, 5, true, 40000, 80), t = tcp(100, 6, true, 40001, 80);
	struct pair_counters k;

	/* a 4096-byte read, 2048 captured: a chunk of 0x400, then one of 0x400
	 * whose data the capture cuts 12 bytes before its end */
	memcpy(data, "400\r\n", 5);
	memset(data + 5, 'x', 0x400);
	memcpy(data + 5 + 0x400, "\r\n400\r\n", 7);
	memset(data + 12 + 0x400, 'y', sizeof(data) - 12 - 0x400);
	/* answered after the body */
	IN(p, s, 1000, ch_head);
	io_do(p, s, REQ_DIR_IN, 1100, 0, data, sizeof(data), 4096);
	IN(p, s, 1200, "0\r\n\r\n");
	OUT(p, s, 1300, ok_early);
	CHECK_INT(nrec, 0);	/* its end not known: held */
	IN(p, s, 1400, get_small);
	CHECK_INT(nrec, 1);
	CHECK_INT(recs[0].req_bytes, strlen(ch_head) + 4096 + 5);
	CHECK_INT(recs[0].status, 200);
	CHECK_INT(recs[0].duration, 300);
	OUT(p, s, 1500, small_ok);
	CHECK_INT(nrec, 2);
	CHECK_STR(recs[1].target, "/small.txt");
	/* answered before the body, lost in its first read */
	IN(p, s, 2000, ch_head);
	OUT(p, s, 2100, ok_early);
	io_do(p, s, REQ_DIR_IN, 2200, 0, data, sizeof(data), 4096);
	io_do(p, s, REQ_DIR_IN, 2300, 0, data + 12 + 0x400, 2048, 8000);
	IN(p, s, 2400, "0\r\n\r\n");
	CHECK_INT(nrec, 2);
	IN(p, s, 2500, get_small);
	OUT(p, s, 2600, small_ok);
	CHECK_INT(nrec, 4);
	CHECK_INT(recs[2].req_bytes, strlen(ch_head) + 4096 + 8000 + 5);
	CHECK_INT(recs[2].resp_bytes, strlen(ok_early));
	CHECK_INT(recs[3].req_bytes, strlen(get_small));
	pair__counters(p, &k);
	CHECK_INT(k.n_uncaptured, 2);
	CHECK_INT(k.n_unparsed, 0);
	CHECK_INT(k.n_unmatched, 0);

	/* answered in chunks before the body came, the answer's last chunk
	 * after the next request began: the lost body ends there, the
	 * answer's walk goes on */
	IN(p, s, 2700, ch_head);
	OUT(p, s, 2710, node_head);
	OUT(p, s, 2720, "a\r\npart one, \r\n");
	io_do(p, s, REQ_DIR_IN, 2730, 0, data, sizeof(data), 4096);
	IN(p, s, 2740, "0\r\n\r\n");
	IN(p, s, 2750, get_small);
	CHECK_INT(nrec, 4);
	OUT(p, s, 2760, "9\r\npart two\n\r\n0\r\n\r\n");
	OUT(p, s, 2770, small_ok);
	CHECK_INT(nrec, 6);
	CHECK_INT(recs[4].req_bytes, strlen(ch_head) + 4096 + 5);
	CHECK_INT(recs[4].resp_bytes, strlen(node_head) + strlen(node_body));
	CHECK_INT(recs[4].status, 200);
	CHECK_STR(recs[5].target, "/small.txt");
	CHECK_INT(recs[5].resp_bytes, strlen(small_ok));
	nrec = 4;	/* (the records below counted from here) */
	/* "x" where the CRLF after a chunk's data was due; the close ends it */
	IN(p, t, 3000, ch_head);
	IN(p, t, 3100, bad);
	OUT(p, t, 3200, ok_early);
	CHECK_INT(nrec, 4);
	pair__close(p, &t);
	CHECK_INT(nrec, 5);
	CHECK_INT(recs[4].req_bytes, strlen(ch_head) + strlen(bad));
	CHECK(!recs[4].aborted);
	pair__counters(p, &k);
	CHECK_INT(k.n_unparsed, 1);
	pair__free(p);
}

/* Chunked responses, as Node 18's HTTP server writes them (head, each
 * res.write a chunk, the last chunk with res.end), to requests pipelined
 * four at a time: each ends at its last chunk, in whatever pieces it is
 * read, and the next response is the next request's. A walk lost past the
 * snaplen runs to the next request (counted); a response cut by a close
 * before its last chunk is aborted. */
static void test_chunked_responses(void)
{
	static const char get[] = "GET /chunked HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
	char four[512], answers[1024];
	size_t nq, na, one = strlen(node_head) + strlen(node_body);
	struct pairer *p = fresh(0);
	struct req_io s = tcp(100, 5, true, 40000, 80), t = tcp(100, 6, true, 40001, 80);
	struct req_io u = tcp(100, 7, true, 40002, 80);
	struct pair_counters k;
	static char big[4096];

	nq = (size_t)snprintf(four, sizeof(four), "%s%s%s%s", get, get, get, get);
	na = (size_t)snprintf(answers, sizeof(answers), "%s%s%s%s%s%s%s%s", node_head, node_body,
			      node_head, node_body, node_head, node_body, node_head, node_body);
	CHECK_INT(na, 4 * one);
	/* the four answers cut at every byte into two writes */
	for (size_t cut = 1; cut < na; cut++) {
		nrec = 0;
		io_do(p, s, REQ_DIR_IN, 1000, 0, four, nq, 0);
		io_do(p, s, REQ_DIR_OUT, 1100, 0, answers, cut, 0);
		io_do(p, s, REQ_DIR_OUT, 1200, 0, answers + cut, na - cut, 0);
		CHECK_INT(nrec, 4);
		for (int i = 0; i < 4 && i < nrec; i++) {
			CHECK_INT(recs[i].status, 200);
			CHECK_INT(recs[i].req_bytes, strlen(get));
			CHECK_INT(recs[i].resp_bytes, one);
			CHECK(!recs[i].aborted);
		}
	}
	/* its end known at its last chunk: the record goes out then */
	nrec = 0;
	IN(p, t, 2000, get);
	OUT(p, t, 2100, node_head);
	OUT(p, t, 2200, node_body);
	CHECK_INT(nrec, 1);
	CHECK_INT(recs[0].duration, 200);
	pair__counters(p, &k);
	CHECK_INT(k.n_uncaptured, 0);
	CHECK_INT(k.n_unparsed, 0);
	/* a chunk of 0x1000 written whole, 2048 captured: lost, and the
	 * response runs to the next request */
	memcpy(big, "1000\r\n", 6);
	memset(big + 6, 'x', sizeof(big) - 6);
	IN(p, t, 3000, get);
	OUT(p, t, 3100, node_head);
	io_do(p, t, REQ_DIR_OUT, 3200, 0, big, 2048, 6 + 0x1000 + 2 + 5);
	CHECK_INT(nrec, 1);
	IN(p, t, 3300, get);
	CHECK_INT(nrec, 2);
	CHECK_INT(recs[1].resp_bytes, strlen(node_head) + 6 + 0x1000 + 2 + 5);
	pair__counters(p, &k);
	CHECK_INT(k.n_uncaptured, 1);
	/* cut by a close mid-body: aborted */
	nrec = 0;
	IN(p, u, 4000, get);
	OUT(p, u, 4100, node_head);
	OUT(p, u, 4200, "a\r\npart one, \r\n");
	pair__close(p, &u);
	CHECK_INT(nrec, 1);
	CHECK(recs[0].aborted);
	pair__free(p);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(body); i++)
		body[i] = (char)i;
	test_continue_server();
	test_continue_both_sides();
	test_several_cut();
	test_long_hints();
	test_pipelined();
	test_interim_only();
	test_switching();
	test_connect();
	test_body_after_answer();
	test_chunks_lost();
	test_chunked_responses();
	return t_report();
}
