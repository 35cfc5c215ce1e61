/* MySQL in the pairing beyond its bursts (pair_my.c): prepared statements
 * (the binary protocol: a STMT_PREPARE's OK gives the statement its id, and
 * the commands that name the id get its SQL text; STMT_CLOSE and
 * STMT_SEND_LONG_DATA, which the server never answers, end at their length,
 * so the command sent after them unanswered is a request of its own; a
 * prepare's answer is walked to its definitions' end, where the answer to
 * an execute sent with it begins), LOAD DATA LOCAL INFILE and MariaDB's
 * progress reports. The packets are built here by the protocol's layouts,
 * in the shapes Go's go-sql-driver 1.5 (a prepare, an execute and a close
 * for each query with arguments), libmariadb 3.3's mysql_stmt_* calls and
 * the mariadb client exchanged with MariaDB 10.11 in e2e_req_sql. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pair_check.h"

struct wire {
	char b[8192];
	size_t n;
};

/* Appends a packet of sequence SEQ with PAYLOAD's N bytes. */
static struct wire *pkt(struct wire *w, uint8_t seq, const void *payload, size_t n)
{
	w->b[w->n] = (char)(n & 0xff);
	w->b[w->n + 1] = (char)(n >> 8 & 0xff);
	w->b[w->n + 2] = (char)(n >> 16);
	w->b[w->n + 3] = (char)seq;
	memcpy(w->b + w->n + 4, payload, n);
	w->n += 4 + n;
	return w;
}

#define P(w, seq, lit) pkt(w, seq, lit, sizeof(lit) - 1)

static void le32(char *b, uint32_t v)
{
	b[0] = (char)(v & 0xff);
	b[1] = (char)(v >> 8 & 0xff);
	b[2] = (char)(v >> 16 & 0xff);
	b[3] = (char)(v >> 24);
}

/* COM_STMT_PREPARE of SQL */
static void prepare(struct wire *w, const char *sql)
{
	char b[512];
	size_t n = strlen(sql);

	b[0] = 0x16;
	memcpy(b + 1, sql, n);
	pkt(w, 0, b, n + 1);
}

/* Its OK for statement ID (one parameter, one column), the parameter's and
 * the column's definitions, each list ended by an EOF */
static void prepared(struct wire *w, uint32_t id)
{
	char ok[12] = { 0x00, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0 };
	static const char def[] = "\x03" "def\x00\x00\x00\x01?\x00\x0c\x3f\x00\x00\x00\x00\x00"
				  "\x08\x80\x00\x00\x00\x00";

	le32(ok + 1, id);
	pkt(w, 1, ok, sizeof(ok));
	P(w, 2, def);
	P(w, 3, "\xfe\x00\x00\x02\x00");
	P(w, 4, def);
	P(w, 5, "\xfe\x00\x00\x02\x00");
}

/* A command of CMD naming statement ID, with MORE's N bytes after the id */
static void stmt_cmd(struct wire *w, uint8_t cmd, uint32_t id, const void *more, size_t n)
{
	char b[4096];

	b[0] = (char)cmd;
	le32(b + 1, id);
	memcpy(b + 5, more, n);
	pkt(w, 0, b, n + 5);
}

/* COM_STMT_EXECUTE of ID: no cursor, iteration count 1, one BIGINT */
static void execute(struct wire *w, uint32_t id)
{
	stmt_cmd(w, 0x17, id, "\x00\x01\x00\x00\x00\x00\x01\x08\x00\x07\x00\x00\x00\x00\x00\x00\x00",
		 17);
}

/* a binary result set of one column and one row */
static void rows(struct wire *w)
{
	static const char def[] = "\x03" "def\x00\x00\x00\x01v\x00\x0c\x3f\x00\x15\x00\x00\x00"
				  "\x08\x81\x00\x00\x00\x00";

	P(w, 1, "\x01");
	P(w, 2, def);
	P(w, 3, "\xfe\x00\x00\x02\x00");
	P(w, 4, "\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00");
	P(w, 5, "\xfe\x00\x00\x02\x00");
}

