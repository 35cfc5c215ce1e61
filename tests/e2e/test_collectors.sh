#!/usr/bin/env bash
# Real collectors receive the agent's lines (issue 8): syslog-ng over newline-framed
# TCP (tcp://), over RFC 5424 octet-counted TCP (syslog://), over a local datagram
# socket (syslog:PATH) and a unix stream (unix:PATH); nginx over batched HTTP POSTs
# (http://), all at once beside stdout and a file: output. Every line the agent
# reports as emitted for an output arrives there, in order, exactly the agent's
# stdout line. An HTTP endpoint answering 400 loses its lines, counted.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/collectors/out_lib.sh"
need_live
need_pkgs syslog-ng-core nginx-light busybox-static curl
wl_setup

expect "syslog-ng starts with its own configuration" start_syslog_ng ||
	sed 's/^/    /' "$SNG/stderr" | tail -5
expect "nginx starts with its own configuration" start_nginx ||
	sed 's/^/    /' "$NGX/logs/error.log" "$NGX/stdout" | tail -5

TCP=tcp://127.0.0.1:$SYSLOG_TCP_PORT
RFC=syslog://127.0.0.1:$SYSLOG_RFC_PORT
DGRAM=syslog:$SYSLOG_DGRAM
HTTP=http://127.0.0.1:$NGINX_PORT/ingest
UNIX=unix:$SYSLOG_STREAM
REJECT=http://127.0.0.1:$NGINX_PORT/reject
N=600	# -n: the agent stops after exactly N matching events

# 1. All outputs at once; the workload makes far more than N events. The
#    outputs may take as long as they need to send everything (--flush-timeout
#    30; the agent goes once they have): what is checked is what arrives, not
#    how fast a loaded machine sends it.
start_agent "$TMP/out" "$TMP/err" -j -n $N --flush-timeout 30 --batch-bytes 4096 --batch-ms 200 \
	--output stdout --output "file:$TMP/copy" --output "$TCP" --output "$RFC" \
	--output "$DGRAM" --output "$UNIX" --output "$HTTP" --output "$REJECT" "$WL_FILTER"
expect "agent starts with eight outputs" [ -n "${AGENT_PID:-}" ] || sed 's/^/    /' "$TMP/err"
apid=$AGENT_PID
wl_run 1500
wait_agent 60; rc=$?
expect "agent -n $N with eight outputs exits 0 by itself" [ $rc = 0 ] || tail -5 "$TMP/err"

pycheck sum "the summary has one line per output, each $N emitted and nothing dropped" \
	"$TMP/err" $N "$REJECT" "$TCP" "$RFC" "$DGRAM" "$UNIX" "$HTTP" "file:$TMP/copy" <<'PY'
import sys, e2e_out as E
err, n, reject, urls = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:] + ["stdout"]
s = E.summary(err)
assert s["matched"] == n, s
for u in urls:
    o = E.check_accounted(s, u)
    assert o["emitted"] == n and o["dropped"] == 0 and o["markers"] == 0, (u, o)
assert len(s["outputs"]) == len(urls) + 1, ("outputs in the summary", list(s["outputs"]))
print("ok")
PY
pycheck reject "HTTP 400 answers: every line counted as an output error, write errors counted, none emitted" \
	"$TMP/err" $N "$REJECT" "$NGX/logs/reject.log" <<'PY'
import json, sys, e2e_out as E
s = E.summary(sys.argv[1])
o = E.check_accounted(s, sys.argv[3])
assert o["emitted"] == 0 and o["output_error"] == int(sys.argv[2]) and o["write_errors"] > 0, o
reqs = [json.loads(l) for l in open(sys.argv[4])]
assert reqs and all(r["status"] == "400" and r["method"] == "POST" for r in reqs), reqs[:3]
print("ok", o, len(reqs), "POSTs refused")
PY

pycheck stdout "stdout has $N JSON lines; the file: output is the same bytes" \
	"$TMP/out" "$TMP/copy" $N <<'PY'
import sys, e2e_out as E
out = E.read_lines(sys.argv[1])
E.parse_json_lines(out, "stdout")
assert len(out) == int(sys.argv[3]), len(out)
assert open(sys.argv[1], "rb").read() == open(sys.argv[2], "rb").read(), "file: output differs from stdout"
print("ok")
PY

