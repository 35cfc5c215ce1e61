#!/usr/bin/env bash
# progs.sh: where a storm's cost under the agent goes, program by program.
# With kernel.bpf_stats_enabled the kernel counts each BPF program's runs and
# the time spent in it; this runs one storm (switch.sh's pipe or tcp) under
# the agent with the given arguments and prints, for each of the agent's
# programs that ran, its runs per round trip and its mean ns a run, and their
# sum per round trip beside the bare round trip's length. The time the kernel
# spends getting to a program (the tracepoint, the trampoline) is not in its
# count: the storm's own rate says the whole.
#   usage: sudo bench/profile/progs.sh [-s SECS] [pipe|tcp] [AGENT ARGS...]
#   e.g.   sudo bench/profile/progs.sh pipe --requests --profile -q
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
secs=5
while getopts s: o; do case $o in s) secs=$OPTARG ;; *) exit 2 ;; esac; done
shift $((OPTIND - 1))
storm=${1:-pipe}
shift
[ $# -gt 0 ] || set -- --requests --profile -q
agent=${AGENT:-$here/../../build/userspace/agent/agent}
command -v perf >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q linux-perf >/dev/null
command -v bpftool >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q bpftool >/dev/null
tmp=$(mktemp -d /tmp/bench-progs.XXXXXX)
old=$(cat /proc/sys/kernel/bpf_stats_enabled)
trap 'echo "$old" >/proc/sys/kernel/bpf_stats_enabled; rm -rf "$tmp"' EXIT
gcc -O2 -pthread "$here/tcp_pingpong.c" -o "$tmp/tcp_pingpong" || exit 1
loops=$((secs * 60000))

run() {	# the storm's rate (round trips/s) and, in $tmp/trips, its round trips
	case $storm in
	pipe) perf bench sched pipe -l "$loops" 2>/dev/null | awk '/ops\/sec/ { print $1 }'
	      echo "$loops" >"$tmp/trips" ;;
	tcp) "$tmp/tcp_pingpong" "$secs" 1 | awk -v s="$secs" '{ print $3; print int($3 * s) >"/dev/stderr" }' 2>"$tmp/trips" ;;
	*) echo "storm: pipe or tcp" >&2; exit 2 ;;
	esac
}

# each program's id, name, run_time_ns and run_cnt now (rb_progs)
. "$here/../requests/lib.sh"

bare=$(run)
echo 1 >/proc/sys/kernel/bpf_stats_enabled
: >"$tmp/err"	# (not the child's redirection: the wait may read an old one)
"$agent" -v "$@" >/dev/null 2>"$tmp/err" &
pid=$!
for _ in $(seq 600); do grep -q capturing "$tmp/err" && break; sleep 0.1; done
rb_progs >"$tmp/before"
rate=$(run)
rb_progs >"$tmp/after"
kill -INT "$pid"; wait "$pid" 2>/dev/null
echo "$storm storm, ${secs}s: bare $bare round trips/s, under 'agent $*' $rate ($(awk -v r="$rate" -v b="$bare" 'BEGIN { printf "%.3f", r / b }') of bare)"
python3 "$here/../requests/progs_table.py" "$tmp/before" "$tmp/after" "$(cat "$tmp/trips")" trip \
	"$(awk -v b="$bare" 'BEGIN { printf "   (a bare round trip: %.0f ns)", 1e9 / b }')"
