# lib.sh: what the scripts here share: starting the agent and waiting until
# it captures, its CPU ticks, stopping it and reading its exit summary, the
# metrics it serves, and the per-row table. Sourced, not run.

RB_TCK=$(getconf CLK_TCK)
RB_SYSCALLS='evt.type in (read, write, readv, writev, sendto, recvfrom, sendmsg, recvmsg, sendfile)'

# rb_install CMD PACKAGE...: install PACKAGE (the first Debian has) when CMD is missing.
rb_install() {
	local cmd=$1 p; shift
	command -v "$cmd" >/dev/null && return 0
	for p in "$@"; do
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$p" >/dev/null 2>&1 && return 0
	done
	command -v "$cmd" >/dev/null
}

# rb_storm_init KIND [AGENT [SECS [ROUNDS]]]: the storm scripts' start (files.sh,
# others.sh): RB_AGENT, secs, rounds, threads (RB_THREADS, default 2), RB_TMP
# (removed at exit) and $RB_TMP/storm, storm.c built; says the machine's load.
rb_storm_init() {
	local here; here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	RB_KIND=$1
	RB_AGENT=$(realpath "${2:-$here/../../build/userspace/agent/agent}")
	secs=${3:-5} rounds=${4:-3} threads=${RB_THREADS:-2}
	[ -x "$RB_AGENT" ] || { echo "no agent at $RB_AGENT (build first)" >&2; exit 2; }
	RB_TMP=$(mktemp -d "/tmp/reqbench-$RB_KIND.XXXXXX")
	trap 'rm -rf "$RB_TMP"' EXIT
	gcc -O2 -pthread "$here/storm.c" -o "$RB_TMP/storm" || exit 1
	echo "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $threads threads, ${secs} s a row"
}

# rb_storm_row NAME N UNIT EXTRA: a storm row: the storm's CPU (RB_TOOL_S) per
# UNIT of the N made, its share of the round's bare row (NAME bare sets it).
rb_storm_row() {
	local ns
	ns=$(awk -v s="$RB_TOOL_S" -v n="$2" 'BEGIN { printf "%.0f", s / n * 1e9 }')
	[ "$1" = bare ] && RB_STORM_BARE=$ns
	printf '  %-10s %10s %ss, %5s ns CPU per %s, %s of bare%s\n' "$1" "$2" "$3" "$ns" \
		"$3" "$(rb_share "$RB_STORM_BARE" "$ns")" "$4"
}

# rb_agent_start ERRFILE ARGS...: start the agent (-v) and wait for its "capturing"
# line, so start-up (mostly the kernel verifying programs) is not in the row.
rb_agent_start() {
	local err=$1 i; shift
	RB_ERR=$err
	[ -n "${RB_BPF_STATS:-}" ] && RB_ID0=$(rb_bpf 0 | cut -d' ' -f3)
	# emptied here, not by the redirection in the child, which may come
	# after the wait below has read the row before's "capturing": that row's
	# load would then start before this agent captures
	: >"$err"
	"${RB_USE_AGENT:-$RB_AGENT}" -v "$@" >/dev/null 2>"$err" &
	RB_PID=$!
	for i in $(seq 600); do
		grep -q capturing "$err" && return 0
		kill -0 "$RB_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "agent $* did not start:" >&2; cat "$err" >&2
	kill -INT "$RB_PID" 2>/dev/null; wait "$RB_PID" 2>/dev/null
	return 1
}

# rb_bpf MINID: the ns the kernel counted in BPF programs of ids over MINID
# (the agent's, loaded after MINID was the last), all and profiling's
# (prof_*), the highest id now, and the runs of profiling's programs.
# Counted with kernel.bpf_stats_enabled (bench/profile/requests.sh turns it
# on with RB_BPF_STATS=1), which adds two clock reads and the count's own
# update to each run: on a VM that is most of a small program's ns (a run
# of a program that does next to nothing is counted at about 250 ns here),
# so the runs are printed too.
rb_bpf() {
	bpftool prog show -j 2>/dev/null | python3 -c '
import json, sys
lo, all_, prof, top, runs = int(sys.argv[1]), 0, 0, 0, 0
for p in json.load(sys.stdin):
    top = max(top, p["id"])
    if p["id"] > lo:
        all_ += p.get("run_time_ns", 0)
        if p.get("name", "").startswith("prof_"):
            prof += p.get("run_time_ns", 0)
            runs += p.get("run_cnt", 0)
print(all_, prof, top, runs)' "$1"
}

