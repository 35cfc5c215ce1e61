#!/usr/bin/env bash
# Request bodies a server reads after it has answered, and chunked request
# bodies. nginx answers a location of `return 200` at once and reads the
# body it has no use for afterwards (its lingering discard), on the same
# keep-alive connection, before it reads the next request. Python's
# http.client sends a large body apart from its head, so nginx often answers
# it early; a raw-socket client makes that certain by reading each answer
# before it sends the body. Each upload must be one record a side with every
# byte the client sent in its request bytes, and the request after it on the
# connection one of its own: before, the late body's bytes were lost from the
# record or taken for a request of their own, and a chunked body ran into the
# next request. A chunked body whose chunks' size lines pass the snaplen
# runs to the close. And chunked responses (Node's HTTP server) to requests
# h2load pipelines: each must end at its last chunk. The clients' own counts of what they sent are the ground
# truth, with nginx's access log for the count and each status.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_servers.sh"
need_live
need_pkgs nginx-light nodejs nghttp2-client
t0=$SECONDS

PORT=18090 NPORT=18091
port_free "$PORT" || PORT=$(free_port)
port_free "$NPORT" || NPORT=$(free_port)
NGX=$SRV/nginx
mkdir -p "$NGX/logs" "$NGX/tmp" "$NGX/www"
echo "small file" >"$NGX/www/small.txt"
cat >"$NGX/nginx.conf" <<EOF
$(ngx_head "$NGX")
	client_body_temp_path $NGX/tmp/body;
	proxy_temp_path $NGX/tmp/proxy;
	log_format req '\$remote_port \$connection_requests \$status \$bytes_sent "\$request"';
	server {
		listen 127.0.0.1:$PORT;
		root $NGX/www;
		access_log $NGX/logs/access.log req;
		location /early { client_max_body_size 10m; return 200 "ok\n"; }
	}
}
EOF
srv_start nginx nginx -p "$NGX" -c "$NGX/nginx.conf" -e "$NGX/logs/error.log"
NGINX_PID=$SRV_PID
expect "nginx listens on 127.0.0.1:$PORT" wait_port "$PORT" || cat "$SRV/nginx.log"
# Node's HTTP server answers in two writes with no length: chunked; it counts
# the requests it served and says so when it stops.
cat >"$SRV/chunked.js" <<'JS'
let n = 0;
require("http").createServer((req, res) => {
	req.resume();
	req.on("end", () => { n++; res.write("part one, "); res.end("part two\n"); });
}).listen(+process.argv[2], "127.0.0.1");
process.on("SIGTERM", () => { console.log("served " + n); process.exit(0); });
JS
srv_start node node "$SRV/chunked.js" "$NPORT"
NODE_PID=$SRV_PID
expect "node listens on 127.0.0.1:$NPORT" wait_port "$NPORT" || cat "$SRV/node.log"
expect "the agent starts in request mode" req_agent_start "req.sport=$PORT or req.sport=$NPORT"

