#!/usr/bin/env bash
# Request mode over Go's own TLS (crypto/tls, no TLS library): a Go HTTPS
# server (net/http, a PIE, HTTP/2 by ALPN) and Go clients built here from
# go/tlsserver.go and go/tlsclient.go, keep-alive connections of 200s, a 100 kB
# body, a 404, a 418, an echoed POST and a refused GET (405), in HTTP/1.1 and
# in HTTP/2 with several streams in flight; curl (OpenSSL) in both versions
# too. The agent's uprobes on crypto/tls.(*Conn).Read and Write in each Go
# executable read the plaintext: every request pairs as http or http2 with
# req.tls true, on both sides. Ground truth is the server's own log (one line
# per request once served: client port, method, path, status, protocol): per
# client port, the server-side records name the same (method, path, status)
# as its lines (in order over HTTP/1.1; as many of each over HTTP/2, whose
# streams end in any order), each Go client's and curl's records the same.
# A copy of the client at a new path (a new file), started after the agent,
# connects, then makes its requests once the agent has probed it. A stripped
# copy (-s -w: no symbols) cannot be probed: its requests are paired on the
# server's side only; its own side stays tls bytes. The exit summary and the
# metrics count the Go programs probed, and the stripped one.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_servers.sh"
need_live
need_pkgs golang-go curl openssl

# What the agent says of the Go programs it probed: its exit line "TLS:
# probes on N library files and M Go programs (...; K Go programs with
# crypto/tls cannot be: stripped, ...)", and gauges of each count. Each
# pattern is an ERE whose first number is the count.
GO_SUMMARY_RE='and [0-9]+ Go programs'
GO_METRIC_RE='^agent_tls_go_programs$'
GO_MIN=3	# the server, the client and its late copy
GO_UNPROBED_RE='[0-9]+ Go programs with crypto/tls cannot be'
GO_UNPROBED_METRIC_RE='^agent_tls_go_programs_unprobed$'	# 1: the stripped copy

HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$TMP/bin
mkdir -p "$BIN" "$TMP/gohome"
# gobuild OUT SRC FLAGS...: the standard library only, nothing fetched, the
# build cache under $TMP (a first build compiles net/http and crypto/tls)
gobuild() {
	local out=$1 src=$2; shift 2
	env HOME="$TMP/gohome" GOCACHE="$TMP/gohome/cache" GOPATH="$TMP/gohome/path" \
		GOENV=off GOFLAGS= GOPROXY=off GOTOOLCHAIN=local GOTELEMETRY=off CGO_ENABLED=0 \
		timeout 400 go build "$@" -o "$out" "$src" >>"$TMP/gobuild.log" 2>&1
}
# elf_type FILE: 3 (ET_DYN: a PIE) or 2 (ET_EXEC)
elf_type() { od -An -tu2 -j16 -N2 "$1" | tr -d ' '; }
builds() {
	gobuild "$BIN/gotlsserver" "$HERE/go/tlsserver.go" -buildmode=pie &&
	gobuild "$BIN/goclient" "$HERE/go/tlsclient.go" &&
	gobuild "$BIN/gostrip" "$HERE/go/tlsclient.go" -ldflags="-s -w" &&
	[ "$(elf_type "$BIN/gotlsserver")" = 3 ] && [ "$(elf_type "$BIN/goclient")" = 2 ] &&
	go tool nm "$BIN/goclient" >"$TMP/nm.txt" && grep -q ' crypto/tls.(\*Conn).Read$' "$TMP/nm.txt" &&
	! go tool nm "$BIN/gostrip" >/dev/null 2>&1
}
tb=$SECONDS
expect "go builds the server (PIE), the client and its stripped copy (no symbols)" builds ||
	{ tail -n 20 "$TMP/gobuild.log"; finish; exit 1; }
echo "    go build: $((SECONDS - tb)) s ($(go version | cut -d' ' -f3))"
t0=$SECONDS

PORT=18463
port_free "$PORT" || PORT=$(free_port)
GSRV=$SRV/go
mkdir -p "$GSRV"
expect "openssl makes a self-signed certificate" self_cert "$GSRV"
LOG=$GSRV/requests.log
srv_start gotlsserver "$BIN/gotlsserver" "$PORT" "$GSRV/cert.pem" "$GSRV/key.pem" "$LOG"
GSRV_PID=$SRV_PID
expect "the Go server listens on 127.0.0.1:$PORT" wait_port "$PORT" || cat "$SRV/gotlsserver.log"
U=https://127.0.0.1:$PORT

