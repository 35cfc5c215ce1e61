/* http__parse: requests as curl 7.88.1 and wget 1.21.3 sent them and responses
 * as nginx 1.22.1 sent them (captured on 127.0.0.1, byte for byte), every
 * prefix of each, pipelined messages, the other protocols' first bytes, and
 * hostile bytes, each parsed from an exact-size heap copy so that valgrind or
 * ASan sees any read past LEN. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/t_check.h"
#include "http.h"
#include "req_check.h"

static const char cap_get[] =
	"GET /api/v1/users?id=7&x=y HTTP/1.1\r\n"
	"Host: 127.0.0.1:18081\r\n"
	"User-Agent: curl/7.88.1\r\n"
	"Accept: */*\r\n"
	"\r\n"
	;  /* 100 bytes */
static const char cap_post[] =
	"POST /items HTTP/1.1\r\n"
	"Host: 127.0.0.1:18082\r\n"
	"User-Agent: curl/7.88.1\r\n"
	"Accept: */*\r\n"
	"Content-Type: application/json\r\n"
	"Content-Length: 23\r\n"
	"\r\n"
	"{\"name\":\"ann\",\"age\":42}"
	;  /* 160 bytes */
static const char cap_proxy[] =
	"GET http://example.com/index.html?q=1 HTTP/1.1\r\n"
	"Host: example.com\r\n"
	"User-Agent: curl/7.88.1\r\n"
	"Accept: */*\r\n"
	"Proxy-Connection: Keep-Alive\r\n"
	"\r\n"
	;  /* 137 bytes */
static const char cap_wget[] =
	"GET /dl/file.tar.gz HTTP/1.1\r\n"
	"Host: 127.0.0.1:18084\r\n"
	"User-Agent: Wget/1.21.3\r\n"
	"Accept: */*\r\n"
	"Accept-Encoding: identity\r\n"
	"Connection: Keep-Alive\r\n"
	"\r\n"
	;  /* 144 bytes */
static const char cap_r200[] =
	"HTTP/1.1 200 OK\r\n"
	"Server: nginx/1.22.1\r\n"
	"Date: Mon, 23 Nov 2026 12:37:00 GMT\r\n"
	"Content-Type: text/plain\r\n"
	"Content-Length: 17\r\n"
	"Last-Modified: Mon, 23 Nov 2026 12:37:00 GMT\r\n"
	"Connection: close\r\n"
	"ETag: \"6b04336c-11\"\r\n"
	"Accept-Ranges: bytes\r\n"
	"\r\n"
	"hello from nginx\n"
	;  /* 249 bytes */
static const char cap_r404[] =
	"HTTP/1.1 404 Not Found\r\n"
	"Server: nginx/1.22.1\r\n"
	"Date: Mon, 23 Nov 2026 12:37:00 GMT\r\n"
	"Content-Type: text/html\r\n"
	"Content-Length: 153\r\n"
	"Connection: close\r\n"
	"\r\n"
	"<html>\r\n"
	"<head><title>404 Not Found</title></head>\r\n"
	"<body>\r\n"
	"<center><h1>404 Not Found</h1></center>\r\n"
	"<hr><center>nginx/1.22.1</center>\r\n"
	"</body>\r\n"
	"</html>\r\n"
	;  /* 303 bytes */
static const char cap_r502[] =
	"HTTP/1.1 502 Bad Gateway\r\n"
	"Server: nginx/1.22.1\r\n"
	"Date: Mon, 23 Nov 2026 12:37:00 GMT\r\n"
	"Content-Type: text/html\r\n"
	"Content-Length: 157\r\n"
	"Connection: close\r\n"
	"\r\n"
	"<html>\r\n"
	"<head><title>502 Bad Gateway</title></head>\r\n"
	"<body>\r\n"
	"<center><h1>502 Bad Gateway</h1></center>\r\n"
	"<hr><center>nginx/1.22.1</center>\r\n"
	"</body>\r\n"
	"</html>\r\n"
	;  /* 309 bytes */
static const char cap_r304[] =
	"HTTP/1.1 304 Not Modified\r\n"
	"Server: nginx/1.22.1\r\n"
	"Date: Mon, 23 Nov 2026 12:37:05 GMT\r\n"
	"Last-Modified: Mon, 23 Nov 2026 12:37:00 GMT\r\n"
	"Connection: close\r\n"
	"ETag: \"6b04336c-11\"\r\n"
	"\r\n"
	;  /* 174 bytes */
