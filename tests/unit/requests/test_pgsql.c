/* pgsql__parse: messages as psql 15.18 and pgbench 15.18 (simple and extended
 * query protocol) sent them to a PostgreSQL 15.18 server and as it answered,
 * captured byte for byte through a relay on 127.0.0.1; every prefix of each;
 * each message of a capture walked by total_len; the other protocols' first
 * bytes, and hostile bytes. Each parse reads an exact-size heap copy so that
 * valgrind or ASan sees any read past LEN. */
#include "pgsql.h"
#include "req_check.h"

static const uint8_t pg_startup[] =
	"\x00\x00\x00<\x00\x03\x00\x00user\x00" "alice\x00" "database\x00postgre"
	"s\x00" "application_name\x00psql\x00\x00";  /* 60 bytes */
static const uint8_t pg_ssl[] =
	"\x00\x00\x00\x08\x04\xd2\x16/";  /* 8 bytes */
static const uint8_t pg_auth_params[] =
	"R\x00\x00\x00\x08\x00\x00\x00\x00S\x00\x00\x00\x1a" "application_name\x00"
	"psql\x00S\x00\x00\x00\x19" "client_encoding\x00UTF8\x00S\x00\x00\x00\x17"
	"DateStyle\x00ISO, MDY\x00S\x00\x00\x00&default_transaction_read_only\x00"
	"off\x00S\x00\x00\x00\x17in_hot_standby\x00off\x00S\x00\x00\x00\x19integ"
	"er_datetimes\x00on\x00S\x00\x00\x00\x1bIntervalStyle\x00postgres\x00S\x00"
	"\x00\x00\x14is_superuser\x00on\x00S\x00\x00\x00\x19server_encoding\x00U"
	"TF8\x00S\x00\x00\x00" "2server_version\x00" "15.18 (Debian 15.18-0+deb1"
	"2u1)\x00S\x00\x00\x00 session_authorization\x00" "alice\x00S\x00\x00\x00"
	"#standard_conforming_strings\x00on\x00S\x00\x00\x00\x15TimeZone\x00" "E"
	"tc/UTC\x00K\x00\x00\x00\x0c\x00\x00w\xec\x3fu\xd3\xb3Z\x00\x00\x00\x05I";  /* 411 bytes */
static const uint8_t pg_query[] =
	"Q\x00\x00\x00\x14select 1 as one\x00";  /* 21 bytes */
static const uint8_t pg_select_reply[] =
	"T\x00\x00\x00\x1c\x00\x01one\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x17"
	"\x00\x04\xff\xff\xff\xff\x00\x00" "D\x00\x00\x00\x0b\x00\x01\x00\x00\x00"
	"\x01" "1C\x00\x00\x00\x0dSELECT 1\x00Z\x00\x00\x00\x05I";  /* 61 bytes */
static const uint8_t pg_insert[] =
	"Q\x00\x00\x00\x1einsert into t1 values (7)\x00";  /* 31 bytes */
static const uint8_t pg_insert_reply[] =
	"C\x00\x00\x00\x0fINSERT 0 1\x00Z\x00\x00\x00\x05I";  /* 22 bytes */
static const uint8_t pg_query_bad[] =
	"Q\x00\x00\x00\x19select * from nosuch\x00";  /* 26 bytes */
static const uint8_t pg_error[] =
	"E\x00\x00\x00iSERROR\x00VERROR\x00" "C42P01\x00Mrelation \x22nosuch\x22"
	" does not exist\x00P15\x00" "Fparse_relation.c\x00L1392\x00RparserOpenT"
	"able\x00\x00";  /* 106 bytes */
static const uint8_t pg_terminate[] =
	"X\x00\x00\x00\x04";  /* 5 bytes */
static const uint8_t pg_fatal[] =
	"R\x00\x00\x00\x08\x00\x00\x00\x00" "E\x00\x00\x00YSFATAL\x00VFATAL\x00" "C"
	"3D000\x00Mdatabase \x22shop\x22 does not exist\x00" "Fpostinit.c\x00L94"
	"8\x00RInitPostgres\x00\x00";  /* 99 bytes */
