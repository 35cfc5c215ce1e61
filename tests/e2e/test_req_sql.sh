#!/usr/bin/env bash
# Request mode against MariaDB and PostgreSQL (issue 23), each in a temporary
# data folder, run as its own user. MariaDB: the mariadb client runs a script
# of known statements, three of them failing (no such table, a syntax error, a
# duplicate key), mariadb-slap its generated statements (sent with the C
# string's closing NUL), and two logins fail (a wrong password, an unknown
# user); ground truth is the growth of SHOW GLOBAL STATUS' Com_* counters, the
# client's ERROR lines and the general log (each connection's user, database
# and failed login, each statement's text); then a metrics-only run counts the
# handshakes apart from the statements. PostgreSQL: pgbench (simple protocol)
# and a failing psql query; ground truth is log_statement=all and the ERROR
# lines with their SQLSTATE. Then, under an agent with --metrics, PostgreSQL's
# connection setup (issue 31): pgbench -M prepared, a login with a SCRAM
# password and a query psql cancels; ground truth is the server's log
# (log_connections, log_min_duration_statement=0's parse and bind lines).
# Then pipelines and batches (many statements before one Sync): pgbench's
# \startpipeline and psycopg's executemany, a failed pipeline and COPY, each
# statement against the log's execute lines. Last, TLS: a second PostgreSQL cluster with ssl = on, pgbench and psql
# over TLS (libpq's SSLREQUEST answered 'S', the handshake, the probes'
# plaintext), and a second MariaDB server with a certificate, which the
# mariadb client uses unasked (its login inside TLS), each against its log.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_servers.sh"
need_live
need_pkgs mariadb-server mariadb-client postgresql postgresql-contrib libmariadb-dev gcc pkg-config \
	golang-go golang-github-go-sql-driver-mysql-dev
t0=$SECONDS
chmod 711 "$TMP" "$SRV"	# the servers run as mysql and postgres

MPORT=13306 PPORT=15432
port_free "$MPORT" || MPORT=$(free_port)
port_free "$PPORT" || PPORT=$(free_port)
M=$SRV/mariadb P=$SRV/pg
mkdir -p "$M" "$P"
chown mysql:mysql "$M"
chown postgres "$P"
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | tail -n 1)
# quiet COMMAND LOG ARGS...: COMMAND's output to LOG (expect's own line stays on stdout)
quiet() { local log=$2 c=$1; shift 2; timeout 60 "$c" "$@" >"$log" 2>&1; }
expect "mariadb-install-db made a data folder" quiet mariadb-install-db "$M/install.log" --no-defaults \
	--user=mysql --datadir="$M/data" --auth-root-authentication-method=normal --skip-test-db
srv_start mariadb mariadbd --no-defaults --user=mysql --datadir="$M/data" --port="$MPORT" \
	--bind-address=127.0.0.1 --socket="$M/sock" --pid-file="$M/pid" --skip-log-bin \
	--innodb-buffer-pool-size=16M --log-error="$M/error.log" \
	--general-log=1 --general-log-file="$M/general.log"
MARIA_PID=$SRV_PID
expect "initdb made a cluster" quiet runuser "$P/initdb.log" -u postgres -- "$PGBIN/initdb" -D "$P/data" \
	-A trust -U postgres --no-sync
# e2e_pw logs in with a password (SCRAM-SHA-256, PostgreSQL 15's default)
sed -i '1i host all e2e_pw 127.0.0.1/32 scram-sha-256' "$P/data/pg_hba.conf"
srv_start postgres runuser -u postgres -- "$PGBIN/postgres" -D "$P/data" -p "$PPORT" -k "$P" \
	-c listen_addresses=127.0.0.1 -c log_statement=all -c log_error_verbosity=verbose -c fsync=off \
	-c log_connections=on -c log_min_duration_statement=0
PG_PID=$SRV_PID
expect "mariadbd listens on 127.0.0.1:$MPORT" wait_port "$MPORT" 30 || tail -n 5 "$M/error.log"
expect "postgres listens on 127.0.0.1:$PPORT" wait_port "$PPORT" 30 || tail -n 5 "$SRV/postgres.log"
my() { timeout 30 mariadb --no-defaults -h 127.0.0.1 -P "$MPORT" -u root "$@"; }
pgb() { timeout 30 pgbench -h 127.0.0.1 -p "$PPORT" -U postgres "$@" postgres; }
expect "pgbench -i -s 1" quiet pgbench "$P/init.out" -h 127.0.0.1 -p "$PPORT" -U postgres -i -s 1 -q postgres
pq() { timeout 10 psql -h 127.0.0.1 -p "$PPORT" -U postgres -qAtc "$1" postgres; }
expect "the role e2e_pw has a password" pq "CREATE ROLE e2e_pw LOGIN PASSWORD 'e2e'"
my -N -e "SHOW GLOBAL STATUS LIKE 'Com\\_%'" >"$M/before"
glog_from=$(($(wc -l <"$M/general.log") + 1))
plog_from=$(($(wc -l <"$SRV/postgres.log") + 1))

{
	echo "CREATE DATABASE e2e;"
	echo "CREATE TABLE e2e.t (id INT PRIMARY KEY, v VARCHAR(20));"
	for i in $(seq 1 100); do echo "INSERT INTO e2e.t VALUES ($i, 'v$i');"; done
	for i in $(seq 1 100); do echo "SELECT v FROM e2e.t WHERE id = $i;"; done
	for i in $(seq 1 30); do echo "UPDATE e2e.t SET v = 'w$i' WHERE id = $i;"; done
	for i in $(seq 1 10); do echo "DELETE FROM e2e.t WHERE id = $i;"; done
	for i in 1 2 3; do
		echo "SELECT * FROM e2e.missing;"			# 1146
		echo "SELEC $i;"					# 1064
		echo "INSERT INTO e2e.t VALUES (50, 'dup');"		# 1062
	done
	echo "DROP DATABASE e2e;"
} >"$M/script.sql"

