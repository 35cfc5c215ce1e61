#!/usr/bin/env bash
# Outputs under faults (issue 8): a stalled receiver fills its own queue only and
# gets a drop marker with the exact count; a killed receiver is reconnected to;
# SIGTERM ends the agent within 1 s whatever its outputs do (stalled TCP, stalled
# stdout pipe); SIGHUP reopens file: outputs (logrotate) and kills nothing; SIGUSR1
# prints counters; a full disk is an error; bad --output/--metrics are refused.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/collectors/out_lib.sh"
need_live
need_pkgs busybox-static
wl_setup

# 1. Bad --output URLs are usage errors (exit 2) with a message naming them.
for url in ftp://x tcp://nohost tcp://1.2.3.4:99999; do
	timeout 10 "$AGENT" -n 1 --output "$url" >/dev/null 2>"$TMP/bad"; rc=$?
	expect "--output $url is refused with exit 2 and a message" \
		bash -c "[ $rc = 2 ] && grep -qF -- '$url' '$TMP/bad'" || echo "    rc $rc: $(head -c 300 "$TMP/bad")"
done
timeout 10 "$AGENT" -n 100000 --output file:/nonexistent/dir/x "$WL_FILTER" >/dev/null 2>"$TMP/bad"; rc=$?
expect "--output file:/nonexistent/dir/x fails at start (exit 1) naming the path" \
	bash -c "[ $rc = 1 ] && grep -q /nonexistent/dir/x '$TMP/bad'" ||
	echo "    rc $rc: $(head -c 300 "$TMP/bad")"
BUSY=$(free_port)
start_recv "$BUSY" "$TMP/busy.recv"
timeout 60 "$AGENT" -q -M 2 --metrics="127.0.0.1:$BUSY" >/dev/null 2>"$TMP/bad"; rc=$?
expect "--metrics on a busy port fails clearly (nonzero, names the address)" \
	bash -c "[ $rc != 0 ] && [ $rc != 124 ] && grep -q '127.0.0.1:$BUSY' '$TMP/bad'" ||
	echo "    rc $rc: $(head -c 300 "$TMP/bad")"
kill "$RECV_PID" 2>/dev/null

# 2. -q: no stdout output; the other outputs still get the lines.
start_agent "$TMP/q.out" "$TMP/q.err" -j -q -n 50 --output "file:$TMP/q.file" "$WL_FILTER"
wl_run 200; wait_agent 60; rc=$?
expect "-q --output file: prints nothing on stdout, the file gets the 50 lines, no stdout in the summary" \
	bash -c "[ $rc = 0 ] && [ ! -s '$TMP/q.out' ] && [ \$(wc -l <'$TMP/q.file') = 50 ] &&
		grep -q '^agent: output file:$TMP/q.file: 50 emitted' '$TMP/q.err' &&
		! grep -q '^agent: output stdout' '$TMP/q.err'" || tail -3 "$TMP/q.err"

# The agents below serve --metrics: the test waits on their own counters (a
# queue that filled, a connect that failed) instead of on a clock, and ends
# them with SIGTERM once what it checks has happened.
metric() {	# metric PORT SERIES: its value in the agent's /metrics, or nothing
	curl -s --max-time 10 "http://127.0.0.1:$1/metrics" | awk -v k="$2" '$1 == k { print $2 }'
}
metric_pos() { local v; v=$(metric "$1" "$2"); [ -n "$v" ] && [ "${v%.*}" -gt 0 ]; }
# queue_drained ERR URL: a SIGUSR1 report asked now says nothing waits in URL's
# queue: the next line has room (wl_mark's is not dropped for a full queue).
queue_drained() { usr1_report "$1" "r['outputs']['$2']['queued'] == 0"; }

# 3. A receiver that stops reading until told; a 64K queue; stdout and a file
#    beside it. SIGUSR1 twice during the stall: counters printed, the agent goes
#    on. The second comes once stdout got more lines and the stalled output
#    counted queue-full drops (its metrics say so); then the receiver reads
#    again, and once it has stdout's last line, SIGTERM.
P=$(free_port)
TCP=tcp://127.0.0.1:$P
MP=$(free_port)
start_recv "$P" "$TMP/a.recv" --rcvbuf 4096 --mss 536 --stall-until "$TMP/a.release"
wl_start 3	# ~0.2 MB/s: fills the stalled path (64K queue + ~0.1 MB in the kernel), not stdout's
start_agent "$TMP/a.out" "$TMP/a.err" -j --flush-timeout 5 --queue-size 64K --metrics="127.0.0.1:$MP" \
	--output stdout --output "file:$TMP/a.file" --output "$TCP" "$WL_FILTER"
