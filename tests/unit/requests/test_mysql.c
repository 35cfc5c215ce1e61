/* mysql__parse: packets as the MariaDB 10.11.19 client (mariadb, and
 * mariadb-admin ping) sent them to a MariaDB 10.11.19 server and as it
 * answered, captured byte for byte through a relay on 127.0.0.1 (with
 * --skip-ssl); mariadb-slap's statements and the handshakes of
 * mysql_wire.h; the binary protocol's commands (COM_STMT_*), which neither
 * client sends, written by the protocol's documentation; every prefix; the
 * other protocols' first bytes; hostile bytes. Each parse reads an exact-size
 * heap copy so that valgrind or ASan sees any read past LEN. */
#include "mysql.h"
#include "mysql_wire.h"
#include "req_check.h"

static const uint8_t my_greeting[] =
	"d\x00\x00\x00\x0a" "5.5.5-10.11.19-MariaDB-0+deb12u1\x00\x03\x00\x00\x00W"
	"36W37[F\x00\xfe\xf7\x08\x02\x00\xff\x81\x15\x00\x00\x00\x00\x00\x00\x1d\x00"
	"\x00\x00.O'q'hXceTU/\x00mysql_native_password\x00";  /* 104 bytes */
static const uint8_t my_handshake_response[] =
	"\xba\x00\x00\x01\x84\xa2\xbf\x00\x00\x00\x10\x00!\x00\x00\x00\x00\x00\x00"
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x1d\x00\x00\x00root\x00"
	"\x00mysql_native_password\x00}\x03_os\x05Linux\x0c_client_name\x0alibmari"
	"adb\x04_pid\x03" "476\x0f_client_version\x06" "3.3.20\x09_platform\x06x86"
	"_64\x0cprogram_name\x05mysql\x0c_server_host\x09" "127.0.0.1";  /* 190 bytes */
static const uint8_t my_auth_ok[] =
	"\x07\x00\x00\x02\x00\x00\x00\x02\x00\x00\x00";  /* 11 bytes */
static const uint8_t my_query_select[] =
	"\x10\x00\x00\x00\x03select 1 as one";  /* 20 bytes */
static const uint8_t my_select_reply[] =
	"\x02\x00\x00\x01\x01\x01\x1a\x00\x00\x02\x03" "def\x00\x00\x00\x03one\x00"
	"\x00\x0c\x3f\x00\x01\x00\x00\x00\x03\x81\x00\x00\x00\x00\x05\x00\x00\x03\xfe"
	"\x00\x00\x02\x00\x02\x00\x00\x04\x01" "1\x05\x00\x00\x05\xfe\x00\x00\x02\x00";  /* 60 bytes */
static const uint8_t my_query_create[] =
	"#\x00\x00\x00\x03" "create database if not exists shop";  /* 39 bytes */
static const uint8_t my_create_ok[] =
	"\x07\x00\x00\x01\x00\x01\x00\x02\x00\x00\x00";  /* 11 bytes */
static const uint8_t my_query_dbname[] =
	"\x12\x00\x00\x00\x03SELECT DATABASE()";  /* 22 bytes */
static const uint8_t my_dbname_reply[] =
	"\x02\x00\x00\x01\x01\x01!\x00\x00\x02\x03" "def\x00\x00\x00\x0a" "DATABAS"
	"E()\x00\x00\x0c!\x00\xc0\x00\x00\x00\xfd\x00\x00'\x00\x00\x05\x00\x00\x03"
	"\xfe\x00\x00\x02\x00\x01\x00\x00\x04\xfb\x05\x00\x00\x05\xfe\x00\x00\x02\x00";  /* 66 bytes */
static const uint8_t my_init_db[] =
	"\x05\x00\x00\x00\x02shop";  /* 9 bytes */
static const uint8_t my_init_db_ok[] =
	"\x10\x00\x00\x01\x00\x00\x00\x02@\x00\x00\x00\x07\x01\x05\x04shop";  /* 20 bytes */
static const uint8_t my_query_table[] =
	"&\x00\x00\x00\x03" "create table if not exists t1 (a int)";  /* 42 bytes */
static const uint8_t my_table_ok[] =
	"\x07\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00";  /* 11 bytes */
static const uint8_t my_query_insert[] =
	"\x1a\x00\x00\x00\x03insert into t1 values (7)";  /* 30 bytes */
static const uint8_t my_insert_ok[] =
	"\x07\x00\x00\x01\x00\x01\x00\x02\x00\x00\x00";  /* 11 bytes */