expect "the agent starts in request mode" req_agent_start "req.sport=$MPORT or req.sport=$PPORT"
load() {
	local rc=0
	my --force <"$M/script.sql" >"$M/script.out" 2>"$M/script.err"
	[ "$(grep -c '^ERROR ' "$M/script.err")" = 9 ] || rc=1
	pgb -t 100 -c 2 >"$P/bench.out" 2>&1 || rc=1
	timeout 10 psql -h 127.0.0.1 -p "$PPORT" -U postgres -c 'SELECT * FROM e2e_missing' postgres \
		>/dev/null 2>"$P/psql.err"
	grep -q 'does not exist' "$P/psql.err" || rc=1
	return $rc
}
expect "the mariadb script, pgbench and psql ran (9 + 1 errors)" load
# myload: mariadb-slap, two failed logins (1045), a login naming a database
myload() {
	timeout 60 mariadb-slap --no-defaults -h 127.0.0.1 -P "$MPORT" -u root --auto-generate-sql \
		--concurrency=1 --number-of-queries=5 >"$M/slap.out" 2>&1 || return 1
	! my -pwrong -e "SELECT 1" 2>"$M/denied.err" && grep -q '^ERROR 1045 ' "$M/denied.err" &&
		! timeout 30 mariadb --no-defaults -h 127.0.0.1 -P "$MPORT" -u nosuch -e "SELECT 1" \
			2>"$M/denied.err" && grep -q '^ERROR 1045 ' "$M/denied.err" &&
		my -D mysql -N -e "SELECT COUNT(*) FROM user" >/dev/null
}
expect "mariadb-slap, two failed logins and a login naming a database ran" myload
req_agent_stop; rc=$?
expect "the agent exits 0" [ $rc = 0 ] || tail -n 5 "$REQ_ERR"
tail -n +"$glog_from" "$M/general.log" >"$M/window.log"
my -N -e "SHOW GLOBAL STATUS LIKE 'Com\\_%'" >"$M/after"
# Metrics only: each connection's handshake is counted under its own
# request_content (HANDSHAKE), never under a statement's (QUERY).
XPORT=$(free_port)
glog2_from=$(($(wc -l <"$M/general.log") + 1))
expect "the agent starts for metrics only (-q --metrics)" \
	start_agent "$TMP/mq.out" "$TMP/mq.err" --requests -q --metrics "127.0.0.1:$XPORT"
mqload() {
	my -D mysql -e "SELECT 1; SELECT 2" >/dev/null && ! my -pwrong -e "SELECT 3" 2>/dev/null &&
		my -e "SELECT 4" >/dev/null
}
expect "two logins with their queries and a failed login ran under -q --metrics" mqload
tail -n +"$glog2_from" "$M/general.log" >"$M/window2.log"
# mq_seen: the metrics (fetched into q.metrics) count at least as many MariaDB
# logins and statements as the general log has: the agent counts a request once
# it has read its events and renders the text about once a second, so this is
# waited for; the check below wants the counts equal.
mq_seen() {
	python3 - "http://127.0.0.1:$XPORT/metrics" "$M/q.metrics" "$M/window2.log" <<'PY'
import sys, urllib.request, req_lib as R
text = urllib.request.urlopen(sys.argv[1], timeout=5).read().decode()
open(sys.argv[2], "w").write(text)
conns, cmds = R.mariadb_log(sys.argv[3])
want = len(conns) + sum(1 for i, c, a in cmds if i in conns and c == "Query")
got = R.metric_by_content(sys.argv[2], "agent_request_total", "mariadbd", "mysql")
sys.exit(0 if sum(v for k, v in got.items() if k[0] in ("HANDSHAKE", "QUERY")) >= want else 1)
PY
}
expect "the metrics count the MariaDB logins and statements (waited for, up to 20 s)" wait_for 20 mq_seen
req_agent_stop; rc=$?
expect "the metrics-only agent exits 0" [ $rc = 0 ] || tail -n 5 "$TMP/mq.err"
tail -n +"$plog_from" "$SRV/postgres.log" >"$P/window.log"

# PostgreSQL's connection setup, under an agent that serves --metrics too.
# pg_cancel: psql's query cancelled once it runs (SIGINT: psql sends a
# CancelRequest on a connection of its own); true if the server cancelled it.
pg_cancel() {
	local pid n=0
	timeout --foreground 30 psql -h 127.0.0.1 -p "$PPORT" -U postgres -c 'SELECT pg_sleep(20)' \
		postgres >/dev/null 2>"$P/cancel.err" &
	pid=$!
	until [ "$(pq "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(20)'
			AND state = 'active'")" = 1 ]; do
		n=$((n + 1))
		[ $n -gt 100 ] && break
		sleep 0.1
	done
	kill -INT "$pid"
	wait "$pid"
	grep -q 'canceling statement due to user request' "$P/cancel.err"
}
setup_load() {
	local rc=0
	pgb -M prepared -t 50 -c 2 >"$P/prepared.out" 2>&1 || rc=1
	PGPASSWORD=e2e timeout 10 psql -h 127.0.0.1 -p "$PPORT" -U e2e_pw -Atc 'SELECT 1' postgres \
		>/dev/null || rc=1
	pg_cancel || rc=1
	return $rc
}
# The server's processes: the postmaster's children (its helpers, and one
# backend per connection while it lasts).
pg_children() { pgrep -c -P "$(head -n 1 "$P/data/postmaster.pid")"; }
# What the setup phase's log says the agent's metrics count, by request
# content: the setup exchanges, the statements, and the TERMINATEs and
# CANCELs each backend read before it exited.
cat >"$TMP/pg_setup.py" <<'PY'
import re

L = r"LOG:  \w+: "


def want(log):
    text = open(log).read()
    received = len(re.findall(L + r"connection received: ", text))
    who = {}
    for m in re.findall(L + r"connection authorized: user=(\S+) database=(\S+)", text):
        who["%s@%s" % m] = who.get("%s@%s" % m, 0) + 1
    conns = sum(who.values())
    # libpq asks for TLS first on each connection but a cancel's; SCRAM is
    # two answers; a TERMINATE ends each session, a cancel's connection
    # carries its CANCEL only
    return received, who, {
        "SSLREQUEST": conns, "STARTUP": conns, "AUTH": 2 * who.get("e2e_pw@postgres", 0),
        "PARSE": len(re.findall(L + r"duration: \S+ ms  parse ", text)),
        "BIND": len(re.findall(L + r"duration: \S+ ms  bind ", text)),
        "QUERY": len(re.findall(L + r"statement: ", text)),
        "TERMINATE": conns, "CANCEL": received - conns}
PY
QPORT=19377
port_free "$QPORT" || QPORT=$(free_port)
plog_from=$(($(wc -l <"$SRV/postgres.log") + 1))
expect "the agent starts in request mode with --metrics" start_agent "$P/setup.json" "$P/setup.err" \
	--requests -j -p "$REQ_FORMAT" --metrics "127.0.0.1:$QPORT" "req.sport=$PPORT"
