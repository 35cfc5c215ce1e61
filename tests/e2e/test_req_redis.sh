#!/usr/bin/env bash
# Request mode against Redis (issue 23): redis-benchmark with and without
# pipelining (-P 16, -P 64 PINGs, deeper than a connection's own queue of 16,
# and -P 64 SETs and GETs of 100-byte values, longer than the snaplen),
# failing commands through redis-cli (a command on the wrong type, a wrong
# number of arguments, an unknown command), redis-cli --pipe's mass
# insertion (12 commands, and 200 PINGs in flight at once), and pub/sub,
# MONITOR and RESP3 pushes (subscribers of RESP2 and RESP3, redis-cli
# monitor, client tracking's invalidations between replies), which answer
# no request, and CLIENT REPLY OFF and SKIP, which leave commands
# unanswered. Ground truth is
# Redis' own accounting, reset when the agent starts and read once it stopped:
# server-side records per command == INFO commandstats' calls (plus
# rejected_calls, which calls leaves out), error records per command ==
# failed_calls + rejected_calls, and every error reply (INFO errorstats) is an
# error record with its code.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_servers.sh"
need_live
need_pkgs redis-server redis-tools
t0=$SECONDS

PORT=16379
port_free "$PORT" || PORT=$(free_port)
mkdir -p "$SRV/redis"
srv_start redis redis-server --bind 127.0.0.1 --port "$PORT" --save '' --appendonly no \
	--dir "$SRV/redis" --daemonize no --logfile ''
REDIS_PID=$SRV_PID
expect "redis-server listens on 127.0.0.1:$PORT" wait_port "$PORT" || cat "$SRV/redis.log"
expect "the agent starts in request mode" req_agent_start "req.sport=$PORT"