static const uint8_t my_query_bad[] =
	"\x15\x00\x00\x00\x03select * from nosuch";  /* 25 bytes */
static const uint8_t my_err_reply[] =
	"*\x00\x00\x01\xffz\x04#42S02Table 'shop.nosuch' doesn't exist";  /* 46 bytes */
static const uint8_t my_quit[] =
	"\x01\x00\x00\x00\x01";  /* 5 bytes */
static const uint8_t my_ping[] =
	"\x01\x00\x00\x00\x0e";  /* 5 bytes */
static const uint8_t my_ping_ok[] =
	"\x07\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00";  /* 11 bytes */

/* COM_STMT_PREPARE, COM_STMT_EXECUTE (statement 1, no cursor, iteration
 * count 1, one parameter: NULL bitmap 0, new-params-bound 1, type LONGLONG,
 * value 7) and COM_STMT_CLOSE, by the documentation. */
static const uint8_t my_prepare[] = "\x1d\x00\x00\x00\x16SELECT a FROM t1 WHERE a = ?";
static const uint8_t my_execute[] =
	"\x16\x00\x00\x00\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00\x01\x08\x00"
	"\x07\x00\x00\x00\x00\x00\x00\x00";
static const uint8_t my_close[] = "\x05\x00\x00\x00\x19\x01\x00\x00\x00";
/* COM_FIELD_LIST of table t1, wildcard "%", as old clients send. */
static const uint8_t my_field_list[] = "\x05\x00\x00\x00\x04t1\x00%";

/* A PostgreSQL Query of length 22: its length byte is COM_STMT_PREPARE's, so
 * the NUL that ends PostgreSQL's text is what refuses it. */
static const uint8_t pg_query_22[] = "Q\x00\x00\x00\x16select * from t1 x\x00";
/* An ErrorResponse of length 256 reads as a MySQL OK packet of 69 bytes,
 * sequence 1: its length byte 'E', its sequence byte and OK header are the
 * bytes of the length. Nothing in an OK packet's first bytes can tell; the
 * pairing knows the connection's protocol from its first message. */
static const uint8_t pg_error_256[] = "E\x00\x00\x01\x00SERROR\x00VERROR\x00";

static int parse(const uint8_t *msg, size_t n, bool request, struct req_head *out)
{
	return req_parse(mysql__parse, msg, n, request, out);
}
#define prefixes(msg, n, request) req_prefixes(mysql__parse, msg, n, request)
#define refused(msg, n, request) req_refused(mysql__parse, msg, n, request)

/* A message that way (REQUEST): METHOD, TARGET, TOTAL; and every prefix. */
static void message_at(int line, const uint8_t *msg, size_t n, bool request, const char *method,
		       const char *target, unsigned total)
{
	struct req_head h;

	CHECK_INT(parse(msg, n, request, &h), 0);
	CHECK_INT(h.proto, REQ_PROTO_MYSQL);
	CHECK_INT(h.request, request);
	CHECK_INT(h.error, false);
	CHECK_INT(h.status, -1);
	CHECK_INT(h.id, 0);
	CHECK_STR(h.method, method);
	CHECK_STR(h.target, target);
	CHECK_STR(h.code, "");
	CHECK_INT(h.len_known, true);
	CHECK_INT(h.total_len, total);
	if (strcmp(h.method, method) || strcmp(h.target, target))
		fprintf(stderr, "  (line %d)\n", line);
	prefixes(msg, n, request);
}
#define request(msg, method, target, total) \
	message_at(__LINE__, msg, sizeof(msg) - 1, true, method, target, total)
/* A handshake packet, which the other way is refused. */
#define handshake(msg, request, method, target, total) do { \
		message_at(__LINE__, msg, sizeof(msg) - 1, request, method, target, total); \
		refused(msg, sizeof(msg) - 1, !(request)); \
	} while (0)

static void test_requests(void)
{
	request(my_query_select, "QUERY", "select 1 as one", 20);
	request(my_query_create, "QUERY", "create database if not exists shop", 39);
	request(my_query_dbname, "QUERY", "SELECT DATABASE()", 22);
	request(my_init_db, "INIT_DB", "shop", 9);
	request(my_query_table, "QUERY", "create table if not exists t1 (a int)", 42);
	request(my_query_insert, "QUERY", "insert into t1 values (7)", 30);
	request(my_query_bad, "QUERY", "select * from nosuch", 25);
	request(my_quit, "QUIT", "", 5);
	request(my_ping, "PING", "", 5);
	request(my_prepare, "STMT_PREPARE", "SELECT a FROM t1 WHERE a = ?", 33);
	request(my_execute, "STMT_EXECUTE", "1", 26);
	request(my_close, "STMT_CLOSE", "1", 9);
	request(my_field_list, "FIELD_LIST", "t1", 9);
}

