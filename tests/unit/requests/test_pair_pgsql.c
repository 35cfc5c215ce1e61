/* PostgreSQL in the pairing, message by message: many statements before one
 * Sync (libpq's pipeline mode, psycopg's executemany, pgJDBC's batches), an
 * error that makes the server skip to the Sync, a batch past the pipeline
 * bound, a Query of several
 * statements, COPY both ways, a SCRAM login's round trips, a Describe sent
 * with a Flush before its Execute, messages the reads cut, and prepared
 * statements' text for the Binds that run them. The messages
 * are built here by the protocol's layouts, in the shapes PostgreSQL 15 sent
 * psycopg 3.1 and pgbench in e2e_req_sql. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pair_check.h"

/* A buffer of messages. */
struct wire {
	char b[4096];
	size_t n;
};

/* Appends a message of TYPE (0: untyped) with BODY of LEN bytes. */
static struct wire *msg(struct wire *w, char type, const char *body, size_t len)
{
	uint32_t l = htonl((uint32_t)len + 4);

	if (type)
		w->b[w->n++] = type;
	memcpy(w->b + w->n, &l, 4);
	memcpy(w->b + w->n + 4, body, len);
	w->n += 4 + len;
	return w;
}

#define M(w, t, lit) msg(w, t, lit, sizeof(lit) - 1)

/* The extended protocol's group for one statement, as libpq sends it: Parse
 * (unnamed), Bind (no parameters), Describe portal, Execute. */
static void group(struct wire *w, const char *sql)
{
	char body[256];
	size_t n = strlen(sql);

	body[0] = '\0';
	memcpy(body + 1, sql, n + 1);
	memset(body + n + 2, 0, 2);	/* no parameter types */
	msg(w, 'P', body, n + 4);
	M(w, 'B', "\0\0\0\0\0\0\0\0");	/* portal, statement, 0 formats, 0 params, 0 results */
	M(w, 'D', "P\0");
	M(w, 'E', "\0\0\0\0\0");
}

/* A SELECT's answer after its Parse and Bind: one column, one row. */
static void rows(struct wire *w)
{
	M(w, 'T', "\0\x01?column?\0\0\0\0\0\0\0\0\0\0\x17\0\x04\xff\xff\xff\xff\0\0");
	M(w, 'D', "\0\x01\0\0\0\x01" "1");
	M(w, 'C', "SELECT 1\0");
}

static void answer(struct wire *w)
{
	M(w, '1', "");
	M(w, '2', "");
	rows(w);
}

/* A Bind of the prepared statement STMT (no parameters) and its Execute. */
static void run(struct wire *w, const char *stmt)
{
	char body[64];
	size_t n = strlen(stmt);

	body[0] = '\0';
	memcpy(body + 1, stmt, n + 1);
	memset(body + n + 2, 0, 6);	/* 0 formats, 0 params, 0 results */
	msg(w, 'B', body, n + 8);
	M(w, 'E', "\0\0\0\0\0");
}

/* A run's answer: BindComplete, CommandComplete. */
static void ran(struct wire *w)
{
	M(w, '2', "");
	M(w, 'C', "SELECT 1\0");
}

#define READY(w) M(w, 'Z', "I")
#define ERROR_42P01(w) M(w, 'E', "SERROR\0C42P01\0Mrelation \"m\" does not exist\0\0")

static void feed(struct pairer *p, struct req_io io, uint8_t dir, uint64_t ts, const struct wire *w)
{
	io_do(p, io, dir, ts, 0, w->b, w->n, 0);
}

static void check_counters(struct pairer *p)
{
	struct pair_counters c;

	pair__counters(p, &c);
	CHECK_INT(c.n_unmatched, 0);
	CHECK_INT(c.n_unparsed, 0);
	CHECK_INT(c.n_uncaptured, 0);
}

/* Three statements and one Sync in one read; the server answers each as it
 * runs it, the last with the Sync's ReadyForQuery; then all three answers in
 * one write. */
