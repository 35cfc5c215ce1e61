#!/usr/bin/env bash
# Request mode's own claims (README, "Requests"), with a small Python server on
# loopback: the options it refuses, what -v says it loads and captures, the
# request line and -pp, a request never answered reported timed out after
# --request-timeout, a response cut by a close reported aborted, its -w file
# replayed by -r with the same records, the slow
# request filter with a unit (req.duration > 100ms), the service map written
# on SIGUSR1, and file I/O kept in the kernel (dd's two million reads and
# writes under capture send a fraction of that).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_servers.sh"
need_live
t0=$SECONDS

# 1. Options.
for args in "--service-map $TMP/m.json" "--request-timeout 2" "--requests --request-timeout 0"; do
	# shellcheck disable=SC2086
	"$AGENT" $args >"$TMP/opt.out" 2>&1
	rc=$?
	expect "agent $args is refused as a usage error ($(head -c 90 "$TMP/opt.out"))" [ $rc = 2 ]
done
expect "-pp with --requests prints the request line" \
	grep -q '%req.side %req.protocol' <("$AGENT" --requests -pp)

# 2. A server: / answers at once, /slow after 300 ms, /cut sends half its body
# and closes, /hang never answers.
PORT=$(free_port)
cat >"$TMP/srv.py" <<'PY'
import socket, sys, threading, time
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", int(sys.argv[1])))
ls.listen(64)
def serve(c):
    data = b""
    while b"\r\n\r\n" not in data:
        b = c.recv(4096)
        if not b:
            c.close(); return
        data += b
    path = data.split(b" ")[1]
    if path == b"/hang":
        time.sleep(4); c.close(); return
    if path == b"/slow":
        time.sleep(0.3)
    if path == b"/cut":
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + b"x" * 500)
        c.close(); return
    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
    c.close()
while True:
    c, _ = ls.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
srv_start py python3 "$TMP/srv.py" "$PORT"
SRV_PY=$SRV_PID
expect "the server listens" wait_port "$PORT"

# 3. The agent: -v's account, then the requests.
OUT=$TMP/req.out ERR=$TMP/req.err MAP=$TMP/map.json
expect "the agent starts in request mode" start_agent "$OUT" "$ERR" --requests -j \
	--request-timeout 1 --service-map "$MAP" -p "$REQ_FORMAT" -w "$TMP/req.scap" "req.sport=$PORT"
expect "-v: only IPv4 and IPv6 socket I/O leaves the kernel, 2048 bytes of buffers, the bounds" \
	grep -q 'request mode: only IPv4 and IPv6 socket I/O leaves the kernel, 2048 bytes of each buffer (64000 of an HTTP/2 connection.s); up to 4096 connections followed, 256 requests in flight on each, unanswered ones time out after 1.000 s' "$ERR"
expect "-v: exit-only capture" grep -q 'exit-only' "$ERR"
expect "-v: the filter's syscalls loaded, not every syscall" grep -q "for the filter's syscalls" "$ERR"
expect "-v: on those syscalls' own exit tracepoints" grep -qE 'on the own exit tracepoints of [0-9]+ syscalls' "$ERR"
expect "-v: with -w, socket I/O as sysdig's enter and exit events" \
	grep -q "socket I/O: sysdig's enter and exit events (-w keeps them)" "$ERR"
read -r loaded total < <(sed -nE 's/.*loaded ([0-9]+) of ([0-9]+) BPF programs.*/\1 \2/p' "$ERR")
expect "fewer programs than capture-all ($loaded of $total)" [ "${loaded:-999}" -lt "${total:-0}" ]
cu() { timeout 10 curl -s -o /dev/null "$@"; }
for i in 1 2 3; do cu "http://127.0.0.1:$PORT/fast?i=$i"; done
cu "http://127.0.0.1:$PORT/slow"
cu "http://127.0.0.1:$PORT/cut"
cu -m 3 "http://127.0.0.1:$PORT/hang" &
CURL_HANG=$!
# SIGUSR1 once the agent printed the server's records of the 4 answered
# requests (what the map counts); the map files are renamed into place.
server_records() { [ "$(grep -c '"req.side":"server"' "$OUT")" -ge "$1" ]; }
wait_for 30 server_records 4
kill -USR1 "$AGENT_PID"
expect "SIGUSR1 wrote the service map (JSON and DOT)" wait_for 30 test -s "$MAP" -a -s "$TMP/map.dot"
expect "the map has the curl -> python3 http edge" python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
n = {x["id"]: x for x in m["nodes"]}
e = [x for x in m["edges"] if n[x["source"]]["process"] == "curl" and n[x["target"]]["process"] == "python3"]
assert e and e[0]["protocol"] == "http" and e[0]["requests"] >= 4, m' "$MAP"
# curl gives up after 3 s and closes: an event 3 s after the request, which
# the agent meets past /hang's 1 s timeout (it ticks at each event's time)
wait "$CURL_HANG" 2>/dev/null
req_agent_stop
expect "the agent exits 0" [ $? = 0 ] || tail -n 5 "$ERR"
srv_stop "$SRV_PY"