static const char cap_rchunk[] =
	"HTTP/1.1 200 OK\r\n"
	"Server: nginx/1.22.1\r\n"
	"Date: Mon, 23 Nov 2026 12:37:05 GMT\r\n"
	"Content-Type: text/plain\r\n"
	"Last-Modified: Mon, 23 Nov 2026 12:37:04 GMT\r\n"
	"Transfer-Encoding: chunked\r\n"
	"Connection: close\r\n"
	"ETag: W/\"6b043370-11\"\r\n"
	"Content-Encoding: gzip\r\n"
	"\r\n"
	"25\r\n"
	"\037\213\010\000\000\000\000\000\004\003\313H\315\311\311WH+\312\317U\310K\317\314\253\340\002\000E\325\277\330\021\000\000\000\r\n"
	"0\r\n"
	"\r\n"
	;  /* 292 bytes */

/* Parses LEN bytes of S from an exact-size copy. */
static int parse(const void *s, size_t len, bool request, struct req_head *h)
{
	uint8_t *buf = malloc(len ? len : 1);
	int r;

	if (!buf)
		abort();
	memcpy(buf, s, len);
	memset(h, 0xA5, sizeof(*h));
	r = http__parse(buf, len, request, h);
	free(buf);
	return r;
}

static int parse_str(const char *s, bool request, struct req_head *h)
{
	return parse(s, strlen(s), request, h);
}

struct want {
	const char *name;
	const char *bytes;
	size_t len;
	bool request;
	const char *method, *target;
	int status;
	bool error, len_known;
	uint64_t total_len;
};

#define CAP(v) cap_##v, sizeof(cap_##v) - 1

static const struct want captured[] = {
	{ "curl GET", CAP(get), true, "GET", "/api/v1/users", -1, false, true, 100 },
	{ "curl POST", CAP(post), true, "POST", "/items", -1, false, true, 160 },
	{ "curl via proxy", CAP(proxy), true, "GET", "/index.html", -1, false, true, 137 },
	{ "wget GET", CAP(wget), true, "GET", "/dl/file.tar.gz", -1, false, true, 144 },
	{ "nginx 200", CAP(r200), false, "", "", 200, false, true, 249 },
	{ "nginx 404", CAP(r404), false, "", "", 404, false, true, 303 },
	{ "nginx 502", CAP(r502), false, "", "", 502, true, true, 309 },
	{ "nginx 304", CAP(r304), false, "", "", 304, false, true, 174 },
	{ "nginx chunked", CAP(rchunk), false, "", "", 200, false, false, 0 },
};

static void check_head(const struct want *w, const struct req_head *h)
{
	CHECK_INT(h->proto, REQ_PROTO_HTTP);
	CHECK_INT(h->request, w->request);
	CHECK_STR(h->method, w->method);
	CHECK_STR(h->target, w->target);
	CHECK_INT(h->status, w->status);
	CHECK_INT(h->error, w->error);
	CHECK_INT(h->id, 0);
	CHECK_STR(h->code, "");
}

static void test_captured(void)
{
	struct req_head h;

	for (size_t i = 0; i < sizeof(captured) / sizeof(captured[0]); i++) {
		const struct want *w = &captured[i];

		CHECK_INT(parse(w->bytes, w->len, w->request, &h), 0);
		check_head(w, &h);
		CHECK_INT(h.len_known, w->len_known);
		CHECK_INT(h.total_len, w->total_len);
		/* the other direction refuses them */
		CHECK_INT(parse(w->bytes, w->len, !w->request, &h), -ENOMSG);
		CHECK_INT(h.proto, 0);
		CHECK_INT(h.status, -1);
	}
}

/* Every prefix: -EAGAIN while the start line is cut, then 0 with the same
 * fields, the length known only once the headers are all there and then
 * the whole message's. */
static void test_prefixes(void)
{
	struct req_head h;

	for (size_t i = 0; i < sizeof(captured) / sizeof(captured[0]); i++) {
		const struct want *w = &captured[i];
		size_t head_len = (size_t)(strstr(w->bytes, "\r\n\r\n") - w->bytes) + 4;
		size_t line_len = (size_t)(strchr(w->bytes, '\n') - w->bytes) + 1;
		int bad = 0;

		for (size_t n = 0; n <= w->len; n++) {
			int r = parse(w->bytes, n, w->request, &h);

			if (n < line_len) {
				bad += r != -EAGAIN || h.proto != 0 || h.status != -1 ||
				       h.method[0] || h.target[0];
				continue;
			}
			bad += r != 0 || h.proto != REQ_PROTO_HTTP || h.status != w->status ||
			       strcmp(h.method, w->method) || strcmp(h.target, w->target) ||
			       h.error != w->error;
			if (n < head_len)
				bad += h.len_known;
			else
				bad += h.len_known != w->len_known || h.total_len != w->total_len;
		}
		if (bad)
			fprintf(stderr, "%s: %d prefixes wrong\n", w->name, bad);
		CHECK_INT(bad, 0);
	}
}

