/* The pairing on syscall sequences as servers and clients make them:
 * keep-alive, requests over several reads, a 1 MB response over sendfile,
 * Redis pipelining (cut by the read too), both sides on one host, a close
 * mid-response, timeouts, DNS over UDP, MySQL errors, MySQL's handshake
 * (mysql_wire.h: the server first, an auth switch, failed logins, SSL),
 * unknown bytes and full tables; the connection's TCP state the syscalls
 * carry, per request. Every record's fields are checked. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mysql_wire.h"
#include "pair_check.h"

static const char http_ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
static const char http_404[] = "HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\nno!";

static void test_keepalive(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(100, 5, true, 40000, 80);

	IN(p, s, 1000, "GET /a?x=1 HTTP/1.1\r\nHost: h\r\n\r\n");
	OUT(p, s, 1500, http_ok);
	IN(p, s, 3000, "GET /b HTTP/1.1\r\nHost: h\r\n\r\n");
	OUT(p, s, 3100, http_404);
	IN(p, s, 5000, "POST /c HTTP/1.1\r\nContent-Length: 4\r\n\r\nbody");
	OUT(p, s, 5200, http_ok);
	CHECK_INT(nrec, 3);	/* each completes at its last byte */
	CHECK_INT(recs[0].proto, REQ_PROTO_HTTP);
	CHECK_INT(recs[0].side, REQ_SIDE_SERVER);
	CHECK_STR(recs[0].method, "GET");
	CHECK_STR(recs[0].target, "/a");
	CHECK_INT(recs[0].status, 200);
	CHECK_INT(recs[0].duration, 500);
	CHECK_INT(recs[0].ttfb, 500);
	CHECK_INT(recs[0].conn_seq, 1);
	CHECK_INT(recs[0].req_bytes, strlen("GET /a?x=1 HTTP/1.1\r\nHost: h\r\n\r\n"));
	CHECK_INT(recs[0].resp_bytes, strlen(http_ok));
	CHECK_INT(recs[0].client.port, 40000);
	CHECK_INT(recs[0].server.port, 80);
	CHECK(recs[0].server.local && !recs[0].client.local && !recs[0].both_sides);
	CHECK_INT(recs[0].server.pid, 100);
	CHECK_STR(recs[0].server.comm, "srv");
	CHECK_STR(recs[1].target, "/b");
	CHECK_INT(recs[1].status, 404);
	CHECK(!recs[1].error);
	CHECK_INT(recs[1].conn_seq, 2);
	CHECK_INT(recs[1].duration, 100);
	CHECK_STR(recs[2].method, "POST");
	CHECK_INT(recs[2].req_bytes, strlen("POST /c HTTP/1.1\r\nContent-Length: 4\r\n\r\nbody"));
	CHECK_INT(recs[2].conn_id, recs[0].conn_id);
	pair__close(p, &s);
	CHECK_INT(nrec, 3);
	pair__free(p);
}

/* Headers over three reads; the response's head in one write and its body
 * (1 MiB, sendfile: no bytes captured) in four. */
static void test_split_and_big(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(100, 5, true, 40000, 80);
	static const char head[] = "HTTP/1.1 200 OK\r\nContent-Length: 1048576\r\n\r\n";

	IN(p, s, 1000, "GET /big HT");
	IN(p, s, 1100, "TP/1.1\r\nHost: h\r\n");
	IN(p, s, 1200, "\r\n");
	OUT(p, s, 2000, head);
	for (int i = 0; i < 4; i++)
		io_do(p, s, REQ_DIR_OUT, 3000 + i * 1000, 0, NULL, 0, 262144);
	CHECK_INT(nrec, 1);
	CHECK_STR(recs[0].target, "/big");
	CHECK_INT(recs[0].status, 200);
	CHECK_INT(recs[0].ts_start, 1000);
	CHECK_INT(recs[0].duration, 6000 - 1000);
	CHECK_INT(recs[0].ttfb, 1000);
	CHECK_INT(recs[0].resp_bytes, strlen(head) + 1048576);
	CHECK_INT(recs[0].req_bytes, strlen("GET /big HTTP/1.1\r\nHost: h\r\n\r\n"));
	CHECK(!recs[0].aborted);
	pair__free(p);
}

