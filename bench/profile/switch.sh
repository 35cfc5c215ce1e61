#!/usr/bin/env bash
# switch.sh: what profiling costs a context-switch storm (issue 32's goals:
# the storm keeps at least 0.8 of its bare rate under --requests --profile,
# and profiling adds at most 5% to request mode's cost). Two storms, each
# row alternated ROUNDS times in one run:
#   pipe  `perf bench sched pipe`: two processes bouncing over pipes (no
#         socket I/O: in request mode their threads are not followed, so
#         profiling costs them a hash lookup per switch and wakeup);
#   tcp   tcp_pingpong: two threads bouncing a byte over loopback TCP (socket
#         I/O: request mode captures it and, with --profile, follows them).
# Rows: bare; requests (agent --requests -q); profile (agent --requests
# --profile -q); host (agent --profile -q: every thread followed).
# Prints each row's rate and share of its round's bare row, then the means
# and the median shares.
#   usage: sudo bench/profile/switch.sh [-s SECS] [-r ROUNDS] [AGENT]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
secs=5 rounds=3
while getopts s:r: o; do case $o in s) secs=$OPTARG ;; r) rounds=$OPTARG ;; *) exit 2 ;; esac; done
shift $((OPTIND - 1))
agent=${1:-$here/../../build/userspace/agent/agent}
command -v perf >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q linux-perf >/dev/null
tmp=$(mktemp -d /tmp/bench-switch.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -pthread "$here/tcp_pingpong.c" -o "$tmp/tcp_pingpong" || exit 1
loops=$((secs * 60000))

storm() {	# storm pipe|tcp: its rate (round trips/s)
	case $1 in
	pipe) perf bench sched pipe -l "$loops" 2>/dev/null | awk '/ops\/sec/ { print $1 }' ;;
	tcp) "$tmp/tcp_pingpong" "$secs" 1 | awk '{ print $3 }' ;;
	esac
}

row() {	# row STORM NAME [AGENT ARGS...]
	local st=$1 name=$2 pid="" rate drops=""; shift 2
	if [ $# -gt 0 ]; then
		: >"$tmp/err"	# (not the child's redirection: the wait may read the last row's)
		"$agent" -v "$@" >/dev/null 2>"$tmp/err" &
		pid=$!
		for _ in $(seq 600); do grep -q capturing "$tmp/err" && break; sleep 0.1; done
	fi
	rate=$(storm "$st")
	if [ -n "$pid" ]; then
		kill -INT "$pid"; wait "$pid" 2>/dev/null
		drops=$(grep -m1 -oE '[0-9]+ dropped,' "$tmp/err")
	fi
	[ "$name" = bare ] && bare=$rate
	share=$(awk -v r="$rate" -v b="$bare" 'BEGIN { printf "%.3f", r / b }')
	printf '%-4s %-9s %10.0f round trips/s  %s of bare  %s\n' "$st" "$name" "$rate" "$share" "$drops"
	echo "$st $name $rate $share" >>"$tmp/rows"
}

echo "switch storms: ${secs}s per row, $rounds rounds; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
	echo "round $r"
	for st in pipe tcp; do
		row "$st" bare
		row "$st" requests --requests -q
		row "$st" profile --requests --profile -q
		row "$st" host --profile -q
	done
done
# The median share beside the mean: on a VM a round can run far off the rest
# (a row at 1.3 of bare, or 0.5, when the host's load moved mid-round).
echo "means (median share of the rounds):"
python3 - "$tmp/rows" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    st, name, rate, share = line.split()
    rows.setdefault(st + " " + name, []).append((float(rate), float(share)))
for k, v in rows.items():
    print("  %-14s %10.0f round trips/s, %.3f of bare (median %.3f)" % (
        k, statistics.mean(r for r, _ in v), statistics.mean(s for _, s in v),
        statistics.median(s for _, s in v)))
PY