/* One message after another on a kept-alive connection. */
static void test_pipelined(void)
{
	char two[512];
	struct req_head h;
	size_t n = 0;

	memcpy(two, cap_post, sizeof(cap_post) - 1);
	memcpy(two + sizeof(cap_post) - 1, cap_get, sizeof(cap_get) - 1);
	CHECK_INT(parse(two, sizeof(cap_post) - 1 + sizeof(cap_get) - 1, true, &h), 0);
	CHECK_STR(h.method, "POST");
	CHECK(h.len_known);
	n = h.total_len;
	CHECK_INT(n, sizeof(cap_post) - 1);
	CHECK_INT(parse(two + n, sizeof(cap_get) - 1, true, &h), 0);
	CHECK_STR(h.target, "/api/v1/users");
	CHECK_INT(h.total_len, sizeof(cap_get) - 1);

	memcpy(two, cap_r304, sizeof(cap_r304) - 1);
	memcpy(two + sizeof(cap_r304) - 1, cap_r200, sizeof(cap_r200) - 1);
	CHECK_INT(parse(two, sizeof(cap_r304) - 1 + sizeof(cap_r200) - 1, false, &h), 0);
	CHECK_INT(h.total_len, sizeof(cap_r304) - 1);
	CHECK_INT(parse(two + h.total_len, sizeof(cap_r200) - 1, false, &h), 0);
	CHECK_INT(h.status, 200);
	CHECK_INT(h.total_len, sizeof(cap_r200) - 1);
}

/* The other protocols' first bytes, written by their specifications: both
 * directions refuse them. A one-byte prefix such as "P" (a PostgreSQL Parse
 * message, or POST) cannot be told apart and gives -EAGAIN; two bytes can. */