expect "agent starts with a stalled TCP output" [ -n "${AGENT_PID:-}" ] || tail -3 "$TMP/a.err"
usr1_seen() { [ "$(grep -c 'counters now:' "$TMP/a.err")" -ge "$1" ]; }
wait_for 30 lines_at_least "$TMP/a.out" 1
kill -USR1 "$AGENT_PID"
wait_for 30 usr1_seen 1
n1=$(wc -l <"$TMP/a.out")	# at least the stdout lines that report counted as emitted
expect "stdout keeps getting lines while the TCP receiver stalls" wait_for 30 lines_at_least "$TMP/a.out" $((n1 + 1))
expect "the stalled output drops lines, its queue full" \
	wait_for 60 metric_pos "$MP" "agent_output_drops_total{output=\"$TCP\",reason=\"queue_full\"}"
kill -USR1 "$AGENT_PID"
usr1_alive() { wait_for 30 usr1_seen 2 && kill -0 "$AGENT_PID"; }
expect "SIGUSR1 does not stop the agent (it printed its counters twice and runs)" usr1_alive
touch "$TMP/a.release"
wl_stop
wait_for 60 queue_drained "$TMP/a.err" "$TCP"
wl_mark
expect "the receiver, reading again, gets the last line" wait_for 60 marked "$TMP/a.recv" "$TMP/a.out" "$TMP/a.file"
stop_agent; rc=$?
expect "agent with an output that stalled exits 0 on SIGTERM" [ $rc = 0 ] || tail -5 "$TMP/a.err"
pycheck usr1 "SIGUSR1 printed 'counters now:' each time; events read and stdout emitted rose, TCP queue-full drops counted" \
	"$TMP/a.err" "$TCP" <<'PY'
import sys, e2e_out as E
reps = [r for r in E.reports(sys.argv[1]) if r["now"]]
assert len(reps) >= 2, ("counters now reports", len(reps))
a, b = reps[:2]	# (the later ones were asked to see the queue drained)
assert b["read"] > a["read"], ("events read did not rise", a["read"], b["read"])
assert b["outputs"]["stdout"]["emitted"] > a["outputs"]["stdout"]["emitted"], "stdout stalled too"
assert b["outputs"][sys.argv[2]]["queue_full"] > 0, ("no queue-full drops yet", b["outputs"])
print("ok")
PY
pycheck stall "queue-full drops on the stalled output only; markers in its stream announce exactly the missing lines" \
	"$TMP/a.err" "$TMP/a.out" "$TMP/a.file" "$TMP/a.recv" "$TCP" <<'PY'
import sys, e2e_out as E
err, out, fil, recv, url = sys.argv[1:6]
s = E.summary(err)
ref = E.read_lines(out)
E.parse_json_lines(ref, "stdout")
for u, path in (("stdout", out), ("file:" + fil, fil)):
    o = E.check_accounted(s, u)
    assert o["dropped"] == 0 and o["emitted"] == s["matched"], (u, o)
    assert E.read_lines(path) == ref, (u, "differs from stdout")
t = E.check_accounted(s, url)
assert t["queue_full"] > 0 and t["output_error"] == 0, ("stalled output", t)
stream = E.read_lines(recv)
nev, nmark, total, tail, pending = E.walk_markers(stream, ref, url)
assert nmark >= 1, "no drop marker arrived after the receiver recovered"
assert nev == t["emitted"] and nmark == t["markers"], ((nev, nmark), t)
assert total == t["queue_full"] and pending == 0, ("marker counts", total, pending, t)
assert tail == t["exit_deadline"], ("lines after the last one sent", tail, t)
print("ok", nev, "events,", nmark, "markers for", total, "drops")
PY

# 3b. The same in text mode: the marker is a line in words, with the count.
P=$(free_port)
TCP=tcp://127.0.0.1:$P
MP=$(free_port)
start_recv "$P" "$TMP/t.recv" --rcvbuf 4096 --mss 536 --stall-until "$TMP/t.release"
wl_start 5
start_agent "$TMP/t.out" "$TMP/t.err" -p '%evt.num %evt.type %evt.dir %thread.tid %evt.info' \
	--flush-timeout 3 --queue-size 64K --metrics="127.0.0.1:$MP" --output stdout --output "$TCP" "$WL_FILTER"
