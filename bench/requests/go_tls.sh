#!/usr/bin/env bash
# go_tls.sh: what request analysis costs a Go HTTPS server, whose TLS is Go's
# own crypto/tls (the Go TLS probes: an entry probe on Read and Write, a probe
# on each of Read's RETs). The server is tests/e2e/go/tlsserver.go (net/http,
# built here with Debian's golang), on 127.0.0.1; h2load (OpenSSL, itself
# probed by the library probes) loads /ok over keep-alive connections for
# SECS per row, HTTP/2 (-m 10 streams a connection) and, with -1,
# HTTP/1.1; rows alternate, ROUNDS times, in one run:
#   bare      no agent
#   requests  agent --requests -q --metrics 127.0.0.1:MPORT
#   notls     the same with --no-tls: no TLS probes, the bytes paired as tls
#   plain     plain capture of the same socket syscalls
# Per row as nginx.sh prints it (lib.sh): requests/s, share of the round's
# bare row, CPU per 100k requests, and in request mode the requests the
# metrics counted at the server against h2load's.
#   usage: sudo bench/requests/go_tls.sh [-1] [-s SECS] [-c CONNS] [-r ROUNDS] [-p PORT] [AGENT]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
secs=10 conns=20 rounds=3 port=18443 mport=19377 h1=""
while getopts 1s:c:r:p: o; do
	case $o in 1) h1=1 ;; s) secs=$OPTARG ;; c) conns=$OPTARG ;; r) rounds=$OPTARG ;;
	p) port=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
RB_AGENT=${1:-$here/../../build/userspace/agent/agent}
[ -x "$RB_AGENT" ] || { echo "no agent at $RB_AGENT (build first)" >&2; exit 2; }
rb_install go golang-go || { echo "no go" >&2; exit 2; }
rb_install h2load nghttp2-client || { echo "no h2load" >&2; exit 2; }

RB_TMP=$(mktemp -d /tmp/reqbench-go.XXXXXX) RB_SERVER=gotlsserver RB_MPORT=$mport
tmp=$RB_TMP
env HOME="$tmp" GOCACHE="$tmp/gocache" CGO_ENABLED=0 GOFLAGS= GOPROXY=off \
	go build -o "$tmp/gotlsserver" "$here/../../tests/e2e/go/tlsserver.go" ||
	{ echo "go build failed" >&2; exit 2; }
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/key.pem" -out "$tmp/cert.pem" \
	-days 2 -subj /CN=localhost -batch 2>/dev/null || { echo "openssl req failed" >&2; exit 2; }
# its log of each request to /dev/null: the load's own count is the truth here
"$tmp/gotlsserver" "$port" "$tmp/cert.pem" "$tmp/key.pem" /dev/null >"$tmp/server.log" 2>&1 &
spid=$!
trap 'kill $spid 2>/dev/null; wait $spid 2>/dev/null; rm -rf "$tmp"' EXIT
for i in $(seq 50); do curl -skf -o /dev/null "https://127.0.0.1:$port/ok" && break; sleep 0.1; done
RB_SRV_PIDS=$spid

load() {
	local errs
	rb_timed h2load ${h1:+--h1} -c "$conns" -m "$([ -n "$h1" ] && echo 1 || echo 10)" \
		-D "$secs" "https://127.0.0.1:$port/ok"
	RB_COUNT=$(awk '/^requests:/ { print $8 }' "$tmp/load.out")
	RB_RATE=$(awk '/^finished in/ { print $4 }' "$tmp/load.out")
	errs=$(awk '/^requests:/ && ($10 || $12) { print "failed " $10 ", errored " $12 }' "$tmp/load.out")
	RB_SAYS=$(printf '%8.0f req/s%s' "$RB_RATE" "${errs:+ [$errs]}")
}

what="HTTP/2 with 10 streams a connection"
[ -n "$h1" ] && what="HTTP/1.1 (--h1)"
echo "Go HTTPS server (crypto/tls, net/http, $(go version | cut -d' ' -f3)), h2load $what: $conns keep-alive connections, ${secs}s per row, $rounds rounds; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
	RB_BARE=""
	echo "round $r"
	rb_row bare bare
	rb_requests_rows "$r" "" --requests -q --metrics "127.0.0.1:$mport"
	rb_row notls notls --requests --no-tls -q --metrics "127.0.0.1:$mport"
	rb_row plain plain -q "$RB_SYSCALLS"
done
echo "means (load average now $(cut -d' ' -f1-3 /proc/loadavg)):"
rb_summary
