#!/usr/bin/env bash
# decode_bench.sh: what decoding the calls that used to arrive as generic events
# costs. Times decode_storm (lseek, fstat, getuid, poll, mmap, munmap in a loop,
# pinned to one CPU) bare, under each agent given capturing everything (-q), and
# under each with those calls filtered out (-q evt.type=openat).
# With CALL, the storm makes that call only (see decode_storm.c).
#   usage: sudo bench/decode/decode_bench.sh STORM 'AGENT_BEFORE' 'AGENT_AFTER' [SECS [CALL]]
storm=$1 before=$2 after=$3 secs=${4:-5} call=${5:-}
row() {	# NAME [AGENT ARGS...]
	local name=$1 pid=""; shift
	if [ $# -gt 0 ]; then "$@" 2>/dev/null & pid=$!; sleep 3; fi
	printf '%-40s %s\n' "$name" "$(taskset -c 1 "$storm" "$secs" $call)"
	if [ -n "$pid" ]; then kill -INT "$pid"; wait "$pid" 2>/dev/null; fi
}
row bare
row "before: all (-q)" $before -q
row "after: all (-q)" $after -q
row "before: filtered out (evt.type=openat)" $before -q evt.type=openat
row "after: filtered out (evt.type=openat)" $after -q evt.type=openat