# syslog-ng writes its files asynchronously: wait (bounded) for all lines.
wait_for 30 lines_at_least "$SNG/tcp.out" $N
wait_for 30 lines_at_least "$SNG/rfc.out" $N
wait_for 30 lines_at_least "$SNG/dgram.out" $N
wait_for 30 lines_at_least "$SNG/stream.out" $N
settled "$SNG/tcp.out"; settled "$SNG/rfc.out"; settled "$SNG/dgram.out"; settled "$SNG/stream.out"
cmp_stream() {	# cmp_stream NAME DESCRIPTION FILE URL [dgram]
	pycheck "$1" "$2" "$3" "$TMP/out" "$TMP/err" "$4" "${5:-}" <<'PY'
import sys, e2e_out as E
got, ref, err, url, mode = sys.argv[1:6]
lines = E.read_lines(got)
if mode == "dgram":	# the datagram may carry a syslog header: the event is the JSON at its end
    def strip(l):
        i = l.find(b'{"')
        assert i >= 0, ("no JSON in", l[:200])
        return l[i:]
    lines = [strip(l) for l in lines]
E.parse_json_lines(lines, got)
E.check_count(E.summary(err), url, len(lines), got)
ref = E.read_lines(ref)
if lines != ref:
    for i, (a, b) in enumerate(zip(lines, ref)):
        if a != b:
            raise AssertionError("line %d differs:\n got %r\n stdout %r" % (i + 1, a[:300], b[:300]))
    raise AssertionError("%d lines, stdout has %d" % (len(lines), len(ref)))
print("ok", len(lines))
PY
}
cmp_stream tcp "syslog-ng network(tcp) got exactly the emitted lines, in order, valid JSON" \
	"$SNG/tcp.out" "$TCP"
cmp_stream rfc "syslog-ng syslog() (RFC 5424, octet-counted) got exactly the emitted lines as MSG" \
	"$SNG/rfc.out" "$RFC"
cmp_stream dgram "syslog-ng unix-dgram got exactly the emitted lines (syslog:PATH)" \
	"$SNG/dgram.out" "$DGRAM" dgram
cmp_stream stream "syslog-ng unix-stream got exactly the emitted lines (unix:PATH)" \
	"$SNG/stream.out" "$UNIX"
pycheck hdr "RFC 5424 header: APP-NAME agent, PROCID the agent's pid, user.info (<14>)" \
	"$SNG/rfc.hdr" "$apid" <<'PY'
import sys
hdr = open(sys.argv[1]).read().split("\n")[:-1]
assert hdr, "no messages"
for h in hdr:
    prog, pid, host, fac, lvl = h.split(" ")
    assert (prog, pid, fac, lvl) == ("agent", sys.argv[2], "user", "info"), h
print("ok")
PY

# nginx: one access-log entry per POST, its body kept. nginx logs a request
# after it answered it, so the agent can have its 200 (and exit) before the
# last entry is written: wait (bounded) until the bodies hold the $N lines.
body_lines() {	# body_lines LOG: the lines in the logged bodies
	python3 -c 'import json, sys
print(sum(json.loads(l)["body"].count("\n") for l in open(sys.argv[1], encoding="utf-8")))' "$1"
}
body_lines_are() { [ "$(body_lines "$1")" -ge "$2" ]; }
wait_for 30 body_lines_are "$NGX/logs/access.log" $N
settled "$NGX/logs/access.log"
pycheck http "nginx got every batch: bodies concatenated == the emitted lines, each batch <= 4096 bytes of whole lines" \
	"$NGX/logs/access.log" "$TMP/out" "$TMP/err" "$HTTP" <<'PY'
import json, sys, e2e_out as E
log, ref, err, url = sys.argv[1:5]
reqs = [json.loads(l) for l in open(log, encoding="utf-8")]
bodies = []
for r in reqs:
    assert r["status"] == "200" and r["method"] == "POST", r
    assert r["ct"].startswith("application/x-ndjson"), r["ct"]
    b = r["body"].encode()
    assert b and b.endswith(b"\n"), ("a batch does not end in a whole line", b[-100:])
    assert len(b) <= 4096, ("batch larger than --batch-bytes", len(b))
    bodies.append(b)
assert len(bodies) >= 2, ("--batch-bytes 4096 should make several POSTs", len(bodies))
data = b"".join(bodies)
lines = data.split(b"\n")[:-1]
E.parse_json_lines(lines, "http")
E.check_count(E.summary(err), url, len(lines), "http")
assert data == open(ref, "rb").read(), "POSTed lines differ from stdout (lost, duplicated or reordered)"
print("ok", len(reqs), "POSTs", len(lines), "lines")
PY
stop_syslog_ng; stop_nginx
finish
