#!/usr/bin/env bash
# Request mode against MariaDB and PostgreSQL (issue 23), each in a temporary
# data folder, run as its own user. MariaDB: the mariadb client runs a script
# of known statements, three of them failing (no such table, a syntax error, a
# duplicate key); ground truth is the growth of SHOW GLOBAL STATUS' Com_*
# counters and the client's ERROR lines. PostgreSQL: pgbench (simple protocol)
# and a failing psql query; ground truth is log_statement=all and the ERROR
# lines with their SQLSTATE.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_servers.sh"
need_live
need_pkgs mariadb-server mariadb-client postgresql postgresql-contrib
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
	--innodb-buffer-pool-size=16M --log-error="$M/error.log"
MARIA_PID=$SRV_PID
expect "initdb made a cluster" quiet runuser "$P/initdb.log" -u postgres -- "$PGBIN/initdb" -D "$P/data" \
	-A trust -U postgres --no-sync
srv_start postgres runuser -u postgres -- "$PGBIN/postgres" -D "$P/data" -p "$PPORT" -k "$P" \
	-c listen_addresses=127.0.0.1 -c log_statement=all -c log_error_verbosity=verbose -c fsync=off
PG_PID=$SRV_PID
expect "mariadbd listens on 127.0.0.1:$MPORT" wait_port "$MPORT" 30 || tail -n 5 "$M/error.log"
expect "postgres listens on 127.0.0.1:$PPORT" wait_port "$PPORT" 30 || tail -n 5 "$SRV/postgres.log"
my() { timeout 30 mariadb --no-defaults -h 127.0.0.1 -P "$MPORT" -u root "$@"; }
pgb() { timeout 30 pgbench -h 127.0.0.1 -p "$PPORT" -U postgres "$@" postgres; }
expect "pgbench -i -s 1" quiet pgbench "$P/init.out" -h 127.0.0.1 -p "$PPORT" -U postgres -i -s 1 -q postgres
my -N -e "SHOW GLOBAL STATUS LIKE 'Com\\_%'" >"$M/before"
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
req_agent_stop; rc=$?
expect "the agent exits 0" [ $rc = 0 ] || tail -n 5 "$REQ_ERR"
my -N -e "SHOW GLOBAL STATUS LIKE 'Com\\_%'" >"$M/after"
tail -n +"$plog_from" "$SRV/postgres.log" >"$P/window.log"
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
print("agent: %d records (%d server-side mysql, %d QUERY), %d aborted or timed out, kernel drops %s"
      % (len(recs), len(server), len(queries), len(R.ABORTED), R.kernel_drops(err)))
print("MariaDB: Com_* grew by %s; client errors %s" % (com, errors))
print("other server-side mysql records: %s" % R.counts(r.get("req.method") for r in server if r not in queries))
KIND = {("SELECT",): "select", ("INSERT",): "insert", ("UPDATE",): "update", ("DELETE",): "delete",
        ("CREATE", "DATABASE"): "create_db", ("CREATE", "TABLE"): "create_table",
        ("DROP", "DATABASE"): "drop_db"}
def kind(r):
    w = tuple((r.get("req.path") or "").upper().split()[:2])
    return KIND.get(w[:1]) or KIND.get(w) or " ".join(w)
# a statement the parser refused (1064) is counted by no Com_* counter
R.assert_counts(("statements of kind", R.counts(kind(r) for r in queries if r.get("req.status") != 1064), com),
                ("error", R.counts(r.get("req.status") for r in queries if R.yes(r.get("req.error"))), errors))
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

req_check mysql_sides "each statement the mariadb client sent has its server-side record, never slower" \
	"$REQ_OUT" <<'PY'
import sys, req_lib as R
R.check_sides(sys.argv[1], "mysql", ("mariadb",), ("mariadbd",))
print("ok")
PY
req_check pgsql_sides "each message pgbench and psql sent has its server-side record, never slower" \
	"$REQ_OUT" <<'PY'
import sys, req_lib as R
R.check_sides(sys.argv[1], "pgsql", ("pgbench", "psql"), ("postgres",))
print("ok")
PY
echo "    $((SECONDS - t0)) s"
finish