static const struct {
	const char *name;
	const char *bytes;
	size_t len;
} others[] = {
#define OTHER(n, s) { n, s, sizeof(s) - 1 }
	OTHER("RESP array", "*2\r\n$3\r\nGET\r\n$5\r\nmykey\r\n"),
	OTHER("RESP reply", "+OK\r\n"),
	OTHER("RESP bulk", "$5\r\nhello\r\n"),
	OTHER("Redis inline", "GET mykey\r\n"),
	OTHER("Redis inline path", "GET /mykey\r\n"),
	OTHER("DNS query", "\x47\x45\x01\x20\x00\x01\x00\x00\x00\x00\x00\x01\x07""example\x03""com\x00\x00\x01\x00\x01"),
	OTHER("DNS over TCP", "\x00\x1d\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x07""example\x03""com\x00\x00\x01\x00\x01"),
	OTHER("MySQL COM_QUERY", "\x12\x00\x00\x00\x03SELECT * FROM t1"),
	OTHER("MySQL greeting", "\x4a\x00\x00\x00\x0a" "8.0.36\x00\x08\x00\x00\x00"),
	OTHER("MySQL error", "\x17\x00\x00\x01\xff\x7a\x04#42S02Table 'x' ..."),
	OTHER("PostgreSQL startup", "\x00\x00\x00\x29\x00\x03\x00\x00user\x00postgres\x00""database\x00postgres\x00\x00"),
	OTHER("PostgreSQL Query", "Q\x00\x00\x00\x0dSELECT 1;\x00"),
	OTHER("PostgreSQL Parse", "P\x00\x00\x00\x10\x00SELECT 1\x00\x00\x00"),
	OTHER("PostgreSQL error", "E\x00\x00\x00\x20SERROR\x00""C42P01\x00Mrelation\x00\x00"),
	OTHER("TLS ClientHello", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\x8a\x11\x22\x33"),
	OTHER("TLS alert", "\x15\x03\x03\x00\x02\x02\x28"),
	OTHER("HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
	OTHER("HTTP/2 response line", "HTTP/2 200\r\n\r\n"),
	OTHER("HTTP/2.0 request", "GET / HTTP/2.0\r\n\r\n"),
#undef OTHER
};

static void test_others(void)
{
	struct req_head h;

	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		int rq = parse(others[i].bytes, others[i].len, true, &h);
		int rs = parse(others[i].bytes, others[i].len, false, &h);

		if (rq != -ENOMSG || rs != -ENOMSG)
			fprintf(stderr, "%s: %d %d\n", others[i].name, rq, rs);
		CHECK_INT(rq, -ENOMSG);
		CHECK_INT(rs, -ENOMSG);
		CHECK_INT(h.proto, 0);
		/* nor does any prefix give a message */
		for (size_t n = 0; n < others[i].len; n++) {
			CHECK(parse(others[i].bytes, n, true, &h) != 0);
			CHECK(parse(others[i].bytes, n, false, &h) != 0);
		}
	}
	CHECK_INT(parse("P", 1, true, &h), -EAGAIN);
	CHECK_INT(parse("Q", 1, true, &h), -ENOMSG);
	CHECK_INT(parse("H", 1, false, &h), -EAGAIN);
	CHECK_INT(parse("*", 1, false, &h), -ENOMSG);
}

/* Start lines: the forms of the target, methods, versions, statuses. */
static void test_start_lines(void)
{
	static const struct {
		const char *s;
		int rc;
		const char *method, *target;
	} reqs[] = {
		{ "GET / HTTP/1.1\r\n\r\n", 0, "GET", "/" },
		{ "HEAD /a?b HTTP/1.0\r\n\r\n", 0, "HEAD", "/a" },
		{ "PUT /x/y#frag HTTP/1.1\r\n\r\n", 0, "PUT", "/x/y" },
		{ "DELETE /?only=query HTTP/1.1\r\n\r\n", 0, "DELETE", "/" },
		{ "PATCH /p HTTP/1.1\r\n\r\n", 0, "PATCH", "/p" },
		{ "TRACE /t HTTP/1.1\r\n\r\n", 0, "TRACE", "/t" },
		{ "OPTIONS * HTTP/1.1\r\n\r\n", 0, "OPTIONS", "*" },
		{ "CONNECT example.com:443 HTTP/1.1\r\n\r\n", 0, "CONNECT", "example.com:443" },
		{ "GET http://h.example HTTP/1.1\r\n\r\n", 0, "GET", "/" },
		{ "GET https://h.example:8443?q HTTP/1.1\r\n\r\n", 0, "GET", "/" },
		{ "GET svn+ssh://h/a/b?c HTTP/1.1\r\n\r\n", 0, "GET", "/a/b" },
		{ "GET / HTTP/1.1\n\n", 0, "GET", "/" },		/* bare LF */
		{ "get / HTTP/1.1\r\n", -ENOMSG, "", "" },		/* methods are case-sensitive */
		{ "PROPFIND / HTTP/1.1\r\n", -ENOMSG, "", "" },
		{ "GETX / HTTP/1.1\r\n", -ENOMSG, "", "" },
		{ "GET * HTTP/1.1\r\n", -ENOMSG, "", "" },
		{ "CONNECT /x HTTP/1.1\r\n", -ENOMSG, "", "" },
		{ "GET example.com/x HTTP/1.1\r\n", -ENOMSG, "", "" },
		{ "GET  / HTTP/1.1\r\n", -ENOMSG, "", "" },
		{ "GET / HTTP/1.2\r\n", -ENOMSG, "", "" },
		{ "GET / HTTP/1.1 \r\n", -ENOMSG, "", "" },
		{ "GET / HTTP/1.1\rX", -ENOMSG, "", "" },
		{ "GET / http/1.1\r\n", -ENOMSG, "", "" },
		{ "GET /\x80\xff HTTP/1.1\r\n", -ENOMSG, "", "" },
		{ "GET /a\tb HTTP/1.1\r\n", -ENOMSG, "", "" },
		{ "GET \x01", -ENOMSG, "", "" },
		{ "GET /", -EAGAIN, "", "" },
		{ "GET / HTTP/1.", -EAGAIN, "", "" },
		{ "GET / HTTP/1.1\r", -EAGAIN, "", "" },
		{ "OPTIONS", -EAGAIN, "", "" },
		{ "CONNEC", -EAGAIN, "", "" },
	};
	static const struct {
		const char *s;
		int rc, status;
		bool error;
	} resps[] = {
		{ "HTTP/1.1 200 OK\r\n", 0, 200, false },
		{ "HTTP/1.0 200\r\n", 0, 200, false },			/* no reason */
		{ "HTTP/1.1 201 \r\n", 0, 201, false },
		{ "HTTP/1.1 100 Continue\r\n\r\n", 0, 100, false },
		{ "HTTP/1.1 404 Nicht gefunden \xe2\x9c\x97\r\n", 0, 404, false }, /* obs-text */
		{ "HTTP/1.1 499 Client Closed\r\n", 0, 499, false },	/* 4xx: not error */
		{ "HTTP/1.1 500 Internal Server Error\r\n", 0, 500, true },
		{ "HTTP/1.1 599 X\n", 0, 599, true },
		{ "HTTP/1.1 600 X\r\n", -ENOMSG, -1, false },
		{ "HTTP/1.1 099 X\r\n", -ENOMSG, -1, false },
		{ "HTTP/1.1 20 OK\r\n", -ENOMSG, -1, false },
		{ "HTTP/1.1 2000 OK\r\n", -ENOMSG, -1, false },
		{ "HTTP/1.1  200 OK\r\n", -ENOMSG, -1, false },
		{ "HTTP/1.2 200 OK\r\n", -ENOMSG, -1, false },
		{ "HTTP/1.1 200 OK\x7f\r\n", -ENOMSG, -1, false },
		{ "http/1.1 200 OK\r\n", -ENOMSG, -1, false },
		{ "HTTP/1.1 200 OK", -EAGAIN, -1, false },
		{ "HTTP/1.1 20", -EAGAIN, -1, false },
	};
	struct req_head h;

	for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		int r = parse_str(reqs[i].s, true, &h);

		if (r != reqs[i].rc)
			fprintf(stderr, "request %zu: %d\n", i, r);
		CHECK_INT(r, reqs[i].rc);
		CHECK_STR(h.method, reqs[i].method);
		CHECK_STR(h.target, reqs[i].target);
		CHECK_INT(h.status, -1);
		CHECK_INT(h.proto, reqs[i].rc ? 0 : REQ_PROTO_HTTP);
	}
	for (size_t i = 0; i < sizeof(resps) / sizeof(resps[0]); i++) {
		int r = parse_str(resps[i].s, false, &h);

		if (r != resps[i].rc)
			fprintf(stderr, "response %zu: %d\n", i, r);
		CHECK_INT(r, resps[i].rc);
		CHECK_INT(h.status, resps[i].status);
		CHECK_INT(h.error, resps[i].error);
		CHECK_STR(h.method, "");
		CHECK_STR(h.target, "");
	}

	/* a long path is cut to the target's size */
	char line[1200] = "GET /";
	memset(line + 5, 'a', 1000);
	strcpy(line + 1005, "?q HTTP/1.1\r\n\r\n");
	CHECK_INT(parse_str(line, true, &h), 0);
	CHECK_INT(strlen(h.target), REQ_TARGET_MAX - 1);
	CHECK(h.target[0] == '/' && h.target[REQ_TARGET_MAX - 2] == 'a');
	CHECK_INT(h.total_len, strlen(line));
}