/* A prepared statement's commands name its id (stmt: the id + 1, 0 for the
 * others and for PROCESS_KILL's thread id); the server answers neither
 * STMT_CLOSE nor STMT_SEND_LONG_DATA; STMT_PREPARE's OK gives the id. */
static void test_statements(void)
{
	struct req_head h;

	CHECK_INT(parse(my_execute, sizeof(my_execute) - 1, true, &h), 0);
	CHECK_INT(h.stmt, 2);
	CHECK_INT(h.no_resp, false);
	CHECK_INT(parse(my_close, sizeof(my_close) - 1, true, &h), 0);
	CHECK_INT(h.stmt, 2);
	CHECK_INT(h.no_resp, true);
	CHECK_INT(parse((const uint8_t *)"\x09\x00\x00\x00\x18\xfe\xff\xff\xff\x01\x00zz", 13,
			true, &h), 0);
	CHECK_STR(h.method, "STMT_SEND_LONG_DATA");
	CHECK_EQ(h.stmt, 0xffffffffull);
	CHECK_INT(h.no_resp, true);
	CHECK_INT(parse((const uint8_t *)"\x05\x00\x00\x00\x1a\x03\x00\x00\x00", 9, true, &h), 0);
	CHECK_STR(h.method, "STMT_RESET");
	CHECK_INT(h.stmt, 4);
	CHECK_INT(h.no_resp, false);
	CHECK_INT(parse((const uint8_t *)"\x09\x00\x00\x00\x1c\x03\x00\x00\x00\x02\x00\x00\x00", 13,
			true, &h), 0);
	CHECK_STR(h.method, "STMT_FETCH");
	CHECK_INT(h.stmt, 4);
	/* MariaDB's bulk execute as libmariadb's array binding sent it: the
	 * statement, flags (send types), a type, then rows; unknown flags
	 * refused */
	CHECK_INT(parse((const uint8_t *)"\x0d\x00\x00\x00\xfa\x01\x00\x00\x00\x80\x00\x03\x00"
			"\x00\x29\x00\x00\x00", 17, true, &h), 0);
	CHECK_STR(h.method, "STMT_BULK_EXECUTE");
	CHECK_STR(h.target, "1");
	CHECK_INT(h.stmt, 2);
	CHECK_INT(h.no_resp, false);
	CHECK_INT(parse((const uint8_t *)"\x0d\x00\x00\x00\xfa\x01\x00\x00\x00\x81\x00\x03\x00"
			"\x00\x29\x00\x00\x00", 17, true, &h), -ENOMSG);
	CHECK_INT(parse((const uint8_t *)"\x05\x00\x00\x00\xfa\x01\x00\x00\x00", 9, true, &h), -ENOMSG);
	CHECK_INT(parse((const uint8_t *)"\x05\x00\x00\x00\x0c\x03\x00\x00\x00", 9, true, &h), 0);
	CHECK_STR(h.method, "PROCESS_KILL");
	CHECK_INT(h.stmt, 0);
	CHECK_INT(parse(my_query_select, sizeof(my_query_select) - 1, true, &h), 0);
	CHECK_INT(h.stmt, 0);
	CHECK_INT(h.no_resp, false);
	/* the OK of statement 64 (1 column, 1 parameter), all of it and its
	 * first 10 bytes; an OK of other sizes, and one whose tenth byte is
	 * not 0, name none */
	CHECK_INT(parse((const uint8_t *)"\x0c\x00\x00\x01\x00\x40\x00\x00\x00\x01\x00\x01\x00"
			"\x00\x00\x00", 16, false, &h), 0);
	CHECK_STR(h.method, "OK");
	CHECK_INT(h.stmt, 65);
	CHECK_INT(parse((const uint8_t *)"\x0c\x00\x00\x01\x00\x40\x00\x00\x00\x01\x00\x01\x00"
			"\x00", 14, false, &h), 0);
	CHECK_INT(h.stmt, 65);
	CHECK_INT(parse((const uint8_t *)"\x0c\x00\x00\x01\x00\x40\x00\x00\x00\x01\x00\x01\x00",
			13, false, &h), 0);
	CHECK_INT(h.stmt, 0);
	CHECK_INT(parse((const uint8_t *)"\x07\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00", 11,
			false, &h), 0);
	CHECK_INT(h.stmt, 0);
	CHECK_INT(parse((const uint8_t *)"\x0c\x00\x00\x01\x00\x40\x00\x00\x00\x01\x00\x01\x00"
			"\x05\x00\x00", 16, false, &h), 0);
	CHECK_INT(h.stmt, 0);
}

