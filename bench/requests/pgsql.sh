#!/usr/bin/env bash
# pgsql.sh: what request analysis costs PostgreSQL (a cluster of its own in a
# temporary folder, 127.0.0.1, fsync off) under `pgbench -S` (one SELECT by
# primary key a transaction) with CLIENTS connections, each running N
# transactions by protocol MODE (prepared: a Bind and Execute a statement,
# which the pairing names by its Parse; extended; simple); rows alternate,
# ROUNDS times, in one run:
#   bare      no agent
#   requests  agent --requests -q --metrics 127.0.0.1:MPORT
# Per row: transactions per second and its share of the round's bare row;
# all CPU (the postmaster and the backends, which exit with their clients and
# are waited for; pgbench; the agent) per 100k transactions and bare's share
# of it; the agent's own CPU and kernel drops; in request mode, the requests
# its metrics counted at `postgres` (each connection's setup exchanges and a
# prepared statement's Parse besides the statements) and the records it
# paired, against pgbench's count.
#   usage: sudo bench/requests/pgsql.sh [-n N] [-c CLIENTS] [-M MODE] [-r ROUNDS] [AGENT]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
n=40000 clients=2 mode=prepared rounds=3 mport=19378
while getopts n:c:M:r: o; do
	case $o in n) n=$OPTARG ;; c) clients=$OPTARG ;; M) mode=$OPTARG ;; r) rounds=$OPTARG ;;
	*) exit 2 ;; esac
done
shift $((OPTIND - 1))
RB_AGENT=${1:-$here/../../build/userspace/agent/agent}
[ -x "$RB_AGENT" ] || { echo "no agent at $RB_AGENT (build first)" >&2; exit 2; }
rb_install pgbench postgresql postgresql-contrib ||
	{ echo "PostgreSQL missing and not installable" >&2; exit 2; }
bin=$(ls -d /usr/lib/postgresql/*/bin | tail -n 1)

RB_TMP=$(mktemp -d /tmp/reqbench-pg.XXXXXX) RB_SERVER=postgres RB_MPORT=$mport RB_SRV_CHILDREN=1
tmp=$RB_TMP
chown postgres "$tmp"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
runuser -u postgres -- "$bin/initdb" -D "$tmp/data" -A trust -U postgres --no-sync >"$tmp/initdb.log" 2>&1 ||
	{ cat "$tmp/initdb.log"; exit 2; }
runuser -u postgres -- "$bin/postgres" -D "$tmp/data" -p "$port" -k "$tmp" \
	-c listen_addresses=127.0.0.1 -c fsync=off >"$tmp/postgres.log" 2>&1 &
trap 'kill $(head -n 1 "$tmp/data/postmaster.pid" 2>/dev/null) 2>/dev/null; sleep 1; rm -rf "$tmp"' EXIT
for i in $(seq 100); do
	pg_isready -q -h 127.0.0.1 -p "$port" && break
	sleep 0.1
done
pgbench -h 127.0.0.1 -p "$port" -U postgres -i -s 4 -q postgres >"$tmp/init.out" 2>&1 ||
	{ cat "$tmp/init.out"; exit 2; }
RB_SRV_PIDS=$(head -n 1 "$tmp/data/postmaster.pid")
# the postmaster's helpers (checkpointer, walwriter, ...), which stay
children() { pgrep -c -P "$RB_SRV_PIDS"; }
helpers=$(children)

# load: N transactions on each of CLIENTS connections; then the backends'
# exit, so their CPU is in the postmaster's children's
load() {
	rb_timed pgbench -h 127.0.0.1 -p "$port" -U postgres -n -S -M "$mode" -c "$clients" \
		-j "$clients" -t "$n" postgres
	for i in $(seq 100); do
		[ "$(children)" = "$helpers" ] && break
		sleep 0.1
	done
	RB_COUNT=$(awk -F'[:/ ]+' '/actually processed/ { print $(NF - 1) }' "$tmp/load.out")
	RB_RATE=$(awk '/^tps = / { printf "%.0f", $3 }' "$tmp/load.out")
	RB_SAYS=$(printf '%7.0f transactions/s (%s done)' "$RB_RATE" "$RB_COUNT")
}

echo "$("$bin/postgres" --version), pgbench -S -M $mode -c $clients, $n transactions per client per row, $rounds rounds; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
rb_metrics_rounds "$rounds" "$mport"