# Each client prints one JSON line per request: its port, the request's number
# on its connection, method, path, the bytes it sent and the status it got.
SENT=$TMP/sent.json
raw_client() {
	timeout 30 /usr/bin/python3 - "$PORT" >>"$SENT" <<'PY'
import json, socket, sys, req_lib as R

def response(s, buf):
    """One response off S (BUF: what came before): its status, and the bytes after it."""
    head, _, rest = R.http_response(s, buf)
    return int(head.split()[1]), rest

def chunked(sizes, ext=b"", trailer=b""):
    body = b"".join(b"%x%s\r\n%s\r\n" % (n, ext, b"c" * n) for n in sizes)
    return body + b"0\r\n" + trailer + b"\r\n"

s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
port, seq = s.getsockname()[1], 0
def done(method, path, sent, status):
    global seq
    seq += 1
    print(json.dumps(dict(cport=port, seq=seq, method=method, path=path, sent=sent, status=status)))

buf = b""
# 1. a 30000-byte body after the answer, in three sends
head = b"POST /early/a HTTP/1.1\r\nHost: e2e\r\nContent-Length: 30000\r\n\r\n"
s.sendall(head)
status, buf = response(s, buf)
for _ in range(3):
    s.sendall(b"a" * 10000)
done("POST", "/early/a", len(head) + 30000, status)
# 2. a chunked body after the answer: extensions, a trailer field
head = b"POST /early/b HTTP/1.1\r\nHost: e2e\r\nTransfer-Encoding: chunked\r\n\r\n"
body = chunked((500, 17, 1), b";x=y", b"X-Trailer: 1\r\n")
s.sendall(head)
status, buf = response(s, buf)
s.sendall(body)
done("POST", "/early/b", len(head) + len(body), status)
# 3. a chunked upload, its body and the next request in one send (pipelined):
# two requests
one = b"POST /early/c HTTP/1.1\r\nHost: e2e\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked((300, 300))
two = b"GET /small.txt HTTP/1.1\r\nHost: e2e\r\n\r\n"
s.sendall(one + two)
status, buf = response(s, buf)
done("POST", "/early/c", len(one), status)
status, buf = response(s, buf)
done("GET", "/small.txt", len(two), status)
# 4. a body the server has already answered, then a request on the connection
head = b"POST /early/d HTTP/1.1\r\nHost: e2e\r\nContent-Length: 5000\r\n\r\n"
s.sendall(head)
status, buf = response(s, buf)
s.sendall(b"d" * 5000)
done("POST", "/early/d", len(head) + 5000, status)
s.sendall(two)
status, buf = response(s, buf)
done("GET", "/small.txt", len(two), status)
s.close()
# 5. on a connection of its own, a chunked body of 64 KiB chunks after the
# answer, then the close: nginx reads it 4096 bytes at a time, of which the
# agent sees 2048, so a chunk's size line may be out of sight; the body then
# runs to the close, every byte counted all the same
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
port, seq = s.getsockname()[1], 0
head = b"POST /early/e HTTP/1.1\r\nHost: e2e\r\nTransfer-Encoding: chunked\r\n\r\n"
body = chunked((0x10000,) * 4 + (100,))
s.sendall(head)
status, buf = response(s, b"")
s.sendall(body)
s.shutdown(socket.SHUT_WR)
while s.recv(65536):	# nginx closes once it has read the body
    pass
s.close()
done("POST", "/early/e", len(head) + len(body), status)
PY
}
# Python's own HTTP client: bytes bodies (a large one goes apart from its
# head) and a generator's, which it sends chunked, each chunk in a send.
http_client() {
	timeout 30 /usr/bin/python3 - "$PORT" >>"$SENT" <<'PY'
import http.client, json, sys

class Counting(http.client.HTTPConnection):
    sent = 0
    def send(self, data):
        self.sent += len(data)
        super().send(data)

c = Counting("127.0.0.1", int(sys.argv[1]))
seq = 0
def one(method, path, **kw):
    global seq
    c.sent = 0
    c.request(method, path, **kw)
    r = c.getresponse()
    r.read()
    seq += 1
    print(json.dumps(dict(cport=c.sock.getsockname()[1], seq=seq, method=method, path=path,
                          sent=c.sent, status=r.status)))

def gen(n, size):
    for _ in range(n):
        yield b"g" * size

one("GET", "/small.txt")
for i in range(3):
    one("POST", "/early/big%d" % i, body=b"y" * 70000, headers={"Content-Type": "text/plain"})
for i in range(3):
    one("POST", "/early/gen%d" % i, body=gen(3, 400), encode_chunked=True)
one("GET", "/small.txt")
c.close()
PY
}
: >"$SENT"
expect "the raw-socket client's uploads were answered" raw_client
expect "http.client's uploads were answered" http_client
# h2load pipelines 4 requests at a time on each of its 2 connections: each
# chunked response must end at its last chunk, not run into the next one's
pipelined() {
	timeout 30 h2load --h1 -n 40 -c 2 -m 4 "http://127.0.0.1:$NPORT/chunked" >"$TMP/h2load.out" 2>&1 &&
		grep -q '40 succeeded' "$TMP/h2load.out"
}
expect "h2load's 40 pipelined requests to node succeeded" pipelined || tail -n 5 "$TMP/h2load.out"
req_agent_stop; rc=$?
expect "the agent exits 0" [ $rc = 0 ] || tail -n 5 "$REQ_ERR"
srv_stop "$NGINX_PID" QUIT
srv_stop "$NODE_PID" TERM

req_check bodies "one record a side per request: method, path, status, and every byte the client sent in the request bytes, the server's and the client's alike; as many as nginx's log says, with its statuses" \
	"$REQ_OUT" "$SENT" "$NGX/logs/access.log" "$PORT" "$REQ_ERR" <<'PY'