static void test_pipeline(void)
{
	struct pairer *p = fresh(16);
	struct req_io s = tcp(20, 5, true, 40000, 5432);
	struct wire rq = { .n = 0 }, a1 = { .n = 0 }, a2 = { .n = 0 }, a3 = { .n = 0 };

	group(&rq, "SELECT 1");
	group(&rq, "SELECT 2");
	group(&rq, "SELECT 3");
	M(&rq, 'S', "");
	answer(&a1);
	answer(&a2);
	answer(&a3);
	READY(&a3);
	feed(p, s, REQ_DIR_IN, 100, &rq);
	CHECK_INT(nrec, 0);
	feed(p, s, REQ_DIR_OUT, 110, &a1);
	CHECK_INT(nrec, 1);
	feed(p, s, REQ_DIR_OUT, 120, &a2);
	feed(p, s, REQ_DIR_OUT, 130, &a3);
	CHECK_INT(nrec, 3);
	CHECK_STR(recs[0].method, "PARSE");
	CHECK_STR(recs[0].target, "SELECT 1");
	CHECK_STR(recs[1].target, "SELECT 2");
	CHECK_STR(recs[2].target, "SELECT 3");
	CHECK_INT(recs[0].duration, 10);
	CHECK_INT(recs[1].duration, 20);
	CHECK_INT(recs[2].duration, 30);
	CHECK_INT(recs[0].resp_bytes, a1.n);
	CHECK_INT(recs[1].resp_bytes, a2.n);
	CHECK_INT(recs[2].resp_bytes, a3.n);	/* the Sync's ReadyForQuery is the last's */
	CHECK_INT(recs[0].req_bytes + recs[1].req_bytes + recs[2].req_bytes, rq.n);
	CHECK_INT(recs[2].req_bytes, recs[0].req_bytes + 5);	/* the Sync */
	for (int i = 0; i < 3; i++)
		CHECK(!recs[i].error);

	/* the same, answered in one write */
	a1.n = 0;
	answer(&a1);
	answer(&a1);
	answer(&a1);
	READY(&a1);
	feed(p, s, REQ_DIR_IN, 200, &rq);
	feed(p, s, REQ_DIR_OUT, 210, &a1);
	CHECK_INT(nrec, 6);
	CHECK_INT(recs[3].resp_bytes + recs[4].resp_bytes + recs[5].resp_bytes, a1.n);
	CHECK_INT(recs[5].resp_bytes, recs[3].resp_bytes + 6);
	check_counters(p);
	pair__free(p);
}

/* The second of four statements fails: the server skips the third and the
 * fourth, up to the Sync, whose ReadyForQuery ends the failed one's
 * response; those two are records with no response. */
static void test_pipeline_error(void)
{
	struct pairer *p = fresh(16);
	struct req_io s = tcp(20, 5, true, 40000, 5432);
	struct wire rq = { .n = 0 }, a = { .n = 0 };
	size_t ok;

	group(&rq, "SELECT 1");
	group(&rq, "SELECT * FROM m");
	group(&rq, "SELECT 3");
	group(&rq, "SELECT 4");
	M(&rq, 'S', "");
	answer(&a);
	ok = a.n;
	ERROR_42P01(&a);
	READY(&a);
	feed(p, s, REQ_DIR_IN, 100, &rq);
	feed(p, s, REQ_DIR_OUT, 110, &a);
	CHECK_INT(nrec, 4);
	CHECK(!recs[0].error);
	CHECK_INT(recs[0].resp_bytes, ok);
	CHECK_STR(recs[1].target, "SELECT * FROM m");
	CHECK(recs[1].error);
	CHECK_STR(recs[1].code, "42P01");
	CHECK_INT(recs[1].resp_bytes, a.n - ok);
	CHECK_STR(recs[2].target, "SELECT 3");
	CHECK_STR(recs[3].target, "SELECT 4");
	for (int i = 2; i < 4; i++) {
		CHECK_INT(recs[i].resp_bytes, 0);
		CHECK_INT(recs[i].ttfb, 0);
		CHECK(!recs[i].error);
	}

	/* the connection goes on: the next statement is paired as before */
	rq.n = a.n = 0;
	group(&rq, "SELECT 5");
	M(&rq, 'S', "");
	answer(&a);
	READY(&a);
	feed(p, s, REQ_DIR_IN, 200, &rq);
	feed(p, s, REQ_DIR_OUT, 230, &a);
	CHECK_INT(nrec, 5);
	CHECK_STR(recs[4].target, "SELECT 5");
	CHECK_INT(recs[4].resp_bytes, a.n);
	CHECK_INT(recs[4].duration, 30);

	/* a statement that fails before the client sent its Sync: the Sync,
	 * sent after the error came, is its own, and ends it */
	rq.n = a.n = 0;
	group(&rq, "SELECT * FROM m");
	M(&rq, 'H', "");
	feed(p, s, REQ_DIR_IN, 300, &rq);
	M(&a, '1', "");
	ERROR_42P01(&a);
	feed(p, s, REQ_DIR_OUT, 310, &a);
	rq.n = 0;
	M(&rq, 'S', "");
	feed(p, s, REQ_DIR_IN, 320, &rq);
	rq.n = a.n = 0;
	READY(&a);
	feed(p, s, REQ_DIR_OUT, 330, &a);
	CHECK_INT(nrec, 6);
	CHECK(recs[5].error);
	CHECK_INT(recs[5].duration, 30);
	check_counters(p);
	pair__free(p);
}

