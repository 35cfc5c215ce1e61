#!/usr/bin/env bash
# nginx.sh: what request analysis costs a busy web server. nginx on 127.0.0.1
# serves a small file over keep-alive to a load tool (wrk, else ab) for SECS per
# row; rows alternate, ROUNDS times, in one run:
#   bare      no agent
#   requests  agent --requests -q --metrics 127.0.0.1:MPORT
#   plain     agent -q 'evt.type in (read, write, ... sendfile)': plain capture
#             of the same socket syscalls, parsed and filtered but not paired
# Per row: requests/s and its share of the round's bare row; the agent's CPU
# (user+sys, every thread, /proc/PID/stat over the load only) per 100k
# requests; its kernel drops (exit summary); in request mode, the requests its
# metrics counted on nginx's side and the records it paired (metrics only:
# nginx's side, one per request) against the load tool's completed count.
# -S: HTTPS (a certificate made by openssl req; the load tool's TLS is
# OpenSSL too), and a row more after requests:
#   notls     the same with --no-tls: no TLS probes, the bytes paired as tls
# -2: HTTP/2 (nginx's http2, over TLS with -S, else cleartext with prior
# knowledge), the load tool h2load (nghttp2-client) with 10 streams in flight
# on each connection (and no GOAWAY after nginx's default 1000 requests).
#   usage: sudo bench/requests/nginx.sh [-S] [-2] [-s SECS] [-c CONNS] [-r ROUNDS]
#          [-t TOOL_THREADS] [-w NGINX_WORKERS] [-p PORT] [AGENT]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
secs=10 conns=50 rounds=3 threads=1 workers=1 port=18080 mport=19376 tls="" h2=""
while getopts S2s:c:r:t:w:p: o; do
	case $o in S) tls=1 ;; 2) h2=1 ;; s) secs=$OPTARG ;; c) conns=$OPTARG ;; r) rounds=$OPTARG ;;
	t) threads=$OPTARG ;; w) workers=$OPTARG ;; p) port=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
RB_AGENT=${1:-$here/../../build/userspace/agent/agent}
[ -x "$RB_AGENT" ] || { echo "no agent at $RB_AGENT (build first)" >&2; exit 2; }
rb_install nginx nginx-light nginx || { echo "nginx missing and not installable" >&2; exit 2; }
rb_install wrk wrk || rb_install ab apache2-utils || { echo "no wrk or ab" >&2; exit 2; }
tool=wrk; command -v wrk >/dev/null || tool=ab
if [ -n "$h2" ]; then
	rb_install h2load nghttp2-client || { echo "no h2load" >&2; exit 2; }
	tool=h2load
fi

RB_TMP=$(mktemp -d /tmp/reqbench-nginx.XXXXXX) RB_SERVER=nginx RB_MPORT=$mport
tmp=$RB_TMP
chmod 755 "$tmp"	# nginx's workers run as nobody
mkdir "$tmp/www"
head -c 600 /dev/zero | tr '\0' x >"$tmp/www/index.html"
listen="listen 127.0.0.1:$port;" scheme=http
if [ -n "$tls" ]; then
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/key.pem" -out "$tmp/cert.pem" \
		-days 2 -subj /CN=localhost -batch 2>/dev/null || { echo "openssl req failed" >&2; exit 2; }
	listen="listen 127.0.0.1:$port ssl; ssl_certificate $tmp/cert.pem; ssl_certificate_key $tmp/key.pem;"
	scheme=https
fi
[ -n "$h2" ] && listen=${listen/;/ http2;}
cat >"$tmp/nginx.conf" <<CONF
worker_processes $workers;
error_log $tmp/error.log warn;
pid $tmp/nginx.pid;
events { worker_connections 4096; }
http {
	access_log off;
	sendfile on;
	tcp_nopush on;
	keepalive_requests 100000000;
	${h2:+http2_max_requests 100000000;}
	server { $listen root $tmp/www; }
}
CONF
nginx -p "$tmp" -c "$tmp/nginx.conf" -g 'daemon off;' &
npid=$!
trap 'kill -QUIT $npid 2>/dev/null; wait $npid 2>/dev/null; rm -rf "$tmp"' EXIT
for i in $(seq 50); do curl -skf -o /dev/null "$scheme://127.0.0.1:$port/" && break; sleep 0.1; done
RB_SRV_PIDS="$npid $(pgrep -P $npid | tr '\n' ' ')"

# load: one keep-alive run of the load tool.
load() {
	local url=$scheme://127.0.0.1:$port/index.html errs
	if [ $tool = h2load ]; then
		rb_timed h2load -t "$threads" -c "$conns" -m 10 -D "$secs" "$url"
		RB_COUNT=$(awk '/^requests:/ { print $8 }' "$tmp/load.out")
		RB_RATE=$(awk '/^finished in/ { print $4 }' "$tmp/load.out")
		errs=$(awk '/^requests:/ && ($10 || $12) { print "failed " $10 ", errored " $12 }' "$tmp/load.out")
	elif [ $tool = wrk ]; then
		rb_timed wrk -t "$threads" -c "$conns" -d "${secs}s" "$url"
		RB_COUNT=$(awk '/requests in/ { print $1 }' "$tmp/load.out")
		RB_RATE=$(awk '/^Requests\/sec/ { print $2 }' "$tmp/load.out")
		errs=$(grep -E 'Non-2xx|Socket errors' "$tmp/load.out" | tr -s ' ' | paste -sd';')
	else
		rb_timed ab -q -k -c "$conns" -t "$secs" -n 100000000 "$url"
		RB_COUNT=$(awk '/^Complete requests/ { print $3 }' "$tmp/load.out")
		RB_RATE=$(awk '/^Requests per second/ { print $4 }' "$tmp/load.out")
		errs=$(awk '/^Failed requests/ && $3 { print "failed " $3 }' "$tmp/load.out")
	fi
	RB_SAYS=$(printf '%8.0f req/s%s' "$RB_RATE" "${errs:+ [$errs]}")
}

echo "nginx${tls:+ (HTTPS)}${h2:+ (HTTP/2)}: $workers worker(s), $tool: $threads thread(s), $conns keep-alive connections, ${secs}s per row, $rounds rounds; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
	RB_BARE=""
	echo "round $r"
	rb_row bare bare
	rb_requests_rows "$r" "" --requests -q --metrics "127.0.0.1:$mport"
	[ -n "$tls" ] && rb_row notls notls --requests --no-tls -q --metrics "127.0.0.1:$mport"
	# RB_PROFILE=1 (bench/profile/requests.sh): request mode with profiling
	[ -n "${RB_PROFILE:-}" ] && rb_row profile profile --requests --profile -q \
		--metrics "127.0.0.1:$mport"
	# ... and with timelines and on-CPU stacks at 99 Hz (--profile-out)
	[ -n "${RB_PROFILE:-}" ] && rb_row stacks stacks --requests --profile -q \
		--metrics "127.0.0.1:$mport" --profile-out "$tmp/profile-out"
	[ -z "${RB_NO_PLAIN:-}" ] && rb_row plain plain -q "$RB_SYSCALLS"
done
echo "means (load average now $(cut -d' ' -f1-3 /proc/loadavg)):"
rb_summary