/* LOAD DATA LOCAL's request for the file (0xfb, the file's name) and
 * MariaDB's progress report (an ERR numbered 0xffff), as MariaDB 10.11 sent
 * them to the mariadb client: no error either */
static void test_infile_progress(void)
{
	struct req_head h;

	CHECK_INT(parse((const uint8_t *)"\x12\x00\x00\x01\xfb/tmp/myx/rows.csv", 22, false, &h), 0);
	CHECK_STR(h.method, "LOCAL_INFILE");
	CHECK_INT(h.error, false);
	CHECK_INT(parse((const uint8_t *)"\x01\x00\x00\x01\xfb", 5, false, &h), -ENOMSG);
	CHECK_INT(parse((const uint8_t *)"\x04\x00\x00\x01\xfb\x01\x02\x03", 8, false, &h), -ENOMSG);
	CHECK_INT(parse((const uint8_t *)"\x19\x00\x00\x05\xff\xff\xff\x01\x02\x02\x00\x00\x00\x0f"
			"End bulk insert", 29, false, &h), 0);
	CHECK_STR(h.method, "PROGRESS");
	CHECK_INT(h.error, false);
	CHECK_INT(h.status, -1);
	CHECK_INT(h.total_len, 29);
	/* not 1 string, or too short: refused */
	CHECK_INT(parse((const uint8_t *)"\x19\x00\x00\x05\xff\xff\xff\x02\x02\x02\x00\x00\x00\x0f"
			"End bulk insert", 29, false, &h), -ENOMSG);
	CHECK_INT(parse((const uint8_t *)"\x05\x00\x00\x05\xff\xff\xff\x01\x02", 9, false, &h), -ENOMSG);
}

/* mariadb-slap sends its generated statements with the C string's NUL: the
 * text ends there. A NUL anywhere else still refuses (the server reads a
 * syntax error there). */
static void test_slap_statements(void)
{
	struct req_head h;

	request(slap_create, "QUERY", "CREATE TABLE `t1` (intcol1 INT(32) ,charcol1 VARCHAR(128))", 64);
	request(slap_insert, "QUERY", "INSERT INTO t1 VALUES (1804289383,'mxvtvmC9127qJNm06sGB8R92q2j7v"
		"TiiITRDGXM9ZLzkdekbWtmXKwZ2qG1llkRw5m9DHOFilEREk3q7oce8O3BEJC0woJsm6uzFAEynLH2xCsw1KQ"
		"1lT4zg9rdxBL')", 169);
	request(slap_select, "QUERY", "SELECT intcol1,charcol1 FROM t1", 37);
	refused((const uint8_t *)"\x0b\x00\x00\x00\x03SELECT 1\x00\x00", 15, true);
	refused((const uint8_t *)"\x0b\x00\x00\x00\x03SELECT\x00 1\x00", 15, true);
	refused((const uint8_t *)"\x02\x00\x00\x00\x03\x00", 6, true);
	/* cut before its end: the NUL seen is not the last byte */
	CHECK_INT(parse((const uint8_t *)"\x0b\x00\x00\x00\x03SELECT 1\x00", 14, true, &h), -ENOMSG);
	CHECK_INT(parse((const uint8_t *)"\x0a\x00\x00\x00\x16SELECT ?\x00", 14, true, &h), 0);
	CHECK_STR(h.method, "STMT_PREPARE");
	CHECK_STR(h.target, "SELECT ?");
}

/* The greeting (the server's, sequence 0), the login (the client's,
 * sequence 1: USER@DATABASE), the SSL request. */
static void test_handshake(void)
{
	handshake(my_greeting, false, "GREETING", "5.5.5-10.11.19-MariaDB-0+deb12u1", 104);
	handshake(slap_greeting, false, "GREETING", "5.5.5-10.11.19-MariaDB-0+deb12u1-log", 108);
	handshake(ssl_greeting, false, "GREETING", "5.5.5-10.11.19-MariaDB-0+deb12u1-log", 108);
	handshake(my_handshake_response, true, "HANDSHAKE", "root", 190);
	handshake(slap_login, true, "HANDSHAKE", "root@mysqlslap", 183);
	handshake(login_db, true, "HANDSHAKE", "root@shop", 197);
	handshake(login_badpw, true, "HANDSHAKE", "root", 212);
	handshake(login_nouser, true, "HANDSHAKE", "nosuch", 194);
	handshake(ed_login, true, "HANDSHAKE", "ed@shop", 215);
	handshake(edbad_login, true, "HANDSHAKE", "ed@shop", 215);
	handshake(ssl_request, true, "SSLREQUEST", "", 36);
}