helpers=$(pg_children)
expect "pgbench -M prepared, a SCRAM login and a cancelled query ran" setup_load
# Each backend exits once its client is gone (without a close(): the agent
# ends its connection at the process's exit); once they all have, the log is
# complete, and the metrics are polled until they count what it says (they
# only grow towards it; 20 s at most), so the check below is exact.
expect "the setup phase's backends exited" wait_for 20 eval '[ "$(pg_children)" = "$helpers" ]'
tail -n +"$plog_from" "$SRV/postgres.log" >"$P/setup.log"
PYTHONPATH=$TMP python3 - "http://127.0.0.1:$QPORT/metrics" "$P/setup.metrics" "$P/setup.log" <<'PY'
import sys, time, urllib.request, req_lib as R, pg_setup
url, out, log = sys.argv[1:4]
want = pg_setup.want(log)[2]
for _ in range(200):
    with open(out, "w") as f:
        f.write(urllib.request.urlopen(url, timeout=5).read().decode())
    got = R.metric_by(out, "agent_request_total", "request_content", protocol="pgsql")
    if all(got.get(k, 0) >= n for k, n in want.items()):
        break
    time.sleep(0.1)
PY
req_agent_stop; rc=$?
expect "the agent exits 0" [ $rc = 0 ] || tail -n 5 "$P/setup.err"

# Pipelines and batches: many statements before one Sync, which the server
# answers one by one. pgbench's \startpipeline (pg/pipeline.sql: four
# statements a transaction), and psycopg 3 (pg/batches.py): executemany's
# batch of 200 rows (its answers in writes past the snaplen: the driver
# widens the fd's, pgwire.bpf.h), a pipeline whose second statement fails a
# second after it began (the server skips the other two, which psycopg has
# sent by then), COPY both ways. Ground truth: the log's
# execute and statement lines and its ERROR.
# MariaDB's prepared statements (the binary protocol) in the same run: Go's
# go-sql-driver (mysql/stmts.go: a prepare, an execute and an unanswered
# close for each query with arguments) and libmariadb's mysql_stmt_* calls
# (mysql/stmts.c: long data, a reset, a cursor's fetches, a failed prepare
# and a failed execute). Ground truth: the general log's Prepare and Execute
# lines and the Com_stmt_* counters.
go_build() {	# go_build OUT SRC: GOPATH mode, Debian's Go packages only
	env HOME="$TMP/gohome" GOCACHE="$TMP/gohome/cache" GOPATH=/usr/share/gocode GO111MODULE=off \
		GOENV=off GOFLAGS= GOPROXY=off GOTOOLCHAIN=local GOTELEMETRY=off CGO_ENABLED=0 \
		timeout 300 go build -o "$1" "$2" >>"$TMP/gobuild.log" 2>&1
}
expect "the MariaDB statement clients build (libmariadb, go-sql-driver)" eval \
	'gcc -O2 -Wall -o "$TMP/stmts" "$(dirname "$0")/mysql/stmts.c" $(pkg-config --cflags --libs libmariadb) &&
	 go_build "$TMP/stmtsgo" "$(dirname "$0")/mysql/stmts.go"' || tail -n 5 "$TMP/gobuild.log"
my -N -e "SHOW GLOBAL STATUS LIKE 'Com\\_stmt\\_%'" >"$M/stmt.before"
glog3_from=$(($(wc -l <"$M/general.log") + 1))
plog_from=$(($(wc -l <"$SRV/postgres.log") + 1))
expect "the agent starts in request mode for pipelines, batches and statements" start_agent \
	"$P/pipe.json" "$P/pipe.err" --requests -j -p "$REQ_FORMAT" "req.sport=$PPORT or req.sport=$MPORT"
helpers=$(pg_children)
pipe_load() {
	pgb -M extended -n -f "$(dirname "$0")/pg/pipeline.sql" -t 20 -c 2 >"$P/pipe.out" 2>&1 &&
		timeout 30 /usr/bin/python3 "$(dirname "$0")/pg/batches.py" "$PPORT" >"$P/batches.out" 2>&1 &&
		grep -qx 'inserted 200, pipeline failed True, copied out 205' "$P/batches.out"
}
expect "pgbench's pipelines and psycopg's batch, failed pipeline and COPYs ran" pipe_load ||
	tail -n 3 "$P/pipe.out" "$P/batches.out"