/* The message's length from the headers. */
static void test_lengths(void)
{
	static const struct {
		const char *s;
		bool request, len_known;
		uint64_t extra;		/* the body: total_len is the head plus this */
	} cases[] = {
		{ "POST / HTTP/1.1\r\ncontent-length: 5\r\n\r\n", true, true, 5 },
		{ "POST / HTTP/1.1\r\nCONTENT-LENGTH:5 \r\n\r\n", true, true, 5 },
		{ "POST / HTTP/1.1\r\nContent-Length:\t 0\t\r\n\r\n", true, true, 0 },
		{ "POST / HTTP/1.1\r\nContent-Length: 7\r\nContent-Length: 7\r\n\r\n", true, true, 7 },
		{ "POST / HTTP/1.1\r\nContent-Length: 7\r\nContent-Length: 8\r\n\r\n", true, false, 0 },
		{ "POST / HTTP/1.1\r\nContent-Length: 12a\r\n\r\n", true, false, 0 },
		{ "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", true, false, 0 },
		{ "POST / HTTP/1.1\r\nContent-Length: +5\r\n\r\n", true, false, 0 },
		{ "POST / HTTP/1.1\r\nContent-Length: 5 5\r\n\r\n", true, false, 0 },
		{ "POST / HTTP/1.1\r\nContent-Length:\r\n\r\n", true, false, 0 },
		{ "POST / HTTP/1.1\r\nContent-Length: 0x10\r\n\r\n", true, false, 0 },
		{ "POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", true, false, 0 },
		{ "POST / HTTP/1.1\r\nContent-Length: 18446744073709551615\r\n\r\n", true, false, 0 },
		{ "POST / HTTP/1.1\r\nContent-Length: 1099511627776\r\n\r\n", true, true, 1099511627776ULL },
		{ "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", true, false, 0 },
		{ "POST / HTTP/1.1\r\nContent-Length: 3\r\ntransfer-encoding: chunked\r\n\r\n", true, false, 0 },
		{ "POST / HTTP/1.1\r\nContent-Length : 3\r\n\r\n", true, false, 0 },	/* space before colon */
		{ "POST / HTTP/1.1\r\nX-A: 1\r\n Folded\r\nContent-Length: 3\r\n\r\n", true, false, 0 },
		{ "POST / HTTP/1.1\r\nNoColon\r\nContent-Length: 3\r\n\r\n", true, false, 0 },
		{ "POST / HTTP/1.1\r\nX-A: a\rb\r\n\r\n", true, false, 0 },
		{ "POST / HTTP/1.1\r\nX-\xc3\xa9: 1\r\n\r\n", true, false, 0 },
		{ "POST / HTTP/1.1\r\nX-A: \xc3\xa9\r\n\r\n", true, true, 0 },	/* obs-text value */
		{ "GET / HTTP/1.1\r\nHost: a\r\n\r\n", true, true, 0 },
		{ "GET / HTTP/1.1\nHost: a\nContent-Length: 2\n\n", true, true, 2 },
		{ "HTTP/1.1 200 OK\r\nServer: x\r\n\r\n", false, false, 0 },	/* to the close */
		{ "HTTP/1.0 200 OK\r\nContent-Length: 4\r\n\r\n", false, true, 4 },
		{ "HTTP/1.1 204 No Content\r\n\r\n", false, true, 0 },
		{ "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", false, true, 0 },
		{ "HTTP/1.1 500 E\r\nTransfer-Encoding: chunked\r\n\r\n", false, false, 0 },
		/* no body in 1xx, 204, 304 whatever the headers say */
		{ "HTTP/1.1 304 Not Modified\r\nContent-Length: 17\r\n\r\n", false, true, 0 },
		{ "HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n", false, true, 0 },
		{ "HTTP/1.1 100 Continue\r\nContent-Length: x\r\n\r\n", false, true, 0 },
		/* headers cut by LEN: 0 and no length */
		{ "GET / HTTP/1.1\r\nHost: a\r\n", true, false, 0 },
		{ "GET / HTTP/1.1\r\nHost: a\r\n\r", true, false, 0 },
		{ "POST / HTTP/1.1\r\nContent-Length: 5", true, false, 0 },
		{ "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n", false, false, 0 },
	};
	struct req_head h;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *s = cases[i].s;
		size_t len = strlen(s);

		CHECK_INT(parse(s, len, cases[i].request, &h), 0);
		if (h.len_known != cases[i].len_known)
			fprintf(stderr, "length case %zu\n", i);
		CHECK_INT(h.len_known, cases[i].len_known);
		CHECK_INT(h.total_len, cases[i].len_known ? len + cases[i].extra : 0);
		CHECK_INT(h.proto, REQ_PROTO_HTTP);
	}

	/* a header name is any tchar run: with each of the 77 it is one, with
	 * each other byte below 128 (the colon aside) the line is no header
	 * field and the length not trusted */
	for (int c = 1; c < 128; c++) {
		char s[64];
		int n = snprintf(s, sizeof(s), "POST / HTTP/1.1\r\nX%cY: 1\r\nContent-Length: 2\r\n\r\n", c);
		bool tchar = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
			     (c >= 'A' && c <= 'Z') || memchr("!#$%&'*+-.^_`|~", c, 15) ||
			     c == ':';	/* then the name is "X" and the value "Y: 1" */

		CHECK_INT(parse(s, (size_t)n, true, &h), 0);
		if (h.len_known != tchar)
			fprintf(stderr, "header name byte 0x%02x\n", c);
		CHECK_INT(h.len_known, tchar);
		CHECK_INT(h.total_len, tchar ? (uint64_t)n + 2 : 0);
	}

	/* a header value is VCHAR, obs-text, SP and HTAB: each of the 256 bytes
	 * at each place of a 20-byte value (before, inside and after any word
	 * the parser may take at once) keeps the length, or, for any other
	 * byte (CR and LF aside: they end the line early), loses it */
	for (int c = 0; c < 256; c++) {
		for (int at = 0; at < 20; at++) {
			char s[96];
			int n = snprintf(s, sizeof(s), "POST / HTTP/1.1\r\nX-A: ");
			bool value = c == '\t' || (c >= 0x20 && c != 0x7f);

			if (c == '\r' || c == '\n')
				continue;
			for (int k = 0; k < 20; k++)
				s[n++] = k == at ? (char)c : (char)('a' + k);
			n += snprintf(s + n, sizeof(s) - (size_t)n, "\r\nContent-Length: 2\r\n\r\n");
			CHECK_INT(parse(s, (size_t)n, true, &h), 0);
			if (h.len_known != value)
				fprintf(stderr, "header value byte 0x%02x at %d\n", c, at);
			CHECK_INT(h.len_known, value);
			CHECK_INT(h.total_len, value ? (uint64_t)n + 2 : 0);
		}
	}

	/* NULs: in the status line refused, in a header value no length */
	static const char nul_status[] = "HTTP/1.1 200 O\0K\r\n\r\n";
	static const char nul_header[] = "POST / HTTP/1.1\r\nX-A: a\0b\r\nContent-Length: 3\r\n\r\n";

	CHECK_INT(parse(nul_status, sizeof(nul_status) - 1, false, &h), -ENOMSG);
	CHECK_INT(h.status, -1);
	CHECK_INT(parse(nul_header, sizeof(nul_header) - 1, true, &h), 0);
	CHECK_STR(h.method, "POST");
	CHECK(!h.len_known);
}

