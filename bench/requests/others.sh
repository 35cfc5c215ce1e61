#!/usr/bin/env bash
# others.sh: what request mode costs a host's syscalls that are not socket
# I/O (issue 33). In exit-only capture of a set of syscalls the dispatcher is
# on each wanted syscall's own exit tracepoint (driver/README.md, "Each
# syscall's own tracepoint"), so the others run no program; on the raw
# sys_exit tracepoint every syscall runs it. Two threads (RB_THREADS) make
# getppid, fstat, futex-wake and sched_yield calls for SECS, bare, under
# `agent --requests -q` (its dispatcher on the syscalls' own tracepoints),
# under the same with AGENT_NO_SYSCALL_TPS=1 (the raw one), and with
# RB_BEFORE=PATH under that agent too, alternated ROUNDS times; per row the
# storm's own CPU (user+sys) per call, where the BPF programs' time is
# charged, and its share of bare.
#   usage: sudo bench/requests/others.sh [AGENT [SECS [ROUNDS]]]
set -u
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
rb_storm_init others "$@"

# row NAME [AGENT [RAW]]: one storm, under AGENT's request mode if given, its
# dispatcher on the raw tracepoint if RAW is set.
row() {
	local name=$1 agent=${2:-} n tps=
	if [ -n "$agent" ]; then
		[ -n "${3:-}" ] && export AGENT_NO_SYSCALL_TPS=1
		RB_USE_AGENT=$agent rb_agent_start "$RB_TMP/agent.err" --requests -q || exit 1
		unset AGENT_NO_SYSCALL_TPS
	fi
	rb_timed "$RB_TMP/storm" others "$secs" "$threads"
	n=$(cat "$RB_TMP/load.out")
	if [ -n "$agent" ]; then
		rb_agent_stop
		tps=$(grep -oE 'own exit tracepoints of [0-9]+ syscalls|raw sys_exit tracepoint' \
			"$RB_TMP/agent.err" | head -1)
		tps="; dispatcher on the ${tps:-(not said)}"
	fi
	rb_storm_row "$name" "$n" call "$tps"
}
for r in $(seq "$rounds"); do
	echo "round $r"
	row bare
	row requests "$RB_AGENT"
	row raw "$RB_AGENT" raw
	[ -n "${RB_BEFORE:-}" ] && row before "$RB_BEFORE"
done
echo "load average now $(cut -d' ' -f1-3 /proc/loadavg)"