# Running while the agent starts, so that its scan at start finds them (a
# binary first run later is probed within the agent's next scan, after its
# first requests maybe): the client and the stripped copy, each waiting for
# its file before anything, and a Python that maps libssl (curl's) and waits.
timeout 120 "$BIN/goclient" -hold "$TMP/go1" "$U" h1 5 >"$TMP/h1.out" 2>"$TMP/h1.err" &
H1_PID=$!
timeout 120 "$BIN/gostrip" -hold "$TMP/go3" "$U" h1 3 >"$TMP/strip.out" 2>"$TMP/strip.err" &
STRIP_PID=$!
timeout 120 python3 -c '
import os, ssl, sys, time
while not os.path.exists(sys.argv[1]): time.sleep(0.05)' "$TMP/go1" &
SSL_PID=$!
PIDS+=("$H1_PID" "$STRIP_PID" "$SSL_PID")

MPORT=$(free_port)
# (lib.sh: start_agent adds these words; finish checks that agent's drops)
REQ_AGENT_EXTRA="--metrics 127.0.0.1:$MPORT"
expect "the agent starts in request mode" req_agent_start "req.sport=$PORT"
grep -E "TLS probes" "$REQ_ERR" | sed 's/^/    /'

# ran N OUT PID|-: the client (PID, if given) ended 0, with N lines on OUT
ran() {
	{ [ "$3" = - ] || wait "$3"; } && [ "$(wc -l <"$2")" = "$1" ] ||
		{ echo "    $2: $(wc -l <"$2") lines"; sed 's/^/    /' "${2%.out}.err"; return 1; }
}
touch "$TMP/go1"
expect "the Go client (HTTP/1.1) made its 30 requests, each with its status" ran 30 "$TMP/h1.out" "$H1_PID"
timeout 60 "$BIN/goclient" -streams 4 "$U" h2 5 >"$TMP/h2.out" 2>"$TMP/h2.err"
expect "the Go client (HTTP/2) made its 42 requests, 12 of them on 4 streams at once" ran 42 "$TMP/h2.out" -
wait "$SSL_PID"
# curls VERSION: keep-alive across the URLs of one command line; the statuses
curls() {
	local got="" rc=0
	for _ in 1 2 3; do
		got+=$(timeout 10 curl -sk "$1" -w '%{http_code} ' -o /dev/null -o /dev/null -o /dev/null \
			-o /dev/null "$U/ok" "$U/big" "$U/missing" "$U/teapot") || rc=1
		got+=$(timeout 10 curl -sk "$1" -w '%{http_code} ' -o /dev/null -d x=1 "$U/echo") || rc=1
		got+=$(timeout 10 curl -sk "$1" -w '%{http_code} ' -o /dev/null "$U/echo") || rc=1
	done
	[ $rc = 0 ] && [ "$got" = "$(printf '200 200 404 418 200 405 %.0s' 1 2 3)" ] ||
		{ echo "    curl $1: rc $rc, statuses $got"; return 1; }
}
expect "curl --http1.1 made its 18 requests, each with its status" curls --http1.1
expect "curl --http2 made its 18 requests, each with its status" curls --http2

# A copy of the client at a new path (a file the agent has not seen), started
# now: it makes its TLS connection (says so with its port), then waits for
# $TMP/go, which the test makes once the agent has probed it (its perf
# events, one per probe, grow, and agent_tls_go_programs, counted once all
# of a program's probes are on, reaches GO_MIN) before its requests, all on
# that connection.
perf_fds() { ls -l "/proc/$AGENT_PID/fd" 2>/dev/null | grep -c 'perf_event'; }
mkdir -p "$TMP/late"
cp "$BIN/goclient" "$TMP/late/golate"
N0=$(perf_fds)
timeout 60 "$TMP/late/golate" -wait "$TMP/go" "$U" h1 3 >"$TMP/late.out" 2>"$TMP/late.err" &
LATE_PID=$!
PIDS+=("$LATE_PID")
connected() { grep -q '^connected ' "$TMP/late.err"; }
expect "the late Go client makes its TLS connection" wait_for 10 connected || cat "$TMP/late.err"
probed() { [ "$(perf_fds)" -ge $((N0 + 2)) ]; }
# gauge_min RE MIN: a metric whose name matches RE is at least MIN
gauge_min() { awk -v re="$1" -v min="$2" '$1 ~ re && $2 >= min { ok = 1 } END { exit !ok }' "$TMP/metrics.txt"; }
all_on() { curl -s "http://127.0.0.1:$MPORT/metrics" >"$TMP/metrics.txt" && gauge_min "$GO_METRIC_RE" "$GO_MIN"; }
expect "the agent probes a Go binary started after it (a new file), within 15 s" wait_for 15 probed &&
	wait_for 30 all_on
