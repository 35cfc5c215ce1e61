#!/usr/bin/env bash
# Request mode through a forward proxy: tinyproxy (Debian's tinyproxy-bin)
# on loopback, curl asking it for tunnels (CONNECT, RFC 9110 9.3.6) to nginx's
# HTTPS port, to its HTTP port (curl -p) and to a port the proxy refuses, and
# forwarding a plain GET. A tunnel's CONNECT is a request of its own, whose
# 2xx ends at its head; the bytes after it are what the tunnel carries,
# found again from them: TLS records on the proxy's side of an HTTPS tunnel
# (it reads no plaintext; curl's side has the plaintext, by the TLS probes),
# HTTP records in a plain one. Ground truth: tinyproxy's log (each CONNECT
# asked, each refused) and nginx's access log (each request a tunnel carried).
# Then haproxy as a reverse proxy in front of nginx (ab, keep-alive and a
# connection a request): its two threads close server connections and open
# new ones on the freed numbers at once; each of its requests to nginx has
# its client-side record, as nginx's log says.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_servers.sh"
need_live
need_pkgs nginx-light curl openssl tinyproxy-bin haproxy apache2-utils
t0=$SECONDS

HPORT=$(free_port) PPORT=$(free_port) XPORT=$(free_port) NOPORT=$(free_port) QPORT=$(free_port)
NGX=$SRV/nginx
mkdir -p "$NGX/logs" "$NGX/www"
echo "small file" >"$NGX/www/small.txt"
expect "openssl makes a self-signed certificate" self_cert "$NGX"
{ ngx_head "$NGX"; cat <<EOF2; } >"$NGX/nginx.conf"
	client_body_temp_path $NGX/body;
	log_format req '\$remote_port \$status "\$request"';
	access_log $NGX/logs/access.log req;
	server {
		listen 127.0.0.1:$HPORT ssl;
		ssl_certificate $NGX/cert.pem;
		ssl_certificate_key $NGX/key.pem;
		root $NGX/www;
	}
	server {
		listen 127.0.0.1:$PPORT;
		root $NGX/www;
	}
	server {
		listen 127.0.0.1:$QPORT;
		root $NGX/www;
		access_log $NGX/logs/haproxy.log req;
	}
}
EOF2
srv_start nginx nginx -p "$NGX" -c "$NGX/nginx.conf" -e "$NGX/logs/error.log"
NGINX_PID=$SRV_PID
cat >"$SRV/tinyproxy.conf" <<EOF
Port $XPORT
Listen 127.0.0.1
Timeout 30
MaxClients 16
Allow 127.0.0.1
ConnectPort $HPORT
ConnectPort $PPORT
LogLevel Info
LogFile "$SRV/tinyproxy.log"
PidFile "$SRV/tinyproxy.pid"
EOF
srv_start tinyproxy tinyproxy -d -c "$SRV/tinyproxy.conf"
PROXY_PID=$SRV_PID
# haproxy in front of nginx's HTTP port, its two threads (one per CPU here)
# closing and opening server connections at once
RPORT=$(free_port)
cat >"$SRV/haproxy.cfg" <<EOF
global
	maxconn 100
	nbthread 2
defaults
	mode http
	timeout connect 5s
	timeout client 10s
	timeout server 10s
frontend fe
	bind 127.0.0.1:$RPORT
	default_backend be
backend be
	server s1 127.0.0.1:$QPORT
EOF
srv_start haproxy haproxy -db -f "$SRV/haproxy.cfg"
HAPROXY_PID=$SRV_PID
expect "nginx listens on 127.0.0.1:$HPORT and :$PPORT" wait_port "$HPORT" && wait_port "$PPORT"
expect "tinyproxy listens on 127.0.0.1:$XPORT" wait_port "$XPORT" || cat "$SRV/tinyproxy.log"
expect "haproxy listens on 127.0.0.1:$RPORT" wait_port "$RPORT" || cat "$SRV/haproxy.log"
expect "the agent starts in request mode" req_agent_start "req.sport in ($XPORT, $HPORT, $PPORT, $RPORT, $QPORT)"