/* Every byte of a request and a response set to each hostile value in
 * turn: any result, but the fields stay inside their arrays and a length,
 * when known, is at least the head. */
static void test_mutations(void)
{
	static const uint8_t vals[] = { 0, '\r', '\n', ' ', ':', '?', '/', 0x7f, 0x80, 0xff, '9' };
	const struct want *ws[] = { &captured[1], &captured[5] };
	uint8_t buf[512];
	struct req_head h;
	int bad = 0;

	for (size_t k = 0; k < 2; k++) {
		for (size_t i = 0; i < ws[k]->len; i++) {
			for (size_t v = 0; v < sizeof(vals); v++) {
				int r;

				memcpy(buf, ws[k]->bytes, ws[k]->len);
				buf[i] = vals[v];
				r = parse(buf, ws[k]->len, ws[k]->request, &h);
				bad += r != 0 && r != -ENOMSG && r != -EAGAIN;
				bad += !memchr(h.method, 0, sizeof(h.method)) ||
				       !memchr(h.target, 0, sizeof(h.target)) ||
				       !memchr(h.code, 0, sizeof(h.code));
				bad += r == 0 && h.len_known && h.total_len < 18;
				bad += r != 0 && (h.proto || h.len_known);
			}
		}
	}
	CHECK_INT(bad, 0);
}