echo "    perf events: $N0 before the late client, $(perf_fds) after"
touch "$TMP/go"
# on_conn: every request of the late client on the connection it made first
on_conn() { awk -v p="$(awk '/^connected / { print $2 }' "$TMP/late.err")" '$1 != p { bad = 1 } END { exit bad }' "$TMP/late.out"; }
late_ran() { ran 18 "$TMP/late.out" "$LATE_PID" && on_conn; }
expect "the late Go client made its 18 requests, on the connection it made before" late_ran

# the stripped copy: not probed, its requests read on the server's side only
touch "$TMP/go3"
expect "the stripped Go client made its 18 requests" ran 18 "$TMP/strip.out" "$STRIP_PID"

go_gauges() {
	curl -s "http://127.0.0.1:$MPORT/metrics" >"$TMP/metrics.txt" &&
	gauge_min "$GO_METRIC_RE" "$GO_MIN" && gauge_min "$GO_UNPROBED_METRIC_RE" 1
}
expect "the metrics give the Go programs probed (/$GO_METRIC_RE/ >= $GO_MIN) and the stripped one not (/$GO_UNPROBED_METRIC_RE/ >= 1)" \
	wait_for 30 go_gauges || grep -E '^agent_tls' "$TMP/metrics.txt" | sed 's/^/    /'
req_agent_stop; rc=$?
expect "the agent exits 0" [ $rc = 0 ] || tail -n 5 "$REQ_ERR"
srv_stop "$GSRV_PID"
# said RE MIN: the exit summary's line has RE, its first number at least MIN
said() {
	local n
	n=$(grep '^agent: TLS:' "$REQ_ERR" | grep -oE "$1" | head -n 1 | grep -oE '[0-9]+' | head -n 1)
	[ "${n:-0}" -ge "$2" ]
}
go_said() { said "$GO_SUMMARY_RE" "$GO_MIN" && said "$GO_UNPROBED_RE" 1; }
expect "the exit summary counts the Go programs probed (/$GO_SUMMARY_RE/ >= $GO_MIN) and the stripped one (/$GO_UNPROBED_RE/ >= 1)" \
	go_said || grep -E '^agent: TLS:' "$REQ_ERR" | sed 's/^/    /'

# The Go side alone, agent aside: each client's own lines == the server's log
req_check go_side "the Go clients' own lines == the server's log, per client port; each port's lines in one protocol" \
	"$LOG" "$TMP/h1.out" "$TMP/h2.out" "$TMP/late.out" "$TMP/strip.out" <<'PY'
import sys
log, outs = sys.argv[1], sys.argv[2:]
want, proto = {}, {}
for l in open(log):
    cport, method, path, status, p = l.split()
    want.setdefault(int(cport), []).append((method, path, int(status)))
    assert proto.setdefault(int(cport), p) == p, ("two protocols on port", cport)
bad = []
for o in outs:
    got = {}
    for l in open(o):
        cport, method, path, status = l.split()
        got.setdefault(int(cport), []).append((method, path, int(status)))
    for cport, g in got.items():
        w = want.get(cport, [])
        if (g if proto.get(cport) == "HTTP/1.1" else sorted(g)) != \
                (w if proto.get(cport) == "HTTP/1.1" else sorted(w)):
            bad.append("%s, port %d: client %s, log %s" % (o, cport, g, w))
    print("%s: %d requests on %d connections (%s)" % (o.rsplit("/", 1)[-1], sum(map(len, got.values())),
          len(got), ", ".join(sorted({proto.get(p, "not in the log") for p in got}))))
print("log: %d lines on %d connections" % (sum(map(len, want.values())), len(want)))
assert not bad, "\n".join(bad[:8])
print("ok")
PY

req_check go_tls "per client port: the server-side records == the server's log; each Go client's and curl's records the same; http or http2 as the log says, all with req.tls; the stripped client's side tls bytes only" \
	"$REQ_OUT" "$REQ_ERR" "$LOG" "$PORT" "$TMP/h1.out" "$TMP/h2.out" "$TMP/late.out" "$TMP/strip.out" <<'PY'
import sys, req_lib as R
out, err, log, port, h1, h2, late, strip = sys.argv[1:9]
port = int(port)
PROTO = {"HTTP/1.1": "http", "HTTP/2.0": "http2"}
want, proto = {}, {}
for l in open(log):
    cport, method, path, status, p = l.split()
    want.setdefault(int(cport), []).append((method, path, int(status)))
    proto[int(cport)] = PROTO[p]
