/* Redis pub/sub, MONITOR, RESP3 pushes and CLIENT REPLY in the pairing:
 * messages a subscribed connection gets unasked, a (un)subscribe answered by
 * one confirmation per channel, RESP3 pushes (a client-tracking
 * invalidation) between a request and its reply, from either side; commands
 * CLIENT REPLY leaves unanswered. The bytes are Debian 12's redis-server
 * 7.0.15's to raw RESP2 and RESP3 (HELLO 3) connections. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pair_check.h"

#define CONF_C1 "*3\r\n$9\r\nsubscribe\r\n$2\r\nc1\r\n:1\r\n"
#define CONF_C2 "*3\r\n$9\r\nsubscribe\r\n$2\r\nc2\r\n:2\r\n"
#define MSG_C1 "*3\r\n$7\r\nmessage\r\n$2\r\nc1\r\n$5\r\nhello\r\n"
#define PONG2 "*2\r\n$4\r\npong\r\n$0\r\n\r\n"
#define UNSUB_C1 "*3\r\n$11\r\nunsubscribe\r\n$2\r\nc1\r\n:1\r\n"
#define UNSUB_C2 "*3\r\n$11\r\nunsubscribe\r\n$2\r\nc2\r\n:0\r\n"
#define PUSH_INV ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n"
#define CONF3_A ">3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n"
#define CONF3_B ">3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:2\r\n"
#define MSG3_A ">3\r\n$7\r\nmessage\r\n$1\r\na\r\n$1\r\nx\r\n"

/* PUSHES skipped as answering no request, and no reply without one */
static void check_pushes(struct pairer *p, uint64_t pushes)
{
	struct pair_counters c;

	pair__counters(p, &c);
	CHECK_INT(c.n_pushes, pushes);
	CHECK_INT(c.n_unmatched, 0);
	CHECK_INT(c.n_unparsed, 0);
}

/* RESP2, the server's side: SUBSCRIBE c1 c2 answered by two confirmations;
 * messages with nothing asked and between a PING and its pong; UNSUBSCRIBE
 * of all, whose second confirmation is past what it named; then, with no
 * subscription left, a reply shaped as a message is a reply. */
static void test_resp2_server(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(300, 8, true, 40010, 6379);

	IN(p, s, 1000, "*3\r\n$9\r\nSUBSCRIBE\r\n$2\r\nc1\r\n$2\r\nc2\r\n");
	OUT(p, s, 1100, CONF_C1);
	CHECK_INT(nrec, 0);	/* one channel of two confirmed */
	OUT(p, s, 1200, CONF_C2);
	CHECK_INT(nrec, 1);
	CHECK_STR(recs[0].method, "SUBSCRIBE");
	CHECK_STR(recs[0].target, "c1");
	CHECK_INT(recs[0].duration, 200);
	CHECK_INT(recs[0].ttfb, 100);
	CHECK_INT(recs[0].resp_bytes, strlen(CONF_C1 CONF_C2));
	OUT(p, s, 2000, MSG_C1);
	OUT(p, s, 2100, MSG_C1 MSG_C1);
	CHECK_INT(nrec, 1);
	IN(p, s, 3000, "PING\r\n");
	OUT(p, s, 3100, MSG_C1 PONG2);
	CHECK_INT(nrec, 2);
	CHECK_STR(recs[1].method, "PING");
	CHECK_INT(recs[1].resp_bytes, strlen(PONG2));
	CHECK_INT(recs[1].duration, 100);
	IN(p, s, 4000, "*1\r\n$11\r\nUNSUBSCRIBE\r\n");
	OUT(p, s, 4100, UNSUB_C1 UNSUB_C2);
	CHECK_INT(nrec, 3);
	CHECK_STR(recs[2].method, "UNSUBSCRIBE");
	CHECK_INT(recs[2].resp_bytes, strlen(UNSUB_C1));
	IN(p, s, 5000, "*4\r\n$6\r\nLRANGE\r\n$1\r\nl\r\n$1\r\n0\r\n$2\r\n-1\r\n");
	OUT(p, s, 5100, MSG_C1);
	CHECK_INT(nrec, 4);
	CHECK_STR(recs[3].method, "LRANGE");
	CHECK_INT(recs[3].resp_bytes, strlen(MSG_C1));
	check_pushes(p, 5);	/* 4 messages, a confirmation */
	pair__free(p);
}

/* RESP2, the subscriber's side: its reads hold a message before the pong;
 * a message of 100 kB over seven reads, the first captured up to 2048. */