/* What ends a login: the server's OK or ERR, maybe after an auth switch
 * request (0xfe) and more auth data (0x01, as caching_sha2_password's fast
 * path sends before its OK, by the protocol's documentation). */
static int auth_end(const uint8_t *buf, size_t len, bool request, struct req_head *out)
{
	(void)request;
	return mysql__auth_end(buf, len, out);
}

static void test_auth_end(void)
{
	static const uint8_t fast_ok[] =
		"\x02\x00\x00\x02\x01\x03\x07\x00\x00\x03\x00\x00\x00\x02\x00\x00\x00";
	struct req_head h;
	uint8_t both[sizeof(ed_switch) - 1 + sizeof(ed_ok) - 1];

	CHECK_INT(req_parse(auth_end, ed_switch, sizeof(ed_switch) - 1, false, &h), -EAGAIN);
	CHECK_STR(h.method, "");
	CHECK_INT(req_parse(auth_end, ed_ok, sizeof(ed_ok) - 1, false, &h), 0);
	CHECK_STR(h.method, "OK");
	CHECK(!h.error);
	CHECK_INT(h.total_len, 20);
	CHECK_INT(req_parse(auth_end, slap_login_ok, sizeof(slap_login_ok) - 1, false, &h), 0);
	CHECK_STR(h.method, "OK");
	memcpy(both, ed_switch, sizeof(ed_switch) - 1);
	memcpy(both + sizeof(ed_switch) - 1, ed_ok, sizeof(ed_ok) - 1);
	CHECK_INT(req_parse(auth_end, both, sizeof(both), false, &h), 0);
	CHECK_STR(h.method, "OK");
	CHECK_INT(req_parse(auth_end, both, sizeof(ed_switch) + 3, false, &h), -EAGAIN);
	CHECK_INT(req_parse(auth_end, fast_ok, sizeof(fast_ok) - 1, false, &h), 0);
	CHECK_STR(h.method, "OK");
	CHECK_INT(req_parse(auth_end, denied_root, sizeof(denied_root) - 1, false, &h), 0);
	CHECK(h.error);
	CHECK_INT(h.status, 1045);
	CHECK_STR(h.code, "28000");
	CHECK_INT(req_parse(auth_end, denied_nouser, sizeof(denied_nouser) - 1, false, &h), 0);
	CHECK_INT(h.status, 1045);
	CHECK_INT(req_parse(auth_end, denied_ed, sizeof(denied_ed) - 1, false, &h), 0);
	CHECK_STR(h.method, "ERR");
	CHECK_INT(h.status, 1045);
	CHECK_STR(h.code, "28000");
	/* a result set, a command, a reply of sequence 0: not an answer to a login */
	CHECK_INT(req_parse(auth_end, my_select_reply, sizeof(my_select_reply) - 1, false, &h),
		  -ENOMSG);
	CHECK_INT(req_parse(auth_end, slap_select, sizeof(slap_select) - 1, false, &h), -ENOMSG);
	CHECK_INT(req_parse(auth_end, (const uint8_t *)"\x07\x00\x00\x00\x00\x00\x00\x02\x00"
			    "\x00\x00", 11, false, &h), -ENOMSG);
	CHECK_STR(h.method, "");
	CHECK_INT(req_parse(auth_end, NULL, 0, false, &h), -EAGAIN);
}

