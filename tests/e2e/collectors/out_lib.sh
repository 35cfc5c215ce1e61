# Helpers for the output/collector end-to-end tests (test_out_*.sh): free ports,
# bounded waits, the workload, and real collectors (syslog-ng, nginx, Prometheus)
# run in the foreground with their own configuration under $TMP.
# Source after lib.sh.
COL=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PYTHONPATH=$COL${PYTHONPATH:+:$PYTHONPATH}
PIDS=()	# processes to kill at exit (besides the agent)
MOUNTS=()	# mount points to unmount at exit

cleanup_out() {
	local p m
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	for m in "${MOUNTS[@]}"; do umount -l "$m" 2>/dev/null; done
}
trap 'cleanup_out; [ -n "${KEEP_TMP:-}" ] || cleanup_e2e' EXIT

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

lines_at_least() { [ -f "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ]; }

# The count stays the same for a while: a collector finished writing.
settled() {	# settled FILE: waits (max 5 s) until FILE's line count stops moving
	local prev=-1 n
	for _ in $(seq 1 50); do
		n=$(wc -l <"$1" 2>/dev/null || echo 0)
		[ "$n" = "$prev" ] && return 0
		prev=$n; sleep 0.1
	done
	return 1
}

now_ms() { echo $(( ${EPOCHREALTIME/./} / 1000 )); }

# The workload: a copy of busybox named busybox_e2e (its proc.name) opening one
# file in a loop, 2 events (openat > and <) per iteration.
WL_FILTER='proc.name=busybox_e2e and evt.type=openat'
wl_setup() {
	[ -x "$TMP/busybox_e2e" ] && return 0
	cp "$(command -v busybox)" "$TMP/busybox_e2e" && echo data >"$TMP/wl_file"
}
wl_run() {	# wl_run N: N iterations, as fast as it goes
	"$TMP/busybox_e2e" sh -c "i=0; while [ \$i -lt $1 ]; do : <'$TMP/wl_file'; i=\$((i+1)); done"
}
wl_start() {	# wl_start [PER_TICK]: a steady flow (PER_TICK iterations every 10 ms) in the background
	"$TMP/busybox_e2e" sh -c "while :; do i=0; while [ \$i -lt ${1:-20} ]; do : <'$TMP/wl_file'; i=\$((i+1)); done; sleep 0.01; done" &
	WL_PID=$!
	PIDS+=("$WL_PID")
}
wl_stop() { [ -n "${WL_PID:-}" ] && kill "$WL_PID" 2>/dev/null; wait "$WL_PID" 2>/dev/null; WL_PID=; }
# wl_mark: once the workload stopped, one more of its events, an open of
# wl_mark: the last matching event, so a stream whose last line names wl_mark
# has every line before it (the agent handles events in order).
wl_mark() { echo mark >"$TMP/wl_mark" && "$TMP/busybox_e2e" sh -c ": <'$TMP/wl_mark'"; }
marked() {	# marked FILE...: each one's last line is wl_mark's event
	local f
	for f; do tail -n 1 "$f" 2>/dev/null | grep -q wl_mark || return 1; done
}

wait_agent() {	# wait_agent SECONDS: waits for the agent to exit by itself (kills it after); its status
	local end=$((SECONDS + $1)) rc=0
	while kill -0 "$AGENT_PID" 2>/dev/null; do
		if [ $SECONDS -ge $end ]; then
			echo "agent still running after $1 s: killed" >&2
			kill -9 "$AGENT_PID"
		fi
		sleep 0.05
	done
	wait "$AGENT_PID" || rc=$?
	AGENT_PID=
	return $rc
}

# usr1_report ERR EXPR: asks the agent ($AGENT_PID) for its counters (SIGUSR1),
# waits (up to 30 s) for that report on ERR, and is true if the Python
# expression EXPR holds for it (r: the report as e2e_out.reports gives it; a
# KeyError means its line is not written yet).
usr1_report() {
	local n
	n=$(grep -c '^agent: counters now' "$1")
	kill -USR1 "$AGENT_PID"
	python3 - "$1" "$n" "$2" <<'PY'
import sys, time, e2e_out as E
err, n, expr = sys.argv[1], int(sys.argv[2]), sys.argv[3]
end = time.monotonic() + 30
while time.monotonic() < end:
    reps = [r for r in E.reports(err) if r["now"]]
    try:
        if len(reps) > n:
            sys.exit(0 if eval(expr, {"r": reps[-1]}) else 1)
    except KeyError:
        pass
    time.sleep(0.02)
sys.exit(1)
PY
}

# SIGTERM to the agent; TERM_MS is how long it took to exit (measured with wait,
# not by polling; a watchdog kills it after 10 s). Returns its exit status.
term_timed() {
	local t0 rc=0 dog
	(sleep 10; kill -9 "$AGENT_PID") >/dev/null 2>&1 &
	dog=$!
	t0=$(now_ms)
	kill -TERM "$AGENT_PID"
	wait "$AGENT_PID" || rc=$?
	TERM_MS=$(( $(now_ms) - t0 ))
	kill "$dog" 2>/dev/null; wait "$dog" 2>/dev/null
	AGENT_PID=
	return $rc
}

# A python TCP receiver (collectors/recv.py); RECV_PID is its pid.
start_recv() {	# start_recv PORT OUTFILE [recv.py options]
	local port=$1 out=$2; shift 2
	python3 "$COL/recv.py" --port "$port" --out "$out" "$@" &
	RECV_PID=$!
	PIDS+=("$RECV_PID")
	wait_for 5 port_open "$port"
}

# syslog-ng in the foreground with its own configuration: a newline-framed TCP
# source on SYSLOG_TCP_PORT, an RFC 5424 syslog() TCP source on SYSLOG_RFC_PORT, a
# unix-dgram source at SYSLOG_DGRAM, a newline-framed unix-stream source at
# SYSLOG_STREAM; each written with "$MSG\n" to $SNG/tcp.out, $SNG/rfc.out,
# $SNG/dgram.out, $SNG/stream.out.
start_syslog_ng() {
	SNG=$TMP/syslog-ng
	mkdir -p "$SNG"
	SYSLOG_TCP_PORT=$(free_port)
	SYSLOG_RFC_PORT=$(free_port)
	SYSLOG_DGRAM=$SNG/log.sock
	SYSLOG_STREAM=$SNG/stream.sock
	cat >"$SNG/syslog-ng.conf" <<EOF
@version: 3.38
options { stats-freq(0); log-msg-size(262144); keep-hostname(yes); chain-hostnames(no);
	use-dns(no); dns-cache(no); create-dirs(yes); flush-lines(0); time-reopen(1);
	log-fifo-size(200000); };
source s_tcp { network(ip("127.0.0.1") port($SYSLOG_TCP_PORT) transport(tcp)
	flags(no-parse) log-msg-size(262144) max-connections(20) log-iw-size(40000)); };
source s_rfc { syslog(ip("127.0.0.1") port($SYSLOG_RFC_PORT) transport(tcp)
	log-msg-size(262144) max-connections(20) log-iw-size(40000)); };
source s_dgram { unix-dgram("$SYSLOG_DGRAM" flags(no-parse) log-msg-size(262144)); };
source s_stream { unix-stream("$SYSLOG_STREAM" flags(no-parse) log-msg-size(262144)
	max-connections(20) log-iw-size(40000)); };
destination d_tcp { file("$SNG/tcp.out" template("\${MSG}\n") template-escape(no)); };
destination d_rfc { file("$SNG/rfc.out" template("\${MSG}\n") template-escape(no)); };
destination d_dgram { file("$SNG/dgram.out" template("\${MSG}\n") template-escape(no)); };
destination d_stream { file("$SNG/stream.out" template("\${MSG}\n") template-escape(no)); };
destination d_hdr { file("$SNG/rfc.hdr" template("\${PROGRAM} \${PID} \${HOST} \${FACILITY} \${LEVEL}\n")); };
log { source(s_tcp); destination(d_tcp); flags(flow-control); };
log { source(s_rfc); destination(d_rfc); destination(d_hdr); flags(flow-control); };
log { source(s_dgram); destination(d_dgram); flags(flow-control); };
log { source(s_stream); destination(d_stream); flags(flow-control); };
EOF
	syslog-ng -F --no-caps -f "$SNG/syslog-ng.conf" -R "$SNG/persist" -p "$SNG/pid" \
		-c "$SNG/ctl" >"$SNG/stdout" 2>"$SNG/stderr" &
	SNG_PID=$!
	PIDS+=("$SNG_PID")
	wait_for 10 port_open "$SYSLOG_TCP_PORT" && wait_for 5 port_open "$SYSLOG_RFC_PORT" &&
		wait_for 5 test -S "$SYSLOG_DGRAM" && wait_for 5 test -S "$SYSLOG_STREAM"
}
stop_syslog_ng() { kill -TERM "$SNG_PID" 2>/dev/null; wait "$SNG_PID" 2>/dev/null; }

# nginx in the foreground as the HTTP collector: POSTs to
# http://127.0.0.1:$NGINX_PORT/ingest are proxied to a second server that answers
# 200 (so nginx reads every body); the access log $NGX/logs/access.log has one
# JSON object per request with its status, method, content type and body.
# /reject answers 400 to everything (logged in $NGX/logs/reject.log).
start_nginx() {
	NGX=$TMP/nginx
	mkdir -p "$NGX/logs" "$NGX/tmp"
	NGINX_PORT=$(free_port)
	NGINX_UP=$(free_port)
	cat >"$NGX/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $NGX/nginx.pid;
error_log $NGX/logs/error.log info;
events { worker_connections 64; }
http {
	client_body_temp_path $NGX/tmp/body;
	proxy_temp_path $NGX/tmp/proxy;
	fastcgi_temp_path $NGX/tmp/fastcgi;
	uwsgi_temp_path $NGX/tmp/uwsgi;
	scgi_temp_path $NGX/tmp/scgi;
	access_log off;
	log_format body escape=json '{"status":"\$status","method":"\$request_method","uri":"\$request_uri","ct":"\$content_type","len":"\$content_length","body":"\$request_body"}';
	server {
		listen 127.0.0.1:$NGINX_PORT;
		client_max_body_size 64m;
		client_body_buffer_size 64m;
		location = /ingest {
			access_log $NGX/logs/access.log body;
			proxy_pass http://127.0.0.1:$NGINX_UP/ok;
		}
		location = /reject {
			access_log $NGX/logs/reject.log body;
			return 400 "no\n";
		}
	}
	server {
		listen 127.0.0.1:$NGINX_UP;
		location / { return 200 "ok\n"; }
	}
}
EOF
	nginx -p "$NGX" -c "$NGX/nginx.conf" -e "$NGX/logs/error.log" >"$NGX/stdout" 2>&1 &
	NGINX_PID=$!
	PIDS+=("$NGINX_PID")
	wait_for 10 port_open "$NGINX_PORT"
}
stop_nginx() { kill -QUIT "$NGINX_PID" 2>/dev/null; wait "$NGINX_PID" 2>/dev/null; }

# Prometheus scraping TARGET (host:port) every second; its API on $PROM_PORT.
start_prometheus() {	# start_prometheus TARGET
	PROM=$TMP/prometheus
	mkdir -p "$PROM/data"
	PROM_PORT=$(free_port)
	cat >"$PROM/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
  evaluation_interval: 1s
scrape_configs:
  - job_name: agent
    static_configs:
      - targets: ['$1']
EOF
	/usr/bin/prometheus --config.file="$PROM/prometheus.yml" --storage.tsdb.path="$PROM/data" \
		--web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn >"$PROM/log" 2>&1 &
	PROM_PID=$!
	PIDS+=("$PROM_PID")
	wait_for 30 curl -sf -o /dev/null "http://127.0.0.1:$PROM_PORT/-/ready"
}
stop_prometheus() { kill -TERM "$PROM_PID" 2>/dev/null; wait "$PROM_PID" 2>/dev/null; }
prom_query() {	# prom_query EXPR: the API's JSON answer
	curl -sf -G "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1"
}

# Runs a python check (module e2e_out importable); prints its output on failure.
# pycheck NAME DESCRIPTION ARGS... <<'PY' ... PY : expect passes when the last
# line it prints starts with "ok".
pycheck() {
	local name=$1 what=$2; shift 2
	python3 - "$@" >"$TMP/$name.check" 2>&1
	expect "$what" grep -q '^ok' "$TMP/$name.check" || sed 's/^/    /' "$TMP/$name.check" | tail -20
}