/* Interim responses: which statuses are, and where a head that came in two
 * pieces ends, cut at every byte: nginx's 100 Continue, RFC 8297's 103 with
 * its Link headers, the same with bare LFs, and a 201 after them. */
static void test_interim(void)
{
	static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
	static const char hints[] = "HTTP/1.1 103 Early Hints\r\n"
				    "Link: </style.css>; rel=preload; as=style\r\n"
				    "Link: </script.js>; rel=preload; as=script\r\n\r\n";
	static const char hints_lf[] = "HTTP/1.1 103 Early Hints\n"
				       "Link: </style.css>; rel=preload; as=style\n\n";
	static const char *const heads[] = { cont, hints, hints_lf };
	static const char after[] = "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n";
	struct req_head h;

	CHECK(http__interim(100) && http__interim(102) && http__interim(103) && http__interim(199));
	CHECK(!http__interim(101) && !http__interim(200) && !http__interim(99) &&
	      !http__interim(304) && !http__interim(-1));
	CHECK_INT(parse(hints, strlen(hints), false, &h), 0);
	CHECK_INT(h.status, 103);
	CHECK(h.len_known && !h.error);
	CHECK_INT(h.total_len, strlen(hints));
	for (size_t k = 0; k < sizeof(heads) / sizeof(heads[0]); k++) {
		char two[512];
		size_t n = strlen(heads[k]);

		snprintf(two, sizeof(two), "%s%s", heads[k], after);
		for (size_t cut = 0; cut <= n; cut++) {
			uint8_t st = HTTP_HEAD_START;
			size_t a = http__head_end(&st, (const uint8_t *)two, cut);
			size_t b = a ? 0 : http__head_end(&st, (const uint8_t *)two + cut,
							  strlen(two) - cut);

			/* found in the piece that holds the head's last byte */
			CHECK_INT(a ? a : cut + b, n);
			CHECK_INT(a != 0, cut == n);
		}
	}
	/* the empty line only: a CR inside a line, or CR CR, is not one */
	{
		static const char odd[] = "HTTP/1.1 103 X\r\nA: b\rc\r\n\r\r\nB: d\r\n\r\n";
		uint8_t st = HTTP_HEAD_START;

		CHECK_INT(http__head_end(&st, (const uint8_t *)odd, strlen(odd)), strlen(odd));
		st = HTTP_HEAD_START;
		CHECK_INT(http__head_end(&st, (const uint8_t *)odd, strlen(odd) - 1), 0);
	}
}