static const uint8_t pg_extended[] =
	"P\x00\x00\x00&\x00SELECT a FROM t1 WHERE a = $1;\x00\x00\x00" "B\x00\x00"
	"\x00\x13\x00\x00\x00\x00\x00\x01\x00\x00\x00\x01" "7\x00\x01\x00\x00" "D"
	"\x00\x00\x00\x06P\x00" "E\x00\x00\x00\x09\x00\x00\x00\x00\x00S\x00\x00\x00"
	"\x04";  /* 81 bytes */
static const uint8_t pg_extended_reply[] =
	"1\x00\x00\x00\x04" "2\x00\x00\x00\x04T\x00\x00\x00\x1a\x00\x01" "a\x00\x00"
	"\x00@\x00\x00\x01\x00\x00\x00\x17\x00\x04\xff\xff\xff\xff\x00\x00" "D\x00"
	"\x00\x00\x0b\x00\x01\x00\x00\x00\x01" "7C\x00\x00\x00\x0dSELECT 1\x00Z\x00"
	"\x00\x00\x05I";  /* 69 bytes */

/* Connection setup as pgbench 15.18 and psql 15.18 sent it to a PostgreSQL
 * 15.18 server through the same relay: pgbench's startup; psql's as a user
 * whose password pg_hba.conf asks for by SCRAM-SHA-256 (its SASLInitialResponse
 * and SASLResponse) and by MD5 (its PasswordMessage); psql's CancelRequest
 * after a SIGINT. */
static const uint8_t pg_startup_bench[] =
	"\x00\x00\x00" "B\x00\x03\x00\x00user\x00postgres\x00" "database\x00postgres\x00"
	"application_name\x00pgbench\x00\x00";  /* 66 bytes */
static const uint8_t pg_startup_pw[] =
	"\x00\x00\x00=\x00\x03\x00\x00user\x00pwuser\x00" "database\x00postgres\x00"
	"application_name\x00psql\x00\x00";  /* 61 bytes */
static const uint8_t pg_sasl_first[] =
	"p\x00\x00\x00" "6SCRAM-SHA-256\x00\x00\x00\x00 n,,n=,r=GHbEX5WGxRLc4HBNa6xcSjLu";  /* 55 bytes */
static const uint8_t pg_sasl_final[] =
	"p\x00\x00\x00lc=biws,r=GHbEX5WGxRLc4HBNa6xcSjLu8MD2/U8eODuqAPe5WuYul3Uc,"
	"p=8a3B4LT3C1G8tIvKyPdHtSThQAr/uu+p9MwOsjshRwE=";  /* 109 bytes */
static const uint8_t pg_md5_password[] =
	"p\x00\x00\x00(md5f2dc44700413ab50d5dc33eab30a11fe\x00";  /* 41 bytes */
static const uint8_t pg_cancel[] =
	"\x00\x00\x00\x10\x04\xd2\x16.\x00\x00x\xc0\xb7\xb9V\xf6";  /* 16 bytes */
/* GSSENCRequest (libpq sends it first when it has Kerberos credentials) */
static const uint8_t pg_gssenc[] = "\x00\x00\x00\x08\x04\xd2\x16\x30";
/* Startups no client above sent: no database; the database before the user */
static const uint8_t pg_startup_nodb[] =
	"\x00\x00\x00\x12\x00\x03\x00\x00user\x00" "bob\x00\x00";  /* 18 bytes */
static const uint8_t pg_startup_dbfirst[] =
	"\x00\x00\x00\x22\x00\x03\x00\x00" "database\x00shop\x00user\x00" "alice\x00\x00";  /* 34 bytes */