expect "text mode: the stalled output drops lines, its queue full" \
	wait_for 60 metric_pos "$MP" "agent_output_drops_total{output=\"$TCP\",reason=\"queue_full\"}"
touch "$TMP/t.release"
wl_stop
wait_for 60 queue_drained "$TMP/t.err" "$TCP"
wl_mark
expect "text mode: the receiver, reading again, gets the last line" \
	wait_for 60 marked "$TMP/t.recv" "$TMP/t.out"
stop_agent; rc=$?
expect "text mode with an output that stalled exits 0 on SIGTERM" [ $rc = 0 ] || tail -5 "$TMP/t.err"
pycheck textmark "text mode: 'agent: N events dropped for this output (queue full)' markers announce exactly the missing lines" \
	"$TMP/t.err" "$TMP/t.out" "$TMP/t.recv" "$TCP" <<'PY'
import sys, e2e_out as E
err, out, recv, url = sys.argv[1:5]
s = E.summary(err)
ref = E.read_lines(out)
o = E.check_count(s, "stdout", len(ref), "stdout")
assert o["dropped"] == 0, o
t = E.check_accounted(s, url)
nev, nmark, total, tail, pending = E.walk_markers(E.read_lines(recv), ref, url, text=True)
assert t["queue_full"] > 0 and nmark >= 1, ("no drops or no marker", t, nmark)
assert nev == t["emitted"] and nmark == t["markers"] and total == t["queue_full"], ((nev, nmark, total), t)
assert pending == 0 and tail == t["exit_deadline"], (tail, pending, t)
print("ok", nev, "lines,", nmark, "markers for", total, "drops")
PY

# 4. The receiver is killed, then another one listens on the same port: the agent
#    reconnects (connect failures counted) and lines flow again, never cut.
P=$(free_port)
TCP=tcp://127.0.0.1:$P
MP=$(free_port)
start_recv "$P" "$TMP/b1.recv"
r1=$RECV_PID
wl_start 10
start_agent "$TMP/b.out" "$TMP/b.err" -j --flush-timeout 3 --metrics="127.0.0.1:$MP" \
	--output stdout --output "$TCP" "$WL_FILTER"
expect "agent starts with a TCP output" [ -n "${AGENT_PID:-}" ] || tail -3 "$TMP/b.err"
expect "the first receiver gets lines" wait_for 30 lines_at_least "$TMP/b1.recv" 1
kill -9 "$r1"; wait "$r1" 2>/dev/null
expect "the agent finds nobody listening (a connect failure counted)" \
	wait_for 60 metric_pos "$MP" "agent_output_connect_failures_total{output=\"$TCP\"}"
start_recv "$P" "$TMP/b2.recv"
expect "lines flow to the second receiver" wait_for 60 lines_at_least "$TMP/b2.recv" 1
wl_stop
wait_for 60 queue_drained "$TMP/b.err" "$TCP"
wl_mark
expect "the second receiver gets the last line" wait_for 60 marked "$TMP/b2.recv" "$TMP/b.out"
stop_agent; rc=$?
expect "agent exits 0 on SIGTERM after its receiver came back" [ $rc = 0 ] || tail -5 "$TMP/b.err"
pycheck reconnect "reconnected after the receiver restarted: connect failures counted, whole JSON lines flow again" \
	"$TMP/b.err" "$TMP/b.out" "$TMP/b1.recv" "$TMP/b2.recv" "$TCP" <<'PY'
import sys, e2e_out as E
err, out, r1, r2, url = sys.argv[1:6]
s = E.summary(err)
ref = E.read_lines(out)
E.check_accounted(s, "stdout")
t = E.check_accounted(s, url)
assert t["connect_failures"] > 0, ("connect failures", t)
l1, cut = E.read_lines(r1, allow_partial_tail=True)	# killed while reading: may end mid-line
l2 = E.read_lines(r2)
assert l2, "nothing arrived after the restart"
assert open(r2, "rb").read(1) == b"{", "the new connection starts mid-line"
e1, m1 = E.split_markers(l1, "first receiver")
e2, m2 = E.split_markers(l2, "second receiver")
pos = {l: i for i, l in enumerate(ref)}
seq = [pos.get(l) for l in e1 + e2]
assert None not in seq, "a received line is not one of stdout's"
assert seq == sorted(set(seq)), "lines duplicated or out of order across the reconnect"
assert len(e1) + len(e2) <= t["emitted"], (len(e1), len(e2), t)
print("ok", len(e1), "+", len(e2), "lines;", t)
PY

