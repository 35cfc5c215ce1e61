#!/usr/bin/env bash
# --profile alone (README, "Profiling"): every thread's time on CPU, on the run
# queue and off CPU by reason over the run, one line per thread at the end.
# A workload of ours (prof/sched_mix.c: more threads than CPUs, each 6 rounds
# of 15 ms on CPU, a 10 ms nanosleep, a barrier, a write and fsync) is created
# and ends inside the agent's run and inside a `perf record` of the kernel's
# scheduler tracepoints beside it. Each thread's account is held against:
#  1. perf's record of sched_switch, sched_wakeup and sched_wakeup_new on
#     CLOCK_MONOTONIC, tallied per thread from its creation to its exit
#     (sched_process_exit, where the agent's account ends too): on CPU, on
#     the run queue (woken or preempted until switched in) and off CPU, each
#     within 2% or 1 ms. perf 6.1 on kernel 6.18 here records no switch out
#     of a CPU's idle task (none of swapper/1's, on one machine), so its
#     `perf sched timehist` sums were off by 10-40 ms against the threads'
#     own clocks: while measuring, a SCHED_IDLE spinner on each CPU keeps
#     the CPUs from idling (any other task preempts it at once, sched(7)),
#     and only threads whose record is whole (every switch out after a
#     switch in) are compared, at least one of which must match;
#  2. where perf's record is not whole or does not match (it has been seen
#     to give 1.9 ms of one thread's time on CPU to another, and to miss a
#     wakeup), what the thread says as it ends: its CPU clock
#     (CLOCK_THREAD_CPUTIME_ID, the kernel's sum_exec_runtime: never more
#     than its time on a CPU, plus what the agent counts as lost, a switch
#     it did not see, by 2% or 1 ms, nor less than it by that and the
#     machine's interrupt and steal time over the run, /proc/stat; the main
#     thread's exit, which tears the process down, comes after) and its run
#     delay (the kernel's sched_info, /proc/thread-self/schedstat), within
#     2% or 1 ms.
# The nanosleeps are a floor the kernel guarantees: each worker's sleep is at
# least 60 ms, and what follows a timer's expiry is run-queue time, not sleep.
source "$(dirname "$0")/lib.sh"
need_live
[ -x "${SCHED_MIX:-}" ] || { echo "SCHED_MIX not built"; exit 1; }
command -v perf >/dev/null || need_pkgs linux-perf
THREADS=6

# 1. Usage: the file must be one.
"$AGENT" --profile -r /dev/null >"$TMP/opt.out" 2>&1
expect "--profile -r of a file that is none fails" [ $? = 1 ]

# One measure: the agent (JSON lines) and perf around one run of the workload.
measure() {	# measure DIR
	local d=$1 perf_pid c spin=()
	mkdir -p "$d"
	for c in $(seq 0 $(($(nproc) - 1))); do
		taskset -c "$c" chrt -i 0 sh -c 'while :; do :; done' &
		spin+=($!)
	done
	start_agent "$d/agent.json" "$d/agent.err" --profile -j 'proc.name=sched_mix' || return 1
	perf record -q -k mono -m 1024 -a -o "$d/perf.data" -e sched:sched_switch \
		-e sched:sched_wakeup -e sched:sched_wakeup_new -e sched:sched_process_exit -- sleep 60 >"$d/perf.out" 2>&1 &
	perf_pid=$!
	# perf writes its header once its events are open
	for _ in $(seq 1 100); do [ -s "$d/perf.data" ] && break; sleep 0.1; done
	sleep 0.3
	head -n 1 /proc/stat >"$d/stat.before"
	timeout 60 "$SCHED_MIX" "$d/fsync.dat" "$THREADS" >"$d/truth.txt"
	head -n 1 /proc/stat >"$d/stat.after"
	sleep 0.2
	kill -INT "$AGENT_PID"
	timeout 30 tail --pid="$AGENT_PID" -f /dev/null
	wait "$AGENT_PID"
	local rc=$?
	AGENT_PID=
	kill -INT "$perf_pid"
	wait "$perf_pid"
	kill "${spin[@]}"
	wait "${spin[@]}" 2>/dev/null
	perf script -i "$d/perf.data" -F comm,tid,cpu,time,event,trace --ns >"$d/perf.txt" 2>/dev/null
	return $rc
}