/* A MySQL COM_STMT_PREPARE whose length byte is 'Q' (81) and command byte
 * 22: a PostgreSQL Query of length 22 as far as 5 bytes go. Once PostgreSQL's
 * end of message is in BUF the missing NUL refuses it; before, the bytes
 * are a good Query's head and read as one (see test_foreign). */
static const uint8_t my_prepare_q[] =
	"\x51\x00\x00\x00\x16SELECT c1, c2, c3, c4 FROM some_table WHERE id = ? AND name = ? LIMIT 1";

static int parse(const uint8_t *msg, size_t n, bool request, struct req_head *out)
{
	return req_parse(pgsql__parse, msg, n, request, out);
}
#define prefixes(msg, n, request) req_prefixes(pgsql__parse, msg, n, request)
#define refused(msg, n, request) req_refused(pgsql__parse, msg, n, request)

/* Walks the messages of MSG (N bytes) by total_len: their methods, which
 * must be the METHODS (NULL-ended), the last one ending at N. */
static void walk(const uint8_t *msg, size_t n, bool request, const char *const *methods)
{
	struct req_head h;
	size_t off = 0;

	for (; *methods; methods++) {
		CHECK_INT(parse(msg + off, n - off, request, &h), 0);
		CHECK_STR(h.method, *methods);
		CHECK(h.len_known && h.total_len <= n - off);
		prefixes(msg + off, h.total_len, request);
		off += h.total_len;
	}
	CHECK_EQ(off, n);
}

static void test_requests(void)
{
	struct req_head h;

	CHECK_INT(parse(pg_startup, sizeof(pg_startup) - 1, true, &h), 0);
	CHECK_INT(h.proto, REQ_PROTO_PGSQL);
	CHECK_INT(h.request, true);
	CHECK_INT(h.error, false);
	CHECK_INT(h.status, -1);
	CHECK_INT(h.id, 0);
	CHECK_STR(h.method, "STARTUP");
	CHECK_STR(h.target, "alice@postgres");
	CHECK_STR(h.code, "");
	CHECK_INT(h.len_known, true);
	CHECK_INT(h.total_len, 60);
	prefixes(pg_startup, sizeof(pg_startup) - 1, true);

	CHECK_INT(parse(pg_ssl, sizeof(pg_ssl) - 1, true, &h), 0);
	CHECK_STR(h.method, "SSLREQUEST");
	CHECK_STR(h.target, "");
	CHECK_INT(h.total_len, 8);
	prefixes(pg_ssl, sizeof(pg_ssl) - 1, true);

	CHECK_INT(parse(pg_query, sizeof(pg_query) - 1, true, &h), 0);
	CHECK_INT(h.proto, REQ_PROTO_PGSQL);
	CHECK_INT(h.request, true);
	CHECK_INT(h.error, false);
	CHECK_INT(h.status, -1);
	CHECK_STR(h.method, "QUERY");
	CHECK_STR(h.target, "select 1 as one");
	CHECK_STR(h.code, "");
	CHECK_INT(h.len_known, true);
	CHECK_INT(h.total_len, 21);
	prefixes(pg_query, sizeof(pg_query) - 1, true);

	CHECK_INT(parse(pg_insert, sizeof(pg_insert) - 1, true, &h), 0);
	CHECK_STR(h.method, "QUERY");
	CHECK_STR(h.target, "insert into t1 values (7)");
	CHECK_INT(h.total_len, 31);
	prefixes(pg_insert, sizeof(pg_insert) - 1, true);
	prefixes(pg_query_bad, sizeof(pg_query_bad) - 1, true);

	CHECK_INT(parse(pg_terminate, sizeof(pg_terminate) - 1, true, &h), 0);
	CHECK_STR(h.method, "TERMINATE");
	CHECK_INT(h.total_len, 5);

	/* pgbench -M extended: Parse, Bind, Describe, Execute, Sync in one write. */
	CHECK_INT(parse(pg_extended, sizeof(pg_extended) - 1, true, &h), 0);
	CHECK_STR(h.method, "PARSE");
	CHECK_STR(h.target, "SELECT a FROM t1 WHERE a = $1;");
	CHECK_INT(h.total_len, 39);
	/* the unnamed statement, parsed and bound: one name */
	CHECK(h.stmt == req_name__hash((const uint8_t *)"", 0));
	walk(pg_extended, sizeof(pg_extended) - 1, true, (const char *const[]){
		"PARSE", "BIND", "DESCRIBE", "EXECUTE", "SYNC", NULL });
	CHECK_INT(parse(pg_extended + 39, sizeof(pg_extended) - 1 - 39, true, &h), 0);
	CHECK_STR(h.method, "BIND");
	CHECK(h.stmt == req_name__hash((const uint8_t *)"", 0));
	/* a named statement (pgbench -M prepared's P0_1), and a Bind cut
	 * inside its statement's name: none */
	CHECK_INT(parse((const uint8_t *)"P\0\0\0\x12P0_1\0SELECT\0\0\0", 19, true, &h), 0);
	CHECK(h.stmt == req_name__hash((const uint8_t *)"P0_1", 4));
	CHECK_INT(parse((const uint8_t *)"B\0\0\0\x10\0P0_1\0\0\0\0\0\0\0", 17, true, &h), 0);
	CHECK(h.stmt == req_name__hash((const uint8_t *)"P0_1", 4));
	CHECK_INT(parse((const uint8_t *)"B\0\0\0\x10\0P0_", 9, true, &h), 0);
	CHECK(h.stmt == 0);
	/* a Bind whose statement's name leaves no room for its counts */
	CHECK_INT(parse((const uint8_t *)"B\0\0\0\x0c\0P0_1\0\0\0", 13, true, &h), -ENOMSG);
}

