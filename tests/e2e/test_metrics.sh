#!/usr/bin/env bash
# --metrics scraped by a real Prometheus (issue 8): /healthz is 200 while capture
# runs and 503 once it stopped (outputs still flushing); the final counters stay
# published meanwhile, so what Prometheus stored then equals the agent's summary.
# A receiver that does not read until told keeps the agent flushing.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/collectors/out_lib.sh"
need_live
need_pkgs prometheus busybox-static curl
wl_setup

q_val() {	# q_val EXPR: the value of a one-element instant vector, or nothing
	prom_query "$1" | python3 -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if len(r) == 1 else "")' 2>/dev/null
}
is_val() { [ "$(q_val "$1")" = "$2" ]; }
MPORT=$(free_port)
# Prometheus first: its first scrape comes some seconds after it starts.
expect "Prometheus starts with its own configuration" start_prometheus "127.0.0.1:$MPORT" ||
	sed 's/^/    /' "$PROM/log" | tail -5
# Its scrape loop runs once it tried the (not yet started) target.
expect "Prometheus scrapes (the target is down before the agent starts)" \
	wait_for 20 is_val 'up' 0
SPORT=$(free_port)
STALL=tcp://127.0.0.1:$SPORT
start_recv "$SPORT" "$TMP/stalled" --rcvbuf 4096 --mss 536 --stall-until "$TMP/release"
expect "a receiver that does not read listens" [ $? = 0 ]

# Capture stops at the workload's N-th event (-n), and the workload starts only
# once Prometheus has scraped the running capture: the test, not a clock,
# decides when capture ends. The stalled output keeps the agent flushing until
# the receiver is released (--flush-timeout is only a bound).
N=3000
start_agent "$TMP/out" "$TMP/err" -j -n $N --flush-timeout 120 --metrics="127.0.0.1:$MPORT" \
	--output stdout --output "$STALL" "$WL_FILTER"
expect "agent starts with --metrics" [ -n "${AGENT_PID:-}" ] || sed 's/^/    /' "$TMP/err"
t0=$SECONDS

health() { [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MPORT/healthz")" = "$1" ]; }
expect "/healthz is 200 while capture runs" wait_for 10 health 200
curl -s -o "$TMP/metrics1" -D "$TMP/metrics1.h" "http://127.0.0.1:$MPORT/metrics"
pycheck names "/metrics has the contract's names, parseable Prometheus text" \
	"$TMP/metrics1" "$STALL" <<'PY'
import re, sys
text, stall = open(sys.argv[1]).read(), sys.argv[2]
samples = {}
for l in text.split("\n"):
    if not l or l.startswith("#"):
        continue
    m = re.fullmatch(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)( \d+)?', l)
    assert m, ("not Prometheus text", l)
    float(m[3].replace("Inf", "inf"))
    samples[m[1] + (m[2] or "")] = m[3]
names = {k.split("{")[0] for k in samples}
want = """agent_events_read_total agent_events_matched_total agent_events_malformed_total
agent_kernel_drops_total agent_kernel_drops_cpu_total agent_corrupt_records_total agent_ring_lost_total
agent_output_emitted_total agent_output_drops_total agent_output_queue_bytes agent_output_queue_lines
agent_output_queue_capacity_bytes agent_output_write_errors_total agent_output_connect_failures_total
agent_output_connected agent_ring_fill_ratio agent_consumer_lag_seconds agent_resident_memory_bytes
agent_start_time_seconds agent_build_info agent_capture_running""".split()
missing = [n for n in want if n not in names]
assert not missing, ("missing metrics", missing)
for r in ("ring_full", "too_big", "driver_bug"):
    assert 'agent_kernel_drops_total{reason="%s"}' % r in samples, ("kernel drops reason", r)
for r in ("made_by_pair", "lost"):
    assert 'agent_kernel_runs_skipped_total{result="%s"}' % r in samples, ("skipped runs", r)
for u in ("stdout", stall):
    assert 'agent_output_emitted_total{output="%s"}' % u in samples, ("output label", u)
    for r in ("queue_full", "output_error", "exit_deadline"):
        assert 'agent_output_drops_total{output="%s",reason="%s"}' % (u, r) in samples, (u, r)
assert samples.get("agent_capture_running") == "1", samples.get("agent_capture_running")
assert any(k.startswith("agent_build_info{version=") and v == "1" for k, v in samples.items())
print("ok", len(samples), "samples")
PY
expect "/metrics is served as Prometheus text" grep -qi '^content-type: text/plain' "$TMP/metrics1.h"
expect "Prometheus scrapes the agent while capture runs (up 1, agent_capture_running 1)" \
	wait_for 30 is_val 'agent_capture_running' 1
expect "Prometheus stored a well-formed scrape (up == 1)" is_val 'up' 1

# Capture stops at the workload's N-th event; the stalled output keeps the
# agent in its flush.
wl_start 10
expect "/healthz turns 503 once capture stopped (outputs flushing)" wait_for 60 health 503
wl_stop
expect "the agent is still flushing its stalled output" kill -0 "$AGENT_PID"
expect "Prometheus scraped after capture stopped (agent_capture_running 0)" \
	wait_for 30 is_val 'agent_capture_running' 0