#define CLOSE(w, id) stmt_cmd(w, 0x19, id, "", 0)

static struct req_io srv(void)
{
	return tcp(700, 9, true, 41000, 3306);
}

/* B's N bytes in one call, in DIR at TS */
static void put(struct pairer *p, uint8_t dir, uint64_t ts, const struct wire *w)
{
	io_do(p, srv(), dir, ts, 0, w->b, w->n, 0);
}

static void in(struct pairer *p, uint64_t ts, const struct wire *w)
{
	put(p, REQ_DIR_IN, ts, w);
}

static void out(struct pairer *p, uint64_t ts, const struct wire *w)
{
	put(p, REQ_DIR_OUT, ts, w);
}

static void done(struct pairer *p)
{
	struct req_io s = srv();
	struct pair_counters pc;

	pair__close(p, &s);
	pair__counters(p, &pc);
	CHECK_INT(pc.n_unparsed, 0);
	CHECK_INT(pc.n_unmatched, 0);
	pair__free(p);
}

/* Record I: METHOD, TARGET, REQ and RESP bytes, error number STATUS (-1: none) */
static void rec_at(int line, int i, const char *method, const char *target, uint64_t req,
		   uint64_t resp, int status)
{
	int failed = t_failed;

	CHECK(i < nrec);
	CHECK_INT(recs[i].proto, REQ_PROTO_MYSQL);
	CHECK_STR(recs[i].method, method);
	CHECK_STR(recs[i].target, target);
	CHECK_INT(recs[i].req_bytes, req);
	CHECK_INT(recs[i].resp_bytes, resp);
	CHECK_INT(recs[i].status, status);
	CHECK(!recs[i].aborted);
	if (t_failed != failed)
		fprintf(stderr, "  (record %d, line %d)\n", i, line);
}
#define rec(i, method, target, req, resp, status) \
	rec_at(__LINE__, i, method, target, req, resp, status)

/* go-sql-driver's QueryRow with an argument, twice: prepare, execute,
 * close, each in a write of its own, the close and the next prepare sent
 * one after the other with no answer between */
static void test_go_query_args(void)
{
	struct pairer *p = fresh(0);
	struct wire w[12];
	int i;

	memset(w, 0, sizeof(w));
	prepare(&w[0], "SELECT ? + 1");
	prepared(&w[1], 64);
	execute(&w[2], 64);
	rows(&w[3]);
	CLOSE(&w[4], 64);
	prepare(&w[5], "SELECT ? + 1");
	prepared(&w[6], 65);
	execute(&w[7], 65);
	rows(&w[8]);
	CLOSE(&w[9], 65);
	for (i = 0; i < 10; i++)
		put(p, i == 1 || i == 3 || i == 6 || i == 8 ? REQ_DIR_OUT : REQ_DIR_IN,
		     1000 + 100 * (uint64_t)i, &w[i]);
	done(p);
	CHECK_INT(nrec, 6);
	rec(0, "STMT_PREPARE", "SELECT ? + 1", w[0].n, w[1].n, -1);
	rec(1, "STMT_EXECUTE", "SELECT ? + 1", w[2].n, w[3].n, -1);
	rec(2, "STMT_CLOSE", "SELECT ? + 1", 9, 0, -1);
	CHECK_INT(recs[2].duration, 0);
	rec(3, "STMT_PREPARE", "SELECT ? + 1", w[5].n, w[6].n, -1);
	rec(4, "STMT_EXECUTE", "SELECT ? + 1", w[7].n, w[8].n, -1);
	rec(5, "STMT_CLOSE", "SELECT ? + 1", 9, 0, -1);
	/* the prepare's response from its first byte */
	CHECK_INT(recs[3].ttfb, 100);
}

/* The unanswered commands and the next one in one write; long data cut by
 * the capture; a statement let go by its close; one prepared before the
 * pairing saw the connection; a prepare that failed */