static void test_close_mid_response(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(100, 5, true, 40000, 80);

	IN(p, s, 1000, "GET /cut HTTP/1.1\r\n\r\n");
	OUT(p, s, 2000, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nabc");
	CHECK_INT(nrec, 0);
	pair__close(p, &s);
	CHECK_INT(nrec, 1);
	CHECK(recs[0].aborted);
	CHECK_INT(recs[0].status, 200);
	CHECK_INT(recs[0].duration, 1000);
	/* a request never answered before the close: aborted, no response */
	IN(p, s, 4000, "GET /x HTTP/1.1\r\n\r\n");
	pair__close(p, &s);
	CHECK_INT(nrec, 2);
	CHECK(recs[1].aborted);
	CHECK_INT(recs[1].status, -1);
	CHECK_INT(recs[1].ttfb, 0);
	CHECK_INT(recs[1].conn_seq, 1);	/* a new connection on the same fd */
	pair__free(p);
}

static void test_timeout(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(100, 5, true, 40000, 80);
	struct pair_counters pc;

	IN(p, s, 1000, "GET /slow HTTP/1.1\r\n\r\n");
	pair__expire(p, 1000 + 5000000000ull);
	CHECK_INT(nrec, 0);
	pair__expire(p, 1000 + 10000000001ull);
	CHECK_INT(nrec, 1);
	CHECK(recs[0].timed_out);
	CHECK_INT(recs[0].duration, 10000000000ull);
	pair__counters(p, &pc);
	CHECK_INT(pc.n_timeouts, 1);
	CHECK_INT(pc.n_requests, 1);
	pair__free(p);
}

/* 16 pipelined SETs in one read and their 16 replies in one write; then 10
 * GETs whose read ends in the middle of the fifth. */
static void test_redis_pipeline(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(200, 7, true, 40001, 6379);
	char buf[2048], rep[256];
	size_t n = 0, m = 0, cut = 0;

	for (int i = 0; i < 16; i++) {
		n += (size_t)sprintf(buf + n, "*3\r\n$3\r\nSET\r\n$5\r\nkey%02d\r\n$1\r\nv\r\n", i);
		m += (size_t)sprintf(rep + m, "+OK\r\n");
	}
	io_do(p, s, REQ_DIR_IN, 1000, 0, buf, n, 0);
	io_do(p, s, REQ_DIR_OUT, 2000, 0, rep, m, 0);
	CHECK_INT(nrec, 16);
	CHECK_STR(recs[0].method, "SET");
	CHECK_STR(recs[0].target, "key00");
	CHECK_STR(recs[15].target, "key15");
	CHECK_INT(recs[15].conn_seq, 16);
	CHECK_INT(recs[3].req_bytes, strlen("*3\r\n$3\r\nSET\r\n$5\r\nkey03\r\n$1\r\nv\r\n"));
	CHECK_INT(recs[3].resp_bytes, 5);
	CHECK_INT(recs[7].duration, 1000);
	n = m = 0;
	for (int i = 0; i < 10; i++) {
		if (i == 4)
			cut = n + 9;
		n += (size_t)sprintf(buf + n, "*2\r\n$3\r\nGET\r\n$5\r\nkey%02d\r\n", i);
		m += (size_t)sprintf(rep + m, i == 9 ? "$-1\r\n" : "$1\r\nv\r\n");
	}
	io_do(p, s, REQ_DIR_IN, 3000, 0, buf, cut, 0);
	io_do(p, s, REQ_DIR_IN, 3100, 0, buf + cut, n - cut, 0);
	io_do(p, s, REQ_DIR_OUT, 4000, 0, rep, m - 5, 0);
	CHECK_INT(nrec, 16 + 9);
	io_do(p, s, REQ_DIR_OUT, 4100, 0, rep + m - 5, 5, 0);
	CHECK_INT(nrec, 26);
	CHECK_STR(recs[16 + 4].method, "GET");
	CHECK_STR(recs[16 + 4].target, "key04");
	CHECK_INT(recs[16 + 4].ts_start, 3000);	/* its first bytes came in the first read */
	CHECK_INT(recs[16 + 9].duration, 4100 - 3100);
	/* an error reply */
	IN(p, s, 5000, "*2\r\n$4\r\nINCR\r\n$5\r\nkey00\r\n");
	OUT(p, s, 5100, "-ERR value is not an integer or out of range\r\n");
	CHECK_INT(nrec, 27);
	CHECK(recs[26].error);
	CHECK_STR(recs[26].code, "ERR");
	pair__free(p);
}

/* A client and a server on this host: one record each, naming each other. */
static void test_both_sides(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(100, 5, true, 40000, 80), c = tcp(300, 3, false, 40000, 80);

	io_do(p, c, REQ_DIR_OUT, 900, 850, "GET / HTTP/1.1\r\n\r\n", 18, 0);
	IN(p, s, 1000, "GET / HTTP/1.1\r\n\r\n");
	OUT(p, s, 1500, http_ok);
	IN(p, c, 1600, http_ok);
	CHECK_INT(nrec, 2);
	CHECK_INT(recs[0].side, REQ_SIDE_SERVER);
	CHECK_INT(recs[1].side, REQ_SIDE_CLIENT);
	for (int i = 0; i < 2; i++) {
		CHECK(recs[i].both_sides);
		CHECK_INT(recs[i].client.pid, 300);
		CHECK_STR(recs[i].client.comm, "cli");
		CHECK_INT(recs[i].server.pid, 100);
		CHECK_STR(recs[i].server.comm, "srv");
		CHECK_INT(recs[i].client.port, 40000);
		CHECK_INT(recs[i].server.port, 80);
	}
	CHECK_INT(recs[1].ts_start, 850);	/* the client's write began there */
	CHECK_INT(recs[1].duration, 1600 - 850);
	CHECK(recs[0].duration <= recs[1].duration);
	CHECK_INT(recs[1].ttfb, 1600 - 850);
	/* the server closes before its client reads: still one request, both named */
	io_do(p, c, REQ_DIR_OUT, 2000, 0, "GET /2 HTTP/1.1\r\n\r\n", 19, 0);
	IN(p, s, 2100, "GET /2 HTTP/1.1\r\n\r\n");
	OUT(p, s, 2200, "HTTP/1.1 200 OK\r\n\r\n");
	pair__close(p, &s);
	IN(p, c, 2400, "HTTP/1.1 200 OK\r\n\r\n");
	pair__close(p, &c);
	CHECK_INT(nrec, 4);
	CHECK(recs[2].both_sides && recs[3].both_sides);
	CHECK_INT(recs[3].side, REQ_SIDE_CLIENT);
	CHECK_INT(recs[3].server.pid, 100);
	CHECK_STR(recs[3].server.comm, "srv");
	pair__free(p);

	/* exit-only times: the server's read returned before the client's
	 * write did, and the client's read before the server's write: the
	 * later record is made to nest with the earlier */
	p = fresh(0);
	IN(p, s, 990, "GET /r HTTP/1.1\r\n\r\n");
	io_do(p, c, REQ_DIR_OUT, 1000, 0, "GET /r HTTP/1.1\r\n\r\n", 19, 0);
	IN(p, c, 1495, http_ok);
	OUT(p, s, 1500, http_ok);
	CHECK_INT(nrec, 2);
	CHECK_INT(recs[0].side, REQ_SIDE_CLIENT);
	CHECK_INT(recs[0].duration, 495);
	CHECK_INT(recs[1].side, REQ_SIDE_SERVER);
	CHECK_INT(recs[1].ts_start, 1000);
	CHECK_INT(recs[1].duration, 495);
	CHECK(recs[1].duration <= recs[0].duration);
	pair__free(p);
}

/* A pipelined batch seen from both sides, timed at the calls' exits: each
 * of its requests' server-side record lies within its client-side one,
 * whichever side's records were made first, and also when the server's
 * were made before the client's connection was first seen. */
static void check_nested(int first, int n)
{
	for (int i = 0; i < n; i++) {
		const struct req_record *a = &recs[first + i], *b = &recs[first + n + i];
		const struct req_record *srv = a->side == REQ_SIDE_SERVER ? a : b;
		const struct req_record *cli = a->side == REQ_SIDE_SERVER ? b : a;

		CHECK_INT(srv->side, REQ_SIDE_SERVER);
		CHECK_INT(cli->side, REQ_SIDE_CLIENT);
		CHECK_INT(srv->conn_seq, cli->conn_seq);
		CHECK(srv->both_sides && cli->both_sides);
		CHECK(srv->ts_start >= cli->ts_start && srv->ts_end <= cli->ts_end);
		CHECK(srv->duration <= cli->duration);
		CHECK(srv->ttfb <= srv->duration && cli->ttfb <= cli->duration);
	}
}

static void test_both_sides_pipelined(void)
{
	struct req_io s = tcp(100, 5, true, 40000, 6379), c = tcp(300, 3, false, 40000, 6379);
	char buf[1024], rep[128];
	size_t n = 0, m = 0;
	struct pairer *p;

	for (int i = 0; i < 16; i++) {
		n += (size_t)sprintf(buf + n, "*3\r\n$3\r\nSET\r\n$5\r\nkey%02d\r\n$1\r\nv\r\n", i);
		m += (size_t)sprintf(rep + m, "+OK\r\n");
	}
	/* the server's read returns before the client's write does, and:
	 * (0) the client's read before the server's write, so the client's
	 * records come first (the e2e_req_redis failure: seq 1-15 did not
	 * nest); (1) the server's records first, the client's made to hold them */
	for (int order = 0; order < 2; order++) {
		p = fresh(0);
		io_do(p, s, REQ_DIR_IN, 990, 0, buf, n, 0);
		io_do(p, c, REQ_DIR_OUT, 1000, 0, buf, n, 0);
		io_do(p, order ? s : c, order ? REQ_DIR_OUT : REQ_DIR_IN, 1495, 0, rep, m, 0);
		CHECK_INT(nrec, 16);
		io_do(p, order ? c : s, order ? REQ_DIR_IN : REQ_DIR_OUT, 1500, 0, rep, m, 0);
		CHECK_INT(nrec, 32);
		check_nested(0, 16);
		CHECK_INT(recs[16].ts_start, order ? 990 : 1000);
		CHECK_INT(recs[16].duration, order ? 510 : 495);
		pair__free(p);
	}

	/* the client's write is stamped after the server had answered: (0)
	 * its connection is first seen after the server's records were made,
	 * its own hold them; (1) it is followed from its connect (as the agent
	 * does), so the server's records name it too and nest */
	for (int conn = 0; conn < 2; conn++) {
		p = fresh(0);
		if (conn) {
			struct req_io cc = c;

			CHECK_INT(pair__connect(p, &cc), 0);
			cc.accepted = true;
			CHECK_INT(pair__connect(p, &cc), -EINVAL);	/* an accepted socket */
			cc.accepted = false;
			cc.family = 1;
			CHECK_INT(pair__connect(p, &cc), -EINVAL);	/* not IPv4 or IPv6 */
		}
		io_do(p, s, REQ_DIR_IN, 990, 0, buf, n, 0);
		io_do(p, s, REQ_DIR_OUT, 1005, 0, rep, m, 0);
		CHECK_INT(nrec, 16);
		io_do(p, c, REQ_DIR_OUT, 1010, 0, buf, n, 0);
		io_do(p, c, REQ_DIR_IN, 1020, 0, rep, m, 0);
		CHECK_INT(nrec, 32);
		for (int i = 0; i < 16; i++) {
			CHECK(recs[16 + i].both_sides);
			CHECK_INT(recs[16 + i].ts_start, 990);
			CHECK_INT(recs[16 + i].duration, 30);
			CHECK(recs[i].duration <= recs[16 + i].duration);
		}
		if (conn) {
			check_nested(0, 16);
			CHECK_INT(recs[0].client.pid, 300);
			CHECK_STR(recs[0].client.comm, "cli");
		}
		pair__free(p);
	}

	/* a connect()ed socket that reads a request serves it (its first bytes
	 * say so), and its peer that accepted is its client */
	p = fresh(0);
	CHECK_INT(pair__connect(p, &c), 0);
	IN(p, c, 2000, "GET /rev HTTP/1.1\r\n\r\n");
	OUT(p, c, 2100, http_ok);
	CHECK_INT(nrec, 1);
	CHECK_INT(recs[0].side, REQ_SIDE_SERVER);
	CHECK_STR(recs[0].target, "/rev");
	CHECK_INT(recs[0].server.port, 40000);
	pair__free(p);

	/* a response that runs to the close: the client's close is stamped
	 * before the server's, whose FIN it read, so the client's connection is
	 * gone when the server's record is made: it still names the client (the
	 * e2e_req_containers failure: one server record of 25 without it) */
	p = fresh(0);
	OUT(p, c, 1000, "GET /c HTTP/1.0\r\n\r\n");
	IN(p, s, 1010, "GET /c HTTP/1.0\r\n\r\n");
	OUT(p, s, 1100, "HTTP/1.0 200 OK\r\n\r\nbody");
	IN(p, c, 1110, "HTTP/1.0 200 OK\r\n\r\nbody");
	pair__close(p, &c);
	pair__close(p, &s);
	CHECK_INT(nrec, 2);
	CHECK_INT(recs[0].side, REQ_SIDE_CLIENT);
	CHECK_INT(recs[1].side, REQ_SIDE_SERVER);
	CHECK(recs[0].both_sides && recs[1].both_sides);
	CHECK_INT(recs[1].client.pid, 300);
	CHECK_STR(recs[1].client.comm, "cli");
	pair__free(p);

	/* the client's first request is the server's second (the client was
	 * first seen reading a response): a record never nests with another
	 * request's */
	p = fresh(0);
	IN(p, s, 100, "GET /a HTTP/1.1\r\n\r\n");
	OUT(p, s, 200, http_ok);
	IN(p, c, 210, http_ok);
	OUT(p, c, 300, "GET /bb HTTP/1.1\r\n\r\n");
	IN(p, s, 310, "GET /bb HTTP/1.1\r\n\r\n");
	OUT(p, s, 400, http_ok);
	IN(p, c, 410, http_ok);
	CHECK_INT(nrec, 3);
	CHECK_INT(recs[2].side, REQ_SIDE_CLIENT);
	CHECK_STR(recs[2].target, "/bb");
	CHECK_INT(recs[2].ts_start, 300);
	CHECK_INT(recs[2].duration, 110);
	pair__free(p);
}

static size_t dns_msg(uint8_t *b, uint16_t id, bool resp, uint8_t rcode)
{
	static const uint8_t q[] = { 3, 'w', 'w', 'w', 4, 't', 'e', 's', 't', 0, 0, 1, 0, 1 };
	size_t n = 0;

	b[n++] = id >> 8;
	b[n++] = id & 0xff;
	b[n++] = resp ? 0x81 : 0x01;
	b[n++] = resp ? 0x80 | rcode : 0;
	b[n++] = 0, b[n++] = 1;		/* one question */
	memset(b + n, 0, 6);
	n += 6;
	memcpy(b + n, q, sizeof(q));
	return n + sizeof(q);
}

static void test_dns_udp(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = { .pid = 400, .tid = 400, .fd = 4, .family = 2, .l4proto = 17,
			    .has_peer = true, .comm = "dnsd" };
	uint8_t q1[64], q2[64], r1[64], r2[64];
	size_t n1 = dns_msg(q1, 0x1111, false, 0), n2 = dns_msg(q2, 0x2222, false, 0);

	inet_pton(AF_INET, "127.0.0.1", s.dip);
	s.dport = 53;
	inet_pton(AF_INET, "127.0.0.1", s.peer_ip);
	s.peer_port = 5555;
	io_do(p, s, REQ_DIR_IN, 1000, 0, (char *)q1, n1, 0);
	s.peer_port = 5556;
	io_do(p, s, REQ_DIR_IN, 1100, 0, (char *)q2, n2, 0);
	/* answered out of order */
	io_do(p, s, REQ_DIR_OUT, 1300, 0, (char *)r2, dns_msg(r2, 0x2222, true, 3), 0);
	s.peer_port = 5555;
	io_do(p, s, REQ_DIR_OUT, 1400, 0, (char *)r1, dns_msg(r1, 0x1111, true, 0), 0);
	CHECK_INT(nrec, 2);
	CHECK_INT(recs[0].proto, REQ_PROTO_DNS);
	CHECK_INT(recs[0].dns_id, 0x2222);
	CHECK_INT(recs[0].status, 3);
	CHECK_INT(recs[0].duration, 200);
	CHECK_INT(recs[0].client.port, 5556);
	CHECK_INT(recs[0].server.port, 53);
	CHECK_STR(recs[0].method, "A");
	CHECK_STR(recs[0].target, "www.test");
	CHECK_INT(recs[0].side, REQ_SIDE_SERVER);
	CHECK_INT(recs[1].dns_id, 0x1111);
	CHECK_INT(recs[1].status, 0);
	CHECK_INT(recs[1].duration, 400);
	CHECK_INT(recs[1].req_bytes, n1);
	pair__free(p);

	/* both sides on this host, timed at the calls' exits: the server's read
	 * returns before the client's sendto does, the client's read before
	 * the server's reply: its record nests in the client's (by the
	 * client's port and the id), whichever is made first */
	for (int order = 0; order < 2; order++) {
		struct req_io c = { .pid = 500, .tid = 500, .fd = 3, .family = 2, .l4proto = 17,
				    .has_peer = true, .comm = "dig" };
		const struct req_record *srv, *cli;

		p = fresh(0);
		inet_pton(AF_INET, "127.0.0.1", c.sip);
		c.sport = 5555;
		memcpy(c.peer_ip, s.dip, 16);
		c.peer_port = 53;
		io_do(p, s, REQ_DIR_IN, 990, 0, (char *)q1, n1, 0);
		io_do(p, c, REQ_DIR_OUT, 1000, 0, (char *)q1, n1, 0);
		dns_msg(r1, 0x1111, true, 0);
		io_do(p, order ? s : c, order ? REQ_DIR_OUT : REQ_DIR_IN, 1495, 0, (char *)r1, n1, 0);
		io_do(p, order ? c : s, order ? REQ_DIR_IN : REQ_DIR_OUT, 1500, 0, (char *)r1, n1, 0);
		CHECK_INT(nrec, 2);
		srv = &recs[order ? 0 : 1];
		cli = &recs[order ? 1 : 0];
		CHECK_INT(srv->side, REQ_SIDE_SERVER);
		CHECK_INT(cli->side, REQ_SIDE_CLIENT);
		CHECK_INT(srv->client.port, 5555);
		CHECK_INT(cli->client.port, 5555);
		CHECK(srv->ts_start >= cli->ts_start && srv->ts_end <= cli->ts_end);
		CHECK_INT(srv->duration, order ? 505 : 495);
		CHECK_INT(cli->duration, order ? 510 : 495);
		pair__free(p);
	}

	/* a client that never bound nor connected: its sendto's enter names no
	 * port of its own (the kernel binds it in the call), its answer does,
	 * on no address of its own (0.0.0.0); the server saw 127.0.0.1:5555 */
	{
		struct req_io c = { .pid = 500, .tid = 500, .fd = 3, .family = 2, .l4proto = 17,
				    .has_peer = true, .comm = "py" };
		static const uint8_t any[16];
		const struct req_record *srv, *cli;

		p = fresh(0);
		/* the peer is dst too, as request mode's io__tuple gives it */
		memcpy(c.dip, s.dip, 16);
		c.dport = 53;
		memcpy(c.peer_ip, s.dip, 16);
		c.peer_port = 53;
		s.peer_port = 5555;
		io_do(p, c, REQ_DIR_OUT, 1000, 0, (char *)q1, n1, 0);
		io_do(p, s, REQ_DIR_IN, 1010, 0, (char *)q1, n1, 0);
		io_do(p, s, REQ_DIR_OUT, 1400, 0, (char *)r1, n1, 0);
		c.sport = 5555;
		io_do(p, c, REQ_DIR_IN, 1500, 0, (char *)r1, n1, 0);
		CHECK_INT(nrec, 2);
		srv = &recs[0];
		cli = &recs[1];
		CHECK_INT(cli->side, REQ_SIDE_CLIENT);
		CHECK_INT(cli->client.port, 5555);
		CHECK(memcmp(cli->client.ip, any, 16) == 0);
		CHECK_INT(cli->server.port, 53);
		CHECK(memcmp(cli->server.ip, s.dip, 16) == 0);
		CHECK_INT(srv->client.port, 5555);
		/* the client's finds the server; the server answered before any
		 * call of the client named its port */
		CHECK(cli->both_sides && !srv->both_sides);
		CHECK_INT(cli->server.pid, 400);
		/* the next exchange: each finds the other, the server's record
		 * the client by its port (0.0.0.0 to it, 127.0.0.1 to the server) */
		dns_msg(q2, 0x2222, false, 0);
		io_do(p, c, REQ_DIR_OUT, 2000, 0, (char *)q2, n2, 0);
		io_do(p, s, REQ_DIR_IN, 2010, 0, (char *)q2, n2, 0);
		io_do(p, s, REQ_DIR_OUT, 2400, 0, (char *)r2, dns_msg(r2, 0x2222, true, 0), 0);
		io_do(p, c, REQ_DIR_IN, 2500, 0, (char *)r2, n2, 0);
		CHECK_INT(nrec, 4);
		CHECK(recs[2].side == REQ_SIDE_SERVER && recs[2].both_sides);
		CHECK_INT(recs[2].client.pid, 500);
		CHECK_INT(recs[2].client.port, 5555);
		CHECK(recs[3].side == REQ_SIDE_CLIENT && recs[3].both_sides);
		CHECK_INT(recs[3].client.port, 5555);
		CHECK_INT(recs[3].server.pid, 400);
		pair__free(p);
	}
}

static size_t mysql_pkt(char *b, uint8_t seq, const char *payload, size_t n)
{
	b[0] = (char)(n & 0xff);
	b[1] = (char)(n >> 8);
	b[2] = 0;
	b[3] = (char)seq;
	memcpy(b + 4, payload, n);
	return n + 4;
}

static void test_mysql_burst(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(500, 9, true, 40002, 3306);
	char q[64], e[64], ok[16];
	static const char err[] = "\xff\x7a\x04#42S02Table 'x' doesn't exist";
	size_t nq = mysql_pkt(q, 0, "\x03SELECT * FROM x", 16);
	size_t ne = mysql_pkt(e, 1, err, sizeof(err) - 1);
	size_t nok = mysql_pkt(ok, 1, "\x00\x00\x00\x02\x00\x00\x00", 7);

	/* the server speaks first: bytes too short for a greeting, read by a
	 * client whose socket was connected (port 40002 -> 3306) */
	io_do(p, tcp(501, 4, false, 40002, 3306), REQ_DIR_IN, 900, 0,
	      "\x0a\x00\x00\x00\x0a" "10.11.6-MariaDB", 20, 0);
	io_do(p, s, REQ_DIR_IN, 1000, 0, q, nq, 0);
	io_do(p, s, REQ_DIR_OUT, 1200, 0, e, ne, 0);
	CHECK_INT(nrec, 0);	/* a burst ends where the next request begins */
	io_do(p, s, REQ_DIR_IN, 2000, 0, q, nq, 0);
	CHECK_INT(nrec, 1);
	CHECK_INT(recs[0].proto, REQ_PROTO_MYSQL);
	CHECK_STR(recs[0].method, "QUERY");
	CHECK_STR(recs[0].target, "SELECT * FROM x");
	CHECK(recs[0].error);
	CHECK_INT(recs[0].status, 1146);
	CHECK_STR(recs[0].code, "42S02");
	CHECK_INT(recs[0].duration, 200);
	io_do(p, s, REQ_DIR_OUT, 2100, 0, ok, nok, 0);
	pair__close(p, &s);
	CHECK_INT(nrec, 2);
	/* the client's login and the server's OK: one exchange, seen from the
	 * client's side (the greeting answered nothing: counted, no record) */
	io_do(p, tcp(501, 4, false, 40002, 3306), REQ_DIR_OUT, 2200, 0, "\x05\x00\x00\x01zzzzz", 9, 0);
	io_do(p, tcp(501, 4, false, 40002, 3306), REQ_DIR_IN, 2300, 0, ok, nok, 0);
	{
		struct req_io g = tcp(501, 4, false, 40002, 3306);

		pair__close(p, &g);
	}
	CHECK_INT(nrec, 3);
	CHECK_INT(recs[2].side, REQ_SIDE_CLIENT);
	CHECK_INT(recs[2].client.port, 40002);
	CHECK_INT(recs[2].server.port, 3306);
	CHECK(!recs[1].error);
	CHECK(!recs[1].aborted);	/* the burst was its whole response */
	pair__free(p);
}

/* A whole MySQL message of the wire's: IN or OUT at TS. */
#define MY_IN(p, io, ts, m) io_do(p, io, REQ_DIR_IN, ts, 0, (const char *)(m), sizeof(m) - 1, 0)
#define MY_OUT(p, io, ts, m) io_do(p, io, REQ_DIR_OUT, ts, 0, (const char *)(m), sizeof(m) - 1, 0)
#define MY_LEN(m) (sizeof(m) - 1)

/* Record I: MySQL's, METHOD and TARGET, with REQ and RESP bytes. */
static void my_rec_at(int line, int i, const char *method, const char *target, uint64_t req,
		      uint64_t resp)
{
	int failed = t_failed;

	CHECK_INT(recs[i].proto, REQ_PROTO_MYSQL);
	CHECK_STR(recs[i].method, method);
	CHECK_STR(recs[i].target, target);
	CHECK_INT(recs[i].req_bytes, req);
	CHECK_INT(recs[i].resp_bytes, resp);
	if (t_failed != failed)
		fprintf(stderr, "  (record %d, line %d)\n", i, line);
}
#define my_rec(i, method, target, req, resp) my_rec_at(__LINE__, i, method, target, req, resp)

/* Every byte went to a request: no message refused, no response unmatched. */
static void my_done(struct pairer *p)
{
	struct pair_counters pc;

	pair__counters(p, &pc);
	CHECK_INT(pc.n_unparsed, 0);
	CHECK_INT(pc.n_unmatched, 0);
	pair__free(p);
}

/* The first exchange of a MySQL connection: the server's greeting (no
 * request of its own, its bytes the login's response's), the login, its OK:
 * one HANDSHAKE record, USER@DATABASE as the login names them; then the
 * statements mariadb-slap sends with their NUL. */
static void test_mysql_handshake(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(700, 9, true, 40100, 3306);

	MY_OUT(p, s, 900, slap_greeting);
	MY_IN(p, s, 1000, slap_login);
	MY_OUT(p, s, 1100, slap_login_ok);
	CHECK_INT(nrec, 0);
	MY_IN(p, s, 2000, slap_insert);
	CHECK_INT(nrec, 1);
	my_rec(0, "HANDSHAKE", "root@mysqlslap", MY_LEN(slap_login),
	       MY_LEN(slap_greeting) + MY_LEN(slap_login_ok));
	CHECK_INT(recs[0].side, REQ_SIDE_SERVER);
	CHECK(!recs[0].error);
	CHECK_INT(recs[0].status, -1);
	CHECK_STR(recs[0].code, "");
	CHECK_INT(recs[0].conn_seq, 1);
	CHECK_INT(recs[0].ts_start, 1000);	/* the login's, not the greeting's */
	CHECK_INT(recs[0].duration, 100);
	MY_OUT(p, s, 2100, slap_insert_ok);
	MY_IN(p, s, 3000, slap_select);
	CHECK_INT(nrec, 2);
	CHECK_STR(recs[1].method, "QUERY");
	CHECK(!strncmp(recs[1].target, "INSERT INTO t1 VALUES (1804289383,'mxvtvm", 41));
	CHECK_INT(recs[1].target[strlen(recs[1].target) - 1], ')');
	CHECK_INT(recs[1].conn_seq, 2);
	MY_OUT(p, s, 3100, slap_insert_ok);
	pair__close(p, &s);
	CHECK_INT(nrec, 3);
	my_rec(2, "QUERY", "SELECT intcol1,charcol1 FROM t1", MY_LEN(slap_select),
	       MY_LEN(slap_insert_ok));
	/* a greeting with no login: nothing to report, nothing refused */
	s = tcp(700, 10, true, 40101, 3306);
	MY_OUT(p, s, 4000, slap_greeting);
	pair__close(p, &s);
	CHECK_INT(nrec, 3);
	my_done(p);
}

/* The client's side, its own port (3000) below its server's (40200), so
 * that only the greeting's bytes can tell it is the client; the server
 * switches it to ed25519's plugin: the login's record holds both round
 * trips and ends at the OK. */
static void test_mysql_auth_switch(void)
{
	struct pairer *p = fresh(0);
	struct req_io c = tcp(710, 4, false, 3000, 40200);

	MY_IN(p, c, 900, slap_greeting);
	io_do(p, c, REQ_DIR_OUT, 1000, 990, (const char *)ed_login, MY_LEN(ed_login), 0);
	MY_IN(p, c, 1100, ed_switch);
	MY_OUT(p, c, 1200, ed_auth);
	MY_IN(p, c, 1300, ed_ok);
	CHECK_INT(nrec, 0);
	io_do(p, c, REQ_DIR_OUT, 2000, 0, "\x09\x00\x00\x00\x03select 1", 13, 0);
	CHECK_INT(nrec, 1);
	my_rec(0, "HANDSHAKE", "ed@shop", MY_LEN(ed_login) + MY_LEN(ed_auth),
	       MY_LEN(slap_greeting) + MY_LEN(ed_switch) + MY_LEN(ed_ok));
	CHECK_INT(recs[0].side, REQ_SIDE_CLIENT);
	CHECK_INT(recs[0].client.port, 3000);
	CHECK_INT(recs[0].server.port, 40200);
	CHECK(!recs[0].error);
	CHECK_INT(recs[0].ts_start, 990);
	CHECK_INT(recs[0].ttfb, 110);
	CHECK_INT(recs[0].duration, 310);
	MY_IN(p, c, 2100, slap_insert_ok);
	pair__close(p, &c);
	CHECK_INT(nrec, 2);
	my_rec(1, "QUERY", "select 1", 13, MY_LEN(slap_insert_ok));
	CHECK_INT(recs[1].conn_seq, 2);
	CHECK(!recs[1].aborted);
	my_done(p);
}

/* Failed logins: the ERR that ends the login is its result (1045, 28000),
 * straight after it or after an auth switch; the server then closes. The
 * login's header read alone first is carried to the next read. */
static void test_mysql_denied(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(720, 9, true, 40300, 3306), t = tcp(720, 10, true, 40301, 3306);

	MY_OUT(p, s, 900, slap_greeting);
	io_do(p, s, REQ_DIR_IN, 1000, 0, (const char *)login_badpw, 4, 0);
	io_do(p, s, REQ_DIR_IN, 1010, 0, (const char *)login_badpw + 4, MY_LEN(login_badpw) - 4, 0);
	MY_OUT(p, s, 1100, denied_root);
	pair__close(p, &s);
	MY_OUT(p, t, 2900, slap_greeting);
	MY_IN(p, t, 3000, edbad_login);
	MY_OUT(p, t, 3100, edbad_switch);
	MY_IN(p, t, 3200, edbad_auth);
	MY_OUT(p, t, 3300, denied_ed);
	pair__close(p, &t);
	CHECK_INT(nrec, 2);
	my_rec(0, "HANDSHAKE", "root", MY_LEN(login_badpw), MY_LEN(slap_greeting) + MY_LEN(denied_root));
	my_rec(1, "HANDSHAKE", "ed@shop", MY_LEN(edbad_login) + MY_LEN(edbad_auth),
	       MY_LEN(slap_greeting) + MY_LEN(edbad_switch) + MY_LEN(denied_ed));
	for (int i = 0; i < 2; i++) {
		CHECK(recs[i].error);
		CHECK_INT(recs[i].status, 1045);
		CHECK_STR(recs[i].code, "28000");
		CHECK(!recs[i].aborted);
	}
	CHECK_INT(recs[0].ts_start, 1000);
	CHECK_INT(recs[1].duration, 300);
	my_done(p);
}

/* An SSL request, then the ClientHello in the same burst: a record of its
 * own (SSLREQUEST, answered by the ServerHello's flight), and what follows
 * is TLS, as on any TLS connection; in its plaintext the login (sequence 2)
 * is the HANDSHAKE. */
static void test_mysql_ssl(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(730, 9, true, 40400, 3306);

	MY_OUT(p, s, 900, ssl_greeting);
	MY_IN(p, s, 1000, ssl_request);
	io_do(p, s, REQ_DIR_IN, 1001, 0, (const char *)ssl_client_hello, MY_LEN(ssl_client_hello),
	      517);
	io_do(p, s, REQ_DIR_OUT, 1100, 0, (const char *)ssl_server_hello,
	      MY_LEN(ssl_server_hello), 1355);
	io_do(p, s, REQ_DIR_IN, 1200, 0, "\x14\x03\x03\x00\x01\x01\x17\x03\x03\x00\x19", 11, 110);
	CHECK_INT(nrec, 1);
	my_rec(0, "SSLREQUEST", "", MY_LEN(ssl_request) + 517, MY_LEN(ssl_greeting) + 1355);
	CHECK_INT(recs[0].duration, 100);
	io_do(p, s, REQ_DIR_OUT, 1300, 0, "\x17\x03\x03\x00\xfa", 5, 255);
	CHECK_INT(nrec, 1);
	/* the TLS probes' plaintext: the login, sequence 2 after the SSL
	 * request, its OK, a statement */
	{
		struct req_io t = s;
		uint8_t login[sizeof(login_db)];
		uint8_t ok[sizeof(login_db_ok)];

		memcpy(login, login_db, sizeof(login_db));
		login[3] = 2;
		memcpy(ok, login_db_ok, sizeof(login_db_ok));
		ok[3] = 3;
		t.tls = true;
		io_do(p, t, REQ_DIR_IN, 1400, 0, (const char *)login, MY_LEN(login_db), 0);
		io_do(p, t, REQ_DIR_OUT, 1500, 0, (const char *)ok, MY_LEN(login_db_ok), 0);
		io_do(p, t, REQ_DIR_IN, 1600, 0, (const char *)slap_select, MY_LEN(slap_select), 0);
	}
	CHECK_INT(nrec, 3);
	CHECK_INT(recs[1].proto, REQ_PROTO_TLS);
	CHECK_STR(recs[1].method, "CHANGE_CIPHER_SPEC");
	CHECK_INT(recs[1].req_bytes, 110);
	my_rec(2, "HANDSHAKE", "root@shop", MY_LEN(login_db), MY_LEN(login_db_ok));
	CHECK(recs[2].tls);
	CHECK_INT(recs[2].duration, 100);
	pair__close(p, &s);
	CHECK_INT(nrec, 4);
	CHECK_STR(recs[3].method, "QUERY");
	CHECK(recs[3].tls);
	my_done(p);
}

static void test_unknown_and_full(void)
{
	struct pairer *p = fresh(2);
	struct req_io c = tcp(600, 3, false, 40003, 9999);
	struct pair_counters pc;

	OUT(p, c, 1000, "\x01\x02hello");
	IN(p, c, 1200, "\x01\x02world!");
	OUT(p, c, 2000, "\x01\x02again");
	CHECK_INT(nrec, 1);
	CHECK_INT(recs[0].proto, REQ_PROTO_NONE);
	CHECK_INT(recs[0].side, REQ_SIDE_CLIENT);
	CHECK_INT(recs[0].req_bytes, 7);
	CHECK_INT(recs[0].resp_bytes, 8);
	CHECK_INT(recs[0].duration, 200);
	OUT(p, tcp(601, 3, false, 40010, 9999), 3000, "\x01\x02again");
	OUT(p, tcp(602, 3, false, 40010, 9999), 3000, "\x01\x02again");
	pair__counters(p, &pc);
	CHECK_INT(pc.n_conns, 2);
	CHECK_INT(pc.n_conns_full, 1);
	pair__flush(p);
	pair__counters(p, &pc);
	CHECK_INT(pc.n_open_at_end, 2);	/* "again" and 601's: unanswered */
	CHECK_INT(pc.n_conns, 0);
	pair__free(p);
}

/* An inetd-style server (busybox httpd's child): the accepted socket dup'ed
 * onto fds 0 and 1, the request read on 0, the response sent on 1. */
static void test_dup_fds(void)
{
	struct pairer *p = fresh(0);
	struct req_io in0 = tcp(800, 0, true, 40020, 80), out1 = tcp(800, 1, true, 40020, 80);

	IN(p, in0, 1000, "GET /d HTTP/1.1\r\n\r\n");
	OUT(p, out1, 1200, "HTTP/1.1 200 OK\r\n\r\n");
	CHECK_INT(nrec, 0);
	pair__close(p, &in0);
	CHECK_INT(nrec, 1);
	CHECK_STR(recs[0].target, "/d");
	CHECK_INT(recs[0].status, 200);
	CHECK_INT(recs[0].duration, 200);
	CHECK_INT(recs[0].side, REQ_SIDE_SERVER);
	pair__close(p, &out1);
	CHECK_INT(nrec, 1);
	pair__free(p);
}

/* A process exits without closing its sockets (a PostgreSQL backend after
 * TERMINATE): its connections end as a close ends them, others live on. */
static void test_exit(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(810, 7, true, 40030, 5432), t = tcp(811, 7, true, 40031, 5432);
	struct pair_counters k;

	IN(p, s, 1000, "GET /x HTTP/1.1\r\n\r\n");
	OUT(p, s, 1100, "HTTP/1.1 200 OK\r\n\r\n");	/* no length: ends at the close */
	IN(p, s, 1200, "GET /y HTTP/1.1\r\n\r\n");	/* never answered */
	IN(p, t, 1300, "GET /z HTTP/1.1\r\n\r\n");
	CHECK_INT(nrec, 1);				/* /x's response ended at /y */
	pair__exit(p, 999);				/* not a process followed */
	CHECK_INT(nrec, 1);
	pair__exit(p, 810);
	CHECK_INT(nrec, 2);
	CHECK_STR(recs[0].target, "/x");
	CHECK(!recs[0].aborted && recs[0].status == 200);
	CHECK_STR(recs[1].target, "/y");
	CHECK(recs[1].aborted);
	pair__counters(p, &k);
	CHECK_INT(k.n_conns, 1);			/* 811's stays */
	IN(p, s, 1400, "GET /w HTTP/1.1\r\n\r\n");	/* a new process reusing the pid */
	pair__counters(p, &k);
	CHECK_INT(k.n_conns, 2);
	pair__exit(p, 810);
	pair__exit(p, 811);
	CHECK_INT(nrec, 4);
	pair__counters(p, &k);
	CHECK_INT(k.n_conns, 0);
	pair__free(p);
}

/* More pipelined requests than are followed: counted, never overrun. */
static void test_pipeline_full(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(700, 5, true, 40004, 6379);
	struct pair_counters pc;
	char buf[16 * (PAIR_PIPELINE_MAX + 4)], rep[8 * (PAIR_PIPELINE_MAX + 4)];
	size_t n = 0, m = 0;

	for (int i = 0; i < PAIR_PIPELINE_MAX + 4; i++) {
		n += (size_t)sprintf(buf + n, "*1\r\n$4\r\nPING\r\n");
		m += (size_t)sprintf(rep + m, "+PONG\r\n");
	}
	io_do(p, s, REQ_DIR_IN, 1000, 0, buf, n, 0);
	io_do(p, s, REQ_DIR_OUT, 2000, 0, rep, m, 0);
	pair__counters(p, &pc);
	CHECK_INT(nrec, PAIR_PIPELINE_MAX);
	CHECK_INT(pc.n_pipeline_full, 4);
	pair__free(p);
}

/* N Redis SETs of keys FIRST.. on S at TS, in one read. */
static void sets__in(struct pairer *p, struct req_io s, uint64_t ts, int first, int n)
{
	static char buf[64 * PAIR_PIPELINE_MAX];
	size_t len = 0;

	for (int i = first; i < first + n; i++) {
		int k = snprintf(NULL, 0, "k%d", i);

		len += (size_t)sprintf(buf + len, "*3\r\n$3\r\nSET\r\n$%d\r\nk%d\r\n$1\r\nv\r\n", k, i);
	}
	io_do(p, s, REQ_DIR_IN, ts, 0, buf, len, 0);
}

/* N +OKs on S at TS, in one write. */
static void oks__out(struct pairer *p, struct req_io s, uint64_t ts, int n)
{
	static char rep[8 * PAIR_PIPELINE_MAX];
	size_t len = 0;

	for (int i = 0; i < n; i++)
		len += (size_t)sprintf(rep + len, "+OK\r\n");
	io_do(p, s, REQ_DIR_OUT, ts, 0, rep, len, 0);
}

/* Records FROM.. (N of them) are SETs of keys FIRST.., in order. */
static void sets__check(int from, int first, int n)
{
	char key[16];

	for (int i = 0; i < n && from + i < MAXREC; i++) {
		snprintf(key, sizeof(key), "k%d", first + i);
		CHECK_STR(recs[from + i].method, "SET");
		CHECK_STR(recs[from + i].target, key);
		CHECK_INT(recs[from + i].status, -1);
		CHECK(!recs[from + i].error && !recs[from + i].aborted);
	}
}

/* Deeper pipelines than the connection's own queue: the queue grows, in
 * order, also from mid-ring (some answered first), and again after an
 * expiry sweep gave the larger one back; every request is a record. */
static void test_pipeline_deep(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(701, 5, true, 40005, 6379);
	struct pair_counters pc;

	/* 100 at once, answered in three writes */
	sets__in(p, s, 1000, 0, 100);
	oks__out(p, s, 2000, 33);
	oks__out(p, s, 2100, 33);
	oks__out(p, s, 2200, 34);
	CHECK_INT(nrec, 100);
	sets__check(0, 0, 100);
	/* the larger queue goes back (nothing in flight), then again: 10
	 * in flight, 5 answered, 20 more (the ring's head mid-way when it
	 * grows), all answered */
	pair__expire(p, 3000);
	sets__in(p, s, 4000, 100, 10);
	oks__out(p, s, 4100, 5);
	sets__in(p, s, 4200, 110, 20);
	oks__out(p, s, 4300, 25);
	CHECK_INT(nrec, 130);
	sets__check(100, 100, 30);
	for (int i = 1; i < 130; i++)
		CHECK(recs[i].conn_seq == recs[i - 1].conn_seq + 1);
	pair__counters(p, &pc);
	CHECK_INT(pc.n_pipeline_full, 0);
	CHECK_INT(pc.n_unmatched, 0);
	pair__free(p);
}

/* A batch deeper than PAIR_TIMES seen from both sides and answered at once,
 * so all its records on one side are made before the other's first
 * (redis-cli --pipe's 200 PINGs in e2e_req_redis: 136 of them, 200 - 64, had
 * a server-side record slower than the client's): each still nests,
 * whichever side's come first; again after an expiry sweep gave the larger
 * arrays back, with the first batch's times moved into the small ones. */
static void test_both_sides_deep(void)
{
	struct req_io s = tcp(100, 5, true, 40000, 6379), c = tcp(300, 3, false, 40000, 6379);
	static char buf[16 * PAIR_PIPELINE_MAX], rep[8 * PAIR_PIPELINE_MAX];
	const int k = 200;
	size_t n = 0, m = 0;

	for (int i = 0; i < k; i++) {
		n += (size_t)sprintf(buf + n, "*1\r\n$4\r\nPING\r\n");
		m += (size_t)sprintf(rep + m, "+PONG\r\n");
	}
	for (int order = 0; order < 2; order++) {
		struct pairer *p = fresh(0);

		for (uint64_t t = 1000; t < 30000; t += 10000) {
			nrec = 0;
			io_do(p, s, REQ_DIR_IN, t - 10, 0, buf, n, 0);
			io_do(p, c, REQ_DIR_OUT, t, 0, buf, n, 0);
			io_do(p, order ? s : c, order ? REQ_DIR_OUT : REQ_DIR_IN, t + 495, 0, rep, m, 0);
			io_do(p, order ? c : s, order ? REQ_DIR_IN : REQ_DIR_OUT, t + 500, 0, rep, m, 0);
			CHECK_INT(nrec, 2 * k);
			check_nested(0, k);
			CHECK_INT(recs[k].ts_start, t - (order ? 10 : 0));
			CHECK_INT(recs[2 * k - 1].duration, order ? 510 : 495);
			pair__expire(p, t + 1000);
		}
		pair__free(p);
	}
}

/* server_side_once (metrics only): a connection seen from both sides is
 * walked on its server's side only; a client whose server is elsewhere is
 * still walked. So is none whose server closed first (HTTP/1.0, a connect
 * storm): its record made and its connection gone before its client reads
 * the reply. */
static void test_server_side_once(void)
{
	struct pair_opts o = { .timeout_ns = 10000000000ull, .server_side_once = true };
	struct req_io s = tcp(100, 5, true, 40000, 80), c = tcp(300, 3, false, 40000, 80);
	struct req_io far = tcp(300, 4, false, 40001, 443);
	struct req_io s10 = tcp(100, 7, true, 40003, 80), c10 = tcp(300, 8, false, 40003, 80);
	struct pair_counters k;
	struct pairer *p;

	nrec = 0;
	p = pair__new(&o, on_rec, NULL);
	/* two requests written before the server's side is first seen */
	OUT(p, c, 900, "GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n");
	IN(p, s, 1000, "GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n");
	OUT(p, s, 1500, http_ok);
	OUT(p, s, 1600, http_404);
	IN(p, c, 1700, http_ok);
	IN(p, c, 1800, http_404);
	CHECK_INT(nrec, 2);
	for (int i = 0; i < 2; i++) {
		CHECK_INT(recs[i].side, REQ_SIDE_SERVER);
		CHECK(recs[i].both_sides);
		CHECK_INT(recs[i].client.pid, 300);
		CHECK_STR(recs[i].client.comm, "cli");
		CHECK_INT(recs[i].server.pid, 100);
	}
	CHECK_STR(recs[0].target, "/a");
	CHECK_INT(recs[1].status, 404);
	/* a client of a server this host does not see: its own records */
	OUT(p, far, 2000, "GET /far HTTP/1.1\r\n\r\n");
	IN(p, far, 2300, http_ok);
	CHECK_INT(nrec, 3);
	CHECK_INT(recs[2].side, REQ_SIDE_CLIENT);
	CHECK(!recs[2].both_sides);
	CHECK_STR(recs[2].target, "/far");
	CHECK_INT(recs[2].duration, 300);
	/* closing the quiet client reports nothing (it holds no request) */
	pair__close(p, &c);
	pair__close(p, &s);
	/* HTTP/1.0: the client writes before its server's side is seen, the
	 * server answers and closes; the client reads after: one record */
	OUT(p, c10, 3000, "GET /x HTTP/1.0\r\n\r\n");
	IN(p, s10, 3100, "GET /x HTTP/1.0\r\n\r\n");
	OUT(p, s10, 3200, http_ok);
	pair__close(p, &s10);
	CHECK_INT(nrec, 4);
	CHECK_INT(recs[3].side, REQ_SIDE_SERVER);
	CHECK(recs[3].both_sides);
	CHECK_STR(recs[3].target, "/x");
	IN(p, c10, 3300, http_ok);
	pair__close(p, &c10);
	pair__flush(p);
	CHECK_INT(nrec, 4);
	pair__counters(p, &k);
	CHECK_INT(k.n_client_quiet, 2);
	CHECK_INT(k.n_requests, 4);
	CHECK_INT(k.n_aborted, 0);
	CHECK_INT(k.n_unmatched, 0);
	pair__free(p);
}

/* pair__set_quiet: what its callback was given */
struct quiet_log {
	int n_on, n_off;
	int refuse;			/* the callback's answer to ON */
	struct pair_quiet_end last;
};

static int on_quiet(void *ctx, const struct pair_quiet_end *e, bool on)
{
	struct quiet_log *q = ctx;

	if (on)
		q->n_on++;
	else
		q->n_off++;
	q->last = *e;
	return on ? q->refuse : 0;
}

/* A quiet client connection that stays busy goes to the callback once, after
 * PAIR_QUIET_AFTER of its I/Os, with its own end first; it comes back at its
 * close. While the callback has it, its I/O may stop: it is kept as long as
 * its server's side is followed, then let go. A refusal is counted. */
static void test_quiet_handover(void)
{
	struct pair_opts o = { .timeout_ns = 1000, .server_side_once = true };
	struct req_io s = tcp(100, 5, true, 40000, 80), c = tcp(300, 3, false, 40000, 80);
	struct req_io s2 = tcp(100, 6, true, 40002, 80), c2 = tcp(301, 3, false, 40002, 80);
	struct quiet_log q = { 0 };
	uint8_t cli[16] = { 0 }, srv[16] = { 0 };
	struct pair_counters k;
	struct pairer *p;
	uint64_t t = 100;

	inet_pton(AF_INET, "10.0.0.1", cli);
	inet_pton(AF_INET, "10.0.0.2", srv);
	nrec = 0;
	p = pair__new(&o, on_rec, NULL);
	pair__set_quiet(p, on_quiet, &q);
	IN(p, s, t, "GET / HTTP/1.1\r\n\r\n");	/* the server's side first */
	for (int i = 0; i < PAIR_QUIET_AFTER; i++) {
		CHECK_INT(q.n_on, 0);
		t += 10;
		if (i % 2)
			IN(p, c, t, http_ok);
		else
			OUT(p, c, t, "GET / HTTP/1.1\r\n\r\n");
	}
	CHECK_INT(q.n_on, 1);
	CHECK_INT(q.last.family, 2);
	CHECK(!memcmp(q.last.lip, cli, 16) && !memcmp(q.last.rip, srv, 16));
	CHECK_INT(q.last.lport, 40000);
	CHECK_INT(q.last.rport, 80);
	OUT(p, c, t + 1, "GET / HTTP/1.1\r\n\r\n");	/* once only */
	CHECK_INT(q.n_on, 1);
	/* its I/O stops coming; the server's goes on: it is kept */
	OUT(p, s, t + 3000, http_ok);
	pair__expire(p, t + 4500);
	CHECK_INT(q.n_off, 0);
	/* the server's side closes, then it stays idle: let go, and given back */
	pair__close(p, &s);
	pair__expire(p, t + 8000);
	CHECK_INT(q.n_off, 1);
	CHECK_INT(q.last.lport, 40000);
	/* a second one, refused: kept here, and nothing to give back */
	q.refuse = -E2BIG;
	IN(p, s2, t + 9000, "GET / HTTP/1.1\r\n\r\n");
	for (int i = 0; i < PAIR_QUIET_AFTER + 2; i++)
		OUT(p, c2, t + 9001 + (uint64_t)i, "GET / HTTP/1.1\r\n\r\n");
	CHECK_INT(q.n_on, 2);
	pair__close(p, &c2);
	CHECK_INT(q.n_off, 1);
	pair__counters(p, &k);
	CHECK_INT(k.n_client_quiet, 2);
	CHECK_INT(k.n_quiet_handed, 1);
	CHECK_INT(k.n_quiet_refused, 1);
	/* the table's teardown calls nobody */
	q.refuse = 0;
	pair__free(p);
	CHECK_INT(q.n_off, 1);
}

/* IO with the connection's TCP state: RETRANS segments retransmitted so
 * far, srtt SRTT us */
static struct req_io with_tcp(struct req_io io, uint32_t retrans, uint32_t srtt)
{
	io.has_tcp = true;
	io.tcp_retrans = retrans;
	io.tcp_srtt_us = srtt;
	return io;
}

/* A request's record has the retransmits from its first syscall to its
 * response's last, and the srtt then, though it is made later (at the next
 * request, at the close); a request with no response counts up to its
 * record. */
static void test_tcp_state(void)
{
	struct pairer *p = fresh(0);
	struct req_io c = tcp(300, 3, false, 40000, 80);

	/* the request over two writes, retransmits during the second */
	OUT(p, with_tcp(c, 5, 90), 1000, "PUT /a HTTP/1.1\r\nContent-Length: 4\r\n\r\n");
	OUT(p, with_tcp(c, 8, 95), 1100, "abcd");
	/* a response of no stated length: it ends where the next request
	 * begins */
	IN(p, with_tcp(c, 9, 110), 2000, "HTTP/1.1 201 Created\r\n\r\n");
	IN(p, with_tcp(c, 11, 120), 2100, "hello");
	CHECK_INT(nrec, 0);
	/* the next request: the first's record now, with its own counts */
	OUT(p, with_tcp(c, 13, 130), 3000, "GET /b HTTP/1.1\r\n\r\n");
	CHECK_INT(nrec, 1);
	CHECK(recs[0].has_tcp);
	CHECK_INT(recs[0].tcp_retrans, 6);
	CHECK_INT(recs[0].tcp_srtt_us, 120);
	CHECK_INT(recs[0].status, 201);
	IN(p, with_tcp(c, 13, 140), 4000, http_ok);
	CHECK_INT(nrec, 2);
	/* a third, never answered: counted to the close */
	OUT(p, with_tcp(c, 14, 150), 5000, "PUT /c HTTP/1.1\r\nContent-Length: 1\r\n\r\n");
	CHECK(recs[1].has_tcp);
	CHECK_INT(recs[1].tcp_retrans, 0);
	CHECK_INT(recs[1].tcp_srtt_us, 140);
	OUT(p, with_tcp(c, 17, 160), 5100, "x");	/* its body */
	pair__close(p, &c);
	CHECK_INT(nrec, 3);
	CHECK(recs[2].aborted && recs[2].has_tcp);
	CHECK_INT(recs[2].tcp_retrans, 3);
	CHECK_INT(recs[2].tcp_srtt_us, 160);
	/* no state carried (a replay, TLS): none on the record */
	OUT(p, c, 6000, "GET /d HTTP/1.1\r\n\r\n");
	IN(p, c, 7000, http_ok);
	CHECK_INT(nrec, 4);
	CHECK(!recs[3].has_tcp);
	pair__free(p);
}

int main(void)
{
	test_keepalive();
	test_split_and_big();
	test_close_mid_response();
	test_timeout();
	test_redis_pipeline();
	test_both_sides();
	test_both_sides_pipelined();
	test_dns_udp();
	test_mysql_burst();
	test_mysql_handshake();
	test_mysql_auth_switch();
	test_mysql_denied();
	test_mysql_ssl();
	test_unknown_and_full();
	test_pipeline_full();
	test_pipeline_deep();
	test_both_sides_deep();
	test_dup_fds();
	test_exit();
	test_server_side_once();
	test_quiet_handover();
	test_tcp_state();
	return t_report();
}
