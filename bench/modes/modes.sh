#!/usr/bin/env bash
# modes.sh: the agent's capture modes and engines side by side with the peer, in
# one run of ../../shared/bench/side_by_side.sh (one getppid storm per row, ratios
# to bare).
#   usage: sudo bench/modes/modes.sh [AGENT [SIDE_BY_SIDE [-s SECS ...]]]
# Rows: capture-all and openat-only, each in exit-only mode (-q's default) and
# with enter and exit programs (--no-exit-only), on each engine (BPF ring
# buffers, the default, and --engine perf); then an agent that prints JSON. The
# peer's rows come first. Batching frames per perf sample is not in the agent
# (bench/README.md says why). Copy the table into the README with the date:
# figures compare only within one run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
agent=${1:-$here/../../build/userspace/agent/agent}
sbs=${2:-$here/../../../shared/bench/side_by_side.sh}
shift $(($# < 2 ? $# : 2))
[ -x "$agent" ] || { echo "no agent at $agent (build first)" >&2; exit 2; }
[ -r "$sbs" ] || { echo "no side_by_side.sh at $sbs" >&2; exit 2; }
# Absolute path: side_by_side runs each command through bash -c.
agent=$(cd "$(dirname "$agent")" && pwd)/$(basename "$agent")
exec bash "$sbs" "$@" \
	"$agent -q" \
	"$agent -q --no-exit-only" \
	"$agent -q --engine perf" \
	"$agent -q --engine perf --no-exit-only" \
	"$agent -q evt.type=openat" \
	"$agent -q --no-exit-only evt.type=openat" \
	"$agent -q --engine perf evt.type=openat" \
	"$agent -j >/dev/null"