/* The messages only a connection already found to be PostgreSQL's carries,
 * each through pgsql__parse_walk with its own method (every name fits
 * REQ_METHOD_MAX whole), none through pgsql__parse. */
static void test_walk_only(void)
{
	static const struct {
		const char *msg;
		size_t len;
		bool request;
		const char *method;
	} m[] = {
		{ "F\0\0\0\x0e\0\0\x04\xd2\0\0\0\0\0\0", 15, true, "FUNCTION_CALL" },
		{ "d\0\0\0\x08" "1\tx\n", 9, true, "COPY_DATA" },
		{ "c\0\0\0\x04", 5, true, "COPY_DONE" },
		{ "f\0\0\0\x07no\0", 8, true, "COPY_FAIL" },
		{ "G\0\0\0\x07\0\0\0", 8, false, "COPY_IN_RESPONSE" },
		{ "H\0\0\0\x07\0\0\0", 8, false, "COPY_OUT_RESPONSE" },
		{ "W\0\0\0\x07\0\0\0", 8, false, "COPY_BOTH_RESPONSE" },
		{ "d\0\0\0\x08" "1\tx\n", 9, false, "COPY_DATA" },
		{ "c\0\0\0\x04", 5, false, "COPY_DONE" },
		{ "V\0\0\0\x08\xff\xff\xff\xff", 9, false, "FUNCTION_CALL_RESPONSE" },
		{ "v\0\0\0\x0c\0\0\0\0\0\0\0\0", 13, false, "NEGOTIATE_VERSION" },
	};
	struct req_head h;

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		const uint8_t *b = (const uint8_t *)m[i].msg;

		CHECK_INT(pgsql__parse(b, m[i].len, m[i].request, &h), -ENOMSG);
		CHECK_INT(pgsql__parse_walk(b, m[i].len, m[i].request, &h), 0);
		CHECK_STR(h.method, m[i].method);
		CHECK(strlen(h.method) < REQ_METHOD_MAX);
		CHECK_STR(h.target, "");
		CHECK_INT(h.total_len, m[i].len);
	}
}

/* What a connection's setup sends before its statements: each message its
 * own method; a startup's target names who logs in, and where. */
