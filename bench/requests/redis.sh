#!/usr/bin/env bash
# redis.sh: what request analysis costs Redis. redis-server on 127.0.0.1 (no
# persistence) takes `redis-benchmark -t set,get -n N -c CONNS`, one request per
# round trip (-P 1) and pipelined (-P 16, with N times MULT requests so a row
# lasts about as long); for each, rows alternate, ROUNDS times, in one run:
#   bare      no agent
#   requests  agent --requests -q --metrics 127.0.0.1:MPORT
#   plain     agent -q 'evt.type in (read, write, ... sendfile)': plain capture
#             of the same socket syscalls, parsed and filtered but not paired
# Per row: SET and GET requests/s, their combined rate (all requests over the
# two tests' time) and its share of the round's bare row; the agent's CPU
# (user+sys, /proc/PID/stat over the benchmark only) per 100k requests; its
# kernel drops; in request mode, the commands its metrics counted on Redis's
# side and the records it paired, against the benchmark's count (2 N, plus the
# few CONFIG commands redis-benchmark sends first).
#   usage: sudo bench/requests/redis.sh [-n N] [-m MULT] [-c CONNS] [-r ROUNDS]
#          [-p PORT] [AGENT]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
n=100000 mult=16 conns=50 rounds=3 port=16379 mport=19377
while getopts n:m:c:r:p: o; do
	case $o in n) n=$OPTARG ;; m) mult=$OPTARG ;; c) conns=$OPTARG ;; r) rounds=$OPTARG ;;
	p) port=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
RB_AGENT=${1:-$here/../../build/userspace/agent/agent}
[ -x "$RB_AGENT" ] || { echo "no agent at $RB_AGENT (build first)" >&2; exit 2; }
rb_install redis-server redis-server && rb_install redis-benchmark redis-tools ||
	{ echo "redis-server or redis-benchmark missing and not installable" >&2; exit 2; }

tmp=$(mktemp -d /tmp/reqbench-redis.XXXXXX)
redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --dir "$tmp" \
	--daemonize no --logfile "$tmp/redis.log" &
rpid=$!
trap 'kill $rpid 2>/dev/null; wait $rpid 2>/dev/null; rm -rf "$tmp"' EXIT
for i in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done

# load P: sets total (requests sent), set_r, get_r, rate (total over both tests' time).
load() {
	local p=$1 out
	total=$((2 * n * (p > 1 ? mult : 1)))
	out=$(redis-benchmark -h 127.0.0.1 -p "$port" -t set,get -n $((total / 2)) -c "$conns" \
		-P "$p" -q 2>/dev/null | tr '\r' '\n')
	set_r=$(echo "$out" | awk '/^SET:/ { print $2 }' | tail -1)
	get_r=$(echo "$out" | awk '/^GET:/ { print $2 }' | tail -1)
	rate=$(awk -v s="$set_r" -v g="$get_r" 'BEGIN { printf "%.0f", 2 / (1 / s + 1 / g) }')
}

# row NAME P [AGENT_ARGS...]
row() {
	local name=$1 p=$2 t0; shift 2
	RB_EXTRA=""
	if [ $# -gt 0 ]; then rb_agent_start "$tmp/agent.err" "$@" || exit 1; t0=$(rb_ticks $RB_PID); fi
	load "$p"
	[ -z "$bare" ] && bare=$rate
	[ $# -gt 0 ] && rb_agent_done "$name" "$t0" "$total" redis-server "$mport"
	printf '%-9s P%-2s SET %9.0f GET %9.0f all %9.0f req/s  %s of bare  %s\n' "$name" "$p" \
		"$set_r" "$get_r" "$rate" "$(rb_share "$rate" "$bare")" "$RB_EXTRA"
	echo "$name-P$p $rate $(rb_share "$rate" "$bare")" >>"$tmp/rows"
}

echo "redis-server $(redis-server --version | grep -oE 'v=[0-9.]+'), redis-benchmark -c $conns, N $n (-P 16: $((n * mult))) per test, $rounds rounds; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
	for p in 1 16; do
		bare=""
		echo "round $r, -P $p"
		row bare "$p"
		row requests "$p" --requests -q --metrics "127.0.0.1:$mport"
		row plain "$p" -q "$RB_SYSCALLS"
	done
done
echo "means (load average now $(cut -d' ' -f1-3 /proc/loadavg)):"
rb_summary "$tmp/rows"