/* A prepared statement run by Bind and Execute alone, a batch of three
 * before one Sync (psycopg's executemany): three records named BIND. */
static void test_batch_bind(void)
{
	struct pairer *p = fresh(16);
	struct req_io s = tcp(20, 5, true, 40000, 5432);
	struct wire rq = { .n = 0 }, a = { .n = 0 };

	for (int i = 0; i < 3; i++) {
		M(&rq, 'B', "\0_pg3_0\0\0\0\0\x01\0\0\0\x01" "7\0\0");
		M(&rq, 'E', "\0\0\0\0\0");
	}
	M(&rq, 'S', "");
	for (int i = 0; i < 3; i++) {
		M(&a, '2', "");
		M(&a, 'C', "INSERT 0 1\0");
	}
	READY(&a);
	feed(p, s, REQ_DIR_IN, 100, &rq);
	feed(p, s, REQ_DIR_OUT, 110, &a);
	CHECK_INT(nrec, 3);
	for (int i = 0; i < 3; i++)
		CHECK_STR(recs[i].method, "BIND");
	CHECK_INT(recs[0].resp_bytes, 5 + 16);
	CHECK_INT(recs[2].resp_bytes, 5 + 16 + 6);
	check_counters(p);
	pair__free(p);
}

/* A batch past PAIR_PIPELINE_MAX: the statements past it are counted once
 * each, not once a message. */
static void test_batch_limit(void)
{
	enum { N = PAIR_PIPELINE_MAX + 44 };
	static struct wire rq;
	struct pairer *p = fresh(16);
	struct req_io s = tcp(20, 5, true, 40000, 5432);
	struct pair_counters c;

	rq.n = 0;
	for (int i = 0; i < N; i++) {
		M(&rq, 'B', "\0s\0\0\0\0\0\0\0");
		M(&rq, 'D', "P\0");
		M(&rq, 'E', "\0\0\0\0\0");
		if (rq.n > sizeof(rq.b) - 64) {
			feed(p, s, REQ_DIR_IN, 100, &rq);
			rq.n = 0;
		}
	}
	M(&rq, 'S', "");
	feed(p, s, REQ_DIR_IN, 100, &rq);
	pair__counters(p, &c);
	CHECK_INT(c.n_pipeline_full, N - PAIR_PIPELINE_MAX);
	pair__free(p);
}

/* A Query of two statements is one request, to its ReadyForQuery; COPY FROM
 * STDIN's data and COPY TO STDOUT's are their Query's. */
static void test_query_copy(void)
{
	struct pairer *p = fresh(16);
	struct req_io s = tcp(20, 5, true, 40000, 5432);
	struct wire rq = { .n = 0 }, a = { .n = 0 }, d = { .n = 0 };
	size_t a1;

	M(&rq, 'Q', "SELECT 1; SELECT 2\0");
	rows(&a);
	rows(&a);
	a1 = a.n;
	feed(p, s, REQ_DIR_IN, 100, &rq);
	feed(p, s, REQ_DIR_OUT, 110, &a);
	CHECK_INT(nrec, 0);	/* no ReadyForQuery yet */
	a.n = 0;
	READY(&a);
	feed(p, s, REQ_DIR_OUT, 115, &a);
	CHECK_INT(nrec, 1);
	CHECK_STR(recs[0].method, "QUERY");
	CHECK_INT(recs[0].resp_bytes, a1 + 6);
	CHECK_INT(recs[0].duration, 15);

	/* COPY t FROM STDIN: CopyInResponse, the client's rows and CopyDone,
	 * then CommandComplete and ReadyForQuery */
	rq.n = a.n = 0;
	M(&rq, 'Q', "COPY t FROM STDIN\0");
	M(&a, 'G', "\0\0\x02\0\0\0\0");
	feed(p, s, REQ_DIR_IN, 200, &rq);
	feed(p, s, REQ_DIR_OUT, 210, &a);
	M(&d, 'd', "1\tx\n");
	M(&d, 'd', "2\ty\n");
	M(&d, 'c', "");
	feed(p, s, REQ_DIR_IN, 220, &d);
	a.n = 0;
	M(&a, 'C', "COPY 2\0");
	READY(&a);
	feed(p, s, REQ_DIR_OUT, 230, &a);
	CHECK_INT(nrec, 2);
	CHECK_STR(recs[1].target, "COPY t FROM STDIN");
	CHECK_INT(recs[1].req_bytes, rq.n + d.n);
	CHECK_INT(recs[1].resp_bytes, 12 + a.n);
	CHECK_INT(recs[1].duration, 30);

	/* COPY t TO STDOUT: CopyOutResponse, rows, CopyDone, the tag */
	rq.n = a.n = 0;
	M(&rq, 'Q', "COPY t TO STDOUT\0");
	M(&a, 'H', "\0\0\x02\0\0\0\0");
	M(&a, 'd', "1\tx\n");
	M(&a, 'd', "2\ty\n");
	M(&a, 'c', "");
	M(&a, 'C', "COPY 2\0");
	READY(&a);
	feed(p, s, REQ_DIR_IN, 300, &rq);
	feed(p, s, REQ_DIR_OUT, 310, &a);
	CHECK_INT(nrec, 3);
	CHECK_INT(recs[2].resp_bytes, a.n);
	check_counters(p);
	pair__free(p);
}

