#!/usr/bin/env bash
# Request mode over HTTP/2 (issue 34): nginx with `http2` on a TLS port (ALPN
# h2, a certificate the test makes with openssl req) and on a cleartext port
# (h2c, prior knowledge). Clients: curl --http2 over TLS (keep-alive across
# URLs) and --http2-prior-knowledge in cleartext (a 300 kB body whose frames
# fill whole reads, 404s, a refused POST), and h2load (nghttp2-client) with 4
# streams in flight on each of its connections, bodies of several frames. Ground
# truth is nginx's access log with $server_protocol: per client port, the
# agent's server-side records name the same (method, path, status) as its
# lines, as many times each (h2load's streams end in any order), all
# req.protocol http2, req.tls exactly on the TLS port; each client's records
# the same. A connection opened before the agent (a Python h2 client, Debian's
# python3-h2) has its later requests counted with unknown headers: no method,
# path or status, never a guessed one.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_servers.sh"
need_live
need_pkgs nginx-light curl openssl nghttp2-client python3-h2
t0=$SECONDS

PTLS=18453
PH2C=18454
port_free "$PTLS" || PTLS=$(free_port)
port_free "$PH2C" || PH2C=$(free_port)
NGX=$SRV/nginx-h2
mkdir -p "$NGX/logs" "$NGX/www"
echo "small file" >"$NGX/www/small.txt"
head -c 300000 /dev/urandom >"$NGX/www/big.bin"
head -c 20000 /dev/urandom >"$NGX/www/mid.bin"
expect "openssl makes a self-signed certificate" self_cert "$NGX"
# nginx 1.22: http2 is a listen parameter
{ ngx_head "$NGX"; cat <<EOF2; } >"$NGX/nginx.conf"
	client_body_temp_path $NGX/body;
	keepalive_requests 100000;
	http2_max_requests 100000;
	log_format req '\$server_port \$remote_port \$status "\$request" \$server_protocol';
	server {
		listen 127.0.0.1:$PTLS ssl http2;
		listen 127.0.0.1:$PH2C http2;
		ssl_certificate $NGX/cert.pem;
		ssl_certificate_key $NGX/key.pem;
		root $NGX/www;
		access_log $NGX/logs/access.log req;
	}
}
EOF2
srv_start nginx nginx -p "$NGX" -c "$NGX/nginx.conf" -e "$NGX/logs/error.log"
NGINX_PID=$SRV_PID
expect "nginx listens on 127.0.0.1:$PTLS (TLS) and :$PH2C (h2c)" wait_port "$PTLS" ||
	cat "$SRV/nginx.log"

# A connection the agent will not see begin: two requests now, three once
# the agent runs (it waits for $TMP/go), then it closes.
/usr/bin/python3 - "$PH2C" "$TMP/go" >"$TMP/early.out" 2>&1 <<'PY' &
import os, socket, sys, time
import h2.config, h2.connection, h2.events
port, go = int(sys.argv[1]), sys.argv[2]
s = socket.create_connection(("127.0.0.1", port), timeout=10)
c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
c.initiate_connection()
s.sendall(c.data_to_send())
def get(path):
    sid = c.get_next_available_stream_id()
    c.send_headers(sid, [(":method", "GET"), (":scheme", "http"), (":authority", "localhost"),
                         (":path", path), ("x-early", "a" * 40)], end_stream=True)
    s.sendall(c.data_to_send())
    while True:
        data = s.recv(65536)
        assert data, "closed"
        for e in c.receive_data(data):
            if isinstance(e, h2.events.DataReceived):
                c.acknowledge_received_data(e.flow_controlled_length, e.stream_id)
            if isinstance(e, h2.events.StreamEnded) and e.stream_id == sid:
                s.sendall(c.data_to_send())
                return
        s.sendall(c.data_to_send())
get("/small.txt")
get("/early/0")
print("before", flush=True)
t = time.time()
while not os.path.exists(go):
    assert time.time() - t < 60, "no go"
    time.sleep(0.05)
for p in ("/small.txt", "/early/1", "/small.txt?z"):
    get(p)
