#!/usr/bin/env bash
# progs.sh: where the connect storm's kernel time under the agent goes,
# program by program. storm.c's server and client (2 threads each) on
# 127.0.0.1:PORT for SECS seconds under the agent with the given arguments,
# kernel.bpf_stats_enabled on: each of the agent's programs that ran, its runs
# per connection, its mean ns a run and its ns per connection, and their sum.
# bpf_stats adds two clock reads to every run, so the figures are dearer than
# the programs are without it; compare rows of one run. The time the kernel
# spends getting to a program (the tracepoint) is not in its count.
# With RB_BEFORE=PATH (another agent binary), rounds alternate the two agents.
#   usage: sudo bench/tcp/progs.sh [-s SECS] [-r ROUNDS] [-p PORT] [AGENT ARGS...]
#   e.g.   sudo bench/tcp/progs.sh --requests -q --metrics 127.0.0.1:19379
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
secs=4 rounds=1 port=18094
while getopts s:r:p: o; do
	case $o in s) secs=$OPTARG ;; r) rounds=$OPTARG ;; p) port=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- --requests -q --metrics 127.0.0.1:19379
agent=${AGENT:-$here/../../build/userspace/agent/agent}
[ -x "$agent" ] || { echo "no agent at $agent (build first)" >&2; exit 2; }
command -v bpftool >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q bpftool >/dev/null
tmp=$(mktemp -d /tmp/bench-tcp-progs.XXXXXX)
old=$(cat /proc/sys/kernel/bpf_stats_enabled)
gcc -O2 -pthread "$here/storm.c" -o "$tmp/storm" || exit 1
"$tmp/storm" server "$port" 2 &
srv=$!
trap 'kill $srv 2>/dev/null; echo "$old" >/proc/sys/kernel/bpf_stats_enabled; rm -rf "$tmp"' EXIT
sleep 0.3
# each program's id, name, run_time_ns and run_cnt now (rb_progs)
. "$here/../requests/lib.sh"
echo 1 >/proc/sys/kernel/bpf_stats_enabled

# one storm under agent $1 (the rest: its arguments)
row() {
	local a=$1
	shift
	RB_USE_AGENT=$a rb_agent_start "$tmp/err" "$@" || exit 1
	rb_progs >"$tmp/before"
	"$tmp/storm" client "$port" "$secs" 2 >"$tmp/load.out"
	rb_progs >"$tmp/after"
	rb_agent_stop
	echo "agent $a: $(cat "$tmp/load.out"); $(rb_dropped "$tmp/err") dropped"
	python3 "$here/../requests/progs_table.py" "$tmp/before" "$tmp/after" \
		"$(awk '{ print $1 }' "$tmp/load.out")" conn
}

for i in $(seq "$rounds"); do
	echo "round $i"
	[ -n "${RB_BEFORE:-}" ] && row "$RB_BEFORE" "$@"
	row "$agent" "$@"
done