req_check records "the server's records: 3 fast, 1 slow (>= 300 ms), /cut aborted, /hang timed out at 1 s" \
	"$OUT" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
srv = {}
for r in recs:
    if r["req.side"] == "server":
        srv.setdefault(r["req.path"], []).append(r)
print("server-side records by path:", {k: len(v) for k, v in srv.items()})
assert len(srv["/fast"]) == 3 and all(r["req.status"] == 200 and r["req.method"] == "GET" for r in srv["/fast"])
(slow,) = srv["/slow"]
# the server slept 0.3 s (CLOCK_MONOTONIC) between its read and its write; the
# driver stamps with CLOCK_BOOTTIME, which runs at least as far: a kernel bound
assert slow["req.duration"] >= 300e6 and slow["req.ttfb"] >= 300e6, slow
(cut,) = srv["/cut"]
assert cut["req.aborted"] is True and cut["req.status"] == 200 and cut["req.response_bytes"] == 41 + 500, cut
(hang,) = srv["/hang"]
assert hang["req.timeout"] is True and hang["req.duration"] == 1000000000 and hang.get("req.status") is None, hang
print("ok")
PY
# 3b. Its -w file replays (-r) with the same records, /hang timed out by the
# file's clock as live by the events'.
"$AGENT" -r "$TMP/req.scap" --requests -j --request-timeout 1 -p "$REQ_FORMAT" "req.sport=$PORT" \
	>"$TMP/replay.out" 2>"$TMP/replay.err"
expect "the agent replays its -w file with --requests" [ $? = 0 ] || tail -n 5 "$TMP/replay.err"
req_check replay "the replay's records are the live ones, field for field" "$OUT" "$TMP/replay.out" <<'PY'
import json, sys
key = lambda r: json.dumps(r, sort_keys=True)
a = sorted(map(json.loads, open(sys.argv[1])), key=key)
b = sorted(map(json.loads, open(sys.argv[2])), key=key)
assert a and a == b, ("differ", len(a), len(b), [r for r in a if r not in b][:1], [r for r in b if r not in a][:1])
print("  %d records alike" % len(a))
print("ok")
PY
n_enter=$("$AGENT" -r "$TMP/req.scap" -q "evt.dir='>' and evt.type in (read, recvfrom, write, sendto) and fd.sport=$PORT" 2>&1 |
	sed -nE 's/.* ([0-9]+) matched.*/\1/p')
expect "the -w file holds the socket calls' enter events (${n_enter:-?})" [ "${n_enter:-0}" -gt 0 ]

# 4. File I/O stays in the kernel: dd's 2,000,000 reads and writes (of
# /dev/zero and /dev/null) under request mode for dd's events; the driver sends
# the host's table-keeping calls (a few hundred here when idle, more while a
# busy host accepts and closes many connections), never a frame per call.
expect "the agent starts for dd (with -s 512)" start_agent "$OUT" "$ERR" --requests -q -s 512 'proc.name=dd'
expect "-s overrides request mode's 2048 bytes" grep -q 'leaves the kernel, 512 bytes of each buffer' "$ERR"
expect "-v: without -w, a TCP read or write as one compact event" \
	grep -q 'socket I/O: one compact event per TCP read or write that moved bytes' "$ERR"
# (and sendfile where the kernel sends its pages by sock_sendmsg, 6.5)
expect "-v: read, readv, write and writev taken at the socket tracepoints" \
	grep -Eq 'read, readv, write(, writev and sendfile| and writev) on the socket tracepoints' "$ERR"
expect "-v: without -w, closes sent when they begin, close's exit runs nothing" \
	grep -q "closes: sent when they begin, from close's enter tracepoint; close's exit runs no program" "$ERR"
timeout 60 dd if=/dev/zero of=/dev/null bs=64 count=1000000 2>/dev/null
stop_agent
n1=$(sed -nE 's/.*the driver sent ([0-9]+) events.*/\1/p' "$ERR" | tail -n 1)
expect "dd's file I/O stayed in the kernel (the driver sent ${n1:-?} events in all)" [ "${n1:-9999999}" -lt 1000000 ]

# 5. The slow request log: req.duration > 100ms, with a unit. A second agent
# beside it, without the duration test, gives each request's duration: the
# first must print exactly those over 100 ms, /slow (300 ms of sleep) among
# them, whatever a loaded machine made of the others.
srv_start py python3 "$TMP/srv.py" "$PORT"
SRV_PY=$SRV_PID
wait_port "$PORT"
"$AGENT" -v --requests -j -p '%req.side %req.path %req.duration' "req.sport=$PORT and req.side=server" \
	>"$TMP/all.out" 2>"$TMP/all.err" &