# 5. SIGTERM while a receiver stalls: the agent is gone within 1 s, with its
#    summary. SIGTERM comes once the stalled output's queue filled (its metrics
#    say so): the lines in it can never be sent. The agent and this shell at
#    real-time priority for the measurement (rt_on in lib.sh).
P=$(free_port)
TCP=tcp://127.0.0.1:$P
MP=$(free_port)
start_recv "$P" "$TMP/c.recv" --rcvbuf 4096 --mss 536 --stall-until "$TMP/never"
wl_start 20
start_agent "$TMP/c.out" "$TMP/c.err" -j --flush-timeout 5 --queue-size 64K --metrics="127.0.0.1:$MP" \
	--output stdout --output "$TCP" "$WL_FILTER"
expect "the stalled output's queue fills" \
	wait_for 60 metric_pos "$MP" "agent_output_drops_total{output=\"$TCP\",reason=\"queue_full\"}"
rt_on "$AGENT_PID" $$
term_timed; rc=$?; dt=$TERM_MS
rt_off $$
wl_stop
expect "SIGTERM with a stalled TCP output: exit within 1 s (took $dt ms), status 0" \
	bash -c "[ $dt -lt 1000 ] && [ $rc = 0 ]" || echo "    rc $rc"
pycheck term "the summary accounts for the lines the stalled output never sent (exit deadline)" \
	"$TMP/c.err" "$TCP" <<'PY'
import sys, e2e_out as E
s = E.summary(sys.argv[1])
E.check_accounted(s, "stdout")
t = E.check_accounted(s, sys.argv[2])
assert t["exit_deadline"] > 0, t
print("ok", t)
PY
kill "$RECV_PID" 2>/dev/null

# 6. Stalled stdout (a pipe nobody reads until the agent is gone): SIGTERM still
#    ends the agent within 1 s. SIGTERM comes once stdout's writer sleeps in its
#    write to the pipe. What the pipe then holds is whole JSON lines, as many as
#    the summary counted emitted: the write SIGTERM's deadline interrupted cut
#    no line.
mkfifo "$TMP/fifo"
(while [ ! -e "$TMP/h.go" ]; do sleep 0.1; done; exec cat) <"$TMP/fifo" >"$TMP/h.out" &
reader=$!
PIDS+=("$reader")
wl_start 20
start_agent "$TMP/fifo" "$TMP/h.err" -j "$WL_FILTER"
expect "stdout's writer waits for its reader" wait_for 60 write_blocked "$AGENT_PID" 1
rt_on "$AGENT_PID" $$
term_timed; rc=$?; dt=$TERM_MS
rt_off $$
wl_stop
expect "SIGTERM with stdout stalled in a pipe: exit within 1 s (took $dt ms), status 0" \
	bash -c "[ $dt -lt 1000 ] && [ $rc = 0 ]" || echo "    rc $rc"
pycheck pipe "...and the summary is on stderr, stdout's unsent lines counted" "$TMP/h.err" <<'PY'
import sys, e2e_out as E
s = E.summary(sys.argv[1])
o = E.check_accounted(s, "stdout")
assert o["dropped"] > 0, o
print("ok", o)
PY
touch "$TMP/h.go"
wait "$reader"
pycheck pipe_whole "...and the pipe held whole JSON lines only, one for each line counted emitted" \
	"$TMP/h.err" "$TMP/h.out" <<'PY'
import sys, e2e_out as E
s = E.summary(sys.argv[1])
o = E.output(s, "stdout")
objs = E.parse_json_lines(E.read_lines(sys.argv[2]), "stdout")
events = [x for x in objs if not E.is_marker(x)]
assert len(events) == o["emitted"], (len(events), o)
assert len(events) > 0, o
print("ok", len(events), "lines")
PY