/* A SCRAM login: the startup message answered by AuthenticationSASL, the
 * SASLInitialResponse by SASLContinue, the SASLResponse by SASLFinal,
 * AuthenticationOk, the parameters and ReadyForQuery: three records. */
static void test_login(void)
{
	struct pairer *p = fresh(16);
	struct req_io s = tcp(20, 5, true, 40000, 5432);
	struct wire st = { .n = 0 }, a = { .n = 0 }, pw = { .n = 0 };

	M(&st, 0, "\0\x03\0\0user\0u\0database\0d\0\0");
	M(&a, 'R', "\0\0\0\x0aSCRAM-SHA-256\0\0");
	feed(p, s, REQ_DIR_IN, 100, &st);
	feed(p, s, REQ_DIR_OUT, 110, &a);
	CHECK_INT(nrec, 1);
	CHECK_STR(recs[0].method, "STARTUP");
	CHECK_STR(recs[0].target, "u@d");
	M(&pw, 'p', "SCRAM-SHA-256\0\0\0\0\x04n,,x");
	a.n = 0;
	M(&a, 'R', "\0\0\0\x0br=abc");
	feed(p, s, REQ_DIR_IN, 120, &pw);
	feed(p, s, REQ_DIR_OUT, 130, &a);
	CHECK_INT(nrec, 2);
	CHECK_STR(recs[1].method, "AUTH");
	pw.n = a.n = 0;
	M(&pw, 'p', "c=biws,r=abc,p=xyz");
	M(&a, 'R', "\0\0\0\x0cv=xyz");
	M(&a, 'R', "\0\0\0\0");
	M(&a, 'S', "TimeZone\0UTC\0");
	M(&a, 'K', "\0\0\0\x01\0\0\0\x02");
	READY(&a);
	feed(p, s, REQ_DIR_IN, 140, &pw);
	feed(p, s, REQ_DIR_OUT, 150, &a);
	CHECK_INT(nrec, 3);
	CHECK_INT(recs[2].resp_bytes, a.n);
	CHECK(!recs[2].error);
	check_counters(p);
	pair__free(p);
}

/* A Describe sent with a Flush (its answer read before the Execute is sent,
 * as pgJDBC describes a statement), then Bind, Execute and Sync: one
 * request, from the Parse to the ReadyForQuery. A DataRow cut by the
 * server's writes. */
static void test_flush_describe(void)
{
	struct pairer *p = fresh(16);
	struct req_io s = tcp(20, 5, true, 40000, 5432);
	struct wire rq = { .n = 0 }, a = { .n = 0 }, rq2 = { .n = 0 }, a2 = { .n = 0 };

	M(&rq, 'P', "s1\0SELECT 1\0\0\0");
	M(&rq, 'D', "Ss1\0");
	M(&rq, 'H', "");
	M(&a, '1', "");
	M(&a, 't', "\0\0");
	M(&a, 'n', "");
	feed(p, s, REQ_DIR_IN, 100, &rq);
	feed(p, s, REQ_DIR_OUT, 110, &a);
	CHECK_INT(nrec, 0);
	M(&rq2, 'B', "\0s1\0\0\0\0\0\0\0");
	M(&rq2, 'E', "\0\0\0\0\0");
	M(&rq2, 'S', "");
	feed(p, s, REQ_DIR_IN, 120, &rq2);
	M(&a2, '2', "");
	rows(&a2);
	READY(&a2);
	/* cut inside the DataRow */
	io_do(p, s, REQ_DIR_OUT, 130, 0, a2.b, 45, 0);
	io_do(p, s, REQ_DIR_OUT, 140, 0, a2.b + 45, a2.n - 45, 0);
	CHECK_INT(nrec, 1);
	CHECK_STR(recs[0].target, "SELECT 1");
	CHECK_INT(recs[0].req_bytes, rq.n + rq2.n);
	CHECK_INT(recs[0].resp_bytes, a.n + a2.n);
	CHECK_INT(recs[0].duration, 40);
	check_counters(p);
	pair__free(p);
}