static void test_resp2_client(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(301, 9, false, 40011, 6379);
	size_t total = 34 + 100000 + 2, done = 0;
	char *big = malloc(total);

	snprintf(big, 35, "*3\r\n$7\r\nmessage\r\n$2\r\nc1\r\n$100000\r\n");
	memset(big + 34, 'x', 100000);
	memcpy(big + total - 2, "\r\n", 2);
	OUT(p, s, 1000, "*2\r\n$9\r\nSUBSCRIBE\r\n$2\r\nc1\r\n");
	IN(p, s, 1100, CONF_C1);
	CHECK_INT(nrec, 1);
	CHECK_INT(recs[0].side, REQ_SIDE_CLIENT);
	CHECK_INT(recs[0].resp_bytes, strlen(CONF_C1));
	IN(p, s, 2000, MSG_C1);
	for (int i = 0; done < total; i++) {
		size_t n = total - done < 16384 ? total - done : 16384;

		io_do(p, s, REQ_DIR_IN, 3000 + i, 0, big + done, n < 2048 ? n : 2048, n);
		done += n;
	}
	OUT(p, s, 4000, "PING\r\n");
	IN(p, s, 4200, MSG_C1 PONG2);
	CHECK_INT(nrec, 2);
	CHECK_STR(recs[1].method, "PING");
	CHECK_INT(recs[1].resp_bytes, strlen(PONG2));
	CHECK_INT(recs[1].duration, 200);
	check_pushes(p, 3);
	free(big);
	pair__free(p);
}

/* RESP3: a tracked key's SET and GET pipelined, the invalidation between
 * their replies; one alone; one read ahead of a pong (the client's side);
 * SUBSCRIBE's confirmations, pushes themselves, and a GET while
 * subscribed whose reply follows a message. */
static void test_resp3(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(302, 10, true, 40012, 6379);
	struct req_io cl = tcp(303, 11, false, 40013, 6379);

	IN(p, s, 1000, "SET k x\r\nGET k\r\n");
	OUT(p, s, 1100, "+OK\r\n" PUSH_INV "$1\r\nx\r\n");
	CHECK_INT(nrec, 2);
	CHECK_STR(recs[0].method, "SET");
	CHECK_INT(recs[0].resp_bytes, 5);
	CHECK_STR(recs[1].method, "GET");
	CHECK_INT(recs[1].resp_bytes, 7);
	OUT(p, s, 2000, PUSH_INV);
	IN(p, s, 3000, "*3\r\n$9\r\nSUBSCRIBE\r\n$1\r\na\r\n$1\r\nb\r\n");
	OUT(p, s, 3100, CONF3_A CONF3_B);
	CHECK_INT(nrec, 3);
	CHECK_STR(recs[2].method, "SUBSCRIBE");
	CHECK_INT(recs[2].resp_bytes, strlen(CONF3_A CONF3_B));
	IN(p, s, 4000, "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n");
	OUT(p, s, 4100, MSG3_A "$1\r\ny\r\n");
	CHECK_INT(nrec, 4);
	CHECK_STR(recs[3].method, "GET");
	CHECK_INT(recs[3].resp_bytes, 7);
	CHECK_INT(recs[3].duration, 100);

	OUT(p, cl, 5000, "PING\r\n");
	IN(p, cl, 5100, PUSH_INV "+PONG\r\n");
	CHECK_INT(nrec, 5);
	CHECK_STR(recs[4].method, "PING");
	CHECK_INT(recs[4].side, REQ_SIDE_CLIENT);
	CHECK_INT(recs[4].resp_bytes, 7);
	check_pushes(p, 4);
	pair__free(p);
}

/* Not pushes: a RESP2 reply shaped as a message or a confirmation on a
 * connection that never subscribed is the reply it is (an EVAL's). */
static void test_not_subscribed(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(304, 12, true, 40014, 6379);

	IN(p, s, 1000, "*3\r\n$4\r\nEVAL\r\n$1\r\nx\r\n$1\r\n0\r\n");
	OUT(p, s, 1100, MSG_C1);
	IN(p, s, 2000, "*3\r\n$4\r\nEVAL\r\n$1\r\ny\r\n$1\r\n0\r\n");
	OUT(p, s, 2100, CONF_C1);
	CHECK_INT(nrec, 2);
	CHECK_INT(recs[0].resp_bytes, strlen(MSG_C1));
	CHECK_INT(recs[1].resp_bytes, strlen(CONF_C1));
	check_pushes(p, 0);
	pair__free(p);
}