cli() { timeout 10 redis-cli -p "$PORT" "$@"; }
load() {
	local rc=0
	# seen by the agent, so counted on both sides (it stays in commandstats)
	[ "$(cli CONFIG RESETSTAT)" = OK ] || rc=1
	timeout 30 redis-benchmark -p "$PORT" -n 2000 -c 4 -t set,get,incr,lpush,lpop -q >/dev/null || rc=1
	timeout 30 redis-benchmark -p "$PORT" -n 2000 -c 4 -P 16 -t set,get,incr,lpush,lpop -q >/dev/null || rc=1
	cli SET e2e:str abc >/dev/null || rc=1
	cli INCR e2e:str >/dev/null			# ERR, failed_calls of incr
	cli LPUSH e2e:str x >/dev/null			# WRONGTYPE, failed_calls of lpush
	cli GET e2e:a e2e:b >/dev/null			# ERR, rejected_calls of get
	cli E2EUNKNOWN e2e:str >/dev/null		# ERR, in errorstats only
	cli INCR e2e:str >/dev/null
	# mass insertion: inline commands, then an empty line and an ECHO of
	# random bytes that tells redis-cli all were answered (13 in flight)
	printf 'SET e2e:pipe:%d v\r\n' $(seq 1 12) | cli --pipe >/dev/null || rc=1
	# deeper than a connection's own queue (16): up to 256 are followed
	timeout 30 redis-benchmark -p "$PORT" -n 2000 -c 2 -P 64 -t ping -q >/dev/null || rc=1
	printf 'PING\r\n%.0s' $(seq 1 200) | cli --pipe >/dev/null || rc=1
	# pipelines longer than the snaplen (2048): 64 SETs of 100-byte values
	# make a 9.6 KB buffer, 64 GETs' replies 6.8 KB; their connections are
	# then captured wide, both ways
	timeout 30 redis-benchmark -p "$PORT" -n 4000 -c 2 -P 64 -d 100 -t set,get -q >/dev/null || rc=1
	pubsub || rc=1
	monitor || rc=1
	return $rc
}
# redis-cli monitor: after its OK, a line for each command run meanwhile
# (three here), none a reply; each counted as a push.
monitor() {
	local m i
	timeout 30 redis-cli -p "$PORT" monitor >"$TMP/monitor.out" &
	m=$!
	for i in $(seq 100); do
		grep -qx OK "$TMP/monitor.out" && break
		sleep 0.1
	done
	cli SET e2e:m 1 >/dev/null && cli INCR e2e:m >/dev/null && cli GET e2e:m >/dev/null
	for i in $(seq 100); do
		[ "$(grep -c '"GET" "e2e:m"' "$TMP/monitor.out")" = 1 ] && break
		sleep 0.1
	done
	kill "$m" 2>/dev/null
	wait "$m" 2>/dev/null
	[ "$(grep -c '"GET" "e2e:m"' "$TMP/monitor.out")" = 1 ] || { cat "$TMP/monitor.out"; return 1; }
}
# Pub/sub and RESP3 pushes, which answer no request: a RESP2 subscriber of
# two channels (two confirmations to one SUBSCRIBE) and a RESP3 one (redis-cli
# -3: its confirmation is a push) get 3 + 2 and 3 messages; then RESP3
# client tracking through redis-cli --pipe, whose SETs of a tracked key put
# an invalidation push between their reply and the next GET's.
pubsub() {
	local s2 s3 i
	timeout 30 redis-cli -p "$PORT" SUBSCRIBE e2e:c1 e2e:c2 >"$TMP/sub2.out" &
	s2=$!
	timeout 30 redis-cli -3 -p "$PORT" SUBSCRIBE e2e:c1 >"$TMP/sub3.out" &
	s3=$!
	for i in $(seq 100); do
		[ "$(cli PUBSUB NUMSUB e2e:c1 e2e:c2 | tr '\n' ' ')" = "e2e:c1 2 e2e:c2 1 " ] && break
		sleep 0.1
	done
	for i in 1 2 3; do cli PUBLISH e2e:c1 "m$i" >/dev/null; done
	for i in 1 2; do cli PUBLISH e2e:c2 "n$i" >/dev/null; done
	# each subscriber prints a message's payload on a line of its own
	for i in $(seq 100); do
		all_got && break
		sleep 0.1
	done
	kill "$s2" "$s3" 2>/dev/null
	wait "$s2" "$s3" 2>/dev/null
	all_got || { echo "subscribers got: $(tr '\n' ' ' <"$TMP/sub2.out") /" \
		"$(tr '\n' ' ' <"$TMP/sub3.out")"; return 1; }
	# (as arrays, as RESP3 clients send them: HELLO is no inline command)
	{ resp HELLO 3; resp CLIENT TRACKING on; resp GET e2e:t; resp SET e2e:t 1; resp GET e2e:t
	  resp SET e2e:t 2; resp GET e2e:t; } | cli --pipe >"$TMP/track.out" &&
		grep -q 'errors: 0, replies: 7' "$TMP/track.out" || return 1
	# CLIENT REPLY: OFF silences the commands until ON, SKIP the next one:
	# 3 replies to 8 commands (ON's OK, then GET's 2, then GET's 22)
	{ resp CLIENT REPLY OFF; resp SET e2e:r 1; resp INCR e2e:r; resp CLIENT REPLY ON
	  resp GET e2e:r; resp CLIENT REPLY SKIP; resp SET e2e:r 22; resp GET e2e:r; } |
		cli --pipe >"$TMP/reply.out" &&
		grep -q 'errors: 0, replies: 3' "$TMP/reply.out" || { cat "$TMP/reply.out"; return 1; }
}
all_got() {
	[ "$(grep -c '^[mn][0-9]$' "$TMP/sub2.out")" = 5 ] && [ "$(grep -c '^m[0-9]$' "$TMP/sub3.out")" = 3 ]
}
resp() {	# a command as a RESP array
	printf '*%d\r\n' $#
	for a; do printf '$%d\r\n%s\r\n' ${#a} "$a"; done
}
expect "redis-benchmark and redis-cli ran" load
req_agent_stop; rc=$?
expect "the agent exits 0" [ $rc = 0 ] || tail -n 5 "$REQ_ERR"
# One INFO after the agent stopped: it is not seen, and not in its own output.
cli INFO all >"$SRV/info.txt"
expect "INFO answered" grep -q '^# Commandstats' "$SRV/info.txt"

# metrics_settle PORT INFO OUT: polls the agent's metrics (rendered about once
# a second from what it has read by then) until agent_request_total at
# redis-server, the INFO that read Redis' count left out, reaches the calls in
# INFO (taken once the load ended; the count only grows towards them), for at
# most 20 s; the last text in OUT. The checks below then compare it exactly.
metrics_settle() {
	python3 - "$@" <<'PY'
import sys, time, urllib.request, req_lib as R
port, info, out = sys.argv[1:4]
want = R.redis_calls(info)
for _ in range(200):
    text = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % port, timeout=5).read().decode()
    with open(out, "w") as f:
        f.write("".join(l + "\n" for l in text.splitlines() if 'request_content="INFO"' not in l))
    if R.metric_total(out, "agent_request_total", "redis-server") >= want:
        break
    time.sleep(0.1)
PY
}