/* A chunked body: the head says so and where it ends; http__chunks finds the
 * body's end in one piece and cut anywhere, skips data not seen, and refuses
 * what is no chunked coding. The body as Python's http.client sends a
 * generator's (each piece a chunk), with an extension and a trailer. */
static void test_chunks(void)
{
	static const char head[] = "POST /up HTTP/1.1\r\nHost: e2e\r\n"
				   "Transfer-Encoding: chunked\r\n\r\n";
	static const char body[] = "5\r\nhello\r\n1A;ext=1\r\nabcdefghijklmnopqrstuvwxyz\r\n"
				   "0\r\nX-Sum: 7\r\n\r\n";
	static const char lf_only[] = "3\nabc\n0\n\n";
	static const char *const refused[] = {
		"x\r\n", "\r\n", "3\r\nabcX\r\n", "0\r\n\rX", "1234567890abcdef0\r\n",
	};
	struct http_chunks ch;
	struct req_head h;
	char buf[256];
	size_t n = strlen(body);

	/* the head: whole, chunked, its length; gzip alone is not walked */
	snprintf(buf, sizeof(buf), "%s%s", head, body);
	CHECK_INT(parse(buf, strlen(buf), true, &h), 0);
	CHECK(h.chunked && !h.len_known);
	CHECK_INT(h.head_len, strlen(head));
	CHECK_INT(parse_str("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n"
			    "Content-Length: 9\r\n\r\n", true, &h), 0);
	CHECK(h.chunked && !h.len_known);
	CHECK_INT(parse_str("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", true, &h), 0);
	CHECK(!h.chunked && !h.len_known);
	/* cut before the head's end: not known yet */
	CHECK_INT(parse(head, strlen(head) - 1, true, &h), 0);
	CHECK(!h.chunked);

	/* the body with the next request after it: ends at its last CRLF */
	snprintf(buf, sizeof(buf), "%sGET / HTTP/1.1\r\n\r\n", body);
	http__chunks_start(&ch);
	CHECK_INT(http__chunks(&ch, (const uint8_t *)buf, strlen(buf)), n);
	CHECK_INT(ch.state, 0);
	for (size_t cut = 0; cut <= n; cut++) {
		long a, b;

		http__chunks_start(&ch);
		a = http__chunks(&ch, (const uint8_t *)buf, cut);
		CHECK_INT(a, cut == n ? (long)n : (long)cut);
		CHECK(cut == n ? !ch.state : ch.state);
		if (cut == n)
			continue;
		b = http__chunks(&ch, (const uint8_t *)buf + cut, strlen(buf) - cut);
		CHECK_INT(a + b, n);
		CHECK_INT(ch.state, 0);
	}
	http__chunks_start(&ch);
	CHECK_INT(http__chunks(&ch, (const uint8_t *)lf_only, strlen(lf_only)), strlen(lf_only));
	CHECK_INT(ch.state, 0);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		http__chunks_start(&ch);
		CHECK_INT(http__chunks(&ch, (const uint8_t *)refused[i], strlen(refused[i])), -EPROTO);
		CHECK_INT(ch.state, 0);
	}
	/* data past the snaplen: skipped inside a chunk, not over its end */
	http__chunks_start(&ch);
	CHECK_INT(http__chunks(&ch, (const uint8_t *)"1000\r\nab", 8), 8);
	CHECK(http__chunks_skip(&ch, 4080));
	CHECK_INT(http__chunks(&ch, (const uint8_t *)"cdefghijklmnop\r\n0\r\n\r\n", 21), 21);
	CHECK_INT(ch.state, 0);
	http__chunks_start(&ch);
	CHECK_INT(http__chunks(&ch, (const uint8_t *)"10\r\nab", 6), 6);
	CHECK(!http__chunks_skip(&ch, 15));
	CHECK_INT(ch.state, 0);
}

int main(void)
{
	test_captured();
	test_prefixes();
	test_pipelined();
	test_others();
	req_refuse_foreign(http__parse, REQ_PROTO_HTTP);
	test_start_lines();
	test_lengths();
	test_mutations();
	test_interim();
	test_chunks();
	return t_report();
}