static void test_setup(void)
{
	static const struct {
		const uint8_t *msg;
		size_t n;
		const char *method, *target;
	} cases[] = {
		{ pg_startup_bench, sizeof(pg_startup_bench) - 1, "STARTUP", "postgres@postgres" },
		{ pg_startup_pw, sizeof(pg_startup_pw) - 1, "STARTUP", "pwuser@postgres" },
		{ pg_startup_nodb, sizeof(pg_startup_nodb) - 1, "STARTUP", "bob" },
		{ pg_startup_dbfirst, sizeof(pg_startup_dbfirst) - 1, "STARTUP", "alice@shop" },
		{ pg_ssl, sizeof(pg_ssl) - 1, "SSLREQUEST", "" },
		{ pg_gssenc, sizeof(pg_gssenc) - 1, "GSSENCREQUEST", "" },
		{ pg_cancel, sizeof(pg_cancel) - 1, "CANCEL", "" },
		{ pg_sasl_first, sizeof(pg_sasl_first) - 1, "AUTH", "" },
		{ pg_sasl_final, sizeof(pg_sasl_final) - 1, "AUTH", "" },
		{ pg_md5_password, sizeof(pg_md5_password) - 1, "AUTH", "" },
	};
	struct req_head h;
	uint8_t big[300];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_INT(parse(cases[i].msg, cases[i].n, true, &h), 0);
		CHECK_STR(h.method, cases[i].method);
		CHECK_STR(h.target, cases[i].target);
		CHECK(h.len_known && !h.error);
		CHECK_INT(h.total_len, cases[i].n);
		prefixes(cases[i].msg, cases[i].n, true);
		/* the server never sends them */
		refused(cases[i].msg, cases[i].n, false);
	}
	/* an answer to authentication is at most 65535 bytes */
	refused((const uint8_t *)"p\x00\x01\x00\x00", 5, true);
	refused((const uint8_t *)"p\x00\x00\x00\x03", 5, true);
	/* a user name longer than the target: cut, and no database after it */
	memset(big, 'u', sizeof(big));
	memcpy(big, "\x00\x00\x01\x2c\x00\x03\x00\x00user\x00", 13);
	memcpy(big + sizeof(big) - 14, "\x00" "database\x00" "db\x00\x00", 14);
	CHECK_INT(parse(big, sizeof(big), true, &h), 0);
	CHECK_STR(h.method, "STARTUP");
	CHECK_INT(strlen(h.target), REQ_TARGET_MAX - 1);
	CHECK(!strchr(h.target, '@'));
}

