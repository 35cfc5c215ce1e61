#!/usr/bin/env bash
# sidebyside_rw.sh: what request mode costs a host busy with file I/O, against a
# filter that wants one file syscall. ../../../shared/bench/side_by_side.sh runs
# its read/write storm (-m rw: 64-byte writes and reads on a pipe, not a
# socket) bare, under the peer (when present), under `agent --requests -q` and
# under `agent -q evt.type=openat`, in one run; each row's share of bare is the
# figure. Request mode keeps only socket I/O (the kernel tests "this fd is a
# socket" first), so its row should be at or above the openat row.
# Throughput here moves with whatever else the machine runs; so it then runs the
# same storm (2 threads, SECS) bare and under the two agents ROUNDS times,
# alternated, and prints the storm's own CPU (user+sys) per syscall, where the
# BPF programs' time is charged, and its share of bare.
# With RB_BEFORE=PATH (another agent binary, or a wrapper that sets its
# environment), a row more each round: request mode under that agent.
#   usage: sudo bench/requests/sidebyside_rw.sh [AGENT [SECS [ROUNDS]]]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
# An absolute path: side_by_side.sh runs each row's command through bash -c.
RB_AGENT=$(realpath "${1:-$here/../../build/userspace/agent/agent}")
secs=${2:-5} rounds=${3:-3}
sbs=$here/../../../shared/bench/side_by_side.sh
[ -x "$RB_AGENT" ] && [ -r "$sbs" ] || { echo "need a built agent ($RB_AGENT) and $sbs" >&2; exit 2; }
echo "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
bash "$sbs" -s "$secs" -m rw "$RB_AGENT --requests -q" "$RB_AGENT -q evt.type=openat"

RB_TMP=$(mktemp -d /tmp/reqbench-rw.XXXXXX)
trap 'rm -rf "$RB_TMP"' EXIT
gcc -O2 -pthread "$(dirname "$sbs")/storm.c" -o "$RB_TMP/storm" || exit 1
# cpu_row NAME [AGENT_ARGS...]
cpu_row() {
	local name=$1 ns; shift
	[ $# -gt 0 ] && { rb_agent_start "$RB_TMP/agent.err" "$@" || exit 1; }
	rb_timed "$RB_TMP/storm" "$secs" 2 rw
	[ $# -gt 0 ] && rb_agent_stop
	ns=$(awk -v s="$RB_TOOL_S" '{ printf "%.0f", s / $1 * 1e9 }' "$RB_TMP/load.out")
	[ "$name" = bare ] && bare=$ns
	printf '  %-28s %5s ns CPU per syscall, %s of bare\n' "$name" "$ns" "$(rb_share "$bare" "$ns")"
}
echo "storm CPU per syscall, $rounds rounds:"
for r in $(seq "$rounds"); do
	cpu_row bare
	cpu_row "agent --requests -q" --requests -q
	cpu_row "agent -q evt.type=openat" -q evt.type=openat
	[ -n "${RB_BEFORE:-}" ] && RB_USE_AGENT=$RB_BEFORE cpu_row "RB_BEFORE --requests -q" --requests -q
done
echo "load average now $(cut -d' ' -f1-3 /proc/loadavg)"