static void test_unanswered(void)
{
	struct pairer *p = fresh(0);
	struct wire w[17];
	char big[3000];

	memset(w, 0, sizeof(w));
	memset(big, 'x', sizeof(big));
	big[0] = 1;	/* the parameter's number, 2 bytes */
	big[1] = 0;
	prepare(&w[0], "INSERT INTO t VALUES (?, ?)");
	in(p, 1000, &w[0]);
	prepared(&w[1], 7);
	out(p, 1100, &w[1]);
	/* two pieces of a long value, the first cut by the capture (2048
	 * bytes of the call kept), then the execute: a write each */
	stmt_cmd(&w[2], 0x18, 7, big, sizeof(big));
	io_do(p, srv(), REQ_DIR_IN, 1200, 0, w[2].b, 2048, w[2].n);
	stmt_cmd(&w[15], 0x18, 7, big, 10);
	in(p, 1210, &w[15]);
	execute(&w[2], 7);
	io_do(p, srv(), REQ_DIR_IN, 1220, 0, w[2].b + 4 + 5 + 3000, w[2].n - (4 + 5 + 3000), 0);
	P(&w[3], 1, "\x00\x00\x00\x02\x00\x00\x00");
	out(p, 1300, &w[3]);
	/* (a response ends where the next request begins) */
	CHECK_INT(nrec, 3);
	/* a reset, answered; the close and a query in one write */
	stmt_cmd(&w[4], 0x1a, 7, "", 0);
	in(p, 1400, &w[4]);
	P(&w[5], 1, "\x00\x00\x00\x02\x00\x00\x00");
	out(p, 1500, &w[5]);
	CLOSE(&w[6], 7);
	P(&w[6], 0, "\x03SELECT 1");
	in(p, 1600, &w[6]);
	P(&w[7], 1, "\x01");
	out(p, 1700, &w[7]);
	/* the closed statement's id again, and one never seen prepared */
	execute(&w[8], 7);
	in(p, 1800, &w[8]);
	out(p, 1900, &w[5]);
	execute(&w[9], 3);
	in(p, 2000, &w[9]);
	out(p, 2100, &w[5]);
	/* a prepare the server refuses: no statement; an OK of 12 bytes to a
	 * query names none */
	prepare(&w[10], "SELEC 1");
	in(p, 2200, &w[10]);
	P(&w[11], 1, "\xff\x28\x04#42000You have an error");
	out(p, 2300, &w[11]);
	P(&w[12], 0, "\x03" "DO 1");
	in(p, 2400, &w[12]);
	P(&w[13], 1, "\x00\x09\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00");
	out(p, 2500, &w[13]);
	execute(&w[14], 9);
	in(p, 2600, &w[14]);
	out(p, 2700, &w[5]);
	done(p);
	CHECK_INT(nrec, 12);
	rec(0, "STMT_PREPARE", "INSERT INTO t VALUES (?, ?)", w[0].n, w[1].n, -1);
	rec(1, "STMT_SEND_LONG_DATA", "INSERT INTO t VALUES (?, ?)", 4 + 5 + 3000, 0, -1);
	rec(2, "STMT_SEND_LONG_DATA", "INSERT INTO t VALUES (?, ?)", w[15].n, 0, -1);
	rec(3, "STMT_EXECUTE", "INSERT INTO t VALUES (?, ?)", w[2].n - (4 + 5 + 3000), w[3].n, -1);
	rec(4, "STMT_RESET", "INSERT INTO t VALUES (?, ?)", w[4].n, w[5].n, -1);
	rec(5, "STMT_CLOSE", "INSERT INTO t VALUES (?, ?)", 9, 0, -1);
	rec(6, "QUERY", "SELECT 1", w[6].n - 9, w[7].n, -1);
	rec(7, "STMT_EXECUTE", "7", w[8].n, w[5].n, -1);
	rec(8, "STMT_EXECUTE", "3", w[9].n, w[5].n, -1);
	rec(9, "STMT_PREPARE", "SELEC 1", w[10].n, w[11].n, 1064);
	CHECK(recs[9].error);
	rec(10, "QUERY", "DO 1", w[12].n, w[13].n, -1);
	rec(11, "STMT_EXECUTE", "9", w[14].n, w[5].n, -1);
}