# Metrics only (-q, no filter): a connection seen from both sides is walked on
# its server's side only (pair_opts.server_side_once), and the metrics still
# count every command Redis counts, pipelined or not.
MPORT=$(free_port)
expect "the agent starts in request mode for metrics only (-q --metrics)" \
	start_agent "$TMP/q.out" "$TMP/q.err" --requests -q --metrics "127.0.0.1:$MPORT"
# A client on one connection PINGs every 5 ms until its end is in the
# kernel's quiet_socks table (put there by the agent), then 100 more times:
# those 200 syscalls come after the kernel had the key, so it keeps them all,
# however far the agent lags behind (it says how many PINGs it took).
pinger() {
	timeout 30 python3 - "$PORT" <<'PY'
import json, socket, subprocess, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
lport = s.getsockname()[1]
def ping():
    s.sendall(b"PING\r\n")
    got = b""
    while not got.endswith(b"\r\n"):
        got += s.recv(64)
    assert got == b"+PONG\r\n", got
def in_kernel():
    out = subprocess.run(["bpftool", "-j", "map", "dump", "name", "quiet_socks"],
                         capture_output=True, text=True).stdout
    maps = json.loads(out or "[]")
    # one list per map of that name (other agents may run), or one list
    elems = [e for m in maps for e in (m if isinstance(m, list) else [m])]
    return any(e.get("formatted", {}).get("key", {}).get("lport") == lport for e in elems)
n = 0
while not (n and n % 10 == 0 and in_kernel()):
    assert n < 2000, "the connection's end never reached the kernel's table"
    ping()
    n += 1
    time.sleep(0.005)
for _ in range(100):
    ping()
print(n)
PY
}
qload() {
	[ "$(cli CONFIG RESETSTAT)" = OK ] &&
		timeout 30 redis-benchmark -p "$PORT" -n 3000 -c 4 -P 16 -t set,get -q >/dev/null &&
		timeout 30 redis-benchmark -p "$PORT" -n 500 -c 2 -t incr -q >/dev/null &&
		pinger >"$TMP/pings"
}
expect "redis-benchmark and the PINGs ran under -q --metrics" qload
echo "    $(cat "$TMP/pings") PINGs before the kernel kept the pinger's syscalls"
cli INFO commandstats >"$SRV/qinfo.txt"
metrics_settle "$MPORT" "$SRV/qinfo.txt" "$TMP/q.metrics"
req_agent_stop; rc=$?
expect "the metrics-only agent exits 0" [ $rc = 0 ] || tail -n 5 "$TMP/q.err"
# The same with --no-exit-only (sys_enter attached): the kernel cannot judge a
# call's two events together there, so quiet ends stay in the agent (README,
# "Both sides on one host"), and the commands are still all counted.
MPORT2=$(free_port)
expect "the agent starts for metrics only with --no-exit-only" \
	start_agent "$TMP/n.out" "$TMP/n.err" --requests -q --no-exit-only --metrics "127.0.0.1:$MPORT2"
nload() {
	[ "$(cli CONFIG RESETSTAT)" = OK ] &&
		timeout 30 redis-benchmark -p "$PORT" -n 2000 -c 2 -P 16 -t set -q >/dev/null
}
expect "redis-benchmark ran under --no-exit-only" nload
cli INFO commandstats >"$SRV/ninfo.txt"
metrics_settle "$MPORT2" "$SRV/ninfo.txt" "$TMP/n.metrics"
req_agent_stop; rc=$?
expect "the --no-exit-only agent exits 0" [ $rc = 0 ] || tail -n 5 "$TMP/n.err"
srv_stop "$REDIS_PID"
req_check quiet "metrics only: agent_request_total at redis-server == Redis' calls; every client connection left to its server's side, busy ones in the kernel" \
	"$TMP/q.metrics" "$TMP/q.err" "$SRV/qinfo.txt" <<'PY'
import sys, req_lib as R
metrics, err, info = sys.argv[1:4]
calls = R.redis_calls(info)
got = R.metric_total(metrics, "agent_request_total", "redis-server")
q = R.quiet_summary(err)
print("Redis calls %d, agent_request_total at redis-server %d, paired records %d, client connections left to the server's side %d, "
      "of them kept in the kernel %d (refused %d), their syscalls kept there %d"
      % (calls, got, q["paired"], q["quiet"], q["handed"], q["refused"], q["kept"]))