static void test_responses(void)
{
	struct req_head h;
	size_t off, i;
	/* The result set of "select 1 as one": column count (with MariaDB's
	 * metadata flag), column definition, EOF, row, EOF. Only the first
	 * packet and the EOFs read as a reply's first packet. */
	static const int want[] = { 0, -ENOMSG, 0, -ENOMSG, 0 };
	static const char *const methods[] = { "RESULTSET", "", "EOF", "", "EOF" };

	CHECK_INT(parse(my_select_reply, sizeof(my_select_reply) - 1, false, &h), 0);
	CHECK_INT(h.proto, REQ_PROTO_MYSQL);
	CHECK_INT(h.request, false);
	CHECK_INT(h.error, false);
	CHECK_INT(h.status, -1);
	CHECK_STR(h.method, "RESULTSET");
	CHECK_STR(h.target, "");
	CHECK_STR(h.code, "");
	CHECK_INT(h.len_known, true);
	CHECK_INT(h.total_len, 6);
	prefixes(my_select_reply, sizeof(my_select_reply) - 1, false);
	for (off = 0, i = 0; i < 5; i++) {
		size_t plen = my_select_reply[off] | my_select_reply[off + 1] << 8;

		CHECK_INT(parse(my_select_reply + off, sizeof(my_select_reply) - 1 - off, false, &h),
			  want[i]);
		CHECK_STR(h.method, methods[i]);
		off += 4 + plen;
	}
	CHECK_EQ(off, sizeof(my_select_reply) - 1);
	CHECK_INT(parse(my_dbname_reply, sizeof(my_dbname_reply) - 1, false, &h), 0);
	CHECK_STR(h.method, "RESULTSET");

	CHECK_INT(parse(my_auth_ok, sizeof(my_auth_ok) - 1, false, &h), 0);
	CHECK_INT(h.proto, REQ_PROTO_MYSQL);
	CHECK_INT(h.request, false);
	CHECK_INT(h.error, false);
	CHECK_INT(h.status, -1);
	CHECK_STR(h.method, "OK");
	CHECK_STR(h.target, "");
	CHECK_STR(h.code, "");
	CHECK_INT(h.len_known, true);
	CHECK_INT(h.total_len, 11);
	prefixes(my_auth_ok, sizeof(my_auth_ok) - 1, false);
	prefixes(my_create_ok, sizeof(my_create_ok) - 1, false);
	prefixes(my_table_ok, sizeof(my_table_ok) - 1, false);
	prefixes(my_insert_ok, sizeof(my_insert_ok) - 1, false);
	prefixes(my_ping_ok, sizeof(my_ping_ok) - 1, false);
	/* After "use shop": the OK carries the session state (schema). */
	CHECK_INT(parse(my_init_db_ok, sizeof(my_init_db_ok) - 1, false, &h), 0);
	CHECK_STR(h.method, "OK");
	CHECK_INT(h.total_len, 20);

	CHECK_INT(parse(my_err_reply, sizeof(my_err_reply) - 1, false, &h), 0);
	CHECK_INT(h.proto, REQ_PROTO_MYSQL);
	CHECK_INT(h.request, false);
	CHECK_INT(h.error, true);
	CHECK_INT(h.status, 1146);
	CHECK_STR(h.method, "ERR");
	CHECK_STR(h.target, "");
	CHECK_STR(h.code, "42S02");
	CHECK_INT(h.len_known, true);
	CHECK_INT(h.total_len, 46);
	prefixes(my_err_reply, sizeof(my_err_reply) - 1, false);
	/* An ERR before the handshake (protocol 4.0 style, no SQL state). */
	CHECK_INT(parse((const uint8_t *)"\x17\x00\x00\x00\xff\x10\x04Too many connections", 27,
			false, &h), -ENOMSG);
	CHECK_INT(parse((const uint8_t *)"\x17\x00\x00\x01\xff\x10\x04Too many connections", 27,
			false, &h), 0);
	CHECK_INT(h.status, 1040);
	CHECK_STR(h.code, "");
}

/* The greeting has sequence 0 and protocol 10 (a command byte no client
 * sends), the login sequence 1 and a length no reply packet has; a reply's
 * sequence is never 0, a command's always. */
static void test_handshake_and_directions(void)
{
	refused(my_greeting, sizeof(my_greeting) - 1, true);
	refused(my_handshake_response, sizeof(my_handshake_response) - 1, false);
	refused(my_query_select, sizeof(my_query_select) - 1, false);
	refused(my_auth_ok, sizeof(my_auth_ok) - 1, true);
	refused(my_err_reply, sizeof(my_err_reply) - 1, true);
}

static void test_foreign(void)
{
	struct req_head h;

	req_refuse_foreign(mysql__parse, REQ_PROTO_MYSQL);
	refused(pg_query_22, sizeof(pg_query_22) - 1, true);
	/* The known ambiguity (see pg_error_256). */
	CHECK_INT(parse(pg_error_256, sizeof(pg_error_256) - 1, false, &h), 0);
	CHECK_STR(h.method, "OK");
}

/* MSG with its byte AT (of the packet) set to V: refused that way. */
static void refused_with(int line, const uint8_t *msg, size_t n, bool request, size_t at, uint8_t v)
{
	uint8_t b[256];

	memcpy(b, msg, n);
	b[at] = v;
	req_refused_at(line, mysql__parse, b, n, request);
}
#define refused_at(msg, request, at, v) refused_with(__LINE__, msg, sizeof(msg) - 1, request, at, v)

