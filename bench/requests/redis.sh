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

RB_TMP=$(mktemp -d /tmp/reqbench-redis.XXXXXX) RB_SERVER=redis-server RB_MPORT=$mport
tmp=$RB_TMP
redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --dir "$tmp" \
	--daemonize no --logfile "$tmp/redis.log" &
RB_SRV_PIDS=$!
trap 'kill $RB_SRV_PIDS 2>/dev/null; wait $RB_SRV_PIDS 2>/dev/null; rm -rf "$tmp"' EXIT
for i in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done

# load: one redis-benchmark run with -P $p; its rate is all requests over the
# two tests' time.
load() {
	local set_r get_r
	RB_COUNT=$((2 * n * (p > 1 ? mult : 1)))
	rb_timed redis-benchmark -h 127.0.0.1 -p "$port" -t set,get -n $((RB_COUNT / 2)) \
		-c "$conns" -P "$p" -q
	set_r=$(tr '\r' '\n' <"$tmp/load.out" | awk '/^SET:/ { print $2 }' | tail -1)
	get_r=$(tr '\r' '\n' <"$tmp/load.out" | awk '/^GET:/ { print $2 }' | tail -1)
	RB_RATE=$(awk -v s="$set_r" -v g="$get_r" 'BEGIN { printf "%.0f", 2 / (1 / s + 1 / g) }')
	RB_SAYS=$(printf 'P%-2s SET %7.0f GET %7.0f all %7.0f req/s' "$p" "$set_r" "$get_r" "$RB_RATE")
}

echo "redis-server $(redis-server --version | grep -oE 'v=[0-9.]+'), redis-benchmark -c $conns, N $n (-P 16: $((n * mult))) per test, $rounds rounds; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
	for p in 1 16; do
		RB_BARE=""
		echo "round $r, -P $p"
		rb_row bare "bare-P$p"
		rb_requests_rows "$r" "-P$p" --requests -q --metrics "127.0.0.1:$mport"
		# RB_PROFILE=1 (bench/profile/requests.sh): request mode with profiling
		[ -n "${RB_PROFILE:-}" ] && rb_row profile "profile-P$p" --requests --profile -q \
			--metrics "127.0.0.1:$mport"
		[ -n "${RB_PROFILE:-}" ] && rb_row stacks "stacks-P$p" --requests --profile -q \
			--metrics "127.0.0.1:$mport" --profile-out "$tmp/profile-out"
		[ -z "${RB_NO_PLAIN:-}" ] && rb_row plain "plain-P$p" -q "$RB_SYSCALLS"
	done
done
echo "means (load average now $(cut -d' ' -f1-3 /proc/loadavg)):"
rb_summary
