/* Prepared statements over MariaDB's binary protocol, by libmariadb's
 * mysql_stmt_* calls (e2e_req_sql): each of COM_STMT_PREPARE, EXECUTE,
 * SEND_LONG_DATA, RESET, FETCH (a read-only cursor, two rows a fetch),
 * CLOSE, MariaDB's BULK_EXECUTE (five rows of parameters in one command,
 * by array binding) and direct execute (a prepare and its execute in one
 * write, mariadb_stmt_execute_direct), a statement whose prepare fails (a
 * syntax error) and one whose
 * execute fails (a duplicate key). The server answers neither CLOSE nor
 * SEND_LONG_DATA, so the next command follows them unanswered.
 * Usage: stmts PORT. Prints "inserted N, fetched M, long L, dup ERRNO,
 * bulk ROWS, direct N". */
#include <mysql.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MYSQL *db;

static void die(const char *what, const char *err)
{
	fprintf(stderr, "stmts: %s: %s\n", what, err);
	exit(1);
}

static MYSQL_STMT *prep(const char *sql)
{
	MYSQL_STMT *s = mysql_stmt_init(db);

	if (!s || mysql_stmt_prepare(s, sql, strlen(sql)))
		die(sql, s ? mysql_stmt_error(s) : mysql_error(db));
	return s;
}

static void run(const char *sql)
{
	if (mysql_query(db, sql))
		die(sql, mysql_error(db));
}