# 7. logrotate: rename the file: output, SIGHUP; three times during a steady flow.
#    SIGHUP kills nothing; no line lost, cut or doubled across the files. Each
#    rename waits for the file the last SIGHUP opened to get a line.
wl_start 10
start_agent "$TMP/d.out" "$TMP/d.err" -j --output stdout --output "file:$TMP/rot.log" "$WL_FILTER"
wait_for 30 test -s "$TMP/rot.log"
for k in 1 2 3; do
	mv "$TMP/rot.log" "$TMP/rot.log.$k"
	kill -HUP "$AGENT_PID"
	wait_for 30 test -s "$TMP/rot.log"
done
expect "SIGHUP does not end the agent" kill -0 "$AGENT_PID"
wl_stop; wl_mark
wait_for 30 marked "$TMP/d.out" "$TMP/rot.log"
stop_agent; rc=$?
expect "agent exits 0 after three SIGHUPs" [ $rc = 0 ] || tail -3 "$TMP/d.err"
pycheck rotate "rot.log.1..3 + rot.log == stdout == file: emitted, all whole JSON lines, each file used" \
	"$TMP/d.err" "$TMP/d.out" "$TMP/rot.log" <<'PY'
import sys, e2e_out as E
err, out, rot = sys.argv[1:4]
s = E.summary(err)
ref = E.read_lines(out)
E.parse_json_lines(ref, "stdout")
E.check_count(s, "stdout", len(ref), "stdout")
parts = [E.read_lines(p) for p in (rot + ".1", rot + ".2", rot + ".3", rot)]
assert all(parts), ("a file got no lines", [len(p) for p in parts])
allp = sum(parts, [])
E.parse_json_lines(allp, "rotated files")
E.check_count(s, "file:" + rot, len(allp), "rotated files")
assert allp == ref, "rotated files differ from stdout"
print("ok", [len(p) for p in parts])
PY

# 8. Output on a full file system: stdout redirected (buffered and --unbuffered)
#    and a file: output. An error on stderr, counted, exit status 1.
mkdir -p "$TMP/full"
if mount -t tmpfs -o size=1m tmpfs "$TMP/full"; then
	MOUNTS+=("$TMP/full")
	wl_start 50
	for mode in buffered --unbuffered; do
		rm -f "$TMP/full/"*
		args=(-j); [ $mode = buffered ] || args+=("$mode")
		start_agent "$TMP/full/out" "$TMP/e.$mode.err" "${args[@]}" "$WL_FILTER"
		wait_agent 60; rc=$?
		expect "stdout on a full disk ($mode): the agent stops by itself, status 1, ENOSPC on stderr" \
			bash -c "[ $rc = 1 ] && grep -q 'No space left on device' '$TMP/e.$mode.err'" ||
			{ echo "    rc $rc"; tail -3 "$TMP/e.$mode.err"; }
		pycheck "full$mode" "...and stdout's write error is counted in the summary" \
			"$TMP/e.$mode.err" <<'PY'
import sys, e2e_out as E
o = E.output(E.summary(sys.argv[1]), "stdout")
assert o["write_errors"] > 0, o
print("ok", o)
PY
	done
	# The agent runs on with a failing file: output: SIGTERM once it said so,
	# the workload over and stdout holding its last line.
	rm -f "$TMP/full/"*
	start_agent "$TMP/f.out" "$TMP/f.err" -j --output stdout --output "file:$TMP/full/f" "$WL_FILTER"
	wait_for 60 grep -q "cannot write to $TMP/full/f: No space left on device" "$TMP/f.err"
	wl_stop; wl_mark
	wait_for 30 marked "$TMP/f.out"
	stop_agent; rc=$?
	expect "a file: output on a full disk: status 1, ENOSPC on stderr" \
		bash -c "[ $rc = 1 ] && grep -q 'No space left on device' '$TMP/f.err'" ||
		{ echo "    rc $rc"; tail -3 "$TMP/f.err"; }
	pycheck fullfile "...its write errors counted, stdout unaffected" "$TMP/f.err" "$TMP/full/f" <<'PY'
import sys, e2e_out as E
s = E.summary(sys.argv[1])
o = E.check_accounted(s, "file:" + sys.argv[2])
assert o["write_errors"] > 0 and o["dropped"] > 0, o
so = E.check_accounted(s, "stdout")
assert so["dropped"] == 0, so
print("ok", o)
PY
	umount -l "$TMP/full"
else
	echo "skip: cannot mount a tmpfs"
fi
finish