stmt_load() {
	timeout 30 "$TMP/stmtsgo" "root@tcp(127.0.0.1:$MPORT)/" >"$M/stmts.out" 2>&1 &&
		timeout 30 "$TMP/stmts" "$MPORT" >>"$M/stmts.out" 2>&1 &&
		[ "$(cat "$M/stmts.out")" = "ran 35
inserted 31, fetched 9, long 6000, dup 1062, bulk 5, direct 3" ]
}
expect "Go's and libmariadb's prepared statements ran" stmt_load || tail -n 3 "$M/stmts.out"
# LOAD DATA LOCAL: the server asks for the file, the client sends it, the
# server reports its progress and answers; the next statement follows
seq 1 2000 | sed 's/.*/&,row&/' >"$M/rows.csv"
infile_load() {
	my --local-infile=1 -N -e "CREATE DATABASE e2e_infile;
		CREATE TABLE e2e_infile.t (id INT, v VARCHAR(20));
		LOAD DATA LOCAL INFILE '$M/rows.csv' INTO TABLE e2e_infile.t FIELDS TERMINATED BY ',';
		SELECT COUNT(*) FROM e2e_infile.t; DROP DATABASE e2e_infile" >"$M/infile.out" 2>&1 &&
		[ "$(cat "$M/infile.out")" = 2000 ]
}
expect "the mariadb client loaded a file of 2000 rows (LOAD DATA LOCAL)" infile_load ||
	tail -n 3 "$M/infile.out"
expect "the pipelines' backends exited" wait_for 20 eval '[ "$(pg_children)" = "$helpers" ]'
tail -n +"$plog_from" "$SRV/postgres.log" >"$P/pipe.log"
my -N -e "SHOW GLOBAL STATUS LIKE 'Com\\_stmt\\_%'" >"$M/stmt.after"
tail -n +"$glog3_from" "$M/general.log" >"$M/stmt.log"
req_agent_stop; rc=$?
expect "the agent exits 0" [ $rc = 0 ] || tail -n 5 "$P/pipe.err"
srv_stop "$MARIA_PID"
srv_stop "$PG_PID"

req_check mysql "MariaDB: server-side QUERY records per statement kind == the Com_* counters' growth; error records per number == the client's ERROR lines" \
	"$REQ_OUT" "$REQ_ERR" "$M/before" "$M/after" "$M/script.err" <<'PY'
import re, sys, req_lib as R
out, err, before, after, cerr = sys.argv[1:6]
def status(p):
    return {k: int(v) for k, v in (l.split() for l in open(p) if l.strip())}
b, a = status(before), status(after)
com = {k[4:]: a[k] - b.get(k, 0) for k in a if a[k] != b.get(k, 0)}
com.pop("show_status", None)	# ours, outside the agent's run
errors = R.counts(int(m[1]) for m in re.finditer(r"^ERROR (\d+) ", open(cerr).read(), re.M))
recs = R.records(out)
server = [r for r in recs if r.get("req.side") == "server" and r.get("req.protocol") == "mysql"]
queries = [r for r in server if r.get("req.method") == "QUERY"]
init_db = [r for r in server if r.get("req.method") == "INIT_DB"]
print("agent: %d records (%d server-side mysql, %d QUERY, %d INIT_DB), %d aborted or timed out, kernel drops %s"
      % (len(recs), len(server), len(queries), len(init_db), len(R.ABORTED), R.kernel_drops(err)))
print("MariaDB: Com_* grew by %s; client errors %s" % (com, errors))
print("other server-side mysql records: %s"
      % R.counts(r.get("req.method") for r in server if r not in queries + init_db))
KIND = {("SELECT",): "select", ("INSERT",): "insert", ("UPDATE",): "update", ("DELETE",): "delete",
        ("CREATE", "DATABASE"): "create_db", ("CREATE", "SCHEMA"): "create_db",
        ("CREATE", "TABLE"): "create_table", ("DROP", "DATABASE"): "drop_db",
        ("DROP", "SCHEMA"): "drop_db"}
def kind(r):
    w = tuple((r.get("req.path") or "").upper().split()[:2])
    return KIND.get(w[:1]) or KIND.get(w) or " ".join(w)
# a statement the parser refused (1064) is counted by no Com_* counter; COM_INIT_DB by Com_change_db
kinds = R.counts([kind(r) for r in queries if r.get("req.status") != 1064] + ["change_db" for r in init_db])
R.assert_counts(("statements of kind", kinds, com),
                ("error", R.counts(r.get("req.status") for r in queries if R.yes(r.get("req.error"))), errors))
print("ok")
PY

req_check mysql_log "MariaDB: each statement in the general log (mariadb, mariadb-slap) has its server-side record with its method and SQL text head; every mysql record has a method" \
	"$REQ_OUT" "$M/window.log" <<'PY'
import sys, req_lib as R
out, log = sys.argv[1:3]
def text(s):
    """The SQL text head as req.path shows it."""
    s = s.rstrip(" ;\0")
    return "".join(" " if c in "\t\r\n" else "?" if ord(c) < 0x20 or ord(c) >= 0x7f else c
                   for c in s)[:255]
conns, cmds = R.mariadb_log(log)
METHOD = {"Query": "QUERY", "Init DB": "INIT_DB"}
want = R.counts((METHOD[c], text(a)) for i, c, a in cmds if i in conns and c in METHOD)
recs = [r for r in R.records(out, "mysql") + R.ABORTED if r.get("req.protocol") == "mysql"]
server = [r for r in recs if r.get("req.side") == "server"]
got = R.counts((r.get("req.method"), text(r.get("req.path") or "")) for r in server
               if r.get("req.method") in METHOD.values())
nul = sum(1 for i, c, a in cmds if i in conns and a.endswith("\0"))
print("general log: %d statements (%d ending in a NUL) on %d connections; agent: %d server-side"
      % (sum(want.values()), nul, len(conns), sum(got.values())))
bare = [r for r in recs if not r.get("req.method")]
for r in bare[:5]:
    print("  no method:", R.short(r))
assert nul >= 100, "mariadb-slap's statements end in a NUL: %d" % nul
assert not bare, "%d mysql records without a method" % len(bare)
R.assert_counts(("statement", got, want))
print("ok")
PY

req_check mysql_handshake "MariaDB: one HANDSHAKE record per connection on each side, USER@DATABASE as the general log's; failed logins are error 1045 (28000); no unknown bytes on its port" \
	"$REQ_OUT" "$M/window.log" "$MPORT" <<'PY'
import sys, req_lib as R
out, log, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
conns, cmds = R.mariadb_log(log)
def login(c):
    path = c["user"] + ("@" + c["db"] if c["db"] else "")
    return (path, True, 1045, "28000") if c["denied"] else (path, False, None, None)
want = R.counts(login(c) for c in conns.values())
recs = R.records(out) + R.ABORTED
hs = [r for r in recs if r.get("req.protocol") == "mysql" and r.get("req.method") == "HANDSHAKE"]
other = [r for r in recs if r.get("req.sport") == port and r.get("req.protocol") != "mysql"]
print("general log: %d connections %s" % (len(conns), want))
print("agent: %d HANDSHAKE records, %d aborted or timed out; %d not mysql on port %d"
      % (len(hs), sum(1 for r in hs if r in R.ABORTED), len(other), port))
for r in other[:5]:
    print("  not mysql:", R.short(r))
assert not other, "%d records on the MariaDB port not labelled mysql" % len(other)
assert not [r for r in hs if r in R.ABORTED], "aborted handshakes"
assert any(c["denied"] for c in conns.values()) and any(c["db"] for c in conns.values()), conns
key = lambda r: (r.get("req.path"), R.yes(r.get("req.error")), r.get("req.status"), r.get("req.code"))
R.assert_counts(*(("%s-side handshake" % side, R.counts(key(r) for r in hs if r.get("req.side") == side),
                   want) for side in ("server", "client")))
print("ok")
PY

req_check mysql_metrics "MariaDB, metrics only: agent_request_total counts each login under request_content HANDSHAKE (ok 2, error 1) and only the statements under QUERY" \
	"$M/q.metrics" "$M/window2.log" <<'PY'
import sys, req_lib as R
metrics, log = sys.argv[1:3]
conns, cmds = R.mariadb_log(log)
got = R.metric_by_content(metrics, "agent_request_total", "mariadbd", "mysql")
got.pop(("QUIT", "aborted"), None)	# COM_QUIT has no reply
want = R.counts(("HANDSHAKE", "error" if c["denied"] else "ok") for c in conns.values())
want[("QUERY", "ok")] = sum(1 for i, c, a in cmds if i in conns and c == "Query")
print("metrics: %s; general log: %s" % (got, want))
R.assert_counts(("request_content, response_content", got, want))
print("ok")
PY

req_check pgsql "PostgreSQL: server-side records per statement kind == log_statement's lines; errors per SQLSTATE == the log's ERRORs" \
	"$REQ_OUT" "$P/window.log" <<'PY'
import re, sys, req_lib as R
out, log = sys.argv[1:3]
text = open(log).read()
stmts = R.counts(m[1].upper() for m in re.finditer(r"LOG:  \w+: statement: (\w+)", text))
errors = R.counts(m[1] for m in re.finditer(r"ERROR:  (\w{5}): ", text))
recs = R.records(out)
server = [r for r in recs if r.get("req.side") == "server" and r.get("req.protocol") == "pgsql"]
queries = [r for r in server if r.get("req.method") == "QUERY"]
print("agent: %d server-side pgsql records, %d QUERY; log: %d statements %s, errors %s"
      % (len(server), len(queries), sum(stmts.values()), stmts, errors))
print("other server-side pgsql records: %s" % R.counts(r.get("req.method") for r in server if r not in queries))
first = lambda r: (re.match(r"\s*(\w*)", r.get("req.path") or "")[1]).upper()
R.assert_counts(("statements", R.counts(first(r) for r in queries), stmts),
                ("SQLSTATE", R.counts(r.get("req.code") for r in server if R.yes(r.get("req.error"))), errors))
print("ok")
PY

req_check pgsql_setup "PostgreSQL: each connection opens with SSLREQUEST (or CANCEL) then STARTUP USER@DATABASE (AUTH after it for a password), as the log's connections say; request_content counts == the log's parse, bind and statement lines and the setup exchanges, one per connection; each BIND record has its prepared statement's SQL, as the log's bind lines; each TERMINATE and CANCEL aborted on both sides" \
	"$P/setup.json" "$P/setup.metrics" "$P/setup.log" <<'PY'
import re, sys, req_lib as R, pg_setup
out, metrics, log = sys.argv[1:4]
received, who, want = pg_setup.want(log)
# A TERMINATE and a CANCEL get no answer: the client closes its socket, the
# backend that read it exits without a close(), and both records are aborted.
ends = ("TERMINATE", "CANCEL")
recs = R.records(out, "pgsql") + R.ABORTED
method = lambda r: r.get("req.method") or ""
server = [r for r in recs if r.get("req.side") == "server"]
aborted = lambda side: R.counts(method(r) for r in R.ABORTED if r.get("req.side") == side and
                                method(r) in ends and R.yes(r.get("req.aborted")))
by_conn = {}
for r in sorted(server, key=lambda r: r["req.seq"]):
    by_conn.setdefault(r["req.conn"], []).append(method(r))
content = {k: int(v) for k, v in R.metric_by(metrics, "agent_request_total", "request_content",
                                             protocol="pgsql").items()}
got = R.counts(method(r) for r in server)
print("log: %d connections received, authorized %s; agent: %d server-side records on %d connections"
      % (received, who, len(server), len(by_conn)))
print("server-side records by method: %s; aborted ends: server %s, client %s"
      % (got, aborted("server"), aborted("client")))
print("request_content in the metrics: %s" % content)
SETUP = {"SSLREQUEST", "STARTUP", "AUTH", "CANCEL"}
def setup_first(m):
    """A cancel's connection has its CANCEL only; another opens with
    SSLREQUEST, STARTUP and any AUTH, and no setup comes after them."""
    i = 2
    while i < len(m) and m[i] == "AUTH":
        i += 1
    return m == ["CANCEL"] or (m[:2] == ["SSLREQUEST", "STARTUP"] and not SETUP & set(m[i:]))
bad = ["connection %s: %s" % (c, " ".join(m[:8])) for c, m in by_conn.items() if not setup_first(m)]
assert not bad, "\n".join(["%d differences" % len(bad)] + bad[:5])
only = lambda c: {k: c[k] for k in ends if k in c}
R.assert_counts(("server-side records of method", got, want),
                ("STARTUP path", R.counts(r.get("req.path") for r in server if method(r) == "STARTUP"), who),
                # pgbench -M prepared's Binds name no SQL: the text is their
                # statement's, from its Parse earlier on the connection
                ("BIND path", R.counts(r.get("req.path") or "" for r in server if method(r) == "BIND"),
                 R.counts(re.findall(r"LOG:  \w+: duration: \S+ ms  bind \S+: (.*)", open(log).read()))),
                ("request_content", content, want),
                ("server-side aborted records of method", aborted("server"), only(want)),
                ("client-side aborted records of method", aborted("client"), only(want)))
print("ok")
PY

# PostgreSQL over TLS, as Debian's own clusters run (ssl = on): a second
# cluster with a certificate openssl made; libpq asks for TLS (SSLREQUEST),
# the server's 'S' accepts, and the TLS probes read the session's plaintext.
# pgbench and psql require it; ground truth is that cluster's log.
T=$SRV/pgtls TPORT=$(free_port)
mkdir -p "$T"
chown postgres "$T"
pgtls() {
	quiet runuser "$T/initdb.log" -u postgres -- "$PGBIN/initdb" -D "$T/data" -A trust -U postgres \
		--no-sync && self_cert "$T/data" && chown postgres "$T/data/cert.pem" "$T/data/key.pem" &&
		chmod 600 "$T/data/key.pem"
}
expect "initdb made a second cluster, with a certificate" pgtls
srv_start pgtls runuser -u postgres -- "$PGBIN/postgres" -D "$T/data" -p "$TPORT" -k "$T" \
	-c listen_addresses=127.0.0.1 -c log_statement=all -c log_error_verbosity=verbose -c fsync=off -c ssl=on \
	-c ssl_cert_file="$T/data/cert.pem" -c ssl_key_file="$T/data/key.pem"
PGTLS_PID=$SRV_PID
expect "the TLS cluster listens on 127.0.0.1:$TPORT" wait_port "$TPORT" 30 || tail -n 5 "$SRV/pgtls.log"
TS="host=127.0.0.1 port=$TPORT user=postgres dbname=postgres sslmode=require"
expect "pgbench -i over TLS" quiet pgbench "$T/init.out" -i -s 1 -q "$TS"
expect "the agent starts in request mode for the TLS cluster" \
	start_agent "$T/req.json" "$T/req.err" --requests -j -p "$REQ_FORMAT" "req.sport=$TPORT"
tplog_from=$(($(wc -l <"$SRV/pgtls.log") + 1))
tls_children() { pgrep -c -P "$(head -n 1 "$T/data/postmaster.pid")"; }
thelpers=$(tls_children)
tlsload() {
	timeout 30 pgbench -t 20 -c 2 "$TS" >"$T/bench.out" 2>&1 &&
		[ "$(timeout 10 psql "$TS" -Atc 'SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')" = t ] &&
		! timeout 10 psql "$TS" -c 'SELECT * FROM e2e_missing' >/dev/null 2>"$T/psql.err" &&
		grep -q 'does not exist' "$T/psql.err"
}
expect "pgbench and psql ran over TLS (1 error)" tlsload
expect "the TLS cluster's backends exited" wait_for 20 eval '[ "$(tls_children)" = "$thelpers" ]'
req_agent_stop; rc=$?
expect "the agent exits 0" [ $rc = 0 ] || tail -n 5 "$T/req.err"
tail -n +"$tplog_from" "$SRV/pgtls.log" >"$T/window.log"
req_check pgsql_tls "PostgreSQL over TLS: each connection SSLREQUEST, its TLS handshake as tls records, then the plaintext (req.tls) from STARTUP on; QUERY records per statement == the log's, errors per SQLSTATE too; no pgsql record without a method" \
	"$T/req.json" "$T/window.log" "$T/req.err" <<'PY'
import re, sys, req_lib as R
out, log, err = sys.argv[1:4]
text = open(log).read()
stmts = R.counts(m[1].upper() for m in re.finditer(r"LOG:  \w+: statement: (\w+)", text))
errors = R.counts(m[1] for m in re.finditer(r"ERROR:  (\w{5}): ", text))
recs = R.records(out)
bad = []
for side in ("server", "client"):
    conns = R.by_conn(recs, side)
    shapes = R.counts(" ".join([r.get("req.protocol") + ("/tls" if R.yes(r.get("req.tls")) else "")
                                for r in rs][:4]) for rs in conns.values())
    print("%s side: %d connections, their first records %s" % (side, len(conns), dict(shapes)))
    for cport, rs in conns.items():
        proc = rs[0].get("proc.name")
        m = [(r.get("req.protocol"), r.get("req.method"), R.yes(r.get("req.tls"))) for r in rs]
        i = next((k for k, x in enumerate(m) if x[0] != "tls"), 0)
        j = next((k for k, x in enumerate(m[1:], 1) if x[0] != "tls"), len(m))
        if m[0] != ("pgsql", "SSLREQUEST", False) or j < 2 or m[1][:2] != ("tls", "CLIENT_HELLO") or \
                m[j] != ("pgsql", "STARTUP", True) or any(x[0] != "pgsql" or not x[2] for x in m[j:]):
            bad.append("%s side, %s's connection from port %s: %s" % (side, proc, cport, m))
server = [r for r in recs if r.get("req.side") == "server" and r.get("req.protocol") == "pgsql"]
queries = [r for r in server if r.get("req.method") == "QUERY"]
first = lambda r: (re.match(r"\s*(\w*)", r.get("req.path") or "")[1]).upper()
print("agent: %d server-side QUERY records; log: statements %s, errors %s" % (len(queries), dict(stmts), dict(errors)))
nomethod = [r for r in recs if r.get("req.protocol") == "pgsql" and not r.get("req.method")]
if nomethod:
    bad.append("%d pgsql records without a method, e.g. %s" % (len(nomethod), R.short(nomethod[0])))
assert not bad, "\n".join(bad[:6])
R.assert_counts(("statements", R.counts(first(r) for r in queries), stmts),
                ("SQLSTATE", R.counts(r.get("req.code") for r in server if R.yes(r.get("req.error"))), errors))
assert stmts.get("SELECT", 0) >= 40 and errors == {"42P01": 1}, "the log: %s %s" % (stmts, errors)
print("ok")
PY

# MariaDB over TLS: a second server with a certificate, which Debian's
# mariadb client then uses without being asked (its SSL request, the
# handshake, then the login inside TLS, sequence 2, and the statements, read
# by the TLS probes). Ground truth is that server's general log.
MT=$SRV/mariadb-tls MTPORT=$(free_port)
mkdir -p "$MT"
mytls() {
	chown mysql:mysql "$MT" && quiet mariadb-install-db "$MT/install.log" --no-defaults --user=mysql \
		--datadir="$MT/data" --auth-root-authentication-method=normal --skip-test-db &&
		self_cert "$MT" && chown mysql "$MT/cert.pem" "$MT/key.pem"
}
expect "mariadb-install-db made a second data folder, with a certificate" mytls
srv_start mariadb-tls mariadbd --no-defaults --user=mysql --datadir="$MT/data" --port="$MTPORT" \
	--bind-address=127.0.0.1 --socket="$MT/sock" --pid-file="$MT/pid" --skip-log-bin \
	--innodb-buffer-pool-size=16M --log-error="$MT/error.log" --general-log=1 \
	--general-log-file="$MT/general.log" --ssl-cert="$MT/cert.pem" --ssl-key="$MT/key.pem"
expect "the TLS server listens on 127.0.0.1:$MTPORT" wait_port "$MTPORT" 30 || tail -n 5 "$MT/error.log"
expect "the agent starts in request mode for the MariaDB TLS server" \
	start_agent "$MT/req.json" "$MT/req.err" --requests -j -p "$REQ_FORMAT" "req.sport=$MTPORT"
mt_from=$(($(wc -l <"$MT/general.log") + 1))
myt() { timeout 30 mariadb --no-defaults -h 127.0.0.1 -P "$MTPORT" -u root "$@"; }
mtload() {
	[ "$(myt -D mysql -N -e "SHOW STATUS LIKE 'Ssl_version'" | cut -f2)" != "" ] &&
		myt -D mysql -e "SELECT COUNT(*) FROM user; SELECT 2" >/dev/null &&
		! myt -e "SELECT * FROM mysql.e2e_missing" 2>"$MT/client.err" && grep -q '^ERROR 1146' "$MT/client.err"
}
expect "the mariadb client ran over TLS (1 error)" mtload
req_agent_stop; rc=$?
expect "the agent exits 0" [ $rc = 0 ] || tail -n 5 "$MT/req.err"
tail -n +"$mt_from" "$MT/general.log" >"$MT/window.log"
req_check mysql_tls "MariaDB over TLS: each connection SSLREQUEST, its TLS handshake's exchanges, then HANDSHAKE USER@DATABASE and the statements with req.tls, as the general log says; the error's number" \
	"$MT/req.json" "$MT/window.log" <<'PY'
import sys, req_lib as R
out, log = sys.argv[1:3]
conns, cmds = R.mariadb_log(log)
queries = [a for _, c, a in cmds if c == "Query"]
recs = R.records(out)
bad = []
for side in ("server", "client"):
    by = R.by_conn(recs, side)
    logins, stmts = [], []
    for cport, rs in by.items():
        m = [(r.get("req.protocol"), r.get("req.method"), R.yes(r.get("req.tls"))) for r in rs]
        j = next((k for k, x in enumerate(m[1:], 1) if x[0] != "tls"), len(m))
        # (the handshake's last exchange, which the plaintext cut short,
        # is no record: the client's side may have none left)
        if m[0] != ("mysql", "SSLREQUEST", False) or j >= len(m) or m[j] != ("mysql", "HANDSHAKE", True) or \
                any(x[0] != "mysql" or not x[2] for x in m[j:]):
            bad.append("%s side, the connection from port %s: %s" % (side, cport, m))
        logins += [str(rs[j].get("req.path"))] if j < len(rs) else []
        stmts += [(str(r.get("req.path")), r.get("req.status")) for r in rs[j:] if r.get("req.method") == "QUERY"]
    want = sorted(c["user"] + ("@" + c["db"] if c["db"] else "") for c in conns.values())
    print("%s side: %d connections, logins %s (log %s), %d statements" % (side, len(by), sorted(logins), want, len(stmts)))
    if sorted(logins) != want:
        bad.append("%s side: logins %s, the log's %s" % (side, sorted(logins), want))
    if sorted(q for q, _ in stmts) != sorted(queries):
        bad.append("%s side: statements %s, the log's %s" % (side, sorted(q for q, _ in stmts), sorted(queries)))
    if [st for q, st in stmts if st] != [1146]:
        bad.append("%s side: error numbers %s, want one 1146" % (side, [st for q, st in stmts if st]))
assert not bad, "\n".join(bad[:6])
print("ok")
PY

req_check mysql_sides "each statement and login the mariadb clients sent has its server-side record, never slower" \
	"$REQ_OUT" <<'PY'
import sys, req_lib as R
R.check_sides(sys.argv[1], "mysql", ("mariadb", "mariadb-slap"), ("mariadbd",))
print("ok")
PY
req_check mysql_stmt "MariaDB prepared statements (Go's go-sql-driver, libmariadb): server-side STMT_* records per command == the Com_stmt_* counters' growth (a bulk execute an execute); PREPARE records by SQL == the general log's Prepare lines, EXECUTE records by SQL == its Execute lines (each read back to its prepared text); every command naming a statement has its SQL; CLOSE and SEND_LONG_DATA have no response; a direct execute's answer is its own, after its prepare's; the failed prepare and execute are errors 1064 and 1062" \
	"$P/pipe.json" "$M/stmt.log" "$M/stmt.before" "$M/stmt.after" <<'PY'
import re, sys, req_lib as R
out, log, before, after = sys.argv[1:5]
def status(p):
    return {k: int(v) for k, v in (l.split() for l in open(p) if l.strip())}
b, a = status(before), status(after)
com = {"STMT_" + k[9:].upper(): a[k] - b.get(k, 0) for k in a if a[k] != b.get(k, 0)}
conns, cmds = R.mariadb_log(log)
prepares = R.counts(arg for i, c, arg in cmds if c == "Prepare")
# an Execute line shows the statement with its parameters' values in place
# (a bulk execute's line shows the statement as prepared)
literal = r"(?:-?\d+(?:\.\d+)?(?:e[-+]?\d+)?|'(?:[^'\\]|\\.)*'|NULL|\?)"
shapes = [(t, re.compile("^" + re.escape(t).replace(r"\?", literal) + "$")) for t in prepares]
def prepared_text(arg):
    hits = [t for t, rx in shapes if rx.match(arg)]
    assert len(hits) == 1, "an Execute line read back to %s: %r" % (hits, arg[:120])
    return hits[0]
executes = R.counts(prepared_text(arg) for i, c, arg in cmds if c == "Execute")
recs = R.records(out, "mysql", "server")
stmt = [r for r in recs if (r.get("req.method") or "").startswith("STMT_")]
got = R.counts(r.get("req.method") for r in stmt)
# MariaDB counts a bulk execute as an execute, and logs it as one
executed = R.counts("STMT_EXECUTE" if r.get("req.method") == "STMT_BULK_EXECUTE" else r.get("req.method")
                    for r in stmt)
print("agent: %d server-side STMT_* records %s, %d aborted or timed out; Com_stmt_* grew by %s"
      % (len(stmt), dict(got), sum(1 for r in R.ABORTED if r.get("req.protocol") == "mysql"), com))
print("general log: %d Prepare lines, %d Execute lines" % (sum(prepares.values()), sum(executes.values())))
ok = lambda r: not R.yes(r.get("req.error"))
by_text = lambda ms, keep=ok: R.counts(r.get("req.path") for r in stmt if r.get("req.method") in ms and keep(r))
numbered = [r for r in stmt if r.get("req.method") != "STMT_PREPARE" and (r.get("req.path") or "").isdigit()]
for r in numbered[:5]:
    print("  no SQL:", R.short(r))
assert not numbered, "%d commands name their statement by its id alone" % len(numbered)
silent = [r for r in stmt if r.get("req.method") in ("STMT_CLOSE", "STMT_SEND_LONG_DATA")
          and int(r.get("req.response_bytes") or 0)]
assert not silent, "unanswered commands with response bytes: %s" % R.short(silent[0])
# the clients close 26 and 7 statements, fetch 5 times, bulk execute once
assert got.get("STMT_CLOSE") == 33 and got.get("STMT_FETCH") == 5 and got.get("STMT_BULK_EXECUTE") == 1, got
# the direct executes, on both sides (the client writes the prepare and
# the execute at once; the server reads and answers one after the other):
# each prepare's answer its OK and two definitions with their EOFs, each
# execute's the rows (row 31 holds 6000 bytes), named by the id 0xffffffff
direct = [r for r in R.records(out, "mysql") if r.get("req.path") == "SELECT v FROM e2e_stmt.t WHERE id < ?"]
for side in ("server", "client"):
    sizes = lambda m: [int(r.get("req.response_bytes") or 0) for r in direct
                       if r.get("req.method") == m and r.get("req.side") == side]
    print("direct executes, %s side: prepares answered with %s bytes, executes with %s"
          % (side, sizes("STMT_PREPARE"), sizes("STMT_EXECUTE")))
    assert len(sizes("STMT_PREPARE")) == 3 and all(0 < n < 200 for n in sizes("STMT_PREPARE")), direct
    assert len(sizes("STMT_EXECUTE")) == 3 and all(n > 6000 for n in sizes("STMT_EXECUTE")), direct
errors = R.counts((r.get("req.method"), r.get("req.status")) for r in stmt if not ok(r))
R.assert_counts(("command", executed, com),
                ("prepare", by_text(("STMT_PREPARE",)), prepares),
                ("execute", by_text(("STMT_EXECUTE", "STMT_BULK_EXECUTE"), lambda r: True), executes),
                ("error", errors, {("STMT_PREPARE", 1064): 1, ("STMT_EXECUTE", 1062): 1}))
print("ok")
PY

req_check mysql_infile "MariaDB, LOAD DATA LOCAL and the statements around it: server-side QUERY records by SQL text == the general log's Query lines of the phase; the load's record holds the file it sent and the answer after it; every mysql record has a method" \
	"$P/pipe.json" "$M/stmt.log" "$M/rows.csv" <<'PY'
import os, sys, req_lib as R
out, log, csv = sys.argv[1:4]
conns, cmds = R.mariadb_log(log)
text = lambda s: " ".join(s.split())[:255]
want = R.counts(text(a) for i, c, a in cmds if c == "Query")
recs = [r for r in R.records(out, "mysql") + R.ABORTED if r.get("req.protocol") == "mysql"]
server = [r for r in recs if r.get("req.side") == "server"]
got = R.counts(text(r.get("req.path") or "") for r in server if r.get("req.method") == "QUERY")
load = [r for r in server if (r.get("req.path") or "").startswith("LOAD DATA LOCAL")]
bare = [r for r in recs if not r.get("req.method")]
print("general log: %d Query lines; agent: %d server-side QUERY records, %d without a method"
      % (sum(want.values()), sum(got.values()), len(bare)))
for r in load:
    print("  load:", R.short(r), "request bytes", r.get("req.request_bytes"))
for r in bare[:5]:
    print("  no method:", R.short(r))
assert not bare, "%d mysql records without a method" % len(bare)
R.assert_counts(("statement", got, want))
assert len(load) == 1, load
# the statement, the file (a 4-byte header a packet of at most 16 MiB) and
# its empty packet; the request for the file, the progress and the OK
size = os.path.getsize(csv)
assert int(load[0]["req.request_bytes"]) >= size + 8 + len(load[0]["req.path"]), load[0]
assert int(load[0]["req.response_bytes"]) > 4 + 1 + len(csv) + 11, load[0]
assert not R.yes(load[0].get("req.error")), load[0]
print("ok")
PY

req_check pgsql_pipeline "PostgreSQL pipelines and batches: server-side PARSE and BIND records answered == the log's execute lines, by SQL text (a Bind of a prepared statement with its Parse's), QUERY records == its statement lines, errors == its ERRORs; the statements the server skipped after the error are records with no response" \
	"$P/pipe.json" "$P/pipe.log" <<'PY'
import re, sys, req_lib as R
out, log = sys.argv[1:3]
text = open(log).read()
execs = re.findall(r"LOG:  \w+: execute (\S+): (.*)", text)
stmts = R.counts(m.split()[0].upper() for m in re.findall(r"LOG:  \w+: statement: (.*)", text))
errors = R.counts(re.findall(r"ERROR:  (\w{5}): ", text))
server = [r for r in R.records(out) if r.get("req.side") == "server" and r.get("req.protocol") == "pgsql"]
runs = [r for r in server if r.get("req.method") in ("PARSE", "BIND")]
answered = [r for r in runs if int(r.get("req.response_bytes") or 0) > 0]
unanswered = [r for r in runs if r not in answered]
queries = [r for r in server if r.get("req.method") == "QUERY"]
unnamed = R.counts(t for n, t in execs if n == "<unnamed>")
print("log: %d executes (%d unnamed), statements %s, errors %s" % (len(execs), sum(unnamed.values()), stmts, errors))
print("agent: %d PARSE and BIND records, %d answered; unanswered %s; QUERY %d"
      % (len(runs), len(answered), [r.get("req.path") for r in unanswered], len(queries)))
first = lambda r: (r.get("req.path") or "").split()[0].upper()
R.assert_counts(("executed statements", {"all": len(answered)}, {"all": len(execs)}),
                ("statement text", R.counts(r.get("req.path") or "" for r in answered),
                 R.counts(t for n, t in execs)),
                ("skipped statement", R.counts(r.get("req.path") or "" for r in unanswered),
                 {"SELECT 3": 1, "SELECT 4": 1}),
                ("simple query", R.counts(first(r) for r in queries), stmts),
                ("SQLSTATE", R.counts(r.get("req.code") for r in server if R.yes(r.get("req.error"))), errors))
assert len(execs) >= 361, "pgbench's 160 and psycopg's 201"
# executemany's rows, answered in writes the snaplen would cut: each its own
# BindComplete and CommandComplete (the last with the ReadyForQuery too)
binds = [int(r.get("req.response_bytes") or 0) for r in runs if r.get("req.method") == "BIND"]
print("BIND records' response bytes: %s" % R.counts(binds))
assert len(binds) >= 199 and all(0 < b <= 64 for b in binds), "a BIND record took others' answers"
print("ok")
PY

req_check pgsql_sides "each message pgbench and psql sent has its server-side record, never slower (both runs)" \
	"$REQ_OUT" "$P/setup.json" <<'PY'
import sys, req_lib as R
for out in sys.argv[1:3]:
    R.check_sides(out, "pgsql", ("pgbench", "psql"), ("postgres",))
print("ok")
PY
echo "    $((SECONDS - t0)) s"
finish
