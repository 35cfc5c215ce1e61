#!/usr/bin/env bash
# Exact drop accounting: a storm of known size through a small ring. Every
# event the storm made is either matched or counted as dropped, once: matched
# + kernel drops of its event type == the calls made x 2 (enter and exit).
# The summary's totals are the sums of their parts, per CPU too.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/collectors/out_lib.sh"
need_live
STORM=${STORM:?STORM must name the storm helper}

# Both engines: BPF ring buffers (the default) and perf rings. Then getresgid,
# whose enter event exit-only capture (-q's default) leaves out: its exit frame
# counts for both events, sent or dropped, as the reader rebuilds the enter.
# The filter names the storm's process, which the kernel tests before the
# ring: another process's tkill or getresgid is neither matched nor dropped.
calls=400000 threads=2
name=$(basename "$STORM"); name=${name:0:15}	# its comm
for run in ringbuf:tkill perf:tkill ringbuf:getresgid perf:getresgid; do
	engine=${run%%:*} call=${run#*:}
	start_agent "$TMP/out" "$TMP/err" -q --engine $engine --ring-size 16K "evt.type=$call and proc.name=$name"
	expect "$engine: agent starts" [ -n "${AGENT_PID:-}" ]
	if [ "$call" = tkill ]; then "$STORM" "$calls" "$threads"
	else "$STORM" "$calls" "$threads" getresgid; fi
	# SIGTERM: the agent reads what its rings hold (the storm has ended)
	stop_agent; rc=$?
	expect "$engine: agent exits 0" [ "$rc" = 0 ]
	python3 - "$TMP/err" "$((calls * threads * 2))" $engine $call >"$TMP/check" 2>&1 <<'PY'
import re, sys
err = open(sys.argv[1]).read()
made = int(sys.argv[2])
call = sys.argv[4]
def num(pat):
    m = re.search(pat, err, re.M)
    assert m, ("missing in summary", pat, err)
    return [int(x) for x in m.groups()]
read, matched, dropped, malformed = num(r"^agent: (\d+) events read, (\d+) matched, (\d+) dropped, (\d+) malformed")
total, full, big, bug, corrupt = num(r"^agent: dropped (\d+) = ring full (\d+) \+ too big (\d+) \+ driver bug (\d+) \+ corrupt records (\d+);")
assert total == dropped == full + big + bug + corrupt, ("total is not the sum of its parts", err)
# Stopped mid-storm, the agent still reads what the rings hold: every event
# the driver sent was read.
sent, unread = num(r"^agent: the driver sent (\d+) events; (\d+) not read yet$")
assert unread == 0 and sent == read, ("events left in the rings at stop", sent, read, err)
assert full > 0, ("the storm did not fill the 16K ring: nothing proved", err)
lost = num(r"the ring reported (\d+) lost")[0]
assert lost <= full, ("the ring's lost samples are the ring-full drops: at most as many", lost, full)
cpus = [[int(x) for x in m] for m in re.findall(r"^  cpu\d+\s+events (\d+), dropped (\d+) \(ring full (\d+), too big (\d+), driver bug (\d+), corrupt (\d+)\)", err, re.M)]
assert cpus, err
assert sum(c[0] for c in cpus) == read, ("per-CPU events do not add up", err)
assert sum(c[1] for c in cpus) == dropped, ("per-CPU drops do not add up", err)
for c in cpus:
    assert c[1] == sum(c[2:]), ("a CPU's drops are not the sum of their reasons", c)
types = dict((f"{n}{d}", int(v)) for n, d, v in re.findall(r"(\w+)([<>]) (\d+)", (re.search(r"^agent: kernel drops by event:(.*)$", err, re.M) or [None, ""])[1]))
assert sum(types.values()) == dropped - corrupt, ("drops by event do not add up to the kernel drops", types, err)
storm = types.get(call + ">", 0) + types.get(call + "<", 0)
assert matched + storm == made, (f"every {call} event is matched or counted dropped, once",
                                 matched, storm, made)
assert types.get(call + ">", 0) == types.get(call + "<", 0), ("a call's two events drop together", types)
print(f"ok: {sys.argv[3]}: {call}: {made} events made = {matched} matched + {storm} dropped (ring full {full}, lost reported {lost})")
PY
	expect "$engine: each $call event of the storm is matched or counted as dropped exactly once" grep -q '^ok' "$TMP/check" || cat "$TMP/check" "$TMP/err"
	cat "$TMP/check"
done

# Stopped in the middle of a storm (each engine, default ring size): what the
# rings hold at the signal is still read, so every event the driver sent is
# read and counted. The stop comes once a SIGUSR1 report says the agent read
# over 100,000 events, the storm still running.
read_over() { usr1_report "$1" "r['read'] > $2"; }	# read_over ERR N
for engine in ringbuf perf; do
	start_agent "$TMP/mid" "$TMP/miderr" -q --engine $engine
	"$STORM" 3000000 2 >/dev/null 2>&1 &
	storm=$!
	expect "$engine: the agent reads over 100000 events of the storm" wait_for 60 read_over "$TMP/miderr" 100000
	expect "$engine: the storm still runs when the agent is stopped" kill -0 "$storm"
	stop_agent
	wait $storm
	expect "$engine: stopped mid-storm, every event sent was read" python3 -c "
import re, sys
err = open('$TMP/miderr').read()
# the summary's lines, not those of the SIGUSR1 reports before it
read = int(re.findall(r'^agent: (\d+) events read', err, re.M)[-1])
sent, unread = map(int, re.findall(r'^agent: the driver sent (\d+) events; (\d+) not read yet$', err, re.M)[-1])
assert read > 100000 and unread == 0 and sent == read, (read, sent, unread)
print(f'$engine: mid-storm stop: {sent} sent, {read} read')
" || cat "$TMP/miderr"
done

# -s 0 captures no buffer bytes (not the default 80).
start_agent "$TMP/s0" "$TMP/s0err" -s 0 -j -p '%evt.type %evt.arg.data' 'evt.type=write and proc.name=e2e_writer'
cp /bin/echo "$TMP/e2e_writer"
"$TMP/e2e_writer" hello-snaplen >/dev/null
stop_agent
expect "-s 0: write events carry no data bytes" python3 -c "
import json, sys
ev = [json.loads(l) for l in open('$TMP/s0')]
assert ev and all(e['evt.type'] == 'write' for e in ev), ev
assert all(not e.get('evt.arg.data') for e in ev), ev
" || cat "$TMP/s0" "$TMP/s0err"

# -M with a huge value does not wrap into "stop at once" (the first deadline
# check, within the reader's 30 ms back-off): alive 1.5 s after it captures.
start_agent /dev/null "$TMP/Merr" -q -M 18446744073709551615
sleep 1.5
expect "-M 18446744073709551615 keeps capturing" kill -0 "$AGENT_PID"
stop_agent
expect "and stops on SIGTERM with the summary" grep -q 'events read' "$TMP/Merr"
finish
