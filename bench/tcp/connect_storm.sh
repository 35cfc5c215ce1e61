#!/usr/bin/env bash
# connect_storm.sh: what TCP health costs a connect storm (issue 35's goal:
# the storm keeps at least 0.9 of its bare rate under --requests with TCP
# health on). storm.c's server on 127.0.0.1:PORT (THREADS threads: accept,
# read the request, write a 16-byte reply, close) and its client (THREADS
# threads, each a short connection after another: connect, a 16-byte request,
# the reply, close) for SECS seconds a row; rows alternate, ROUNDS times, in
# one run:
#   bare      no agent
#   requests  agent --requests -q --metrics 127.0.0.1:MPORT (TCP health on)
#   notcp     the same with --no-tcp
#   tcp       agent --tcp -q (TCP health alone)
# Per row (bench/requests/lib.sh's rows): connections/s and its share of the
# round's bare row; the CPU of server, client and agent per 100k connections
# and bare's over it; the agent's kernel drops. Counts: requests and notcp
# scrape agent_tcp_connect_total (the storm's edge) and agent_tcp_accept_total
# (all) against the connections the client made (notcp's are 0); tcp takes
# the records its exit summary matched, two per connection (the client's
# end and the server's) plus what else on the host ended meanwhile. Last,
# TCP health's part of request mode: requests over notcp.
# With RB_BEFORE=PATH (another agent binary), before rows: the requests row
# and the tcp row with that agent (before, tcpbefore), each before or after
# its own row in alternate rounds.
# With RB_BPF_STATS=1, each agent row also says the ns per connection spent
# in the agent's BPF programs (kernel.bpf_stats_enabled, on for the run).
#   usage: sudo bench/tcp/connect_storm.sh [-s SECS] [-r ROUNDS] [-t THREADS]
#          [-p PORT] [AGENT]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../requests/lib.sh"
secs=5 rounds=3 threads=2 port=18080 mport=19378
while getopts s:r:t:p: o; do
	case $o in s) secs=$OPTARG ;; r) rounds=$OPTARG ;; t) threads=$OPTARG ;;
	p) port=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
RB_AGENT=${1:-$here/../../build/userspace/agent/agent}
[ -x "$RB_AGENT" ] || { echo "no agent at $RB_AGENT (build first)" >&2; exit 2; }

RB_TMP=$(mktemp -d /tmp/tcpbench-storm.XXXXXX) RB_SERVER=storm-server RB_MPORT=$mport
tmp=$RB_TMP
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -pthread "$here/storm.c" -o "$tmp/storm" || exit 1
# RB_BPF_STATS=1: kernel.bpf_stats_enabled on for the run, so that each agent
# row says the ns per connection the kernel counted in the agent's programs
if [ -n "${RB_BPF_STATS:-}" ]; then
	old=$(cat /proc/sys/kernel/bpf_stats_enabled)
	echo 1 >/proc/sys/kernel/bpf_stats_enabled
fi
"$tmp/storm" server "$port" "$threads" &
RB_SRV_PIDS=$!
trap 'kill $RB_SRV_PIDS 2>/dev/null; wait $RB_SRV_PIDS 2>/dev/null; rm -rf "$tmp"
	[ -n "${old:-}" ] && echo "$old" >/proc/sys/kernel/bpf_stats_enabled' EXIT
sleep 0.3

# load: the client for SECS seconds; RB_COUNT its connections, failed ones too
# (the agent sees those as well).
load() {
	rb_timed "$tmp/storm" client "$port" "$secs" "$threads"
	RB_COUNT=$(awk '{ print $1 + $5 }' "$tmp/load.out")
	RB_RATE=$(awk '{ print $3 }' "$tmp/load.out")
	RB_SAYS=$(printf '%7.0f conns/s (%s failed)' "$RB_RATE" "$(awk '{ print $5 }' "$tmp/load.out")")
}

# rb_counted NAME before|after (lib.sh's hook): the row's TCP counts against
# the client's. The metrics text is rendered about once a second, and the
# requests row's own wait (1.5 s) came before this.
rb_counted() {
	local c a
	case $1:$2 in
	requests:before | notcp:before)
		[ "$1" = notcp ] && sleep 1.5
		c=$(rb_metric "127.0.0.1:$mport" agent_tcp_connect_total "dst_port=\"$port\"")
		# the accepting end's series names neither the server nor its port
		a=$(rb_metric "127.0.0.1:$mport" agent_tcp_accept_total)
		RB_TCP_SAYS="; TCP health counted $c connects ($((c - RB_COUNT))), $a accepts ($((a - RB_COUNT)))"
		[ "$1" = notcp ] && RB_TCP_SAYS="; TCP health counted $c connects, $a accepts" ;;
	requests:after | notcp:after) echo "$RB_TCP_SAYS" ;;
	tcp:after | tcpbefore:after)
		a=$(grep -m1 -oE '[0-9]+ matched' "$RB_ERR" | grep -oE '[0-9]+')
		echo "; $a TCP records ($((a - 2 * RB_COUNT)) vs 2 per connection)" ;;
	esac
}

echo "storm: $threads server and $threads client threads, ${secs} s a row, $rounds rounds; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
	RB_BARE=""
	echo "round $r"
	rb_row bare bare
	rb_requests_rows "$r" "" --requests -q --metrics "127.0.0.1:$mport"
	rb_row notcp notcp --requests -q --metrics "127.0.0.1:$mport" --no-tcp
	rb_pair_rows "$r" tcp tcp tcpbefore tcpbefore --tcp -q
done
echo "means (load average now $(cut -d' ' -f1-3 /proc/loadavg)):"
rb_summary
# TCP health's own part of request mode's cost: requests over notcp, round by round
awk '$1 == "requests" { r = $2; c = $4 } $1 == "notcp" { n++; R += r / $2; C += c / $4 }
	END { if (n) printf "  requests over notcp: %.2f of its rate, %.2f of its CPU share (means of %d rounds)\n", R / n, C / n, n }' "$tmp/rows"
