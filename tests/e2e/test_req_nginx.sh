#!/usr/bin/env bash
# Request mode against nginx (issue 23): a small file, a 1 MB file, 404s and a
# refused POST, driven by ab with and without keep-alive and by curl reusing
# one connection for several URLs; and uploads with Expect: 100-continue
# (issue 31) from a raw-socket client, answered 100 Continue and then 201 once
# nginx has read the body. Ground truth is nginx's access log: the agent's
# server-side records equal its lines one for one (by client port and the
# connection's request number), and each request seen from ab, curl or the
# uploader has its server-side record, never slower than the client's. Then
# for metrics only, ab without keep-alive (nginx closes first): one record per
# request, every ab connection left to nginx's side.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_servers.sh"
need_live
need_pkgs nginx-light apache2-utils curl
t0=$SECONDS

PORT=18080 BPORT=18082
port_free "$PORT" || PORT=$(free_port)
port_free "$BPORT" || BPORT=$(free_port)
NGX=$SRV/nginx
mkdir -p "$NGX/logs" "$NGX/tmp" "$NGX/www" "$NGX/store"
echo "small file" >"$NGX/www/small.txt"
# big.bin: many reads a response. Its 40 responses are read by ab 8 KiB at a
# time, each read's first 2 KiB captured: at 256 KiB, 2.7 MB of events, which
# one CPU's 8 MiB ring holds even if the agent's reader does not run the whole
# while (nginx runs at real-time priority, below). At 1 MiB they were 10.8 MB,
# and a reader held off for tens of ms dropped events (1537 in one CI run).
head -c 262144 /dev/urandom >"$NGX/www/big.bin"
# keepalive_requests high enough for ab -k: each of its connections stays one.
# /upload/: nginx reads the whole body before it passes the request on
# (proxy_request_buffering, on by default), so its 100 Continue comes before
# the body and its 201 after it; the second server (only nginx talks to it)
# stores the body with WebDAV's PUT, which answers 201 for a new file. A
# location nginx answers itself (return 201) would answer before the body.
cat >"$NGX/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $NGX/nginx.pid;
error_log $NGX/logs/error.log;
events { worker_connections 256; }
http {
	# the POST's body; the other temporary folders (unused) are Debian's
	client_body_temp_path $NGX/tmp/body;
	proxy_temp_path $NGX/tmp/proxy;
	keepalive_requests 100000;
	client_max_body_size 1m;
	log_format req '\$remote_port \$connection \$connection_requests \$request_time \$status \$bytes_sent \$request_length "\$request"';
	server {
		listen 127.0.0.1:$PORT;
		root $NGX/www;
		access_log $NGX/logs/access.log req;
		location /upload/ {
			proxy_pass http://127.0.0.1:$BPORT;
			proxy_method PUT;
		}
		# the metrics-only run's, logged apart
		location /q/ {
			alias $NGX/www/;
			access_log $NGX/logs/q.log req;
		}
	}
	server {
		listen 127.0.0.1:$BPORT;
		root $NGX/store;
		access_log $NGX/logs/store.log req;
		dav_methods PUT;
		create_full_put_path on;
	}
}
EOF
srv_start nginx nginx -p "$NGX" -c "$NGX/nginx.conf" -e "$NGX/logs/error.log"
NGINX_PID=$SRV_PID
expect "nginx listens on 127.0.0.1:$PORT" wait_port "$PORT" || cat "$SRV/nginx.log"
# nginx at real-time priority (SCHED_FIFO): no normal task (a CPU hog beside the
# suite, the agent, ab) preempts it between its loop's reading of the clock and
# its reads and writes, which the bounds on $request_time below rest on.
expect "nginx runs at real-time priority" rt_on "$NGINX_PID"
# the front server's records, and nginx's calls to its own upload store on
# both sides (client-side, each names the upload it was made for: req.parent)
expect "the agent starts in request mode" req_agent_start "req.sport=$PORT or req.sport=$BPORT"

