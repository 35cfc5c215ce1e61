#!/usr/bin/env bash
# Request mode over TLS (issue 34): nginx serving HTTPS (a certificate the test
# makes with openssl req) to curl (OpenSSL) and wget (GnuTLS), keep-alive
# connections of several requests each, 200s, 404s and a refused POST. The
# driver's TLS probes read the plaintext of both libraries' calls, so every
# request is paired as HTTP with req.tls true. Ground truth is nginx's access
# log: per client port, the agent's server-side records name the same
# (method, path, status) in the same order as its lines; each client's own
# records name the same requests; no plaintext HTTP record lacks req.tls;
# a connection to a server name has it as req.sni on its records. A client
# in a runc container (its own mount namespace, the host's network) on the
# container's own copy of libssl, found through /proc/PID/root, is read too.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_servers.sh"
need_live
need_pkgs nginx-light curl wget openssl runc busybox-static
t0=$SECONDS

PORT=18443
port_free "$PORT" || PORT=$(free_port)
NGX=$SRV/nginx-tls
mkdir -p "$NGX/logs" "$NGX/www"
echo "small file" >"$NGX/www/small.txt"
head -c 300000 /dev/urandom >"$NGX/www/big.bin"
expect "openssl makes a self-signed certificate" self_cert "$NGX"
{ ngx_head "$NGX"; cat <<EOF2; } >"$NGX/nginx.conf"
	client_body_temp_path $NGX/body;
	keepalive_requests 100000;
	log_format req '\$remote_port \$status "\$request" \$server_protocol';
	server {
		listen 127.0.0.1:$PORT ssl;
		ssl_certificate $NGX/cert.pem;
		ssl_certificate_key $NGX/key.pem;
		root $NGX/www;
		access_log $NGX/logs/access.log req;
	}
}
EOF2
srv_start nginx nginx -p "$NGX" -c "$NGX/nginx.conf" -e "$NGX/logs/error.log"
NGINX_PID=$SRV_PID
expect "nginx listens on 127.0.0.1:$PORT" wait_port "$PORT" || cat "$SRV/nginx.log"
# -w too: the file keeps the TLS events, and replays (-r) to the same records;
# --metrics: the probed files' gauge
MPORT=$(free_port)
# (lib.sh: start_agent adds these words; finish checks that agent's drops)
REQ_AGENT_EXTRA="-w $TMP/tls.scap --metrics 127.0.0.1:$MPORT"
expect "the agent starts in request mode, writing -w" req_agent_start "req.sport=$PORT"
expect "-v says the TLS probes are on the libraries mapped now" \
	grep -qE "^agent: TLS probes on [2-9][0-9]* library files and [0-9]+ Go programs \(0 could not be probed\)" "$REQ_ERR"


U=https://127.0.0.1:$PORT
load() {
	local rc=0
	# curl reuses its connection for the URLs of one command line
	for _ in 1 2 3 4 5; do
		timeout 10 curl -sk --http1.1 -o /dev/null -o /dev/null -o /dev/null -o /dev/null \
			"$U/small.txt" "$U/big.bin?a=b" "$U/missing" "$U/small.txt" || rc=1
		timeout 10 curl -sk --http1.1 -o /dev/null -d x=1 "$U/small.txt" || rc=1	# 405
	done
	# a server name (SNI) in the ClientHello: on the connection's records
	timeout 10 curl -sk --http1.1 --resolve "sni.e2e.test:$PORT:127.0.0.1" -o /dev/null \
		-o /dev/null "https://sni.e2e.test:$PORT/small.txt" "https://sni.e2e.test:$PORT/sni" || rc=1
	# wget (GnuTLS) too, keep-alive across its URLs
	for _ in 1 2 3; do
		timeout 10 wget -q --no-check-certificate -O /dev/null \
			"$U/small.txt" "$U/big.bin" "$U/small.txt?x" || rc=1
		timeout 10 wget -q --no-check-certificate -O /dev/null "$U/nothere"	# 404: exit 8
	done
	return $rc
}
expect "curl and wget ran" load
# A client that maps a TLS library file no process mapped when the agent
# started (a copy, as a container's own would be): Debian's Python, whose ssl
# module calls SSL_read_ex and SSL_write_ex, with LD_LIBRARY_PATH on the copy.
# It makes its handshake, then waits until the agent has probed the copy (its
# perf events, one per probe, 4 functions x 2 and SSL_free, grow) before its
# requests.
perf_fds() { ls -l "/proc/$AGENT_PID/fd" 2>/dev/null | grep -c 'perf_event'; }
LIBCOPY=$TMP/tlslib
mkdir -p "$LIBCOPY"
cp "$(ldconfig -p | awk '/libssl.so.3 .*x86-64/ {print $NF; exit}')" \
   "$(ldconfig -p | awk '/libcrypto.so.3 .*x86-64/ {print $NF; exit}')" "$LIBCOPY/"