/* Greetings and logins with a byte other than the protocol allows there, or
 * a length that leaves their strings no room (offsets in the packet: the
 * payload starts at 4). */
static void test_hostile_handshake(void)
{
	struct req_head h;
	uint8_t b[256];

	refused_at(slap_greeting, false, 0, 17);	/* shorter than a greeting can be */
	refused_at(slap_greeting, false, 1, 4);		/* longer than 1 KiB */
	refused_at(slap_greeting, false, 0, 40);	/* no room after the version */
	refused_at(slap_greeting, false, 4, 9);		/* protocol 9 */
	refused_at(slap_greeting, false, 5, 'v');	/* a version's first byte */
	refused_at(slap_greeting, false, 9, 1);		/* a control byte in it */
	refused_at(slap_greeting, false, 54, 1);	/* the filler after the scramble */
	refused_at(slap_greeting, false, 56, 0);	/* no PROTOCOL_41 */
	refused_at(login_db, true, 0, 32);		/* the fixed part only, no CLIENT_SSL */
	refused_at(login_db, true, 0, 35);		/* the user's NUL past the end */
	refused_at(login_db, true, 0, 38);		/* no room for the database */
	refused_at(login_db, true, 3, 3);		/* sequence 3 */
	/* sequence 2: the login inside TLS, after the SSL request (1), which
	 * itself is never 2 */
	memcpy(b, login_db, sizeof(login_db) - 1);
	b[3] = 2;
	CHECK_INT(req_parse(mysql__parse, b, sizeof(login_db) - 1, true, &h), 0);
	CHECK_STR(h.method, "HANDSHAKE");
	CHECK_STR(h.target, "root@shop");
	refused_at(ssl_request, true, 3, 2);
	refused_at(login_db, true, 5, 0);		/* no PROTOCOL_41 */
	refused_at(login_db, true, 13, 1);		/* the filler */
	refused_at(login_db, true, 31, 1);
	refused_at(slap_login, true, 37, 1);		/* a control byte in the user */
	refused_at(login_db, true, 44, '\t');		/* ... and in the database */
	refused_at(login_db, true, 41, 0xfb);		/* a NULL auth data length */
	refused_at(login_db, true, 41, 0xfe);		/* one past 64 KiB */
	refused_at(login_db, true, 41, 0xf0);		/* past the packet */
	refused_at(ssl_request, true, 5, 0xa2);		/* no CLIENT_SSL: the user is missing */
	/* MySQL's clients set LONG_PASSWORD: all 23 bytes of filler are 0 */
	memcpy(b, login_db, sizeof(login_db) - 1);
	b[4] |= 1;
	req_refused_at(__LINE__, mysql__parse, b, sizeof(login_db) - 1, true);
	memset(b + 4 + 28, 0, 4);
	CHECK_INT(req_parse(mysql__parse, b, sizeof(login_db) - 1, true, &h), 0);
	CHECK_STR(h.target, "root@shop");
	/* auth data up to a NUL (neither SECURE_CONNECTION nor length-encoded
	 * data): here empty, then running into the database */
	memcpy(b, login_db, sizeof(login_db) - 1);
	b[5] &= 0x7f;
	b[6] &= ~0x20;
	CHECK_INT(req_parse(mysql__parse, b, sizeof(login_db) - 1, true, &h), 0);
	CHECK_STR(h.target, "root@shop");
	b[4 + 37] = 'x';
	CHECK_INT(req_parse(mysql__parse, b, sizeof(login_db) - 1, true, &h), 0);
	CHECK_STR(h.target, "root@mysql_native_password");
	CHECK_INT(req_parse(mysql__parse, b, 4 + 40, true, &h), 0);
	CHECK_STR(h.target, "root");
}