# rb_ticks PID...: user+system clock ticks of every thread of the PIDs so far.
rb_ticks() {
	local p
	for p in "$@"; do sed 's/.*) //' "/proc/$p/stat"; done | awk '{ t += $12 + $13 } END { print t }'
}

# rb_srv_ticks: rb_ticks of RB_SRV_PIDS; with RB_SRV_CHILDREN set, their
# exited children's too (a server with a process per connection, which the
# script's load waits to see gone).
rb_srv_ticks() {
	local p
	[ -z "${RB_SRV_CHILDREN:-}" ] && { rb_ticks $RB_SRV_PIDS; return; }
	for p in $RB_SRV_PIDS; do sed 's/.*) //' "/proc/$p/stat"; done |
		awk '{ t += $12 + $13 + $14 + $15 } END { print t }'
}

rb_agent_stop() {
	kill -INT "$RB_PID"; wait "$RB_PID" 2>/dev/null
}

# rb_dropped ERRFILE: the kernel drops from the agent's exit summary.
rb_dropped() {
	grep -m1 -oE '[0-9]+ dropped,' "$1" | grep -oE '^[0-9]+'
}

# rb_paired ERRFILE: the records the pairing completed (metrics only: a request
# seen from both sides on this host is one record, its server side's).
rb_paired() {
	grep -m1 -oE 'requests: [0-9]+ paired' "$1" | grep -oE '[0-9]+'
}

# rb_metric ADDR NAME [LABEL_MATCH]: the sum of NAME's series (those whose labels
# contain LABEL_MATCH) on the agent's /metrics.
rb_metric() {
	curl -s "http://$1/metrics" | awk -v n="$2" -v m="${3:-}" '
		($1 == n || index($1, n "{") == 1) && index($0, m) { s += $NF }
		END { printf "%.0f\n", s }'
}

# rb_timed CMD...: run the load tool CMD, its output in $RB_TMP/load.out, its
# user+sys seconds in RB_TOOL_S.
rb_timed() {
	local TIMEFORMAT='%3U %3S'
	{ time "$@" >"$RB_TMP/load.out" 2>&1; } 2>"$RB_TMP/load.time"
	RB_TOOL_S=$(awk '{ print $1 + $2 }' "$RB_TMP/load.time")
}

# rb_agent_done NAME TICKS: stop the agent after a row's load (TICKS: its CPU
# over the load) and set RB_EXTRA to what the row says of it.
rb_agent_done() {
	local name=$1 t=$2 served paired
	# the metrics text is rendered about once a second
	case $name in requests | before) sleep 1.5
		served=$(rb_metric "127.0.0.1:$RB_MPORT" agent_request_total "process=\"$RB_SERVER\"") ;;
	esac
	# a script's rb_counted NAME before|after: its own counts, before and
	# after the agent stops (printed by the second)
	declare -F rb_counted >/dev/null && rb_counted "$name" before
	rb_agent_stop
	RB_EXTRA=$(printf '; agent %.2f s CPU, %s s per 100k, dropped %s' \
		"$(awk -v t=$t -v hz="$RB_TCK" 'BEGIN { print t / hz }')" \
		"$(rb_cpu_per_100k $t "$RB_COUNT")" "$(rb_dropped "$RB_ERR")")
	declare -F rb_counted >/dev/null && RB_EXTRA="$RB_EXTRA$(rb_counted "$name" after)"
	case $name in requests | before) ;; *) return 0 ;; esac
	paired=$(rb_paired "$RB_ERR")
	RB_EXTRA="$RB_EXTRA; load tool $RB_COUNT done, agent counted $served at $RB_SERVER ($((served - RB_COUNT))), paired $paired records host-wide ($((paired - RB_COUNT)) vs 1 per request)"
}