/* libmariadb's cursor: an execute that opens it, then COM_STMT_FETCH of two
 * rows at a time until the last; then a bulk execute */
static void test_cursor(void)
{
	struct pairer *p = fresh(0);
	struct wire w[8];
	int i;

	memset(w, 0, sizeof(w));
	prepare(&w[0], "SELECT id, v FROM t WHERE id <= ? ORDER BY id");
	prepared(&w[1], 3);
	stmt_cmd(&w[2], 0x17, 3, "\x01\x01\x00\x00\x00\x00\x01\x03\x00\x09\x00\x00\x00", 13);
	/* the column count and definitions, and an EOF saying a cursor is open */
	P(&w[3], 1, "\x01");
	P(&w[3], 2, "\x03" "def\x00\x00\x00\x02id\x00\x0c\x3f\x00\x0b\x00\x00\x00\x03\x03\x42\x00\x00\x00");
	P(&w[3], 3, "\xfe\x00\x00\x42\x00");
	stmt_cmd(&w[4], 0x1c, 3, "\x02\x00\x00\x00", 4);
	P(&w[5], 1, "\x00\x00\x01\x00\x00\x00");
	P(&w[5], 2, "\x00\x00\x02\x00\x00\x00");
	P(&w[5], 3, "\xfe\x00\x00\x42\x00");
	for (i = 0; i < 6; i++)
		put(p, i & 1 ? REQ_DIR_OUT : REQ_DIR_IN, 1000 + 100 * (uint64_t)i, &w[i]);
	put(p, REQ_DIR_IN, 1600, &w[4]);
	put(p, REQ_DIR_OUT, 1700, &w[5]);
	/* MariaDB's bulk execute of the same statement: three rows at once */
	stmt_cmd(&w[6], 0xfa, 3, "\x80\x00\x03\x00\x00\x01\x00\x00\x00\x00\x02\x00\x00\x00"
		 "\x00\x03\x00\x00\x00", 19);
	in(p, 1800, &w[6]);
	P(&w[7], 1, "\x00\x03\x00\x02\x00\x00\x00");
	out(p, 1900, &w[7]);
	done(p);
	CHECK_INT(nrec, 5);
	rec(4, "STMT_BULK_EXECUTE", "SELECT id, v FROM t WHERE id <= ? ORDER BY id", w[6].n, w[7].n, -1);
	rec(0, "STMT_PREPARE", "SELECT id, v FROM t WHERE id <= ? ORDER BY id", w[0].n, w[1].n, -1);
	rec(1, "STMT_EXECUTE", "SELECT id, v FROM t WHERE id <= ? ORDER BY id", w[2].n, w[3].n, -1);
	rec(2, "STMT_FETCH", "SELECT id, v FROM t WHERE id <= ? ORDER BY id", w[4].n, w[5].n, -1);
	rec(3, "STMT_FETCH", "SELECT id, v FROM t WHERE id <= ? ORDER BY id", w[4].n, w[5].n, -1);
}

/* More statements than a connection keeps: the least recently used goes */
static void test_many(void)
{
	struct pairer *p = fresh(0);
	struct wire w;
	char sql[64];
	uint32_t id;

	for (id = 1; id <= 33; id++) {
		if (id == 33) {
			/* statement 1 used again: statement 2 is the least recent */
			memset(&w, 0, sizeof(w));
			execute(&w, 1);
			in(p, 1327, &w);
			memset(&w, 0, sizeof(w));
			rows(&w);
			out(p, 1328, &w);
		}
		memset(&w, 0, sizeof(w));
		snprintf(sql, sizeof(sql), "SELECT %u", id);
		prepare(&w, sql);
		in(p, 1000 + 10 * (uint64_t)id, &w);
		memset(&w, 0, sizeof(w));
		prepared(&w, id);
		out(p, 1005 + 10 * (uint64_t)id, &w);
	}
	for (id = 1; id <= 3; id++) {
		memset(&w, 0, sizeof(w));
		execute(&w, id);
		in(p, 2000 + 10 * (uint64_t)id, &w);
		memset(&w, 0, sizeof(w));
		rows(&w);
		out(p, 2005 + 10 * (uint64_t)id, &w);
	}
	done(p);
	CHECK_INT(nrec, 1 + 33 + 3);
	CHECK_STR(recs[34].target, "SELECT 1");
	CHECK_STR(recs[35].target, "2");
	CHECK_STR(recs[36].target, "SELECT 3");
}

