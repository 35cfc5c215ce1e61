/* The pairing of a connection whose TLS plaintext comes (req_io.tls, the
 * driver's TLS probes): the handshake's ciphertext is paired as TLS until the
 * first plaintext, whose HTTP is then paired as any, its records marked tls;
 * the socket's own bytes beside it (an alert, a ticket) are counted, not
 * paired; an exchange of the ciphertext left unanswered is counted, not
 * reported. A connection whose plaintext comes first (its handshake before
 * the agent) pairs the same. PostgreSQL's TLS begins after its SSLRequest's
 * 'S'. */
#include "pair_check.h"

/* A TLS 1.3 ClientHello's first record header and handshake header (the
 * parser needs no more to name it), the server's first flight's, and a
 * client's encrypted Finished. */
static const char hello[] = "\x16\x03\x01\x00\x30\x01\x00\x00\x2c\x03\x03";
static const char server_hello[] = "\x16\x03\x03\x00\x30\x02\x00\x00\x2c\x03\x03";
static const char finished[] = "\x14\x03\x03\x00\x01\x01\x17\x03\x03\x00\x05";
static const char alert[] = "\x15\x03\x03\x00\x02\x01\x00";
static const char get[] = "GET /a HTTP/1.1\r\nHost: t\r\n\r\n";
static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi";
static const char get2[] = "GET /b HTTP/1.1\r\nHost: t\r\n\r\n";
static const char missing[] = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";

/* A TLS 1.2 ClientHello naming server NAME (SNI) into BUF; its length. */
static size_t hello_sni(uint8_t *buf, const char *name)
{
	size_t n = strlen(name), hs = 2 + 32 + 1 + 4 + 2 + 2 + 9 + n, p = 0;

	buf[p++] = 0x16, buf[p++] = 3, buf[p++] = 1;
	buf[p++] = (uint8_t)((hs + 4) >> 8), buf[p++] = (uint8_t)(hs + 4);
	buf[p++] = 1, buf[p++] = 0, buf[p++] = (uint8_t)(hs >> 8), buf[p++] = (uint8_t)hs;
	buf[p++] = 3, buf[p++] = 3;
	memset(buf + p, 0x5a, 32), p += 32;				/* random */
	buf[p++] = 0;							/* session id */
	buf[p++] = 0, buf[p++] = 2, buf[p++] = 0x13, buf[p++] = 0x01;	/* one suite */
	buf[p++] = 1, buf[p++] = 0;					/* no compression */
	buf[p++] = 0, buf[p++] = (uint8_t)(9 + n);			/* extensions */
	buf[p++] = 0, buf[p++] = 0, buf[p++] = 0, buf[p++] = (uint8_t)(5 + n);	/* server_name */
	buf[p++] = 0, buf[p++] = (uint8_t)(3 + n), buf[p++] = 0;	/* list, host_name */
	buf[p++] = 0, buf[p++] = (uint8_t)n;
	memcpy(buf + p, name, n);
	return p + n;
}

/* Bytes of a TLS call's plaintext (tls), or of the socket (!tls). */
static void tio(struct pairer *p, struct req_io io, bool tls, uint8_t dir, uint64_t ts,
		const char *s, size_t n)
{
	io.tls = tls;
	io_do(p, io, dir, ts, 0, s, n, 0);
}
#define CIPHER(p, io, dir, ts, s) tio(p, io, false, dir, ts, s, sizeof(s) - 1)
#define PLAIN(p, io, dir, ts, s) tio(p, io, true, dir, ts, s, sizeof(s) - 1)

static void check_http(const struct req_record *r, const char *path, int status,
		       uint64_t start, uint64_t end)
{
	CHECK_INT(r->proto, REQ_PROTO_HTTP);
	CHECK(r->tls);
	CHECK_STR(r->method, "GET");
	CHECK_STR(r->target, path);
	CHECK_INT(r->status, status);
	CHECK_INT(r->ts_start, start);
	CHECK_INT(r->ts_end, end);
	CHECK(!r->aborted && !r->timed_out);
}