c.close_connection()
s.sendall(c.data_to_send())
s.close()
print("early client done", flush=True)
PY
EARLY_PID=$!
before() { grep -q before "$TMP/early.out"; }
expect "a client opens its h2c connection before the agent, 2 requests on it" wait_for 10 before ||
	cat "$TMP/early.out"

# --metrics too: the count of requests whose headers were unknown
MPORT=$(free_port)
REQ_AGENT_EXTRA="--metrics 127.0.0.1:$MPORT"
expect "the agent starts in request mode" req_agent_start "req.sport in ($PTLS, $PH2C)"
touch "$TMP/go"
early() { wait "$EARLY_PID" && grep -q "early client done" "$TMP/early.out"; }
expect "the early client made its 3 later requests on that connection" early || cat "$TMP/early.out"

# run CMD...: CMD, its failure said
run() { "$@" || { echo "    failed ($?): $*"; return 1; }; }
load() {
	local rc=0 u=https://127.0.0.1:$PTLS c=http://127.0.0.1:$PH2C p
	for _ in 1 2 3; do
		run timeout 10 curl -sk --http2 -o /dev/null -o /dev/null -o /dev/null -o /dev/null \
			"$u/small.txt" "$u/big.bin?a=b" "$u/missing" "$u/small.txt" || rc=1
		run timeout 10 curl -sk --http2 -o /dev/null -d x=1 "$u/small.txt" || rc=1	# 405
		# (curl 7.88 fails a second request on a prior-knowledge
		# connection to nginx 1.22: one each; h2load reuses them below)
		for p in /small.txt "/big.bin?a=b" /missing; do
			run timeout 10 curl -s --http2-prior-knowledge -o /dev/null "$c$p" || rc=1
		done
		# (nginx answers 405 without reading the body, then resets the
		# stream: curl may say 92, a stream error, after the answer)
		timeout 10 curl -s --http2-prior-knowledge -o /dev/null -d x=1 "$c/small.txt"
		case $? in 0|92) ;; *) echo "    curl's POST over h2c failed"; rc=1;; esac
	done
	# 4 streams in flight on each connection; bodies of several frames
	run timeout 30 h2load -n 200 -c 2 -m 4 "$u/small.txt" "$u/mid.bin" >"$TMP/h2load_tls.out" || rc=1
	run timeout 30 h2load -n 200 -c 2 -m 4 "$c/mid.bin" "$c/small.txt" >"$TMP/h2load_h2c.out" || rc=1
	run grep -q "200 succeeded" "$TMP/h2load_tls.out" "$TMP/h2load_h2c.out" || rc=1
	return $rc
}
expect "curl and h2load ran, every h2load request succeeded" load ||
	tail -n 5 "$TMP/h2load_tls.out" "$TMP/h2load_h2c.out"
# the early connection's 3 requests on each side: headers unknown
unknown_metric() {
	curl -s "http://127.0.0.1:$MPORT/metrics" >"$TMP/metrics.txt" &&
	grep -q '^agent_requests_not_followed_total{reason="http2_headers_unknown"} 6$' "$TMP/metrics.txt" &&
	grep -q '^agent_requests_not_followed_total{reason="http2_frames_lost"} 0$' "$TMP/metrics.txt"
}
expect "--metrics: 6 requests with HTTP/2 headers unknown, no frames lost" wait_for 30 unknown_metric ||
	grep http2 "$TMP/metrics.txt"
req_agent_stop; rc=$?
expect "the agent exits 0" [ $rc = 0 ] || tail -n 5 "$REQ_ERR"
srv_stop "$NGINX_PID" QUIT

EARLY_PORT=$(awk '$1 == '"$PH2C"' && $5 == "/early/0" {print $2; exit}' "$NGX/logs/access.log")
req_check h2 "per client port: the server-side records == the access log's lines, as many of each; each client's the same; http2, req.tls on the TLS port only" \
	"$REQ_OUT" "$REQ_ERR" "$NGX/logs/access.log" "$PTLS" "$PH2C" "$EARLY_PORT" <<'PY'