assert got == calls, "metrics count %d commands, Redis %d" % (got, calls)
# 4 + 2 benchmark connections, and redis-cli's
assert q["quiet"] >= 8, "only %d client connections were left to their server's side" % q["quiet"]
# the benchmark's 6 busy connections and the PINGs' go on in the kernel
# (the other redis-cli connections are short)
assert q["handed"] >= 7 and q["refused"] == 0, "%d kept in the kernel, %d refused" % (q["handed"], q["refused"])
# the benchmark is over in milliseconds, about what the agent lags behind the
# kernel, so how much of it stays there varies; the pinger's last 100 PINGs
# came after its end was in the kernel's table: 200 syscalls kept there at
# least, and still every command is counted
assert q["kept"] >= 200, "only %d syscalls kept in the kernel" % q["kept"]
# one record per command, not two (host-wide: other TCP may add a few)
assert calls <= q["paired"] < calls + calls // 2, "paired %d records for %d commands" % (q["paired"], calls)
print("ok")
PY

req_check noeo "--no-exit-only: quiet client connections stay in the agent (none in the kernel); agent_request_total == Redis' calls" \
	"$TMP/n.metrics" "$TMP/n.err" "$SRV/ninfo.txt" <<'PY'
import sys, req_lib as R
metrics, err, info = sys.argv[1:4]
calls = R.redis_calls(info)
got = R.metric_total(metrics, "agent_request_total", "redis-server")
q = R.quiet_summary(err)
print("Redis calls %d, agent_request_total at redis-server %d; client connections left to the server's side %d, in the kernel %d, syscalls kept there %d"
      % (calls, got, q["quiet"], q["handed"], q["kept"]))
assert got == calls, "metrics count %d commands, Redis %d" % (got, calls)
assert q["quiet"] >= 2, "only %d client connections were left to their server's side" % q["quiet"]
assert q["handed"] == 0 and q["refused"] == 0 and q["kept"] == 0, "the kernel kept ends without exit-only"
print("ok")
PY

req_check redis "server-side records per command == calls + rejected_calls; errors per command == failed + rejected; error codes == errorstats" \
	"$REQ_OUT" "$REQ_ERR" "$SRV/info.txt" <<'PY'
import re, sys, req_lib as R
out, err, info = sys.argv[1:4]
calls, errs, codes, total_err = {}, {}, {}, None
for l in open(info):
    l = l.strip()
    m = re.match(r"cmdstat_([^:]+):(.*)$", l)
    if m:
        f = dict(kv.split("=") for kv in m[2].split(","))
        # subcommands (config|get) count under their command (CONFIG)
        cmd = m[1].split("|")[0].upper()
        n = int(f["calls"]) + int(f.get("rejected_calls", 0))
        e = int(f.get("failed_calls", 0)) + int(f.get("rejected_calls", 0))
        calls[cmd] = calls.get(cmd, 0) + n
        errs[cmd] = errs.get(cmd, 0) + e
    m = re.match(r"errorstat_([^:]+):count=(\d+)$", l)
    if m:
        codes[m[1]] = int(m[2])
    m = re.match(r"total_error_replies:(\d+)$", l)
    if m:
        total_err = int(m[1])
calls.pop("INFO", None)	# ours, after the agent stopped
errs.pop("INFO", None)
# An unknown command has no commandstats line: its error is the rest of the total.
unknown = total_err - sum(errs.values())
recs = R.records(out)
server = [r for r in recs if r.get("req.side") == "server"]
other = [r for r in server if r.get("req.protocol") != "redis"]
server = [r for r in server if r.get("req.protocol") == "redis"]
print("agent: %d records (%d server-side redis, %d server-side not redis), %d aborted or timed out, kernel drops %s"
      % (len(recs), len(server), len(other), len(R.ABORTED), R.kernel_drops(err)))
print("Redis: calls %s; errors %s; errorstats %s; total errors %d" % (calls, errs, codes, total_err))
for r in other[:5]:
    print("  not redis:", R.short(r))
got = R.counts(r.get("req.method") for r in server)
known = {k: v for k, v in got.items() if k in calls}
strange = {k: v for k, v in got.items() if k not in calls}
bad = ["records of %s: agent %d, Redis %d" % d for d in R.diff_counts(known, calls)]
if sum(strange.values()) != unknown:
    bad.append("records of commands Redis does not know %s, Redis' unknown-command errors %d"
               % (strange, unknown))