N0=$(perf_fds)
LD_LIBRARY_PATH=$LIBCOPY timeout 30 /usr/bin/python3 - "$PORT" "$TMP/go" >"$TMP/late.out" 2>&1 <<'PY' &
import os, socket, ssl, sys, time
ctx = ssl.create_default_context()
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10))
assert any("tlslib" in l for l in open("/proc/self/maps")), "not on the copy"
while not os.path.exists(sys.argv[2]):
    time.sleep(0.05)
f = s.makefile("rb")
for i in range(5):
    s.sendall(b"GET /late/%d HTTP/1.1\r\nHost: t\r\n\r\n" % i)
    n = 0
    while True:
        l = f.readline()
        if l.lower().startswith(b"content-length:"):
            n = int(l.split(b":")[1])
        if l in (b"\r\n", b""):
            break
    f.read(n)
s.close()
print("late client done")
PY
LATE_PID=$!
probed() { [ "$(perf_fds)" -ge $((N0 + 9)) ]; }
expect "the agent probes a libssl copy mapped after it started, within 15 s" wait_for 15 probed
touch "$TMP/go"
late() { wait "$LATE_PID" && grep -q "late client done" "$TMP/late.out"; }
expect "the late client made its 5 requests" late || cat "$TMP/late.out"

# openssl s_client in a container whose root holds its own copies of the
# binary and its libraries (ldd's list): it makes its handshake at once, then
# its shell waits for /go, which the test makes once the agent has probed the
# container's libssl (through /proc/PID/root), before two requests on the
# connection (the second asks nginx to close it).
CT=$TMP/ct
mkdir -p "$CT/rootfs/bin"
cp /bin/busybox "$CT/rootfs/bin/busybox"
for c in sh sleep printf; do ln -s busybox "$CT/rootfs/bin/$c"; done
cp /usr/bin/openssl "$CT/rootfs/bin/openssl"
for l in $(ldd /usr/bin/openssl | grep -o '/[^ ]*'); do
	mkdir -p "$CT/rootfs$(dirname "$l")"
	cp "$l" "$CT/rootfs$l"