static void test_responses(void)
{
	struct req_head h;

	walk(pg_auth_params, sizeof(pg_auth_params) - 1, false, (const char *const[]){
		"AUTHENTICATION", "PARAMETER_STATUS", "PARAMETER_STATUS", "PARAMETER_STATUS",
		"PARAMETER_STATUS", "PARAMETER_STATUS", "PARAMETER_STATUS", "PARAMETER_STATUS",
		"PARAMETER_STATUS", "PARAMETER_STATUS", "PARAMETER_STATUS", "PARAMETER_STATUS",
		"PARAMETER_STATUS", "PARAMETER_STATUS", "BACKEND_KEY_DATA", "READY_FOR_QUERY",
		NULL });
	walk(pg_select_reply, sizeof(pg_select_reply) - 1, false, (const char *const[]){
		"ROW_DESCRIPTION", "DATA_ROW", "SELECT", "READY_FOR_QUERY", NULL });
	CHECK_INT(parse(pg_select_reply + 41, sizeof(pg_select_reply) - 42, false, &h), 0);
	CHECK_STR(h.method, "SELECT");
	CHECK_STR(h.target, "SELECT 1");
	CHECK_INT(h.error, false);
	CHECK_INT(h.total_len, 14);

	CHECK_INT(parse(pg_insert_reply, sizeof(pg_insert_reply) - 1, false, &h), 0);
	CHECK_INT(h.proto, REQ_PROTO_PGSQL);
	CHECK_INT(h.request, false);
	CHECK_INT(h.error, false);
	CHECK_INT(h.status, -1);
	CHECK_STR(h.method, "INSERT");
	CHECK_STR(h.target, "INSERT 0 1");
	CHECK_STR(h.code, "");
	CHECK_INT(h.len_known, true);
	CHECK_INT(h.total_len, 16);
	walk(pg_insert_reply, sizeof(pg_insert_reply) - 1, false, (const char *const[]){
		"INSERT", "READY_FOR_QUERY", NULL });

	CHECK_INT(parse(pg_error, sizeof(pg_error) - 1, false, &h), 0);
	CHECK_INT(h.proto, REQ_PROTO_PGSQL);
	CHECK_INT(h.request, false);
	CHECK_INT(h.error, true);
	CHECK_INT(h.status, -1);
	CHECK_STR(h.method, "ERROR");
	CHECK_STR(h.code, "42P01");
	CHECK_STR(h.target, "relation \"nosuch\" does not exist");
	CHECK_INT(h.len_known, true);
	CHECK_INT(h.total_len, 106);
	prefixes(pg_error, sizeof(pg_error) - 1, false);

	/* psql to a database that is not there: AuthenticationOk, then FATAL. */
	walk(pg_fatal, sizeof(pg_fatal) - 1, false, (const char *const[]){
		"AUTHENTICATION", "ERROR", NULL });
	CHECK_INT(parse(pg_fatal + 9, sizeof(pg_fatal) - 10, false, &h), 0);
	CHECK_STR(h.code, "3D000");
	CHECK_STR(h.target, "database \"shop\" does not exist");
	CHECK_INT(h.error, true);

	walk(pg_extended_reply, sizeof(pg_extended_reply) - 1, false, (const char *const[]){
		"PARSE_COMPLETE", "BIND_COMPLETE", "ROW_DESCRIPTION", "DATA_ROW", "SELECT",
		"READY_FOR_QUERY", NULL });

	/* The one-byte answer to SSLRequest has no length. */
	CHECK_INT(parse((const uint8_t *)"N", 1, false, &h), -EAGAIN);
}

/* Each direction refuses the other's messages where the type is not shared. */
static void test_directions(void)
{
	struct req_head h;

	CHECK_INT(parse(pg_query, sizeof(pg_query) - 1, false, &h), -ENOMSG);
	CHECK_INT(parse(pg_startup, sizeof(pg_startup) - 1, false, &h), -ENOMSG);
	CHECK_INT(parse(pg_auth_params, sizeof(pg_auth_params) - 1, true, &h), -ENOMSG);
	/* 'E' is Execute from the client: an ErrorResponse's fields do not fit it. */
	CHECK_INT(parse(pg_error, sizeof(pg_error) - 1, true, &h), -ENOMSG);
	/* 'C' is Close from the client: its body starts with 'S' or 'P', not 'I'. */
	CHECK_INT(parse(pg_insert_reply, sizeof(pg_insert_reply) - 1, true, &h), -ENOMSG);
	CHECK_STR(h.method, "");
	CHECK_INT(h.status, -1);
	CHECK_INT(h.proto, REQ_PROTO_NONE);
}

static void test_foreign(void)
{
	struct req_head h;

	req_refuse_foreign(pgsql__parse, REQ_PROTO_PGSQL);
	refused(my_prepare_q, sizeof(my_prepare_q) - 1, true);
	/* The same cut before PostgreSQL's end of message reads as a Query. */
	CHECK_INT(parse(my_prepare_q, 20, true, &h), 0);
}

