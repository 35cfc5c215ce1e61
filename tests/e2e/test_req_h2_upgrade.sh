#!/usr/bin/env bash
# Request mode over h2c reached by HTTP/1.1's Upgrade (RFC 7540 3.2), which
# Debian's nginx does not do: Apache (mod_http2, `Protocols h2c http/1.1`)
# on loopback. Clients: curl --http2 on http:// URLs (it asks for the
# upgrade; one URL per connection: curl 7.88 fails a second request on an
# upgraded connection), nghttp -u (the upgrade, then more streams on the
# same connection) and curl --http1.1 as a control (no upgrade). A 30 kB
# body as the upgraded request's response (stream 1) checks that the
# driver captures the connection whole from the 101 on (h2.bpf.h), the
# 101's own buffer included: under load curl reads the 101 and the response's
# first 16 kB in one call.
# Ground truth is Apache's access log with the protocol (%H): an upgraded
# request is logged twice, its 101 as HTTP/1.1 and its answer as HTTP/2.0.
# Per client port, the agent's server-side and client-side records are the
# log's lines less the 101s: (method, path, status), http2 for HTTP/2.0
# lines and http for HTTP/1.1 ones; no header table lost and no frames
# unwalked (the exit line).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_servers.sh"
need_live
need_pkgs apache2 curl nghttp2-client

PORT=$(free_port)
AP=$SRV/apache
mkdir -p "$AP/logs" "$AP/www"
echo "small file" >"$AP/www/a.txt"
head -c 30000 /dev/urandom >"$AP/www/big.bin"
# Apache refuses to serve as root: its worker runs as nobody
chmod 755 "$TMP" "$SRV" "$AP" "$AP/www"
chmod 644 "$AP/www/"*
M=/usr/lib/apache2/modules
cat >"$AP/httpd.conf" <<EOF2
ServerRoot $AP
PidFile $AP/logs/httpd.pid
ErrorLog $AP/logs/error.log
Listen 127.0.0.1:$PORT
LoadModule mpm_event_module $M/mod_mpm_event.so
LoadModule authz_core_module $M/mod_authz_core.so
LoadModule mime_module $M/mod_mime.so
LoadModule http2_module $M/mod_http2.so
TypesConfig /etc/mime.types
User nobody
Group nogroup
ServerName localhost
DocumentRoot $AP/www
KeepAliveTimeout 30
Protocols h2c http/1.1
H2Upgrade on
LogFormat "%{remote}p %>s \"%r\" %H" req
CustomLog $AP/logs/access.log req
EOF2
# -X: one process in the foreground, its workers threads
srv_start apache apache2 -X -f "$AP/httpd.conf"
APACHE_PID=$SRV_PID
expect "Apache listens on 127.0.0.1:$PORT" wait_port "$PORT" ||
	{ cat "$SRV/apache.log" "$AP/logs/error.log"; }
expect "the agent starts in request mode" req_agent_start "req.sport=$PORT"

U=http://127.0.0.1:$PORT
load() {
	local rc=0 u
	for _ in 1 2 3; do
		for u in big.bin a.txt missing; do
			# "200 2": upgraded (404 for missing)
			timeout 10 curl -s --http2 -o /dev/null -w '%{http_code} %{http_version}\n' \
				"$U/$u" >>"$TMP/curl.out" || rc=1
		done
		# the upgrade on stream 1, then streams 3, 5, 7 on the connection
		timeout 10 nghttp -u -s "$U/big.bin" "$U/a.txt" "$U/missing" "$U/a.txt?x=1" \
			>>"$TMP/nghttp.out" 2>&1 || rc=1
		timeout 10 curl -s --http1.1 -o /dev/null -o /dev/null \
			-w '%{http_code} %{http_version}\n' "$U/a.txt" "$U/missing" >>"$TMP/curl.out" || rc=1
	done
	return $rc
}
expect "curl --http2, nghttp -u and curl --http1.1 ran" load || tail -n 5 "$TMP/nghttp.out"
upgraded() { [ "$(grep -c '^200 2$' "$TMP/curl.out")" = 6 ] && [ "$(grep -c '^404 2$' "$TMP/curl.out")" = 3 ]; }
expect "curl's 9 requests were upgraded to HTTP/2 (200 2 and 404 2)" upgraded || cat "$TMP/curl.out"
req_agent_stop; rc=$?
expect "the agent exits 0" [ $rc = 0 ] || tail -n 5 "$REQ_ERR"
srv_stop "$APACHE_PID"