done
(cd "$CT" && runc spec)
CT_CMD="while [ ! -e /go ]; do sleep 0.1; done
printf 'GET /ct/1 HTTP/1.1\\r\\nHost: ct\\r\\n\\r\\n'; sleep 1
printf 'GET /ct/2 HTTP/1.1\\r\\nHost: ct\\r\\nConnection: close\\r\\n\\r\\n'; sleep 1"
python3 - "$CT/config.json" "( $CT_CMD ) | /bin/openssl s_client -connect 127.0.0.1:$PORT -quiet >/dev/null" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["process"]["terminal"] = False
c["process"]["args"] = ["/bin/sh", "-c", sys.argv[2]]
c["linux"]["namespaces"] = [n for n in c["linux"]["namespaces"] if n["type"] != "network"]
json.dump(c, open(sys.argv[1], "w"))
PY
CT_NAME=e2e-tls-$$
trap 'runc kill "$CT_NAME" KILL >/dev/null 2>&1; runc delete -f "$CT_NAME" >/dev/null 2>&1; cleanup_out; cleanup_e2e' EXIT
N1=$(perf_fds)
timeout 30 runc run -b "$CT" "$CT_NAME" </dev/null >"$TMP/ct.log" 2>&1 &
CT_PID=$!
probed_ct() { [ "$(perf_fds)" -ge $((N1 + 9)) ]; }
expect "the agent probes the container's own libssl, within 15 s" wait_for 15 probed_ct
touch "$CT/rootfs/go"
ct_done() { wait "$CT_PID"; }
expect "the container's s_client made its 2 requests and ended" ct_done || cat "$TMP/ct.log"
tls_gauge() {
	curl -s "http://127.0.0.1:$MPORT/metrics" >"$TMP/metrics.txt" &&
	grep -qE '^agent_tls_library_files [4-9]' "$TMP/metrics.txt" &&
	grep -q '^agent_requests_not_followed_total{reason="tls_no_socket"} 0$' "$TMP/metrics.txt"
}
expect "the metrics give the 4 files probed (agent_tls_library_files), no TLS call on no socket" \
	wait_for 30 tls_gauge || grep tls "$TMP/metrics.txt"
req_agent_stop; rc=$?
expect "the agent exits 0" [ $rc = 0 ] || tail -n 5 "$REQ_ERR"
srv_stop "$NGINX_PID" QUIT
expect "the agent probed libssl, libgnutls and the two copies" grep -q "TLS: probes on [4-9][0-9]* library files" "$REQ_ERR"

req_check tls "over TLS, per client port: the server-side records == the access log's lines, in order; each client's records the same; all with req.tls" \
	"$REQ_OUT" "$REQ_ERR" "$NGX/logs/access.log" "$PORT" <<'PY'
import re, sys, req_lib as R
out, err, log, port = sys.argv[1:5]
port = int(port)
LINE = re.compile(r'^(\d+) (\d+) "(\S+) (\S+) HTTP/1\.[01]" HTTP/1\.1$')
want = {}
for l in open(log):
    m = LINE.match(l.rstrip("\n"))
    assert m, ("an access log line I cannot read", l)
    cport, status, method, target = m.groups()
    want.setdefault(int(cport), []).append((method, target.split("?")[0], int(status)))
recs = R.records(out)
http = [r for r in recs if r.get("req.protocol") == "http" and r.get("req.sport") == port]
server = [r for r in http if r.get("req.side") == "server"]
client = [r for r in http if r.get("req.side") == "client"]
n_log = sum(len(v) for v in want.values())
print("agent: %d records, %d http server-side, %d http client-side (%s); log %d lines on %d connections; kernel drops %s"
      % (len(recs), len(server), len(client),
         ", ".join("%s %d" % kv for kv in sorted(R.counts(r.get("proc.name") for r in client).items())),
         n_log, len(want), R.kernel_drops(err)))
bad = []
for side, rs in (("server", server), ("client", client)):
    got = {}
    for r in sorted(rs, key=lambda r: (r.get("req.conn"), r.get("req.seq"))):
        got.setdefault(r.get("req.cport"), []).append(
            (r.get("req.method"), r.get("req.path"), r.get("req.status")))
    for cport in sorted(set(got) | set(want)):
        if got.get(cport, []) != want.get(cport, []):
            bad.append("%s side, client port %s: agent %s, log %s"
                       % (side, cport, got.get(cport), want.get(cport)))
    notls = [r for r in rs if not R.yes(r.get("req.tls"))]
    if notls:
        bad.append("%d %s-side http records without req.tls, e.g. %s" % (len(notls), side, R.short(notls[0])))
procs = R.counts(r.get("proc.name") for r in client)
if not procs.get("curl") or not procs.get("wget") or procs.get("python3") != 5 or procs.get("openssl") != 2:
    bad.append("client-side records by process: %s (want curl's, wget's, python3's 5 and openssl's 2)" % procs)