def ports(*files):
    return {int(l.split()[0]) for f in files for l in open(f)}
goports, lateports, stripports = ports(h1, h2, late), ports(late), ports(strip)
curlports = set(want) - goports - stripports

recs = R.records(out)
ours = [r for r in recs if r.get("req.sport") == port]
http = [r for r in ours if r.get("req.protocol") in ("http", "http2")]
server = [r for r in http if r.get("req.side") == "server"]
client = [r for r in http if r.get("req.side") == "client"]
procs = R.counts(r.get("proc.name") for r in client)
print("agent: %d records, %d http/http2 server-side, %d client-side (%s); log %d lines on %d connections "
      "(Go clients %d, curl %d, stripped %d); kernel drops %s"
      % (len(recs), len(server), len(client), ", ".join("%s %d" % kv for kv in sorted(procs.items())),
         sum(map(len, want.values())), len(want), len(goports), len(curlports), len(stripports),
         R.kernel_drops(err)))
bad = []
def by_port(rs):
    got = {}
    for r in sorted(rs, key=lambda r: (r.get("req.conn"), r.get("req.seq"))):
        got.setdefault(r.get("req.cport"), []).append(
            (r.get("req.method"), r.get("req.path"), r.get("req.status")))
    return got
def compare(what, rs, cports):
    got = by_port(rs)
    for cport in sorted(set(got) | set(cports)):
        g, w = got.get(cport, []), want.get(cport, [])
        if proto.get(cport) == "http2":	# streams end in any order
            g, w = sorted(g), sorted(w)
        if g == w:
            continue
        if proto.get(cport) == "http2":
            diff = "(method, path, status, agent, log) %s" % R.diff_counts(R.counts(g), R.counts(w))[:4]
        else:
            i = next(i for i in range(max(len(g), len(w))) if g[i:i + 1] != w[i:i + 1])
            diff = "from request %d: agent %s, log %s" % (i + 1, g[i:i + 3], w[i:i + 3])
        bad.append("%s, client port %s (%s): agent %d, log %d; %s"
                   % (what, cport, proto.get(cport), len(g), len(w), diff))
compare("server side", server, set(want))
for name, cports in (("goclient", goports - lateports), ("golate", lateports), ("curl", curlports)):
    compare("%s's side" % name, [r for r in client if r.get("proc.name") == name], cports)
others = set(procs) - {"goclient", "golate", "curl"}
if others:
    bad.append("client-side http/http2 records of other processes: %s"
               % {p: procs[p] for p in others})
for r in http:
    if r.get("req.protocol") != proto.get(r.get("req.cport")):
        bad.append("%s on a %s connection: %s" % (r.get("req.protocol"), proto.get(r.get("req.cport")), R.short(r)))
        break
notls = [r for r in http if not R.yes(r.get("req.tls"))]
if notls:
    bad.append("%d http/http2 records without req.tls, e.g. %s" % (len(notls), R.short(notls[0])))
sprocs = R.counts(r.get("proc.name") for r in server)
if set(sprocs) - {"gotlsserver"}:
    bad.append("server-side records by process: %s" % sprocs)
for p in sorted(lateports):
    n = [len([r for r in server if r.get("req.cport") == p]),
         len([r for r in client if r.get("req.cport") == p])]
    if n != [len(want.get(p, []))] * 2 or not n[0]:
        bad.append("the late client's port %d: %d server-side, %d client-side records, log %d"
                   % (p, n[0], n[1], len(want.get(p, []))))
# (a tls record's method is its TLS record type: CLIENT_HELLO, APPLICATION_DATA...)
sc = [r for r in ours if r.get("req.side") == "client" and r.get("req.cport") in stripports]
if not sc or any(r.get("req.protocol") != "tls" for r in sc):
    bad.append("the stripped client's side (ports %s): %s (want tls records only)"
               % (sorted(stripports), [R.short(r) for r in sc if r.get("req.protocol") != "tls"][:3]
                  or "no record"))
other = [r for r in ours if r.get("req.protocol") not in ("http", "http2", "tls")]
if other:
    bad.append("%d records neither http, http2 nor tls, e.g. %s" % (len(other), R.short(other[0])))
if R.kernel_drops(err) != 0:
    bad.append("kernel drops: %s" % R.kernel_drops(err))
assert not bad, "%d problems:\n%s" % (len(bad), "\n".join(bad[:14]))
print("ok")
PY
echo "    $((SECONDS - t0)) s after the build"
finish