static void test_hostile(void)
{
	struct req_head h;
	uint8_t big[400];
	size_t i;

	CHECK_INT(parse(NULL, 0, true, &h), -EAGAIN);
	CHECK_INT(h.status, -1);
	/* Payload length 0; lengths past BUF (cut: the head only). */
	refused((const uint8_t *)"\x00\x00\x00\x00\x03", 5, true);
	refused((const uint8_t *)"\x00\x00\x00", 3, false);
	CHECK_INT(parse((const uint8_t *)"\xff\xff\xff\x00\x03SELECT", 11, true, &h), 0);
	CHECK_STR(h.target, "SELECT");
	CHECK_INT(h.total_len, 4 + 0xffffff);
	/* Unknown commands, sizes a command cannot have. */
	refused((const uint8_t *)"\x01\x00\x00\x00\x20", 5, true);
	refused((const uint8_t *)"\x01\x00\x00\x00\x00", 5, true);
	refused((const uint8_t *)"\x02\x00\x00\x00\x0e\x00", 6, true);
	refused((const uint8_t *)"\x01\x00\x00\x00\x03", 5, true);
	refused((const uint8_t *)"\x06\x00\x00\x00\x19\x01\x00\x00\x00\x00", 10, true);
	refused((const uint8_t *)"\x05\x00\x00\x00\x17\x01\x00\x00\x00", 9, true);
	/* An execute with another iteration count or unknown flags. */
	refused((const uint8_t *)"\x0a\x00\x00\x00\x17\x01\x00\x00\x00\x00\x02\x00\x00\x00", 14, true);
	refused((const uint8_t *)"\x0a\x00\x00\x00\x17\x01\x00\x00\x00\x40\x01\x00\x00\x00", 14, true);
	/* NULs and control bytes in the text; non-ASCII written '?'. */
	refused((const uint8_t *)"\x05\x00\x00\x00\x03" "ab\x00" "d", 9, true);
	refused((const uint8_t *)"\x05\x00\x00\x00\x03\x01" "bcd", 9, true);
	CHECK_INT(parse((const uint8_t *)"\x09\x00\x00\x00\x03" "s\xc3\xa9l\x01\n1;", 13, true, &h), 0);
	CHECK_STR(h.target, "s??l? 1;");
	/* OK too short or too long; ERR with a bad state, a small error number;
	 * EOF too long; column counts of the wrong size; a metadata flag of 2. */
	refused((const uint8_t *)"\x06\x00\x00\x01\x00\x00\x00\x02\x00\x00", 10, false);
	refused((const uint8_t *)"\x00\x00\x01\x01\x00\x00\x00\x02\x00\x00\x00", 11, false);
	refused((const uint8_t *)"\x09\x00\x00\x01\xff\x7a\x04#42s02", 13, false);
	refused((const uint8_t *)"\x08\x00\x00\x01\xff\x7a\x04#42S0", 12, false);
	refused((const uint8_t *)"\x09\x00\x00\x01\xff\x07\x00#42S02", 13, false);
	refused((const uint8_t *)"\x05\x00\x00\x01\xff\x7a\x04\x01x", 9, false);
	refused((const uint8_t *)"\x09\x00\x00\x01\xfe\x00\x00\x02\x00\x00\x00\x00\x00", 13, false);
	refused((const uint8_t *)"\x03\x00\x00\x01\x01\x01\x01", 7, false);
	refused((const uint8_t *)"\x02\x00\x00\x01\x01\x02", 6, false);
	refused((const uint8_t *)"\x01\x00\x00\x01\xfc", 5, false);
	refused((const uint8_t *)"\x01\x00\x00\x01\xfb", 5, false);
	refused((const uint8_t *)"\x01\x00\x00\x01\xff", 5, false);
	CHECK_INT(parse((const uint8_t *)"\x03\x00\x00\x01\xfc\x2c\x01", 7, false, &h), 0);
	CHECK_STR(h.method, "RESULTSET");
	/* A query longer than the target: cut, NUL-terminated. */
	memset(big, 'x', sizeof(big));
	memcpy(big, "\x8c\x01\x00\x00\x03", 5);
	CHECK_INT(parse(big, sizeof(big), true, &h), 0);
	CHECK_INT(strlen(h.target), REQ_TARGET_MAX - 1);
	CHECK_INT(h.total_len, 400);
	test_hostile_handshake();
	/* Random bytes of each length from a fixed seed: never a crash. */
	srand(5);
	for (i = 0; i < 20000; i++) {
		size_t n = (size_t)rand() % sizeof(big), j;

		for (j = 0; j < n; j++)
			big[j] = (uint8_t)rand();
		if (i & 2 && n > 4)
			big[2] = 0, big[3] = i & 1 ? 1 : 0;
		if (parse(big, n, !(i & 1), &h) == 0)
			CHECK(h.proto == REQ_PROTO_MYSQL && h.len_known && h.total_len >= 5);
	}
}

int main(void)
{
	test_requests();
	test_statements();
	test_infile_progress();
	test_slap_statements();
	test_handshake();
	test_auth_end();
	test_responses();
	test_handshake_and_directions();
	test_foreign();
	test_hostile();
	return t_report();
}