sni = [(r.get("req.side"), r.get("req.path"), r.get("req.status")) for r in http if r.get("req.sni")]
if sorted(sni) != sorted([(s, "/small.txt", 200) for s in ("client", "server")] +
                         [(s, "/sni", 404) for s in ("client", "server")]) or \
        any(r.get("req.sni") != "sni.e2e.test" for r in http if r.get("req.sni")):
    bad.append("records with req.sni: %s (want curl's two requests to sni.e2e.test, both sides)" % sni)
hello = [r for r in recs if r.get("req.method") == "CLIENT_HELLO" and r.get("req.sni")]
if not hello or any(r.get("req.path") != "sni.e2e.test" for r in hello):
    bad.append("ClientHello records with a server name: %s" % [R.short(r) for r in hello])
# nginx peeks at each connection's first byte (MSG_PEEK) before its TLS
# library reads it: kept in the kernel, so its handshake pairs as TLS too
other = [r for r in recs if r.get("req.sport") == port and r.get("req.protocol") not in ("http", "tls")]
if other:
    bad.append("%d records neither http nor tls, e.g. %s" % (len(other), R.short(other[0])))
if not re.search(r"; [1-9][0-9]* peeks \(MSG_PEEK\) at sockets kept in the kernel", open(err).read()):
    bad.append("no peek kept in the kernel in the summary")
if R.kernel_drops(err) != 0:
    bad.append("kernel drops: %s" % R.kernel_drops(err))
assert not bad, "\n".join(bad[:12])
print("ok")
PY
"$AGENT" -r "$TMP/tls.scap" --requests -j -p "$REQ_FORMAT" "req.sport=$PORT" \
	>"$TMP/replay.out" 2>"$TMP/replay.err"
expect "the agent replays its -w file with --requests" [ $? = 0 ] || tail -n 5 "$TMP/replay.err"
req_check replay "the replay's records are the live ones, field for field (req.tls and req.sni too)" \
	"$REQ_OUT" "$TMP/replay.out" <<'PY'
import json, sys
key = lambda r: json.dumps(r, sort_keys=True)
a = sorted(map(json.loads, open(sys.argv[1])), key=key)
b = sorted(map(json.loads, open(sys.argv[2])), key=key)
assert a and a == b, ("differ", len(a), len(b), [r for r in a if r not in b][:1], [r for r in b if r not in a][:1])
assert any(r.get("req.tls") is True for r in b), "no TLS record in the replay"
print("  %d records alike, %d with req.tls" % (len(a), sum(r.get("req.tls") is True for r in b)))
print("ok")
PY

# --no-tls: no probes; the same kind of request is paired as TLS bytes
"$AGENT" -v --requests --no-tls -j -p "$REQ_FORMAT" "req.sport=$PORT" >"$TMP/notls.out" 2>"$TMP/notls.err" &
AGENT_PID=$!
expect "the agent starts with --no-tls" wait_capturing "$TMP/notls.err" "$AGENT_PID"
srv_start nginx nginx -p "$NGX" -c "$NGX/nginx.conf" -e "$NGX/logs/error.log"
expect "nginx listens again" wait_port "$PORT"
expect "curl fetches a page" timeout 10 curl -sk --http1.1 -o /dev/null "$U/small.txt"
srv_stop "$SRV_PID" QUIT
expect "the agent exits 0" stop_agent
notls() {
	! grep -q "TLS probes\|^agent: TLS:" "$TMP/notls.err" &&
	python3 - "$TMP/notls.out" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert recs and all(r["req.protocol"] == "tls" and r["req.tls"] is False for r in recs), recs
PY
}
expect "with --no-tls nothing is probed and the connection pairs as tls bytes" notls ||
	{ grep TLS "$TMP/notls.err"; head -3 "$TMP/notls.out"; }
echo "    $((SECONDS - t0)) s"
finish