/* LOAD DATA LOCAL INFILE (mariadb --local-infile): the server asks for the
 * file, the client sends it (packets, then an empty one), the server's OK
 * or ERR ends the statement; one record, the file's bytes its request's */
static void test_local_infile(void)
{
	struct pairer *p = fresh(0);
	struct wire w[9];
	char rows[1500];

	memset(w, 0, sizeof(w));
	memset(rows, 'r', sizeof(rows));
	P(&w[0], 0, "\x03LOAD DATA LOCAL INFILE 'f.csv' INTO TABLE t");
	in(p, 1000, &w[0]);
	P(&w[1], 1, "\xfb" "f.csv");
	out(p, 1100, &w[1]);
	pkt(&w[2], 2, rows, sizeof(rows));
	in(p, 1200, &w[2]);
	pkt(&w[3], 3, rows, 100);
	pkt(&w[3], 4, "", 0);
	in(p, 1210, &w[3]);
	/* MariaDB's progress report, then the OK, in one read */
	P(&w[4], 5, "\xff\xff\xff\x01\x02\x02\x00\x00\x00\x0f" "End bulk insert");
	P(&w[4], 6, "\x00\x05\x00\x02\x00\x00\x00" "/Records: 5  Deleted: 0  Skipped: 0  Warnings: 0");
	out(p, 1400, &w[4]);
	P(&w[5], 0, "\x03SELECT 1");
	in(p, 1500, &w[5]);
	P(&w[6], 1, "\x01");
	out(p, 1600, &w[6]);
	/* a file the client cannot read: its empty packet alone, then ERR */
	in(p, 1700, &w[0]);
	out(p, 1800, &w[1]);
	memset(&w[7], 0, sizeof(w[7]));
	pkt(&w[7], 2, "", 0);
	in(p, 1900, &w[7]);
	memset(&w[3], 0, sizeof(w[3]));
	P(&w[3], 3, "\xff\xff\xff\x01\x02\x02\x00\x00\x00\x0f" "End bulk insert");
	out(p, 2000, &w[3]);
	P(&w[8], 4, "\xff\x56\x05#22007Incorrect integer value");
	out(p, 2010, &w[8]);
	done(p);
	CHECK_INT(nrec, 3);
	rec(0, "QUERY", "LOAD DATA LOCAL INFILE 'f.csv' INTO TABLE t", w[0].n + w[2].n + 4 + 100 + 4,
	    w[1].n + w[4].n, -1);
	CHECK_INT(recs[0].duration, 400);
	CHECK_INT(recs[0].ttfb, 100);
	rec(1, "QUERY", "SELECT 1", w[5].n, w[6].n, -1);
	rec(2, "QUERY", "LOAD DATA LOCAL INFILE 'f.csv' INTO TABLE t", w[0].n + 4,
	    w[1].n + w[3].n + w[8].n, 1366);
	CHECK(recs[2].error);
	CHECK_STR(recs[2].code, "22007");
}

/* A long statement's progress reports (to the mariadb client) before its
 * answer: the answer's result is the statement's, its first byte the
 * response's */