/* MONITOR, from redis-cli monitor's connection: its OK, then a line for
 * each command any client runs; its own PING answered before the PING's
 * line; after RESET a status is a reply again. */
static void test_monitor(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(305, 13, true, 40015, 6379);
	static const char set_line[] = "+1795910577.955001 [0 127.0.0.1:58616] \"SET\" \"k\" \"a b\"\r\n";
	static const char ping_line[] = "+1795910578.155170 [0 127.0.0.1:58608] \"PING\"\r\n";

	IN(p, s, 1000, "*1\r\n$7\r\nmonitor\r\n");
	OUT(p, s, 1100, "+OK\r\n");
	CHECK_INT(nrec, 1);
	CHECK_STR(recs[0].method, "MONITOR");
	CHECK_INT(recs[0].resp_bytes, 5);
	OUT(p, s, 2000, set_line);
	OUT(p, s, 2100, set_line);
	IN(p, s, 3000, "PING\r\n");
	OUT(p, s, 3100, "+PONG\r\n");
	OUT(p, s, 3101, ping_line);
	CHECK_INT(nrec, 2);
	CHECK_INT(recs[1].resp_bytes, 7);
	CHECK_INT(recs[1].duration, 100);
	IN(p, s, 4000, "*1\r\n$5\r\nRESET\r\n");
	OUT(p, s, 4100, "+RESET\r\n");
	CHECK_INT(nrec, 3);
	CHECK_STR(recs[2].method, "RESET");
	check_pushes(p, 3);
	/* (a status shaped as a MONITOR line, unasked, is no push now) */
	OUT(p, s, 5000, set_line);
	check_pushes(p, 3);
	pair__free(p);
}

/* CLIENT REPLY: a connection's commands Redis does not answer, as Redis
 * 7.0.15 answered this batch of 17 (inline, one write): OFF silences them
 * until ON, an error included; SKIP the next command (a SKIP too, which
 * skips the one after); SKIP under OFF changes nothing. The silent ones are
 * records with no response, and each reply goes to its own command. */
static void test_client_reply(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = tcp(306, 14, true, 40016, 6379);
	static const char *const methods[] = {
		"CLIENT", "SET", "GET", "CLIENT", "GET", "CLIENT", "SET", "GET", "CLIENT",
		"CLIENT", "GET", "GET", "CLIENT", "CLIENT", "GET", "CLIENT", "PING",
	};
	/* the reply's bytes, 0: none */
	static const int replies[] = { 0, 0, 0, 5, 7, 0, 0, 7, 0, 0, 0, 7, 0, 0, 0, 5, 7 };

	IN(p, s, 1000, "CLIENT REPLY OFF\r\nSET a 1\r\nGET a b\r\nCLIENT REPLY ON\r\nGET a\r\n"
		       "CLIENT REPLY SKIP\r\nSET c 3\r\nGET c\r\nCLIENT REPLY SKIP\r\n"
		       "CLIENT REPLY SKIP\r\nGET a\r\nGET c\r\nCLIENT REPLY OFF\r\n"
		       "CLIENT REPLY SKIP\r\nGET a\r\nCLIENT REPLY ON\r\nPING\r\n");
	OUT(p, s, 1100, "+OK\r\n$1\r\n1\r\n$1\r\n3\r\n$1\r\n3\r\n+OK\r\n+PONG\r\n");
	IN(p, s, 2000, "*3\r\n$6\r\nclient\r\n$5\r\nreply\r\n$4\r\nskip\r\n"
		       "*2\r\n$3\r\nGET\r\n$1\r\na\r\n*1\r\n$4\r\nPING\r\n");
	OUT(p, s, 2100, "+PONG\r\n");
	CHECK_INT(nrec, 20);
	for (int i = 0; i < 17 && i < nrec; i++) {
		CHECK_STR(recs[i].method, methods[i]);
		CHECK_INT(recs[i].resp_bytes, replies[i]);
	}
	if (nrec == 20) {
		CHECK_INT(recs[17].resp_bytes, 0);
		CHECK_STR(recs[18].method, "GET");
		CHECK_INT(recs[18].resp_bytes, 0);
		CHECK_INT(recs[19].resp_bytes, 7);
		CHECK_INT(recs[19].duration, 100);
	}
	check_pushes(p, 0);
	pair__free(p);
}

int main(void)
{
	test_client_reply();
	test_monitor();
	test_resp2_server();
	test_resp2_client();
	test_resp3();
	test_not_subscribed();
	return t_report();
}