check() {	# check DIR: 0 all good, 1 a failure, 3 no thread's perf record whole
	/usr/bin/python3 - "$1" "$THREADS" "$(getconf CLK_TCK)" <<'PY'
import collections, json, re, sys
d, nthreads, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ms = 1e6
# cpu user nice system idle iowait irq softirq steal: interrupts and steal over the run
b, a = (list(map(int, open(d + f).read().split()[1:9])) for f in ("/stat.before", "/stat.after"))
hidden = sum(a[i] - b[i] for i in (5, 6, 7)) * 10**9 // hz
ours = {}
for l in open(d + "/agent.json"):
    r = json.loads(l)
    ours[r["thread.tid"]] = r
lines = open(d + "/truth.txt").read().split("\n")
pid = int(lines[0])
# tid: (its time on CPU, its run delay by the kernel's count, the wall time
# of its nanosleeps), as it ended
truth = {int(a): (int(b), int(c), int(d)) for a, b, c, d in (l.split() for l in lines[1:] if l)}
assert len(truth) == nthreads + 1, ("every thread said its CPU time", truth)
bad = []
def tol(want):
    return max(0.02 * want, 1 * ms)
def near(got, want):
    return abs(got - want) <= tol(want)
# the main thread's clock is read before its exit tears the process down,
# on CPU in the agent's account (and perf's): seen up to 2.6 ms here
EXIT = 5 * ms
parts = ["prof.runq", "prof.offcpu.file", "prof.offcpu.net", "prof.offcpu.lock",
         "prof.offcpu.poll", "prof.offcpu.sleep", "prof.offcpu.other"]
def clock_holds(tid, r):
    """oracle 2: the thread's clock, which leaves out interrupts and steal
    and, for the main thread, its exit"""
    on, lost, clk = r["prof.oncpu"], r["prof.lost"], truth[tid][0]
    return clk <= on + lost + tol(clk) and \
        on <= clk + tol(clk) + hidden + (EXIT if tid == pid else 0)
for tid in sorted(truth):
    r = ours.get(tid)
    if r is None:
        bad.append("thread %d: no line from the agent" % tid)
        continue
    assert r["proc.pid"] == pid and r["proc.name"] == "sched_mix" and r["prof.exited"] is True, r
    total = r["prof.oncpu"] + sum(r[k] for k in parts) + r["prof.lost"]
    if total != r["prof.span"]:
        bad.append("thread %d: the parts (%d) are not the span (%d)" % (tid, total, r["prof.span"]))
    lost = r["prof.lost"]
    if lost and not clock_holds(tid, r):
        bad.append("thread %d: on CPU %.3f ms + lost %.3f ms against its clock %.3f ms (+ %.3f ms of interrupts and steal)" % (
            tid, r["prof.oncpu"] / ms, lost / ms, truth[tid][0] / ms, hidden / ms))
    if tid != pid:
        s = r["prof.offcpu.sleep"]
        # at most the calls' wall time (a timer's expiry comes late on a VM:
        # seen 2 ms); at least 6 x 10 ms but a millisecond each for the timer
        # armed in the call before its switch out (the scheduler's clock
        # splits a sleep from its run-queue wait: seen 106 ns short); the
        # split is the oracles' to check
        if not (54 * ms <= s + lost and s <= truth[tid][2] + 1 * ms):
            bad.append("thread %d: sleep %.3f ms, not the 6 x 10 ms nanosleeps (%.3f ms of wall time)" % (
                tid, s / ms, truth[tid][2] / ms))
        if r["prof.offcpu.file"] + lost == 0:
            bad.append("thread %d: no time in its fsyncs" % tid)
    elif r["prof.offcpu.lock"] == 0:
        bad.append("main thread %d: no time waiting in pthread_join" % tid)

# oracle 1: perf's record, per thread
rx = re.compile(r"\s*\S.*?\s+-?\d+\s+\[\d+\]\s+(\d+)\.(\d{9}):\s+sched:(\w+):\s+(.*)")
def field(s, k):
    return re.search(r"\b" + k + r"=(\S+)", s).group(1)
st = {}
acc = collections.defaultdict(lambda: {"on": 0, "runq": 0, "off": 0, "broken": 0, "end": False})
for l in open(d + "/perf.txt"):
    m = rx.match(l)
    if not m:
        continue
    t = int(m.group(1)) * 10**9 + int(m.group(2))
    ev, a = m.group(3), m.group(4)
    if ev == "sched_wakeup_new":
        p = int(field(a, "pid"))
        if p in truth:
            st[p] = ["runq", t]
    elif ev == "sched_process_exit":
        # the agent's account ends here, at the exit it sees; a preemption
        # between it and the thread's last switch out is not the thread's
        p = int(field(a, "pid"))
        if p in st:
            if st[p][0] in acc[p]:
                acc[p][st[p][0]] += t - st[p][1]
            acc[p]["end"] = True
            del st[p]
    elif ev == "sched_wakeup":
        p = int(field(a, "pid"))
        if p in st and st[p][0] == "off":
            acc[p]["off"] += t - st[p][1]
            st[p] = ["runq", t]
    elif ev == "sched_switch":
        a1, a2 = a.split("==>")
        p, n, ps = int(field(a1, "prev_pid")), int(field(a2, "next_pid")), field(a1, "prev_state")
        if p in st:
            if st[p][0] == "on":
                acc[p]["on"] += t - st[p][1]
            else:
                acc[p]["broken"] += 1
            st[p] = ["runq" if ps.startswith("R") else "off", t]
        if n in st:
            if st[n][0] == "on":
                acc[n]["broken"] += 1
            else:
                acc[n][st[n][0]] += t - st[n][1]
            st[n] = ["on", t]
whole = [t for t in truth if t in acc and not acc[t]["broken"] and acc[t]["end"]]
# A thread free of lost time holds if it matches perf's record (on CPU, run
# queue, off CPU), or else its own clock and the kernel's run delay: each
# oracle has its corner here. perf has been seen to give 1.9 ms of one
# thread's time on CPU to another, and to miss a wakeup the kernel's run
# delay has (no sched_wakeup recorded, nor a sched_waking seen by the
# agent); the run delay counts a sleep as queued where the scheduler left a
# stale queue mark on the sleeper (the agent takes that wait from its
# wakeup: driver/prof.bpf.c, prof_waking).
agree = 0
for tid in sorted(truth):
    r = ours.get(tid)
    if r is None or r["prof.lost"]:
        continue
    on, rq, off = r["prof.oncpu"], r["prof.runq"], sum(r[k] for k in parts[1:])
    krd = truth[tid][1]
    by_perf = tid in whole and near(on, acc[tid]["on"]) and near(rq, acc[tid]["runq"]) and \
        near(off, acc[tid]["off"])
    agree += by_perf
    if by_perf or (clock_holds(tid, r) and krd >= 0 and near(rq, krd)):
        continue
    bad.append("thread %d: on CPU %.3f, run queue %.3f, off CPU %.3f ms; perf %s; its clock %.3f, its run delay %.3f ms" % (
        tid, on / ms, rq / ms, off / ms,
        "%.3f, %.3f, %.3f" % (acc[tid]["on"] / ms, acc[tid]["runq"] / ms, acc[tid]["off"] / ms)
        if tid in whole else "not whole", truth[tid][0] / ms, krd / ms))
for tid in sorted(truth):
    r = ours.get(tid, {})
    print("  thread %d: on %.2f ms (its clock %.2f), runq %.2f (its run delay %.2f), off %.2f, lost %.2f; perf %s" % (
        tid, r.get("prof.oncpu", 0) / ms, truth[tid][0] / ms, r.get("prof.runq", 0) / ms,
        truth[tid][1] / ms, sum(r.get(k, 0) for k in parts[1:]) / ms, r.get("prof.lost", 0) / ms,
        "on %.2f runq %.2f off %.2f" % (acc[tid]["on"] / ms, acc[tid]["runq"] / ms, acc[tid]["off"] / ms)
        if tid in whole else "record not whole (%d switches missing)" % acc[tid]["broken"]))
if bad:
    print("\n".join(bad))
    sys.exit(1)
if not agree:
    print("  no thread's perf record whole and matched (and its account free of lost time)")
    sys.exit(3)
print("  %d of %d threads matched perf's record" % (agree, len(truth)))
PY
}