static void test_progress(void)
{
	struct pairer *p = fresh(0);
	struct wire w[6];
	int i;

	memset(w, 0, sizeof(w));
	P(&w[0], 0, "\x03" "ALTER TABLE t ADD COLUMN c INT");
	P(&w[1], 1, "\xff\xff\xff\x01\x01\x02\x00\x10\x00\x0e" "copy to tmp ta");
	P(&w[2], 2, "\xff\xff\xff\x01\x02\x02\x00\x20\x00\x0e" "copy to tmp ta");
	P(&w[3], 3, "\xff\x1c\x04#HY000Table is full");
	P(&w[4], 0, "\x03" "ALTER TABLE t ADD COLUMN d INT");
	P(&w[5], 3, "\x00\x00\x00\x02\x00\x00\x00");
	for (i = 0; i < 6; i++)
		put(p, i == 0 || i == 4 ? REQ_DIR_IN : REQ_DIR_OUT, 1000 + 100 * (uint64_t)i, &w[i]);
	/* the second's reports and answer in one read */
	put(p, REQ_DIR_IN, 2000, &w[4]);
	memset(&w[4], 0, sizeof(w[4]));
	P(&w[4], 1, "\xff\xff\xff\x01\x01\x02\x00\x10\x00\x0e" "copy to tmp ta");
	P(&w[4], 2, "\x00\x00\x00\x02\x00\x00\x00");
	out(p, 2100, &w[4]);
	done(p);
	CHECK_INT(nrec, 3);
	rec(0, "QUERY", "ALTER TABLE t ADD COLUMN c INT", w[0].n, w[1].n + w[2].n + w[3].n, 1052 + 0);
	CHECK(recs[0].error);
	CHECK_STR(recs[0].code, "HY000");
	CHECK_INT(recs[0].ttfb, 300);
	CHECK_INT(recs[0].duration, 300);
	rec(1, "QUERY", "ALTER TABLE t ADD COLUMN d INT", w[0].n, w[5].n, -1);
	rec(2, "QUERY", "ALTER TABLE t ADD COLUMN d INT", w[0].n, w[4].n, -1);
	CHECK(!recs[2].error);
}

/* MariaDB's direct execute (libmariadb's mariadb_stmt_execute_direct): a
 * prepare and an execute naming the statement prepared last (id
 * 0xffffffff) in one write, the two answers in one read; with the EOFs
 * after each list of definitions (EOFS) or without (CLIENT_DEPRECATE_EOF) */
static void direct(bool eofs)
{
	struct pairer *p = fresh(0);
	struct wire w[4], ok;

	memset(w, 0, sizeof(w));
	memset(&ok, 0, sizeof(ok));
	prepare(&w[0], "SELECT ? + 100");
	execute(&w[0], 0xffffffffu);
	in(p, 1000, &w[0]);
	if (eofs) {
		prepared(&ok, 9);
	} else {
		char b[12] = { 0x00, 9, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0 };
		static const char def[] = "\x03" "def\x00\x00\x00\x01?\x00\x0c\x3f\x00\x00\x00\x00"
					  "\x00\x08\x80\x00\x00\x00\x00";

		pkt(&ok, 1, b, sizeof(b));
		P(&ok, 2, def);
		P(&ok, 3, def);
	}
	memcpy(w[1].b, ok.b, ok.n);
	w[1].n = ok.n;
	if (eofs) {
		rows(&w[1]);
	} else {
		/* a result set whose end is an OK shaped as an EOF */
		P(&w[1], 1, "\x01");
		P(&w[1], 2, "\x03" "def\x00\x00\x00\x01v\x00\x0c\x3f\x00\x15\x00\x00\x00\x08\x81"
		  "\x00\x00\x00\x00");
		P(&w[1], 3, "\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00");
		P(&w[1], 4, "\xfe\x00\x00\x02\x00\x00\x00");
	}
	out(p, 1100, &w[1]);
	CLOSE(&w[2], 9);
	in(p, 1200, &w[2]);
	done(p);
	memset(&w[3], 0, sizeof(w[3]));
	execute(&w[3], 0xffffffffu);
	CHECK_INT(nrec, 3);
	rec(0, "STMT_PREPARE", "SELECT ? + 100", w[0].n - w[3].n, ok.n, -1);
	rec(1, "STMT_EXECUTE", "SELECT ? + 100", w[3].n, w[1].n - ok.n, -1);
	rec(2, "STMT_CLOSE", "SELECT ? + 100", 9, 0, -1);
}