gerr = R.counts(r.get("req.method") for r in server if R.yes(r.get("req.error")))
gerr_known = {k: v for k, v in gerr.items() if k in calls}
want_err = {k: v for k, v in errs.items() if v}
bad += ["error records of %s: agent %d, Redis %d" % d for d in R.diff_counts(gerr_known, want_err)]
gcodes = R.counts(r.get("req.code") for r in server if R.yes(r.get("req.error")))
bad += ["error records with code %s: agent %d, errorstats %d" % d for d in R.diff_counts(gcodes, codes)]
for r in server:
    if R.yes(r.get("req.error")) and r.get("req.method") in calls and not errs.get(r["req.method"]):
        bad.append("an error record where Redis counts none: " + R.short(r))
        break
assert len(other) == 0, "server-side records not parsed as redis"
assert not bad, "\n".join(bad)
# every pipelined command followed, on both sides: none past the bound, and
# no read or write cut at the snaplen (the long pipelines' were captured wide)
summary = [l for l in open(err) if l.startswith("agent: requests:")]
assert summary and " 0 pipelined past 256," in summary[0] and \
    " 0 past the snaplen," in summary[0] and \
    " 0 responses without a request" in summary[0], "the agent's summary: %s" % summary
print("ok")
PY

req_check pubsub "pub/sub, MONITOR and RESP3 pushes answer no request: SUBSCRIBE's reply is its confirmations, a GET's is its value, never a push; every message, MONITOR line and invalidation counted as a push; CLIENT REPLY's silenced commands have no response" \
	"$REQ_OUT" "$REQ_ERR" "$TMP/monitor.out" <<'PY'
import re, sys, req_lib as R
out, err, mon = sys.argv[1:4]
server = [r for r in R.records(out, "redis", "server")]
def conf(ch, n, resp3):
    return len("%s3\r\n$9\r\nsubscribe\r\n$%d\r\n%s\r\n:%d\r\n" % (">" if resp3 else "*", len(ch), ch, n))
subs = sorted(r.get("req.bytes_out") for r in server if r.get("req.method") == "SUBSCRIBE")
want = sorted([conf("e2e:c1", 1, False) + conf("e2e:c2", 2, False), conf("e2e:c1", 1, True)])
print("SUBSCRIBE records' response bytes %s (their confirmations: %s)" % (subs, want))
assert subs == want, "SUBSCRIBE's responses are not its confirmations"
# --pipe's GETs of the tracked key: a RESP3 null, then the values 1 and 2
gets = [r.get("req.bytes_out") for r in server if r.get("req.method") == "GET" and r.get("req.path") == "e2e:t"]
print("GET e2e:t records' response bytes %s" % gets)
assert gets == [3, 7, 7], "a GET's response is not its value alone"
summary = [l for l in open(err) if l.startswith("agent: requests:")]
m = re.search(r"\(and (\d+) Redis pushes", summary[0] if summary else "")
assert m, "no pushes in the agent's summary: %s" % summary
# 3 x 2 + 2 messages, 2 invalidations and the MONITOR lines, seen from both ends
lines = sum(1 for l in open(mon) if re.match(r"\d+\.\d+ \[", l))
print("pushes counted: %s (want 2 x (10 + %d MONITOR lines))" % (m[1], lines))
assert lines >= 3 and int(m[1]) == 2 * (10 + lines), "pushes counted %s" % m[1]
mons = [r.get("req.bytes_out") for r in server if r.get("req.method") == "MONITOR"]
assert mons == [5], "MONITOR's response is its OK (5 bytes): %s" % mons
# CLIENT REPLY OFF, SET, INCR, ON, GET, SKIP, SET, GET: only ON's +OK and
# the GETs' $1 2 and $2 22 were sent, each its own command's
reply = [(r.get("req.method"), r.get("req.bytes_out")) for r in server
         if r.get("req.path") in ("e2e:r", "REPLY")]
print("CLIENT REPLY's run, (command, response bytes): %s" % reply)
assert reply == [("CLIENT", 0), ("SET", 0), ("INCR", 0), ("CLIENT", 5), ("GET", 7),
                 ("CLIENT", 0), ("SET", 0), ("GET", 8)], "replies given to the commands Redis left unanswered"
print("ok")
PY

req_check sides "each command the clients sent has its server-side record, which is never slower" \
	"$REQ_OUT" <<'PY'
import sys, req_lib as R
R.check_sides(sys.argv[1], "redis", ("redis-benchmark", "redis-cli"), ("redis-server",))
print("ok")
PY
echo "    $((SECONDS - t0)) s"
finish
