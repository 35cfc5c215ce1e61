#!/usr/bin/env bash
# files.sh: what request mode costs a host busy opening and closing files
# (issue 33). Request mode sends neither the opens nor, in exit-only capture,
# the closes of what they opened (driver/README.md, "Closes of no socket"):
# close_enter finds the fd no socket when the close begins and the close is
# kept (at its exit, or there with close_at_enter).
# Two threads (RB_THREADS) open and close a small file for SECS, bare and under
# `agent --requests -q` (and, with RB_BEFORE=PATH, under that agent too, e.g.
# one built from an earlier commit), alternated ROUNDS times; per row the
# storm's own CPU (user+sys) per open-and-close pair, where the BPF programs'
# time is charged, its share of bare, and the agent's own CPU per pair and the
# closes it says it kept in the kernel.
#   usage: sudo bench/requests/files.sh [AGENT [SECS [ROUNDS]]]
set -u
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
rb_storm_init files "$@"
echo x >"$RB_TMP/file"

# row NAME [AGENT]: one storm, under AGENT's request mode if given.
row() {
	local name=$1 agent=${2:-} kept= t0 t1 n
	if [ -n "$agent" ]; then
		RB_USE_AGENT=$agent rb_agent_start "$RB_TMP/agent.err" --requests -q || exit 1
		t0=$(rb_ticks "$RB_PID")
	fi
	rb_timed "$RB_TMP/storm" files "$secs" "$threads" "$RB_TMP/file"
	n=$(cat "$RB_TMP/load.out")
	if [ -n "$agent" ]; then
		t1=$(rb_ticks "$RB_PID")
		rb_agent_stop
		kept=$(grep -oE '[0-9]+ closes of non-socket fds' "$RB_TMP/agent.err" | grep -oE '^[0-9]+')
		kept=$(awk -v t=$((t1 - t0)) -v hz="$RB_TCK" -v n="$n" -v k="${kept:-none said}" \
			'BEGIN { printf "; agent %.0f ns CPU per pair; closes kept in the kernel: %s", t / hz / n * 1e9, k }')
	fi
	rb_storm_row "$name" "$n" pair "$kept"
}
for r in $(seq "$rounds"); do
	echo "round $r"
	row bare
	[ -n "${RB_BEFORE:-}" ] && [ $((r % 2)) -eq 1 ] && row before "$RB_BEFORE"
	row requests "$RB_AGENT"
	[ -n "${RB_BEFORE:-}" ] && [ $((r % 2)) -eq 0 ] && row before "$RB_BEFORE"
done
echo "load average now $(cut -d' ' -f1-3 /proc/loadavg)"