X=http://127.0.0.1:$XPORT
load() {
	local rc=0
	# one tunnel per command line, two requests in each (200, 404)
	for _ in 1 2 3; do
		timeout 10 curl -sk --http1.1 -x "$X" -o /dev/null -o /dev/null \
			"https://127.0.0.1:$HPORT/small.txt" "https://127.0.0.1:$HPORT/missing" || rc=1
	done
	for _ in 1 2; do
		timeout 10 curl -s -p -x "$X" -o /dev/null -o /dev/null \
			"http://127.0.0.1:$PPORT/small.txt" "http://127.0.0.1:$PPORT/missing" || rc=1
	done
	# forwarded, no tunnel
	timeout 10 curl -s -x "$X" -o /dev/null "http://127.0.0.1:$PPORT/small.txt" || rc=1
	# a port tinyproxy does not tunnel to: 403, curl gives up (exit 56)
	[ "$(timeout 10 curl -s -p -x "$X" -o /dev/null -w '%{http_connect}' \
		"http://127.0.0.1:$NOPORT/")" = 403 ] || rc=1
	# through haproxy: keep-alive clients, then a new connection a request
	timeout 30 ab -q -k -c 4 -n 400 "http://127.0.0.1:$RPORT/small.txt" >/dev/null || rc=1
	timeout 30 ab -q -c 2 -n 200 "http://127.0.0.1:$RPORT/missing" >/dev/null || rc=1
	return $rc
}
expect "curl ran through tinyproxy, ab through haproxy" load
req_agent_stop; rc=$?
expect "the agent exits 0" [ $rc = 0 ] || tail -n 5 "$REQ_ERR"
srv_stop "$PROXY_PID"
srv_stop "$HAPROXY_PID"
srv_stop "$NGINX_PID" QUIT

req_check haproxy "haproxy's requests to nginx: on each of its server connections, its client-side records == nginx's server-side records == nginx's access log, in order (haproxy's threads close and connect those connections at once)" \
	"$REQ_OUT" "$NGX/logs/haproxy.log" "$QPORT" <<'PY'
import sys, req_lib as R
out, alog, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
recs = [r for r in R.records(out) + R.ABORTED if r.get("req.sport") == port]
log = {}
for l in open(alog):
    cport, status, req = l.rstrip("\n").split(" ", 2)
    log.setdefault(int(cport), []).append((req.split()[1], int(status)))
bad = []
for side, proc in (("client", "haproxy"), ("server", "nginx")):
    got = {cport: [(r.get("req.path"), r.get("req.status")) for r in rs]
           for cport, rs in R.by_conn([r for r in recs if r.get("proc.name") == proc], side).items()}
    print("%s side (%s): %d connections, %d records" % (side, proc, len(got), sum(map(len, got.values()))))
    for cport in sorted(set(log) | set(got)):
        if got.get(cport, []) != log.get(cport, []):
            bad.append("%s side, port %s: agent %s, log %s" % (side, cport, got.get(cport), log.get(cport)))
n = sum(len(v) for v in log.values())
print("nginx's log: %d connections from haproxy, %d requests" % (len(log), n))
assert n == 600, "%d requests through haproxy in the log, ab made 600" % n
assert not bad, "\n".join(bad[:6])
print("ok")
PY

req_check proxy "a CONNECT is a record (200, or the refusal's 403) ending at its head; an HTTPS tunnel's bytes are TLS records at the proxy and plaintext HTTP at curl, a plain tunnel's HTTP; no HTTP record without a method" \
	"$REQ_OUT" "$REQ_ERR" "$SRV/tinyproxy.log" "$NGX/logs/access.log" "$XPORT" "$HPORT" "$PPORT" <<'PY'
import re, sys, req_lib as R
out, err, plog, alog, xport, hport, pport = sys.argv[1:8]
xport, hport, pport = int(xport), int(hport), int(pport)
asked = re.findall(r"Request \(file descriptor \d+\): CONNECT (\S+) HTTP", open(plog).read())
refused = len(re.findall(r"Refused CONNECT method on port", open(plog).read()))
access = [l.split(" ", 2)[1:] for l in open(alog)]
recs = R.records(out)
at_proxy = [r for r in recs if r.get("req.sport") == xport]
print("tinyproxy's log: %d CONNECTs asked, %d refused; nginx's log %d lines; agent %d records at the proxy's port, kernel drops %s"
      % (len(asked), refused, len(access), len(at_proxy), R.kernel_drops(err)))
bad = []
for side, proc in (("server", "tinyproxy"), ("client", "curl")):
    conns = R.by_conn(at_proxy, side)
    connects = [rs[0] for rs in conns.values() if rs[0].get("req.method") == "CONNECT"]
    tunnels = {"https": 0, "plain": 0}
    for cport, rs in conns.items():
        first = rs[0]
        if first.get("req.method") != "CONNECT":
            continue
        if first.get("proc.name") != proc:
            bad.append("%s side: a CONNECT record of %s" % (side, first.get("proc.name")))
        st = first.get("req.status")
        target = first.get("req.path")
        if st == 403:
            if rs[1:]:
                bad.append("%s side: records after a refused CONNECT: %s" % (side, R.short(rs[1])))
            continue
        head = first.get("req.bytes_in") if side == "client" else first.get("req.bytes_out")
        if st != 200 or not 0 < head < 256:
            bad.append("%s side: a CONNECT not ended at its 2xx head: %s" % (side, R.short(first)))
        inner = [(r.get("req.protocol"), r.get("req.method"), r.get("req.path"), r.get("req.status"),
                  R.yes(r.get("req.tls"))) for r in rs[1:]]
        if target.endswith(":%d" % hport):
            tunnels["https"] += 1
            http = [x for x in inner if x[0] == "http"]
            if side == "server":
                ok = inner and inner[0][:2] == ("tls", "CLIENT_HELLO") and all(x[0] == "tls" for x in inner)
            else:
                ok = http == [("http", "GET", "/small.txt", 200, True), ("http", "GET", "/missing", 404, True)] \
                    and all(x[0] in ("tls", "http") for x in inner)
            if not ok:
                bad.append("%s side, an HTTPS tunnel's records: %s" % (side, inner))
        elif target.endswith(":%d" % pport):
            tunnels["plain"] += 1
            if inner != [("http", "GET", "/small.txt", 200, False), ("http", "GET", "/missing", 404, False)]:
                bad.append("%s side, a plain tunnel's records: %s" % (side, inner))
    targets = [r.get("req.path") for r in connects]
    statuses = R.counts(r.get("req.status") for r in connects)
    print("%s side: CONNECT records %d (%s), tunnels carried %s" % (side, len(connects), dict(statuses), tunnels))
    if sorted(targets) != sorted(asked):
        bad.append("%s side: CONNECT targets %s, tinyproxy asked %s" % (side, sorted(targets), sorted(asked)))
    if statuses.get(403, 0) != refused or statuses.get(200, 0) != len(asked) - refused:
        bad.append("%s side: CONNECT statuses %s, tinyproxy refused %d of %d" % (side, statuses, refused, len(asked)))
    if tunnels != {"https": 3, "plain": 2}:
        bad.append("%s side: tunnels %s, curl made 3 and 2" % (side, tunnels))
nomethod = [r for r in recs if r.get("req.protocol") == "http" and not r.get("req.method")]
if nomethod:
    bad.append("%d http records without a method, e.g. %s" % (len(nomethod), R.short(nomethod[0])))
# what the tunnels carried reached nginx: 3 x 2 over TLS, 2 x 2 plain, and the forwarded GET
if sorted(access) != sorted([["200", '"GET /small.txt HTTP/1.1"\n'], ["404", '"GET /missing HTTP/1.1"\n']] * 5 +
                            [["200", '"GET /small.txt HTTP/1.1"\n']]):
    bad.append("nginx's log: %s" % access)
summary = [l for l in open(err) if l.startswith("agent: requests:")]
if not summary or " 0 messages the protocol's parser refused" not in summary[0]:
    bad.append("the agent's summary: %s" % summary)
assert not bad, "\n".join(bad)
print("ok")
PY
echo "    $((SECONDS - t0)) s"
finish
