#!/usr/bin/env bash
# dns.sh: what request analysis costs a DNS server that reads its queries
# with recvmmsg and answers each with a sendmmsg naming the client (BIND 9,
# one network thread, authoritative for one zone on 127.0.0.1), under
# `dnsperf -c CLIENTS` asking N queries (a third of them for names that do
# not exist); rows alternate, ROUNDS times, in one run:
#   bare      no agent
#   requests  agent --requests -q --metrics 127.0.0.1:MPORT
# Per row: the queries answered per second and its share of the round's bare
# row; all CPU (BIND, dnsperf, the agent) per 100k queries and bare's share of
# it; the agent's own CPU and kernel drops; in request mode, the queries its
# metrics counted on BIND's side and the records it paired, against dnsperf's
# count.
#   usage: sudo bench/requests/dns.sh [-n N] [-c CLIENTS] [-r ROUNDS] [AGENT]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
n=200000 clients=20 rounds=3 mport=19378
while getopts n:c:r: o; do
	case $o in n) n=$OPTARG ;; c) clients=$OPTARG ;; r) rounds=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
RB_AGENT=${1:-$here/../../build/userspace/agent/agent}
[ -x "$RB_AGENT" ] || { echo "no agent at $RB_AGENT (build first)" >&2; exit 2; }
rb_install named bind9 && rb_install dnsperf dnsperf ||
	{ echo "named or dnsperf missing and not installable" >&2; exit 2; }

# BIND's network thread is the one that answers: the metrics name it
RB_TMP=$(mktemp -d /tmp/reqbench-dns.XXXXXX) RB_SERVER=isc-net-0000 RB_MPORT=$mport
tmp=$RB_TMP
# below the ephemeral range: dig's readiness query could otherwise be given
# BIND's own port (tests/e2e/server_port.py says why)
port=$(python3 "$here/../../tests/e2e/server_port.py")
bash "$here/../../tests/e2e/dns/bind_conf.sh" "$tmp" "$port"
for i in $(seq 1 300); do echo "h$i.w.b.test A"; echo "h$i.w.b.test MX"; echo "n$i.b.test A"; done \
	>"$tmp/queries"
named -f -c "$tmp/named.conf" -u root -n 1 >"$tmp/named.log" 2>&1 &
RB_SRV_PIDS=$!
trap 'kill $RB_SRV_PIDS 2>/dev/null; wait $RB_SRV_PIDS 2>/dev/null; rm -rf "$tmp"' EXIT
for i in $(seq 100); do
	dig @127.0.0.1 -p "$port" +time=1 +tries=1 h1.w.b.test >/dev/null 2>&1 && break
	sleep 0.1
done

# load: one dnsperf run of N queries; its rate is the queries answered per
# second. Lost queries (dnsperf's 5 s timeout) would show as fewer done.
load() {
	rb_timed dnsperf -s 127.0.0.1 -p "$port" -d "$tmp/queries" -n $((n / 900 + 1)) \
		-c "$clients" -t 5
	RB_COUNT=$(awk '/Queries completed:/ { print $3 }' "$tmp/load.out")
	RB_RATE=$(awk '/Queries per second:/ { printf "%.0f", $4 }' "$tmp/load.out")
	RB_SAYS=$(printf '%7.0f queries/s (%s done, %s lost)' "$RB_RATE" "$RB_COUNT" \
		"$(awk '/Queries lost:/ { print $3 }' "$tmp/load.out")")
}

echo "$(named -v), dnsperf -c $clients, about $n queries per row, $rounds rounds; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
rb_metrics_rounds "$rounds" "$mport"