static void test_hostile(void)
{
	struct req_head h;
	uint8_t big[300];
	size_t i;

	CHECK_INT(parse(NULL, 0, true, &h), -EAGAIN);
	CHECK_INT(h.status, -1);
	/* Lengths below 4, above 1 GiB, and past BUF. */
	refused((const uint8_t *)"Q\x00\x00\x00\x03", 5, true);
	refused((const uint8_t *)"Q\x40\x00\x00\x01", 5, true);
	refused((const uint8_t *)"Q\xff\xff\xff\xff", 5, true);
	refused((const uint8_t *)"Z\xff", 2, false);
	CHECK_INT(parse((const uint8_t *)"Q\x40\x00\x00\x00select", 11, true, &h), 0);
	CHECK_STR(h.target, "select");
	CHECK_INT(h.total_len, 0x40000001);
	CHECK_INT(h.len_known, true);
	/* Missing terminators, NULs inside, a NUL not at the end. */
	refused((const uint8_t *)"Q\x00\x00\x00\x08" "abcd", 9, true);
	refused((const uint8_t *)"Q\x00\x00\x00\x08" "a\x00" "cd", 9, true);
	refused((const uint8_t *)"Q\x00\x00\x00\x08" "\x01" "bc\x00", 9, true);
	refused((const uint8_t *)"C\x00\x00\x00\x08" "SETS", 9, false);
	refused((const uint8_t *)"C\x00\x00\x00\x08" "set\x00", 9, false);
	refused((const uint8_t *)"E\x00\x00\x00\x0a" "C4200\x00\x00", 11, false);
	refused((const uint8_t *)"E\x00\x00\x00\x0c" "C42P01\x00" "M", 13, false);
	refused((const uint8_t *)"E\x00\x00\x00\x0d" "C42P01\x00\x00\x00", 14, false);
	refused((const uint8_t *)"E\x00\x00\x00\x0c" "\x01" "42P01\x00\x00", 13, false);
	refused((const uint8_t *)"Z\x00\x00\x00\x05" "X", 6, false);
	refused((const uint8_t *)"R\x00\x00\x00\x08\x00\x00\x00\x63", 9, false);
	refused((const uint8_t *)"S\x00\x00\x00\x05\x00", 6, true);
	/* Startup: too long, an unknown protocol, a cut-off parameter list. */
	refused((const uint8_t *)"\x00\x00\x27\x11\x00\x03\x00\x00", 8, true);
	refused((const uint8_t *)"\x00\x00\x00\x10\x00\x02\x00\x00", 8, true);
	refused((const uint8_t *)"\x00\x00\x00\x0d\x00\x03\x00\x00" "user\x00", 13, true);
	refused((const uint8_t *)"\x00\x00\x00\x0b\x00\x03\x00\x00" "u\x00\x00", 11, true);
	refused((const uint8_t *)"\x00\x00\x00\x09\x00\x04\xd2\x16\x2f", 9, true);
	/* Non-ASCII and control bytes in the text: written '?'. */
	CHECK_INT(parse((const uint8_t *)"Q\x00\x00\x00\x0c" "s\xc3\xa9l\x01\n1\x00", 13, true, &h), 0);
	CHECK_STR(h.target, "s??l? 1");
	/* A text longer than the target: cut, NUL-terminated. */
	memset(big, 'x', sizeof(big));
	memcpy(big, "Q\x00\x00\x01\x2b", 5);
	big[sizeof(big) - 1] = 0;
	CHECK_INT(parse(big, sizeof(big), true, &h), 0);
	CHECK_INT(strlen(h.target), REQ_TARGET_MAX - 1);
	CHECK_INT(h.total_len, 300);
	/* Random bytes of each length from a fixed seed: never a crash. */
	srand(7);
	for (i = 0; i < 20000; i++) {
		size_t n = (size_t)rand() % sizeof(big), j;

		for (j = 0; j < n; j++)
			big[j] = (uint8_t)rand();
		if (parse(big, n, i & 1, &h) == 0)
			CHECK(h.proto == REQ_PROTO_PGSQL && h.len_known);
	}
}

int main(void)
{
	test_walk_only();
	test_requests();
	test_setup();
	test_responses();
	test_directions();
	test_foreign();
	test_hostile();
	return t_report();
}