static void test_handshake_then_plaintext(void)
{
	struct pairer *p = fresh(16);
	struct req_io s = tcp(10, 5, true, 40000, 443);
	struct pair_counters c;

	CIPHER(p, s, REQ_DIR_IN, 100, hello);
	CIPHER(p, s, REQ_DIR_OUT, 110, server_hello);
	/* the next flight ends the first exchange, as any change of direction;
	 * its own exchange is unanswered when the plaintext comes */
	CIPHER(p, s, REQ_DIR_IN, 120, finished);
	CHECK_INT(nrec, 1);
	PLAIN(p, s, REQ_DIR_IN, 130, get);
	CHECK_INT(nrec, 1);
	CHECK_INT(recs[0].proto, REQ_PROTO_TLS);
	CHECK(!recs[0].tls);
	CHECK_STR(recs[0].method, "CLIENT_HELLO");
	CHECK_INT(recs[0].side, REQ_SIDE_SERVER);
	PLAIN(p, s, REQ_DIR_OUT, 140, ok);
	CHECK_INT(nrec, 2);
	check_http(&recs[1], "/a", 200, 130, 140);
	CHECK_INT(recs[1].side, REQ_SIDE_SERVER);
	/* the unanswered exchange gave its number back: the client, which
	 * may have seen no flight past the server's (test_sni), numbers its
	 * first plaintext request 2 as well */
	CHECK_INT(recs[0].conn_seq, 1);
	CHECK_INT(recs[1].conn_seq, 2);
	CHECK_INT(recs[1].req_bytes, sizeof(get) - 1);
	CHECK_INT(recs[1].resp_bytes, sizeof(ok) - 1);
	/* a ticket or an alert on the socket itself: not the stream's */
	CIPHER(p, s, REQ_DIR_OUT, 145, alert);
	PLAIN(p, s, REQ_DIR_IN, 150, get2);
	CIPHER(p, s, REQ_DIR_IN, 155, alert);
	PLAIN(p, s, REQ_DIR_OUT, 160, missing);
	CHECK_INT(nrec, 3);
	check_http(&recs[2], "/b", 404, 150, 160);
	CHECK_INT(recs[2].conn_seq, 3);
	pair__counters(p, &c);
	CHECK_INT(c.n_tls_cipher, 2);
	CHECK_INT(c.n_tls_unanswered, 1);
	CHECK_INT(c.n_requests, 3);
	pair__free(p);
}

/* The agent came after the handshake: the plaintext is all it sees. */
/* The server name of the ClientHello is on the connection's records: the
 * handshake's and the plaintext's. */
static void test_sni(void)
{
	struct pairer *p = fresh(16);
	struct req_io cl = tcp(40, 7, false, 40003, 443);
	uint8_t ch[128];
	size_t n = hello_sni(ch, "api.example.test");

	tio(p, cl, false, REQ_DIR_OUT, 100, (const char *)ch, n);
	CIPHER(p, cl, REQ_DIR_IN, 110, server_hello);
	PLAIN(p, cl, REQ_DIR_OUT, 120, get);
	PLAIN(p, cl, REQ_DIR_IN, 130, ok);
	CHECK_INT(nrec, 2);
	CHECK_STR(recs[0].method, "CLIENT_HELLO");
	CHECK_STR(recs[0].target, "api.example.test");
	CHECK_STR(recs[0].sni, "api.example.test");
	check_http(&recs[1], "/a", 200, 120, 130);
	CHECK_STR(recs[1].sni, "api.example.test");
	CHECK_INT(recs[1].conn_seq, 2);
	pair__free(p);
	/* none asked: empty */
	p = fresh(16);
	PLAIN(p, cl, REQ_DIR_OUT, 120, get);
	PLAIN(p, cl, REQ_DIR_IN, 130, ok);
	CHECK_INT(nrec, 1);
	CHECK_STR(recs[0].sni, "");
	pair__free(p);
}

static void test_plaintext_only(void)
{
	struct pairer *p = fresh(16);
	struct req_io cl = tcp(20, 7, false, 40001, 443);
	struct pair_counters c;

	PLAIN(p, cl, REQ_DIR_OUT, 200, get);
	PLAIN(p, cl, REQ_DIR_IN, 210, ok);
	CHECK_INT(nrec, 1);
	check_http(&recs[0], "/a", 200, 200, 210);
	CHECK_INT(recs[0].side, REQ_SIDE_CLIENT);
	pair__counters(p, &c);
	CHECK_INT(c.n_tls_cipher, 0);
	CHECK_INT(c.n_tls_unanswered, 0);
	pair__free(p);
}

/* Without plaintext a TLS connection pairs as before: bytes, labelled. */
static void test_ciphertext_only(void)
{
	struct pairer *p = fresh(16);
	struct req_io s = tcp(30, 5, true, 40002, 443);

	CIPHER(p, s, REQ_DIR_IN, 100, hello);
	CIPHER(p, s, REQ_DIR_OUT, 110, server_hello);
	CIPHER(p, s, REQ_DIR_IN, 120, finished);
	CHECK_INT(nrec, 1);
	CHECK_INT(recs[0].proto, REQ_PROTO_TLS);
	CHECK(!recs[0].tls);
	pair__free(p);
}