import re, sys, req_lib as R
out, err, log, ptls, ph2c, early = sys.argv[1:7]
ptls, ph2c, early = int(ptls), int(ph2c), int(early)
LINE = re.compile(r'^(\d+) (\d+) (\d+) "(\S+) (\S+) HTTP/2\.0" HTTP/2\.0$')
want = {}
for l in open(log):
    m = LINE.match(l.rstrip("\n"))
    assert m, ("an access log line I cannot read", l)
    sport, cport, status, method, target = m.groups()
    if int(cport) == early:
        continue
    want.setdefault(int(cport), []).append((method, target.split("?")[0], int(status)))
recs = R.records(out)
ours = [r for r in recs if r.get("req.sport") in (ptls, ph2c)]
h2 = [r for r in ours if r.get("req.protocol") == "http2" and r.get("req.cport") != early]
bad = []
for side in ("server", "client"):
    got = {}
    for r in h2:
        if r.get("req.side") == side:
            got.setdefault(r.get("req.cport"), []).append(
                (r.get("req.method"), r.get("req.path"), r.get("req.status")))
    n = sum(len(v) for v in got.values())
    print("  %s side: %d http2 records on %d connections (log: %d lines on %d)"
          % (side, n, len(got), sum(len(v) for v in want.values()), len(want)))
    for cport in sorted(set(got) | set(want)):
        g, w = sorted(got.get(cport, [])), sorted(want.get(cport, []))
        if g != w:
            bad.append("%s side, client port %s: agent %d records, log %d; first differences %s"
                       % (side, cport, len(g), len(w),
                          [x for x in R.diff_counts(R.counts(g), R.counts(w))][:3]))
for r in h2:
    if R.yes(r.get("req.tls")) != (r.get("req.sport") == ptls):
        bad.append("req.tls %s on port %s: %s" % (r.get("req.tls"), r.get("req.sport"), R.short(r)))
        break
other = [r for r in ours if r.get("req.protocol") not in ("http2", "tls")]
if other:
    bad.append("%d records neither http2 nor tls, e.g. %s" % (len(other), R.short(other[0])))
if any(r.get("req.sport") == ph2c for r in ours if r.get("req.protocol") == "tls"):
    bad.append("a tls record on the cleartext port")
big = [r for r in h2 if r.get("req.path") == "/big.bin" and r.get("req.side") == "client"]
if not big or any(r.get("req.bytes_in", 0) < 300000 for r in big):
    bad.append("big.bin's client records: %s" % [r.get("req.bytes_in") for r in big][:5])
if R.kernel_drops(err) != 0:
    bad.append("kernel drops: %s" % R.kernel_drops(err))
if not re.search(r"HTTP/2: 6 requests with unknown headers \(4 header tables not followed", open(err).read()):
    bad.append("the summary's HTTP/2 counts: %s" % re.findall(r"HTTP/2: [^;]*", open(err).read()))
assert not bad, "\n".join(bad[:12])
print("ok")
PY

req_check h2_early "the connection opened before the agent: its 3 later requests on each side, with no method, path or status" \
	"$REQ_OUT" "$EARLY_PORT" <<'PY'
import sys, req_lib as R
out, early = sys.argv[1], int(sys.argv[2])
recs = [r for r in R.records(out) if r.get("req.cport") == early]
print("  %d records on client port %d: %s" % (len(recs), early,
      [(r.get("req.side"), r.get("req.protocol"), r.get("req.method"), r.get("req.path"),
        r.get("req.status")) for r in recs]))
for side in ("server", "client"):
    rs = [r for r in recs if r.get("req.side") == side]
    assert len(rs) == 3, (side, len(rs))
    for r in rs:
        assert r.get("req.protocol") == "http2", r
        assert r.get("req.method") in (None, "") and r.get("req.path") in (None, "") \
            and r.get("req.status") is None, ("a header guessed", r)
        assert not R.yes(r.get("req.aborted")) and not R.yes(r.get("req.timeout")), r
print("ok")
PY
echo "    $((SECONDS - t0)) s"
finish