static void test_direct(void)
{
	direct(true);
	direct(false);
}

/* A prepare's definitions as the reads cut them: a packet's header split
 * between two reads (carried), and an answer past the captured bytes (the
 * walk given up: the burst rules, as before it) */
static void test_prepare_cut(void)
{
	struct pairer *p = fresh(0);
	struct wire w[4], x[3];
	char ok[12] = { 0x00, 5, 0, 0, 0, 40, 0, 0, 0, 0, 0, 0 };
	static const char def[] = "\x03" "def\x00\x00\x00\x01" "c\x00\x0c\x3f\x00\x0b\x00\x00\x00"
				  "\x03\x00\x00\x00\x00\x00";
	size_t cut;
	int i;

	memset(w, 0, sizeof(w));
	memset(x, 0, sizeof(x));
	prepare(&w[0], "SELECT ? + 1");
	in(p, 1000, &w[0]);
	prepared(&w[1], 4);
	/* the first read ends 2 bytes into the parameter's definition's header */
	cut = 16 + 2;
	io_do(p, srv(), REQ_DIR_OUT, 1100, 0, w[1].b, cut, 0);
	io_do(p, srv(), REQ_DIR_OUT, 1110, 0, w[1].b + cut, w[1].n - cut, 0);
	execute(&w[2], 4);
	in(p, 1200, &w[2]);
	rows(&w[3]);
	out(p, 1300, &w[3]);
	/* 40 columns, the read cut at 1000 bytes */
	prepare(&x[0], "SELECT * FROM wide");
	in(p, 1400, &x[0]);
	pkt(&x[1], 1, ok, sizeof(ok));
	for (i = 0; i < 40; i++)
		P(&x[1], (uint8_t)(2 + i), def);
	P(&x[1], 42, "\xfe\x00\x00\x02\x00");
	io_do(p, srv(), REQ_DIR_OUT, 1500, 0, x[1].b, 1000, x[1].n);
	execute(&x[2], 5);
	in(p, 1600, &x[2]);
	out(p, 1700, &w[3]);
	done(p);
	CHECK_INT(nrec, 4);
	rec(0, "STMT_PREPARE", "SELECT ? + 1", w[0].n, w[1].n, -1);
	rec(1, "STMT_EXECUTE", "SELECT ? + 1", w[2].n, w[3].n, -1);
	rec(2, "STMT_PREPARE", "SELECT * FROM wide", x[0].n, x[1].n, -1);
	rec(3, "STMT_EXECUTE", "SELECT * FROM wide", x[2].n, w[3].n, -1);
}

/* Bytes after a prepare in its write that are no command: the prepare's,
 * counted as refused */
static void test_after_prepare(void)
{
	struct pairer *p = fresh(0);
	struct wire w[2];
	struct pair_counters pc;
	struct req_io s = srv();

	memset(w, 0, sizeof(w));
	prepare(&w[0], "SELECT ? + 1");
	P(&w[0], 7, "\x99zz");
	in(p, 1000, &w[0]);
	prepared(&w[1], 4);
	out(p, 1100, &w[1]);
	pair__close(p, &s);
	pair__counters(p, &pc);
	CHECK_INT(pc.n_unparsed, 1);
	CHECK_INT(nrec, 1);
	rec(0, "STMT_PREPARE", "SELECT ? + 1", w[0].n, w[1].n, -1);
	pair__free(p);
}

int main(void)
{
	test_go_query_args();
	test_unanswered();
	test_cursor();
	test_many();
	test_local_infile();
	test_progress();
	test_direct();
	test_prepare_cut();
	test_after_prepare();
	return t_report();
}