# A text made after the stop holds the final events read, matched and
# dropped; stdout (a file, it drops nothing) has written them all once its
# emitted count equals matched: wait for a scrape that says so.
stdout_done() { is_val 'agent_output_emitted_total{output="stdout"} - on() agent_events_matched_total' 0; }
expect "Prometheus scraped stdout's last line written (emitted == matched)" wait_for 30 stdout_done
read_p=$(q_val 'agent_events_read_total')
matched_p=$(q_val 'agent_events_matched_total')
kdrops_p=$(q_val 'sum(agent_kernel_drops_total)')
emit_out_p=$(q_val 'agent_output_emitted_total{output="stdout"}')
emit_stall_p=$(q_val "agent_output_emitted_total{output=\"$STALL\"}")
curl -s -o "$TMP/metrics2" "http://127.0.0.1:$MPORT/metrics"
expect "the agent outlived the queries (still flushing)" kill -0 "$AGENT_PID"
touch "$TMP/release"
wait_agent 60; rc=$?
expect "agent exits 0 once the receiver reads" [ $rc = 0 ] || tail -5 "$TMP/err"
echo "    prometheus: read=$read_p matched=$matched_p kernel_drops=$kdrops_p emitted stdout=$emit_out_p stalled=$emit_stall_p; $((SECONDS - t0)) s"

pycheck cmp "Prometheus' events_read, matched, kernel drops during the flush == the agent's summary" \
	"$TMP/err" "$read_p" "$matched_p" "$kdrops_p" <<'PY'
import sys, e2e_out as E
err, read, matched, kdrops = sys.argv[1:5]
s = E.summary(err)
assert s["matched"] > 0, s
assert read and float(read) == s["read"], ("events read", read, s["read"])
assert matched and float(matched) == s["matched"], ("matched", matched, s["matched"])
assert kdrops and float(kdrops) == s["kdrops"], ("kernel drops", kdrops, s["kdrops"])
print("ok")
PY
pycheck emitted "Prometheus' output_emitted: the stalled output's == /metrics then <= the summary's; all sent once released" \
	"$TMP/err" "$emit_stall_p" "$STALL" "$TMP/metrics2" <<'PY'
import re, sys, e2e_out as E
err, emit_stall, stall, m2 = sys.argv[1:5]
s = E.summary(err)
st = E.check_accounted(s, stall)
m = re.search(r'^agent_output_emitted_total\{output="%s"\} (\S+)$' % re.escape(stall),
              open(m2).read(), re.M)
assert m and emit_stall and float(emit_stall) == float(m[1]) <= st["emitted"], (emit_stall, m and m[1], st)
assert st["emitted"] == s["matched"] and st["dropped"] == 0, ("released in time: all sent", st)
print("ok")
PY
pycheck stdoutflush "stdout is written out while another output still flushes (its emitted in Prometheus == the summary's)" \
	"$TMP/err" "$emit_out_p" "$TMP/metrics2" <<'PY'
import re, sys, e2e_out as E
s = E.summary(sys.argv[1])
out = E.check_accounted(s, "stdout")
q = re.findall(r'^agent_output_queue_lines\{output="stdout"\} .*$', open(sys.argv[3]).read(), re.M)
assert sys.argv[2] and float(sys.argv[2]) == out["emitted"], ("stdout emitted during the flush",
    sys.argv[2], "at exit", out["emitted"], "/metrics then:", q)
print("ok")
PY
pycheck recv "the released receiver got every line the summary counts for it" \
	"$TMP/stalled" "$TMP/err" "$STALL" "$TMP/out" <<'PY'
import sys, e2e_out as E
lines = E.read_lines(sys.argv[1])
E.parse_json_lines(lines, "receiver")
E.check_count(E.summary(sys.argv[2]), sys.argv[3], len(lines), "receiver")
assert lines == E.read_lines(sys.argv[4]), "receiver's lines differ from stdout"
print("ok", len(lines))
PY
stop_prometheus

# --metrics ADDR:PORT as a separate word; bare --metrics is 127.0.0.1:9376.
# Asked once the agent captures, then stopped with SIGTERM.
P2=$(free_port)
start_agent /dev/null "$TMP/w.err" -q --metrics "127.0.0.1:$P2"
expect "--metrics ADDR:PORT (separate word) serves /healthz" \
	wait_for 30 curl -sf -o /dev/null "http://127.0.0.1:$P2/healthz"
stop_agent; rc=$?
expect "...and the agent exits 0 on SIGTERM" [ $rc = 0 ] || tail -3 "$TMP/w.err"
if ! port_open 9376; then
	start_agent /dev/null "$TMP/d.err" -q --metrics
	expect "bare --metrics serves 127.0.0.1:9376" \
		wait_for 30 curl -sf -o /dev/null "http://127.0.0.1:9376/metrics"
	stop_agent; rc=$?
	expect "...and the agent exits 0 on SIGTERM" [ $rc = 0 ] || tail -3 "$TMP/d.err"
fi
finish