U=http://127.0.0.1:$PORT
load() {
	local rc=0
	timeout 30 ab -q -n 400 -c 4 "$U/small.txt" >/dev/null || rc=1
	timeout 30 ab -q -k -n 400 -c 4 "$U/small.txt?q=1" >/dev/null || rc=1
	timeout 30 ab -q -n 150 -c 4 "$U/missing" >/dev/null || rc=1
	timeout 30 ab -q -k -n 150 -c 4 "$U/gone/away?x=y" >/dev/null || rc=1
	timeout 30 ab -q -n 20 -c 2 "$U/big.bin" >/dev/null || rc=1
	timeout 30 ab -q -k -n 20 -c 2 "$U/big.bin" >/dev/null || rc=1
	# curl reuses its connection for the URLs of one command line
	for _ in 1 2 3 4 5; do
		timeout 10 curl -s -o /dev/null -o /dev/null -o /dev/null -o /dev/null \
			"$U/small.txt" "$U/big.bin?a=b" "$U/missing" "$U/small.txt" || rc=1
		timeout 10 curl -s -o /dev/null -d x=1 "$U/small.txt" || rc=1	# 405
	done
	return $rc
}
expect "ab and curl ran" load
# Three connections, each: two uploads of 200 KiB with Expect: 100-continue
# (the body sent only once the 100 Continue is read), then a GET on the same
# connection. Each answer is read to its Content-Length.
UPLOADS=6
uploads() {
	timeout 30 python3 - "$PORT" <<'PY'
import socket, sys, req_lib as R
BODY = bytes(range(256)) * 800	# 200 KiB

def response(s):
    """One response off S: its head and body (to its Content-Length)."""
    head, body, rest = R.http_response(s)
    assert not rest, ("more than one response came", head)
    return head, body

for c in range(3):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
    for u in range(2):
        s.sendall(b"POST /upload/c%d-u%d.bin HTTP/1.1\r\nHost: e2e\r\nContent-Length: %d\r\n"
                  b"Expect: 100-continue\r\n\r\n" % (c, u, len(BODY)))
        head, _ = response(s)
        assert head == b"HTTP/1.1 100 Continue\r\n\r\n", head
        s.sendall(BODY)
        head, _ = response(s)
        assert head.startswith(b"HTTP/1.1 201 "), head
    s.sendall(b"GET /small.txt HTTP/1.1\r\nHost: e2e\r\n\r\n")
    head, body = response(s)
    assert head.startswith(b"HTTP/1.1 200 ") and body == b"small file\n", head
    s.close()
PY
}
expect "the uploader got 100 Continue, then 201, $UPLOADS times, and a GET after on each connection" uploads
req_agent_stop; rc=$?
expect "the agent exits 0" [ $rc = 0 ] || tail -n 5 "$REQ_ERR"
# Metrics only (-q, no filter): ab without keep-alive asks HTTP/1.0, so nginx
# closes each connection first, after its response and before ab reads it.
# Each request is nginx's record alone: every ab connection is left to its
# server's side, though that side has closed by the time ab reads.
QN=300
MPORT=$(free_port)
expect "the agent starts in request mode for metrics only (-q --metrics)" \
	start_agent "$TMP/q.out" "$TMP/q.err" --requests -q --metrics "127.0.0.1:$MPORT"