/* Prepared statements: a Bind alone gets the text its statement's Parse
 * named earlier on the connection (pgbench -M prepared, pgx, psycopg); the
 * unnamed statement too; a statement parsed again with other text, the new
 * one; past the 32 kept, the least recently used is forgotten. */
static void test_statements(void)
{
	struct pairer *p = fresh(16);
	struct req_io s = tcp(20, 5, true, 40000, 5432);
	struct wire rq = { .n = 0 }, a = { .n = 0 };
	char body[64];
	int n0;

	/* prepare: Parse and Sync, answered */
	M(&rq, 'P', "P0_1\0SELECT abalance FROM a WHERE aid = $1\0\0\0");
	M(&rq, 'S', "");
	M(&a, '1', "");
	READY(&a);
	feed(p, s, REQ_DIR_IN, 100, &rq);
	feed(p, s, REQ_DIR_OUT, 110, &a);
	/* run it twice, then the unnamed statement by Bind alone */
	rq.n = a.n = 0;
	run(&rq, "P0_1");
	run(&rq, "P0_1");
	M(&rq, 'S', "");
	ran(&a);
	ran(&a);
	READY(&a);
	feed(p, s, REQ_DIR_IN, 120, &rq);
	feed(p, s, REQ_DIR_OUT, 130, &a);
	CHECK_INT(nrec, 3);
	CHECK_STR(recs[0].method, "PARSE");
	CHECK_STR(recs[1].method, "BIND");
	CHECK_STR(recs[1].target, "SELECT abalance FROM a WHERE aid = $1");
	CHECK_STR(recs[2].target, "SELECT abalance FROM a WHERE aid = $1");

	/* the unnamed statement: parsed with a run, then bound alone; a
	 * Bind of a statement never parsed here names none */
	rq.n = a.n = 0;
	group(&rq, "SELECT 7");
	run(&rq, "");
	run(&rq, "nope");
	M(&rq, 'S', "");
	answer(&a);
	ran(&a);
	M(&a, 'E', "SERROR\0C26000\0Mprepared statement \"nope\" does not exist\0\0");
	READY(&a);
	feed(p, s, REQ_DIR_IN, 200, &rq);
	feed(p, s, REQ_DIR_OUT, 210, &a);
	CHECK_INT(nrec, 6);
	CHECK_STR(recs[3].target, "SELECT 7");
	CHECK_STR(recs[4].method, "BIND");
	CHECK_STR(recs[4].target, "SELECT 7");
	CHECK_STR(recs[5].target, "");
	CHECK(recs[5].error);
	CHECK_STR(recs[5].code, "26000");

	/* 33 statements parsed: the first (unused since) is forgotten, P0_1
	 * parsed again with other text takes it */
	rq.n = a.n = 0;
	for (int i = 0; i < 33; i++) {
		int len = snprintf(body, sizeof(body), "x%d%cSELECT %d%c%c%c", i, 0, i, 0, 0, 0);

		msg(&rq, 'P', body, (size_t)len);
		M(&a, '1', "");
	}
	M(&rq, 'P', "P0_1\0SELECT 99\0\0\0");
	M(&rq, 'S', "");
	M(&a, '1', "");
	READY(&a);
	feed(p, s, REQ_DIR_IN, 300, &rq);
	feed(p, s, REQ_DIR_OUT, 310, &a);
	n0 = nrec;
	rq.n = a.n = 0;
	run(&rq, "x0");
	run(&rq, "x32");
	run(&rq, "P0_1");
	M(&rq, 'S', "");
	for (int i = 0; i < 3; i++)
		ran(&a);
	READY(&a);
	feed(p, s, REQ_DIR_IN, 400, &rq);
	feed(p, s, REQ_DIR_OUT, 410, &a);
	CHECK_INT(nrec, n0 + 3);
	CHECK_STR(recs[n0].target, "");
	CHECK_STR(recs[n0 + 1].target, "SELECT 32");
	CHECK_STR(recs[n0 + 2].target, "SELECT 99");
	check_counters(p);
	pair__free(p);
}

int main(void)
{
	test_pipeline();
	test_pipeline_error();
	test_batch_bind();
	test_batch_limit();
	test_query_copy();
	test_login();
	test_flush_describe();
	test_statements();
	return t_report();
}