ALL_PID=$!
PIDS+=("$ALL_PID")
expect "an agent starts for every server-side request" wait_capturing "$TMP/all.err" "$ALL_PID"
expect "the agent starts with 'req.duration > 100ms'" start_agent "$OUT" "$ERR" --requests -j \
	-p '%req.side %req.path %req.duration' "req.sport=$PORT and req.side=server and req.duration > 100ms"
for i in 1 2; do cu "http://127.0.0.1:$PORT/fast"; done
cu "http://127.0.0.1:$PORT/slow"
req_agent_stop
kill -TERM "$ALL_PID"; wait "$ALL_PID"
srv_stop "$SRV_PY"
req_check slowlog "exactly the requests over 100 ms are printed, /slow among them" "$OUT" "$TMP/all.out" <<'PY'
import json, sys
got = [json.loads(l)["req.path"] for l in open(sys.argv[1])]
every = [json.loads(l) for l in open(sys.argv[2])]
want = [r["req.path"] for r in every if r["req.duration"] > 100e6]
print("printed %s; every request's duration (ms): %s" % (got, [(r["req.path"], r["req.duration"] // 10**6) for r in every]))
assert len(every) == 3 and "/slow" in want, every
assert got == want, (got, want)
print("ok")
PY

# 6. The default request line labels its amounts with their units (README,
# "Requests"); -j keeps the raw numbers. A fixed request of 31 bytes, a
# response of 59 (the server's own), on the server's side.
ask() {
	python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET " + sys.argv[2].encode() + b" HTTP/1.1\r\nHost: t\r\n\r\n")
while s.recv(4096):
    pass' "$PORT" "$1"
}
srv_start py python3 "$TMP/srv.py" "$PORT"
SRV_PY=$SRV_PID
wait_port "$PORT"
for mode in text json; do
	flag=(); [ $mode = json ] && flag=(-j)
	expect "the agent starts with the default request line ($mode)" start_agent "$OUT.$mode" "$ERR" \
		--requests "${flag[@]}" "req.sport=$PORT and req.side=server"
	ask /fast; ask /slow
	req_agent_stop
done
srv_stop "$SRV_PY"
req_check line "the default line: dur= and ttfb= with their units, in=31B out=59B; -j: the same fields as numbers, and the connection's TCP state" \
	"$OUT.text" "$OUT.json" <<'PY'
import json, re, sys
def ns(v):
    m = re.fullmatch(r"(\d+)(?:\.(\d\d))?(ns|us|ms|s)", v)
    assert m, v
    # evt.latency.human's rule: two decimals below 10 of a unit, whole units
    # from 10 on, bare ns below 1 us
    assert (m[2] is not None) == (int(m[1]) < 10 and m[3] != "ns"), v
    return (int(m[1]) + int(m[2] or 0) / 100) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[m[3]]
lines = open(sys.argv[1]).read().splitlines()
print("\n".join(lines))
pat = (r"\d\d:\d\d:\d\d\.\d{9} server http python3 \(\d+\) 127\.0\.0\.1:\d+ -> 127\.0\.0\.1:\d+ "
       r"GET (/fast|/slow) 200 dur=(\S+) ttfb=(\S+) in=(\S+) out=(\S+)")
got = [re.fullmatch(pat, l) for l in lines]
assert len(got) == 2 and all(got), lines
for m in got:
    assert m[4] == "31B" and m[5] == "59B", m.groups()
    assert ns(m[3]) <= ns(m[2]), m.groups()
slow = [m for m in got if m[1] == "/slow"][0]
assert ns(slow[2]) >= 300e6, slow.groups()	# the server slept 300 ms first
recs = [json.loads(l) for l in open(sys.argv[2])]
want = {"evt.outputtime", "req.side", "req.protocol", "proc.name", "thread.tid", "req.client",
        "req.server", "req.method", "req.path", "req.status", "req.duration", "req.ttfb",
        "req.bytes_in", "req.bytes_out", "req.tls", "req.sni", "tcp.retransmits", "tcp.srtt"}
assert len(recs) == 2 and all(set(r) == want for r in recs), recs
for r in recs:
    assert r["req.bytes_in"] == 31 and r["req.bytes_out"] == 59, r
    assert r["req.tls"] is False and r["req.sni"] is None, r	# plain HTTP
    assert isinstance(r["req.duration"], int) and 0 <= r["req.ttfb"] <= r["req.duration"], r
    # the connection's TCP state: the handshake gave the server an srtt
    assert isinstance(r["tcp.retransmits"], int) and r["tcp.retransmits"] >= 0, r
    assert isinstance(r["tcp.srtt"], int) and r["tcp.srtt"] > 0, r
print("ok")
PY
echo "    $((SECONDS - t0)) s"
finish