req_check h2up "per client port: the server-side and client-side records == Apache's log less its 101s (http2 for HTTP/2.0, http for HTTP/1.1)" \
	"$REQ_OUT" "$REQ_ERR" "$AP/logs/access.log" "$PORT" <<'PY'
import re, sys, req_lib as R
out, err, log, port = sys.argv[1:5]
port = int(port)
LINE = re.compile(r'^(\d+) (\d+) "(\S+) (\S+) HTTP/[12]\.[01]" (HTTP/1\.1|HTTP/2\.0)$')
want, n101 = {}, 0
for l in open(log):
    m = LINE.match(l.rstrip("\n"))
    assert m, ("an access log line I cannot read", l)
    cport, status, method, target, proto = m.groups()
    if status == "101":
        n101 += 1
        continue
    want.setdefault(int(cport), []).append(
        (method, target.split("?")[0], int(status), "http2" if proto == "HTTP/2.0" else "http"))
recs = [r for r in R.records(out) if r.get("req.sport") == port]
n_log = sum(len(v) for v in want.values())
print("agent: %d records (%s) on the port; log %d requests on %d connections, %d upgrades (101); "
      "kernel drops %s" % (len(recs), ", ".join("%s %d" % kv for kv in sorted(
          R.counts((r.get("req.side"), r.get("req.protocol")) for r in recs).items())),
      n_log, len(want), n101, R.kernel_drops(err)))
bad = []
# mod_http2 now and then refuses the streams nghttp sends on an upgraded
# connection before its SETTINGS (CI saw 3 of one connection's 3): Apache
# logs none of them, and each end's record of each is aborted, with no
# status: the client's (nghttp) and, the same stream, the server's
refused = [r for r in R.ABORTED if r.get("req.sport") == port and r.get("req.side") == "client"
           and r.get("proc.name") == "nghttp" and r.get("req.status") is None]
key = lambda r: (r.get("req.cport"), r.get("req.seq"), r.get("req.path"))
mine = {key(r) for r in refused}
refused_srv = [r for r in R.ABORTED if r.get("req.sport") == port and r.get("req.side") == "server"
               and key(r) in mine and r.get("req.status") is None]
if refused_srv and {key(r) for r in refused_srv} != mine:
    bad.append("the server's aborted streams %s differ from nghttp's %s"
               % (sorted(key(r) for r in refused_srv), sorted(mine)))
if refused:
    print("mod_http2 refused %d of nghttp's streams: %s" % (len(refused), [R.short(r) for r in refused]))
if n101 != 12 or n_log + len(refused) != 27:
    bad.append("the log has %d requests (and %d refused) and %d upgrades, want 27 and 12"
               % (n_log, len(refused), n101))
other = [r for r in R.ABORTED if r not in refused and r not in refused_srv]
if other:
    bad.append("aborted or timed-out records: %s" % [R.short(r) for r in other][:3])
for side in ("server", "client"):
    got = {}
    for r in sorted((r for r in recs if r.get("req.side") == side),
                    key=lambda r: (r.get("req.conn"), r.get("req.seq"))):
        got.setdefault(r.get("req.cport"), []).append(
            (r.get("req.method"), r.get("req.path"), r.get("req.status"), r.get("req.protocol")))
    for cport in sorted(set(got) | set(want)):
        # HTTP/2's streams end in any order: compared as multisets
        if sorted(got.get(cport, [])) != sorted(want.get(cport, [])):
            bad.append("%s side, client port %s: agent %s, log %s"
                       % (side, cport, got.get(cport), want.get(cport)))
m = re.search(r"HTTP/2: (\d+) requests with unknown headers \((\d+) header tables not followed"
              r"[^)]*\), (\d+) reads whose frames could not be walked", open(err).read())
if not m or m.groups() != ("0", "0", "0"):
    bad.append("the exit line's HTTP/2 losses: %s (want 0, 0, 0)" % ((m and m.groups()),))
print("\n".join(bad) if bad else "ok")
PY
finish