# 2. Measure, up to 3 times for a perf record with a whole thread in it.
result=3
for try in 1 2 3; do
	if ! measure "$TMP/m$try"; then
		expect "the agent and perf measure the workload (try $try)" false
		tail -n 5 "$TMP/m$try/agent.err"
		result=1
		break
	fi
	echo "try $try:"
	check "$TMP/m$try"
	result=$?
	[ $result = 3 ] || break
done
expect "each thread's on-CPU, run-queue and off-CPU time holds against its own clock and perf's record" \
	[ $result = 0 ]
m=$TMP/m$try
expect "the exit line counts the threads and nothing lost" \
	grep -qE '^agent: profiling: [0-9]+ threads followed now, 0 not followed .*, 0 batches past .*, 0 batches malformed' \
	"$m/agent.err" || grep profiling "$m/agent.err"
expect "no event dropped" grep -qE '^agent: dropped 0 ' "$m/agent.err" || grep dropped "$m/agent.err"

# 3. The table without -j: a header and one row per thread, times in ms;
# written to a capture file too (-w), which replays (-r) with the same rows:
# those of the threads that exited, and of a shell loop still running at the
# end, whose last slices and state the agent takes from the kernel's table
# and writes to the file as one more batch.
(while :; do sleep 0.02; done) &
LOOP=$!
busy=$LOOP	# killed at exit (lib.sh) if the test stops early
SEL="proc.name=sched_mix or proc.pid=$LOOP"
expect "the agent starts with --profile (a table) and -w" \
	start_agent "$TMP/t.out" "$TMP/t.err" --profile -w "$TMP/t.scap" "$SEL"
"$SCHED_MIX" "$TMP/t.dat" 2 >"$TMP/t.truth"
kill -INT "$AGENT_PID"; wait "$AGENT_PID"; rc=$?; AGENT_PID=
kill "$LOOP"
expect "the agent exits 0" [ $rc = 0 ]
expect "the table's header names its columns" grep -qE \
	'^ +PID +TID COMM +CONTAINER +SPAN_MS +ONCPU +RUNQ +FILE +NET +LOCK +POLL +SLEEP +OTHER +LOST$' "$TMP/t.out"
ROW='^ +[0-9]+ +[0-9]+ sched_mix +host( +[0-9]+\.[0-9]{3}){10}'
expect "a row for each of the workload's 3 threads, on the host" \
	[ "$(grep -cE "$ROW" "$TMP/t.out")" = 3 ]
expect "a row for the shell loop" grep -qE "^ +$LOOP +$LOOP " "$TMP/t.out"
"$AGENT" -r "$TMP/t.scap" --profile "$SEL" >"$TMP/r.out" 2>"$TMP/r.err"
expect "the agent replays the file with --profile" [ $? = 0 ] || tail -n 3 "$TMP/r.err"
expect "... with the same header and rows" diff "$TMP/t.out" "$TMP/r.out"
finish