/* PostgreSQL's encryption requests, as libpq sends them: an SSLRequest
 * answered 'S' is a record of one byte's answer, then TLS (its handshake as
 * tls records, its plaintext PostgreSQL, marked tls); answered 'N', the
 * connection stays PostgreSQL; a GSSENCRequest answered 'G' leaves bytes
 * no parser reads (GSSAPI's), paired as unknown. */
static void test_pg_encryption(void)
{
	static const char sslreq[] = "\x00\x00\x00\x08\x04\xd2\x16\x2f";
	static const char gssreq[] = "\x00\x00\x00\x08\x04\xd2\x16\x30";
	static const char startup[] = "\x00\x00\x00\x17\x00\x03\x00\x00user\x00postgres\x00\x00";
	static const char auth_ok[] = "R\x00\x00\x00\x08\x00\x00\x00\x00Z\x00\x00\x00\x05I";
	struct pairer *p = fresh(16);
	struct req_io s = tcp(20, 5, true, 40000, 5432);
	struct req_io n = tcp(20, 6, true, 40001, 5432);
	struct req_io g = tcp(20, 7, true, 40002, 5432);
	struct pair_counters c;

	CIPHER(p, s, REQ_DIR_IN, 100, sslreq);
	CIPHER(p, s, REQ_DIR_OUT, 110, "S");
	CHECK_INT(nrec, 1);	/* its answer is its one byte */
	CHECK_INT(recs[0].proto, REQ_PROTO_PGSQL);
	CHECK_STR(recs[0].method, "SSLREQUEST");
	CHECK_INT(recs[0].resp_bytes, 1);
	CHECK_INT(recs[0].duration, 10);
	CIPHER(p, s, REQ_DIR_IN, 120, hello);
	CIPHER(p, s, REQ_DIR_OUT, 130, server_hello);
	CIPHER(p, s, REQ_DIR_IN, 140, finished);
	PLAIN(p, s, REQ_DIR_IN, 150, startup);
	PLAIN(p, s, REQ_DIR_OUT, 160, auth_ok);
	PLAIN(p, s, REQ_DIR_IN, 170, "Q\x00\x00\x00\x0eselect 1;\x00");
	CHECK_INT(nrec, 3);
	CHECK_INT(recs[1].proto, REQ_PROTO_TLS);
	CHECK_STR(recs[1].method, "CLIENT_HELLO");
	CHECK_INT(recs[2].proto, REQ_PROTO_PGSQL);
	CHECK_STR(recs[2].method, "STARTUP");
	CHECK_STR(recs[2].target, "postgres");
	CHECK(recs[2].tls);

	CIPHER(p, n, REQ_DIR_IN, 100, sslreq);
	CIPHER(p, n, REQ_DIR_OUT, 110, "N");
	CIPHER(p, n, REQ_DIR_IN, 120, startup);
	CIPHER(p, n, REQ_DIR_OUT, 130, auth_ok);
	CIPHER(p, n, REQ_DIR_IN, 140, "Q\x00\x00\x00\x0eselect 1;\x00");
	CHECK_INT(nrec, 5);
	CHECK_STR(recs[3].method, "SSLREQUEST");
	CHECK_INT(recs[4].proto, REQ_PROTO_PGSQL);
	CHECK_STR(recs[4].method, "STARTUP");
	CHECK(!recs[4].tls);

	CIPHER(p, g, REQ_DIR_IN, 100, gssreq);
	CIPHER(p, g, REQ_DIR_OUT, 110, "G");
	CIPHER(p, g, REQ_DIR_IN, 120, "\x00\x00\x00\x05wrap1");
	CIPHER(p, g, REQ_DIR_OUT, 130, "\x00\x00\x00\x05wrap2");
	CIPHER(p, g, REQ_DIR_IN, 140, "\x00\x00\x00\x05wrap3");
	CHECK_INT(nrec, 7);
	CHECK_STR(recs[5].method, "GSSENCREQUEST");
	CHECK_INT(recs[5].resp_bytes, 1);
	CHECK_INT(recs[6].proto, REQ_PROTO_NONE);
	CHECK_INT(recs[6].req_bytes, 9);
	pair__counters(p, &c);
	CHECK_INT(c.n_unparsed, 0);
	pair__free(p);
}

int main(void)
{
	test_pg_encryption();
	test_handshake_then_plaintext();
	test_plaintext_only();
	test_sni();
	test_ciphertext_only();
	return t_report();
}