import json, re, sys, req_lib as R
out, sent, log, port, err = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
want = [json.loads(l) for l in open(sent)]
logged = [l.split('"')[0].split() for l in open(log)]
recs = [r for r in R.records(out) if r.get("req.sport") == port]
print("the clients made %d requests (%d with bodies), nginx logged %d; the agent has %d records, %d aborted or timed out"
      % (len(want), sum(1 for w in want if w["method"] == "POST"), len(logged), len(recs), len(R.ABORTED)))
bad = []
for side in ("server", "client"):
    got = {R.conn_key(r): r for r in recs if r.get("req.side") == side}
    if len(got) != len([r for r in recs if r.get("req.side") == side]):
        bad.append("%s side: two records of one request" % side)
    for w in want:
        r = got.pop((w["cport"], w["seq"]), None)
        exp = (w["method"], w["path"], w["status"], w["sent"])
        if not r:
            bad.append("%s side: no record of %r" % (side, exp))
            continue
        have = (r.get("req.method"), r.get("req.path"), r.get("req.status"), r.get("req.request_bytes"))
        if have != exp or r.get("req.protocol") != "http":
            bad.append("%s side: %r, the client sent %r: %s" % (side, have, exp, R.short(r)))
    for r in got.values():
        bad.append("%s side: a record of no request: %s" % (side, R.short(r)))
# nginx's log: as many, with the statuses (it logs a discarded body's
# request once the body has been read)
if sorted(int(l[2]) for l in logged) != sorted(w["status"] for w in want):
    bad.append("nginx's statuses %r, the clients' %r" % (sorted(l[2] for l in logged), sorted(w["status"] for w in want)))
# the last upload's one write of 262 KiB: the client's side cannot see its
# size lines past the first 2048 bytes, so its walk is lost at least there
m = re.search(r"(\d+) past the snaplen", open(err).read())
print("chunked walks lost past the snaplen (the exit line): %s" % (m and m[1]))
if not m or int(m[1]) < 1:
    bad.append("no chunked walk lost past the snaplen: %r" % (m and m[1]))
assert not R.ABORTED, [R.short(r) for r in R.ABORTED[:5]]
assert not bad, "\n".join(["%d differences" % len(bad)] + bad[:12])
print("ok")
PY
req_check sides "each request has its server-side record, never slower than the client's" \
	"$REQ_OUT" "$PORT" <<'PY'
import sys, req_lib as R
R.check_sides(sys.argv[1], "http", ("python3",), ("nginx",), sport=int(sys.argv[2]))
print("ok")
PY
req_check chunked "chunked responses to pipelined requests: one record a side per request h2load made, as many as node served, each GET 200 of the same bytes, their sum h2load's traffic" \
	"$REQ_OUT" "$NPORT" "$TMP/h2load.out" "$SRV/node.log" <<'PY'
import re, sys, req_lib as R
out, port, h2load, served = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
recs = [r for r in R.records(out) if r.get("req.sport") == port]
traffic = int(re.search(r"traffic: \S+ \((\d+)\) total", open(h2load).read())[1])
n = int(re.search(r"served (\d+)", open(served).read())[1])
by = R.counts((r.get("req.side"), r.get("req.method"), r.get("req.path"), r.get("req.status"),
               r.get("req.response_bytes")) for r in recs)
print("node served %d, h2load read %d bytes; records %s; %d aborted or timed out"
      % (n, traffic, by, len(R.ABORTED)))
sides = {s: [r for r in recs if r.get("req.side") == s] for s in ("server", "client")}
for s, rs in sides.items():
    assert len(rs) == n == 40, (s, len(rs), "node served", n)
    assert all((r.get("req.method"), r.get("req.path"), r.get("req.status")) == ("GET", "/chunked", 200)
               for r in rs), [R.short(r) for r in rs][:5]
    assert len({r.get("req.response_bytes") for r in rs}) == 1, (s, by)
assert sum(r["req.response_bytes"] for r in sides["client"]) == traffic, (by, traffic)
assert not R.ABORTED, [R.short(r) for r in R.ABORTED[:5]]
R.check_sides(out, "http", ("h2load",), ("node",), sport=port)
print("ok")
PY
echo "    $((SECONDS - t0)) s"
finish