expect "ab ran $QN requests without keep-alive" timeout 30 ab -q -n $QN -c 2 "$U/q/small.txt"
req_agent_stop; rc=$?
expect "the metrics-only agent exits 0" [ $rc = 0 ] || tail -n 5 "$TMP/q.err"
srv_stop "$NGINX_PID" QUIT
# nginx really read each body: the server behind it stored all of it
stored() {
	local f n=0
	for f in "$NGX"/store/upload/*.bin; do
		[ "$(stat -c %s "$f")" = 204800 ] && n=$((n + 1))
	done
	[ "$n" = "$UPLOADS" ]
}
expect "nginx passed on each upload's 200 KiB body whole ($UPLOADS files of 204800 bytes)" stored

req_check nginx "server-side records == the access log: count, per (method, path, status), and each request's method, path, status, bytes both ways, duration" \
	"$REQ_OUT" "$REQ_ERR" "$NGX/logs/access.log" "$PORT" <<'PY'
import re, sys, req_lib as R
out, err, log, front_port = sys.argv[1:5]
LINE = re.compile(r'^(\d+) (\d+) (\d+) ([\d.]+) (\d+) (\d+) (\d+) "(\S+) (\S+) HTTP/1\.[01]"$')
want = {}
lines = 0
for l in open(log):
    m = LINE.match(l.rstrip("\n"))
    assert m, ("an access log line I cannot read", l)
    lines += 1
    port, conn, nreq, secs, status, sent, rlen, method, target = m.groups()
    want.setdefault((int(port), int(nreq)), []).append(
        dict(method=method, path=target.split("?")[0], status=int(status),
             bytes=int(sent), rbytes=int(rlen), secs=float(secs), line=l.strip()))
recs = R.records(out)
server = [r for r in recs if r.get("req.side") == "server" and r.get("req.sport") == int(front_port)]
other = [r for r in server if r.get("req.protocol") != "http"]
print("agent: %d records (%d server-side, %d not http), %d aborted or timed out, kernel drops %s; log: %d lines"
      % (len(recs), len(server), len(other), len(R.ABORTED), R.kernel_drops(err), lines))
for r in other[:5]:
    print("  not http:", R.short(r))
server = [r for r in server if r.get("req.protocol") == "http"]
bad = []
got_c = R.counts((r.get("req.method"), r.get("req.path"), r.get("req.status")) for r in server)
want_c = R.counts((w["method"], w["path"], w["status"]) for v in want.values() for w in v)
d = R.diff_counts(got_c, want_c)
for k, g, w in d:
    bad.append("(method, path, status) %s: agent %d, log %d" % (k, g, w))
# nginx's $request_time is the difference of two millisecond-truncated clocks
# that nginx reads only when epoll_wait returns: the one before the request's
# read and the one before its last write. So it is never above the true time by
# more than the truncation (1 ms, plus 0.5 ms for the moment between epoll's
# return and the read, which no normal task can stretch: nginx runs at
# real-time priority), while a request nginx served within one turn of its
# loop reads 0.000 however long that turn took (nginx's own work; interrupts
# can still take the CPU from it: seen up to 3 ms on a busy machine before it
# ran at real-time priority). Hence: the agent's duration is more than 1.5 ms
# from $request_time for at most 1% of the requests, and never by more than
# 20 ms. Below it only where the host stopped nginx's virtual CPU between its
# clock read and the read's exit, or its client's between the write's enqueue
# and its exit (a server's record nests in its client's): no real-time
# priority holds a CPU the host took. These are bounds on nginx's clock reads,
# which the kernel keeps only as far as nginx runs: how many pass 1.5 ms
# depends on how busy the machine is (a fresh-clone CI run saw 12 of 1174,
# past a 1% bound), so that count is reported, not checked; the 20 ms bound
# is. The exact check of the times is the nesting in the client's
# (check_sides).
LOW, HIGH, MOST = -0.0015, 0.0015, 0.020
over = []
maxdiff = 0.0
unmatched = []
for r in server:
    w = want.get((r.get("req.cport"), r.get("req.seq")))
    if not w:
        unmatched.append(r)
        continue
    w = w.pop(0)
    why = []
    # $bytes_sent counts a 100 Continue before the final response, as the
    # record's response bytes do; $request_length the body sent after it,
    # but not one nginx throws away unread: curl's "x=1" to a file (405)
    if w["status"] == 405:
        w["rbytes"] += len("x=1")
    for k, f in (("method", "req.method"), ("path", "req.path"), ("status", "req.status"),
                 ("bytes", "req.response_bytes"), ("rbytes", "req.request_bytes")):
        if r.get(f) != w[k]:
            why.append("%s %r != log %r" % (k, r.get(f), w[k]))
    dur = r.get("req.duration")
    if not isinstance(dur, int):
        why.append("duration %r is not an integer" % (dur,))
    else:
        diff = dur / 1e9 - w["secs"]
        maxdiff = max(maxdiff, abs(diff))
        if diff > HIGH or diff < LOW:
            over.append("%.6f s vs %.3f: %s" % (dur / 1e9, w["secs"], w["line"]))
        if diff < -MOST or diff > MOST:
            why.append("duration %.6f s vs $request_time %.3f" % (dur / 1e9, w["secs"]))
    if why:
        bad.append("; ".join(why) + "\n    record: " + R.short(r) + "\n    log:    " + w["line"])
left = [w["line"] for v in want.values() for w in v]
for r in unmatched[:10]:
    bad.append("record with no log line: " + R.short(r))
for l in left[:10]:
    bad.append("log line with no record: " + l)
print("matched %d, unmatched records %d, log lines left %d, max |duration - $request_time| %.6f s, "
      "%d off it by more than %.4f s" % (len(server) - len(unmatched), len(unmatched), len(left),
                                         maxdiff, len(over), HIGH))
for o in over[:3]:
    print("  off by more than %.4f s: %s" % (HIGH, o))
assert len(server) == lines, ("server-side http records", len(server), "log lines", lines)
assert not bad, "\n".join(["%d differences" % len(bad)] + bad[:10])
print("ok")
PY

req_check sides "each request ab, curl or the uploader made has its server-side record, which is never slower" \
	"$REQ_OUT" "$PORT" <<'PY'
import sys, req_lib as R
R.check_sides(sys.argv[1], "http", ("ab", "curl", "python3"), ("nginx",), sport=int(sys.argv[2]))
print("ok")
PY

req_check uploads "each upload is one record a side: POST, the final 201, its body in the request bytes, both sides' bytes equal, the time to first byte the final response's" \
	"$REQ_OUT" "$UPLOADS" "$PORT" <<'PY'
import sys, req_lib as R
out, n, port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
HEAD = len(b"POST /upload/c0-u0.bin HTTP/1.1\r\nHost: e2e\r\nContent-Length: 204800\r\n"
           b"Expect: 100-continue\r\n\r\n")
CONT = len(b"HTTP/1.1 100 Continue\r\n\r\n")
ups = [r for r in R.records(out, "http") if (r.get("req.path") or "").startswith("/upload/")
       and r.get("req.sport") == port]
side = {s: {R.conn_key(r): r for r in ups if r.get("req.side") == s} for s in ("server", "client")}
print("upload records: %d server-side, %d client-side; by status %s"
      % (len(side["server"]), len(side["client"]), R.counts(r.get("req.status") for r in ups)))
for r in ups[:4]:
    print("  ", R.short(r), "ttfb", r.get("req.ttfb"), "request_bytes", r.get("req.request_bytes"))
bad = []
for r in ups:
    if (r.get("req.method"), r.get("req.status"), r.get("req.request_bytes")) != ("POST", 201, HEAD + 204800):
        bad.append("not POST, 201, %d request bytes: %s" % (HEAD + 204800, R.short(r)))
    # the final response follows the 100 Continue's 25 bytes
    if r.get("req.response_bytes", 0) <= CONT:
        bad.append("response bytes without the final response: " + R.short(r))
    if not 0 < r.get("req.ttfb", 0) <= r.get("req.duration", 0):
        bad.append("ttfb %r not in (0, duration]: %s" % (r.get("req.ttfb"), R.short(r)))
for k, s in side["server"].items():
    c = side["client"].get(k)
    if not c:
        bad.append("no client-side record: " + R.short(s))
    elif (c["req.request_bytes"], c["req.response_bytes"]) != (s["req.request_bytes"], s["req.response_bytes"]):
        bad.append("the sides' bytes differ:\n    %s\n    %s" % (R.short(s), R.short(c)))
    # nginx writes the 201 (no body) in one call: its first byte leaves with
    # its last, so the server's time to first byte is its whole duration,
    # never the 100 Continue's (written before the body was read)
    if s["req.ttfb"] != s["req.duration"]:
        bad.append("server-side ttfb %d != duration %d: %s" % (s["req.ttfb"], s["req.duration"], R.short(s)))
assert len(side["server"]) == n and len(side["client"]) == n, ("uploads", n, "records", len(side["server"]), len(side["client"]))
assert not bad, "\n".join(["%d differences" % len(bad)] + bad[:10])
print("ok")
PY
req_check store "nginx's calls to its own store (one process at both ends of each connection): a record a side, PUT and 201 as the store's log says, the store's never slower" \
	"$REQ_OUT" "$UPLOADS" "$BPORT" "$NGX/logs/store.log" <<'PY'
import sys, req_lib as R
out, n, bport, store = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
R.check_sides(out, "http", ("nginx",), ("nginx",), sport=bport)
recs = [r for r in R.records(out) if r.get("req.sport") == bport]
logged = sorted(l.split('"')[1].split()[1] for l in open(store) if '"PUT /upload/' in l and " 201 " in l)
for side in ("client", "server"):
    got = sorted(r.get("req.path") for r in recs if r.get("req.side") == side and
                 (r.get("req.method"), r.get("req.status")) == ("PUT", 201))
    assert got == logged, (side, got, "store log", logged)
assert len(recs) == 2 * n == 2 * len(logged), ("records", len(recs), "uploads", n, "store log", len(logged))
print("ok")
PY

req_check parents "nginx's call to the store for each upload (its client-side PUT) names that upload as req.parent; nothing else has one, and every req.id is unique" \
	"$REQ_OUT" "$UPLOADS" "$PORT" "$BPORT" "$NGX/logs/store.log" "$REQ_ERR" <<'PY'
import re, sys, req_lib as R
out, n, port, bport, store, err = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
recs = R.records(out)
ids = R.counts(r.get("req.id") for r in recs)
dup = [i for i, k in ids.items() if k > 1 or not isinstance(i, int) or i <= 0]
front = {r["req.path"]: r for r in recs if r.get("req.side") == "server" and r.get("req.sport") == port
         and r.get("req.method") == "POST"}
calls = [r for r in recs if r.get("req.side") == "client" and r.get("req.sport") == bport]
# (the store's own records of the calls have none: nginx read them on another connection)
stored = sum(1 for l in open(store) if '"PUT /upload/' in l and " 201 " in l)
print("%d records, %d uploads served, %d calls to the store (its log: %d PUTs answered 201), by (method, status, parent given) %s"
      % (len(recs), len(front), len(calls), stored,
         R.counts((c.get("req.method"), c.get("req.status"), c.get("req.parent") is not None) for c in calls)))
bad = ["req.id %r on %d records" % (i, ids[i]) for i in dup[:5]]
for c in calls:
    f = front.get(c.get("req.path"))
    if (c.get("req.method"), c.get("req.status"), c.get("proc.name")) != ("PUT", 201, "nginx"):
        bad.append("not nginx's PUT answered 201: " + R.short(c))
    if not f or c.get("req.parent") != f.get("req.id"):
        bad.append("parent %r, the upload's id %r: %s" % (c.get("req.parent"), f and f.get("req.id"), R.short(c)))
    elif not f["req.id"] < c["req.id"]:
        bad.append("the call's id is not after its upload's (ids go in the order requests began): " + R.short(c))
linked = {c.get("req.parent") for c in calls}
for r in recs:
    if r not in calls and r.get("req.parent") is not None:
        bad.append("a parent on a record that is no call to the store: " + R.short(r))
# the uploads came one connection at a time and nginx calls out for nothing
# else, so no call was made by a thread serving several requests
m = re.search(r"no req\.parent: (\d+) calls made by a thread serving several requests, (\d+) requests",
              open(err).read())
assert m and m.groups() == ("0", "0"), ("the exit line's calls without a parent", m and m.groups())
assert len(calls) == n == stored and len(linked) == n, ("calls", len(calls), "uploads", n, "store log", stored, "parents", len(linked))
assert not bad, "\n".join(["%d differences" % len(bad)] + bad[:10])
print("ok")
PY
req_check file_closes "nginx's closes of the files it served stayed in the kernel: the exit line counts at least one per file served (a GET answered 200 or 206)" \
	"$REQ_ERR" "$NGX/logs/access.log" <<'PY'
import re, sys
err, log = sys.argv[1:3]
served = sum(1 for l in open(log) if re.search(r' (200|206) \d+ \d+ "GET ', l))
m = re.search(r"; (\d+) closes of non-socket fds, (\d+) socket\(\) calls of TCP sockets and (\d+) socket "
              r"reads and writes that moved nothing kept in the kernel;", open(err).read())
assert m, "no closes of non-socket fds in the exit line"
# every process's count: ab, curl and the rest of the host close files too
print("files served %d, closes of non-socket fds kept in the kernel %s, TCP sockets' socket() %s"
      % (served, m.group(1), m.group(2)))
assert served > 0 and int(m.group(1)) >= served, (served, m.group(1))
# the clients' sockets were made while the agent ran (their records are
# checked against the access log above)
assert int(m.group(2)) > 0, m.group(2)
print("ok")
PY
req_check closes_first "metrics only, nginx closing first: one record per request; each of ab's connections left to nginx's side" \
	"$TMP/q.err" "$NGX/logs/q.log" "$QN" <<'PY'
import sys, req_lib as R
err, log, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
served = sum(1 for l in open(log) if '"GET /q/small.txt HTTP/1.0"' in l and " 200 " in l)
q = R.quiet_summary(err)
print("ab's requests %d, nginx served %d; paired %d records host-wide, %d client connections left to their server's side"
      % (n, served, q["paired"], q["quiet"]))
assert served == n, (served, n)
# nginx's records, and a few of other TCP on the host at most: none of ab's
# side (an agent that walked ab's connections made one for most of them)
assert n <= q["paired"] < n + n // 10, "paired %d records for %d requests" % (q["paired"], n)
assert q["quiet"] >= n, "only %d client connections were left to their server's side" % q["quiet"]
print("ok")
PY
echo "    $((SECONDS - t0)) s"
finish