# rb_row NAME KEY [AGENT_ARGS...]: one row: the agent started with AGENT_ARGS
# (none: bare), the script's `load` run, the row printed; KEY names the row's
# configuration in the summary. `load` runs its tool through rb_timed and sets
# RB_COUNT (requests done), RB_RATE (requests/s) and RB_SAYS (its rates as
# printed); the script sets RB_SRV_PIDS, RB_SERVER (its comm), RB_MPORT, and
# empties RB_BARE before each round's bare row.
rb_row() {
	local name=$1 key=$2 s0 t0 srv agent=0 cost b0 b1; shift 2
	RB_EXTRA=""
	if [ $# -gt 0 ]; then rb_agent_start "$RB_TMP/agent.err" "$@" || exit 1; t0=$(rb_ticks $RB_PID); fi
	[ -n "${RB_BPF_STATS:-}" ] && [ $# -gt 0 ] && b0=$(rb_bpf "$RB_ID0")
	s0=$(rb_srv_ticks)
	[ -n "${RB_WHERE:-}" ] && rb_where_start "$name" "$#"
	load
	[ -n "${RB_WHERE:-}" ] && rb_where_stop
	srv=$(($(rb_srv_ticks) - s0))
	[ -n "${RB_BPF_STATS:-}" ] && [ $# -gt 0 ] && b1=$(rb_bpf "$RB_ID0")
	if [ $# -gt 0 ]; then agent=$(($(rb_ticks $RB_PID) - t0)); rb_agent_done "$name" $agent; fi
	[ -n "${RB_BPF_STATS:-}" ] && [ $# -gt 0 ] && RB_EXTRA="$RB_EXTRA$(echo $b0 $b1 |
		awk -v n="$RB_COUNT" '{ printf "; BPF %.0f ns per request, profiling'"'"'s programs %.0f in %.2f runs", ($5 - $1) / n, ($6 - $2) / n, ($8 - $4) / n }')"
	# BPF programs run in the traced processes' time: the sum is the whole cost
	cost=$(awk -v s=$srv -v a=$agent -v l="$RB_TOOL_S" -v n="$RB_COUNT" -v hz="$RB_TCK" \
		'BEGIN { printf "%.3f", ((s + a) / hz + l) / n * 1e5 }')
	[ -z "$RB_BARE" ] && RB_BARE=$RB_RATE RB_BARE_COST=$cost
	printf '%-9s %s  %s of bare; CPU per 100k (server, tool, agent) %s s, %s of bare%s\n' \
		"$name" "$RB_SAYS" "$(rb_share "$RB_RATE" "$RB_BARE")" "$cost" \
		"$(rb_share "$RB_BARE_COST" "$cost")" "$RB_EXTRA"
	echo "$key $RB_RATE $(rb_share "$RB_RATE" "$RB_BARE") $(rb_share "$RB_BARE_COST" "$cost")" \
		>>"$RB_TMP/rows"
	[ -n "${RB_WHERE:-}" ] && python3 "$(dirname "${BASH_SOURCE[0]}")/where.py" "$RB_WDIR" "$RB_COUNT"
	return 0
}

# each BPF program's id, name, run_time_ns and run_cnt now
rb_progs() {
	bpftool prog show -j | python3 -c '
import json, sys
for p in json.load(sys.stdin):
    print(p["id"], p.get("name", "?"), p.get("run_time_ns", 0), p.get("run_cnt", 0))'
}

# rb_where_start NAME AGENT_ARGC / rb_where_stop (RB_WHERE=1, where.sh): over
# the row's load, the syscalls of the server, of the agent and of the whole
# machine (perf stat), every CPU's samples (perf record -a -g, cpu-clock at
# RB_WHERE_HZ) and, in an agent's row, each BPF program's counts; where.py
# prints them per request after the row.
rb_where_start() {
	local pids
	RB_WDIR=$RB_TMP/where.$1.$RANDOM
	mkdir -p "$RB_WDIR"
	echo "${RB_WHERE_HZ:-997}" >"$RB_WDIR/perf.hz"
	if [ "$2" -gt 0 ]; then rb_progs >"$RB_WDIR/progs.before"; fi
	pids=$(echo $RB_SRV_PIDS | tr ' ' ',')
	RB_WPIDS=""
	perf stat -x, -e raw_syscalls:sys_enter -p "$pids" -o "$RB_WDIR/sys.server" 2>/dev/null &
	RB_WPIDS="$RB_WPIDS $!"
	if [ "$2" -gt 0 ]; then
		perf stat -x, -e raw_syscalls:sys_enter -p "$RB_PID" -o "$RB_WDIR/sys.agent" 2>/dev/null &
		RB_WPIDS="$RB_WPIDS $!"
	fi
	perf stat -x, -a -e raw_syscalls:sys_enter -o "$RB_WDIR/sys.all" 2>/dev/null &
	RB_WPIDS="$RB_WPIDS $!"
	perf record -q -a -g -F "${RB_WHERE_HZ:-997}" -e cpu-clock -o "$RB_WDIR/perf.data" \
		>/dev/null 2>&1 &
	RB_WPIDS="$RB_WPIDS $!"
	sleep 0.5	# perf's events open
}

rb_where_stop() {
	[ -f "$RB_WDIR/progs.before" ] && rb_progs >"$RB_WDIR/progs.after"
	kill -INT $RB_WPIDS 2>/dev/null
	wait $RB_WPIDS 2>/dev/null
	perf report -i "$RB_WDIR/perf.data" --stdio --no-children --sort comm,sym -g none \
		--percent-limit 0.1 >"$RB_WDIR/perf.txt" 2>/dev/null
}

# rb_cpu_per_100k TICKS REQUESTS: agent CPU seconds per 100k requests.
rb_cpu_per_100k() {
	awk -v t="$1" -v n="$2" -v hz="$RB_TCK" 'BEGIN { printf "%.2f", n ? t / hz / n * 1e5 : 0 }'
}

# rb_share RATE BARE
rb_share() {
	awk -v r="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? r / b : 0 }'
}

# rb_summary: each configuration's mean rate, mean share of bare and mean of
# bare's CPU cost per request over its own (the share a machine that is only
# short of CPU would keep), over the rounds, in the order first seen.
rb_summary() {
	awk '{ if (!($1 in n)) o[k++] = $1; n[$1]++; r[$1] += $2; s[$1] += $3; c[$1] += $4
		S[$1, n[$1]] = $3; C[$1, n[$1]] = $4 }
		function med(A, x, m,   i, j, t, v) { for (i = 1; i <= m; i++) v[i] = A[x, i]
			for (i = 2; i <= m; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
			return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2 }
		END { for (i = 0; i < k; i++) { x = o[i]
			printf "  %-13s %10.0f /s, %.2f of bare; bare'"'"'s CPU per request over its own %.2f (means of %d; medians %.2f, %.2f)\n",
				x, r[x] / n[x], s[x] / n[x], c[x] / n[x], n[x], med(S, x, n[x]), med(C, x, n[x]) } }' "$RB_TMP/rows"
}

# rb_pair_rows ROUND NAME KEY BEFORE_NAME BEFORE_KEY ARGS...: the row NAME
# with the agent under test and, with RB_BEFORE (another agent binary), the
# same row with it (BEFORE_NAME), in alternating order from round to round so
# neither always runs first after the row before.
rb_pair_rows() {
	local r=$1 name=$2 key=$3 bname=$4 bkey=$5; shift 5
	if [ -n "${RB_BEFORE:-}" ] && [ $((r % 2)) -eq 1 ]; then
		RB_USE_AGENT=$RB_BEFORE rb_row "$bname" "$bkey" "$@"
	fi
	rb_row "$name" "$key" "$@"
	if [ -n "${RB_BEFORE:-}" ] && [ $((r % 2)) -eq 0 ]; then
		RB_USE_AGENT=$RB_BEFORE rb_row "$bname" "$bkey" "$@"
	fi
	return 0
}

# rb_requests_rows ROUND KEY_SUFFIX ARGS...: the request-mode row, and its
# "before" row with RB_BEFORE (rb_pair_rows).
rb_requests_rows() {
	local r=$1 sfx=$2; shift 2
	rb_pair_rows "$r" requests "requests$sfx" before "before$sfx" "$@"
}

# rb_metrics_rounds ROUNDS MPORT: ROUNDS rounds of a bare row and the request
# rows (`--requests -q --metrics 127.0.0.1:MPORT`, and RB_BEFORE's), then the
# means: the scripts whose servers are measured in metrics-only mode.
rb_metrics_rounds() {
	local r
	for r in $(seq "$1"); do
		RB_BARE=""
		echo "round $r"
		rb_row bare bare
		rb_requests_rows "$r" "" --requests -q --metrics "127.0.0.1:$2"
	done
	echo "means (load average now $(cut -d' ' -f1-3 /proc/loadavg)):"
	rb_summary
}