int main(int argc, char **argv)
{
	MYSQL_BIND b[2];
	MYSQL_STMT *s;
	unsigned long cursor = CURSOR_TYPE_READ_ONLY, prefetch = 2, len;
	char text[64], big[3000];
	int id, n, fetched = 0, dup, bulk, direct, rows[5] = { 41, 42, 43, 44, 45 };
	unsigned int nrows = 5;

	if (argc != 2)
		return 2;
	db = mysql_init(NULL);
	if (!mysql_real_connect(db, "127.0.0.1", "root", NULL, NULL, atoi(argv[1]), NULL, 0))
		die("connect", mysql_error(db));
	run("CREATE DATABASE e2e_stmt");
	run("CREATE TABLE e2e_stmt.t (id INT PRIMARY KEY, v TEXT)");

	/* an insert prepared once, run 30 times */
	s = prep("INSERT INTO e2e_stmt.t VALUES (?, ?)");
	memset(b, 0, sizeof(b));
	b[0].buffer_type = MYSQL_TYPE_LONG;
	b[0].buffer = &id;
	b[1].buffer_type = MYSQL_TYPE_STRING;
	b[1].buffer = text;
	b[1].length = &len;
	if (mysql_stmt_bind_param(s, b))
		die("bind", mysql_stmt_error(s));
	for (n = 0, id = 1; id <= 30; id++, n++) {
		len = (unsigned long)snprintf(text, sizeof(text), "v%d", id);
		if (mysql_stmt_execute(s))
			die("execute", mysql_stmt_error(s));
	}
	/* a duplicate key: the execute fails (1062) */
	id = 7;
	if (!mysql_stmt_execute(s))
		die("duplicate", "executed");
	dup = (int)mysql_stmt_errno(s);
	/* a long value sent in pieces (SEND_LONG_DATA, unanswered), then
	 * the execute; RESET forgets what was sent */
	id = 31;
	b[1].length = NULL;
	b[1].buffer_length = 0;
	if (mysql_stmt_bind_param(s, b))
		die("bind", mysql_stmt_error(s));
	memset(big, 'x', sizeof(big));
	if (mysql_stmt_send_long_data(s, 1, big, sizeof(big)) ||
	    mysql_stmt_send_long_data(s, 1, big, sizeof(big)))
		die("long data", mysql_stmt_error(s));
	if (mysql_stmt_execute(s))
		die("execute long", mysql_stmt_error(s));
	if (mysql_stmt_reset(s))
		die("reset", mysql_stmt_error(s));
	mysql_stmt_close(s);

	/* a read-only cursor, two rows a COM_STMT_FETCH */
	s = prep("SELECT id, v FROM e2e_stmt.t WHERE id <= ? ORDER BY id");
	mysql_stmt_attr_set(s, STMT_ATTR_CURSOR_TYPE, &cursor);
	mysql_stmt_attr_set(s, STMT_ATTR_PREFETCH_ROWS, &prefetch);
	memset(b, 0, sizeof(b));
	id = 9;
	b[0].buffer_type = MYSQL_TYPE_LONG;
	b[0].buffer = &id;
	if (mysql_stmt_bind_param(s, b) || mysql_stmt_execute(s))
		die("cursor", mysql_stmt_error(s));
	memset(b, 0, sizeof(b));
	b[0].buffer_type = MYSQL_TYPE_LONG;
	b[0].buffer = &n;
	b[1].buffer_type = MYSQL_TYPE_STRING;
	b[1].buffer = text;
	b[1].buffer_length = sizeof(text);
	b[1].length = &len;
	if (mysql_stmt_bind_result(s, b))
		die("bind result", mysql_stmt_error(s));
	while (mysql_stmt_fetch(s) == 0)
		fetched++;
	mysql_stmt_close(s);

	/* MariaDB's bulk execute: five rows of parameters at once (array
	 * binding: COM_STMT_BULK_EXECUTE) */
	s = prep("INSERT INTO e2e_stmt.t (id) VALUES (?)");
	memset(b, 0, sizeof(b));
	b[0].buffer_type = MYSQL_TYPE_LONG;
	b[0].buffer = rows;
	if (mysql_stmt_attr_set(s, STMT_ATTR_ARRAY_SIZE, &nrows) || mysql_stmt_bind_param(s, b) ||
	    mysql_stmt_execute(s))
		die("bulk", mysql_stmt_error(s));
	bulk = (int)mysql_stmt_affected_rows(s);
	mysql_stmt_close(s);

	/* MariaDB's direct execute: the prepare and an execute naming the
	 * statement prepared last (id 0xffffffff) in one write, before any
	 * answer; three times, a statement each */
	for (direct = 0; direct < 3; direct++) {
		unsigned int prebind = 1;

		s = mysql_stmt_init(db);
		memset(b, 0, sizeof(b));
		id = 100 + direct;
		b[0].buffer_type = MYSQL_TYPE_LONG;
		b[0].buffer = &id;
		if (!s || mysql_stmt_attr_set(s, STMT_ATTR_PREBIND_PARAMS, &prebind) ||
		    mysql_stmt_bind_param(s, b) ||
		    mariadb_stmt_execute_direct(s, "SELECT v FROM e2e_stmt.t WHERE id < ?", (size_t)-1) ||
		    mysql_stmt_store_result(s))
			die("direct", s ? mysql_stmt_error(s) : mysql_error(db));
		mysql_stmt_close(s);
	}

	/* a statement the server refuses to prepare (1064) */
	s = mysql_stmt_init(db);
	if (!s || !mysql_stmt_prepare(s, "SELEC 1", 7))
		die("bad prepare", "prepared");
	mysql_stmt_close(s);

	/* the long value's length, by a prepared statement with no parameter */
	s = prep("SELECT LENGTH(v) FROM e2e_stmt.t WHERE id = 31");
	memset(b, 0, sizeof(b));
	b[0].buffer_type = MYSQL_TYPE_LONG;
	b[0].buffer = &id;
	if (mysql_stmt_execute(s) || mysql_stmt_bind_result(s, b) || mysql_stmt_fetch(s))
		die("length", mysql_stmt_error(s));
	mysql_stmt_close(s);
	run("DROP DATABASE e2e_stmt");
	mysql_close(db);
	printf("inserted 31, fetched %d, long %d, dup %d, bulk %d, direct %d\n", fetched, id, dup, bulk,
	       direct);
	return 0;
}
