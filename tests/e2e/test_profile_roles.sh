#!/usr/bin/env bash
# --requests --profile follows the threads that serve (README, "Profiling"):
# a thread whose requests are a client's only gets no breakdown, so it is let
# go in the kernel at its first one and its waits cost no more there; one let
# go that serves is followed again. Against Redis, our phase server
# (prof/phase_server.c with ping-first: a Redis PING before it serves
# anything, so its thread is let go, then followed again at its first
# request) and a long-lived Python client of Redis (40 PINGs, a 1 s pause
# after the first, then 20 ms apart, each a wait that would be a batch): the
# server's first request has no breakdown, counted as not followed, the next
# ones have one; the client sends at most a few batches, those built before
# the agent let it go; the replay of the capture file decides the same.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_servers.sh"
need_live
[ -x "${PHASE_SERVER:-}" ] || { echo "PHASE_SERVER not built"; exit 1; }
need_pkgs redis-server
# this VM's tracepoints now and then hide a switch or wakeup from every
# tracer (tests/e2e/README.md, e2e_profile): a request across one has no
# breakdown, counted so on the exit line, and the records' check below takes
# that count: how many the VM hides is its own (CI saw 2 of these N)
N=4

RPORT=$(free_port)
mkdir -p "$SRV/redis"
srv_start redis redis-server --bind 127.0.0.1 --port "$RPORT" --save '' --appendonly no \
	--dir "$SRV/redis" --daemonize no --logfile ''
expect "redis-server listens" wait_port "$RPORT" || cat "$SRV/redis.log"
FMT="$REQ_FORMAT %thread.tid %req.oncpu %req.runq %req.offcpu.file %req.offcpu.net"
FMT+=" %req.offcpu.lock %req.offcpu.poll %req.offcpu.sleep %req.offcpu.other"
expect "the agent starts with --requests --profile" \
	start_agent "$REQ_OUT" "$REQ_ERR" --requests --profile -j -p "$FMT" -w "$TMP/roles.scap" \
	"req.sport=$RPORT or proc.name=phase_server"
# after the agent: its PING is the first request it sees of the server
PORT=$(free_port)
srv_start phase "$PHASE_SERVER" "$PORT" "$TMP/fsync.dat" "$TMP/phases.log" "$RPORT" ping-first
expect "the phase server listens" wait_port "$PORT"
command -v bpftool >/dev/null || PATH=$PATH:/usr/sbin
/usr/bin/python3 - "$RPORT" >"$TMP/client.out" 2>&1 <<'PY' &
import json, os, socket, subprocess, sys, threading, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
tid = threading.get_native_id()
print(tid, flush=True)
def let_go():
    out = subprocess.run(["bpftool", "-j", "map", "dump", "name", "prof_let_go"],
                         capture_output=True, text=True).stdout
    maps = json.loads(out or "[]")
    elems = [e for m in maps for e in (m if isinstance(m, list) else [m])]
    return any(e.get("formatted", {}).get("key") == tid for e in elems)
polls = 0
for i in range(40):
    s.sendall(b"PING\r\n")
    assert s.recv(64) == b"+PONG\r\n"
    # after the first: time for the agent to have let it go (it reads the
    # events a few ms behind the kernel); on a machine where it lags more,
    # until the kernel's table has the thread (each look a few waits more)
    time.sleep(1 if i == 0 else 0.02)
    while i == 0 and not let_go():
        assert polls < 300, "the agent never let the client's thread go"
        polls += 1
        time.sleep(0.1)
print(polls, flush=True)
PY
CLIENT=$!
for i in $(seq 1 $N); do
	timeout 10 curl -s -o /dev/null "http://127.0.0.1:$PORT/work?i=$i"
done
wait "$CLIENT"
expect "the Redis client made its 40 PINGs" [ $? = 0 ] || cat "$TMP/client.out"
req_agent_stop
expect "the agent exits 0" [ $? = 0 ] || tail -n 5 "$REQ_ERR"
srv_stop "$SRV_PID"

# The counts are the whole host's (the filter chooses what is shown): ours
# are the server's thread (let go, followed again, its first request not
# followed), the client's and the curls' (let go), so they are at least these.
expect "the exit line: the server's first request not followed, its thread followed again, the clients let go" \
	grep -qE '^agent: profiling: .* server requests with no CPU breakdown: [1-9][0-9]* whose thread was not followed, 0 answered by another thread, [0-9]+ across a gap; ([5-9]|[1-9][0-9]+) threads let go, their requests a client.s only \([1-9][0-9]* followed again as they served, 0 the kernel not told\)' "$REQ_ERR" ||
	grep 'profiling' "$REQ_ERR"

# The server's records: the first without a breakdown, the next with one
# (but one across a gap the exit line counted).
GAPS=$(sed -nE 's/^agent: profiling: .* ([0-9]+) across a gap.*/\1/p' "$REQ_ERR")
GAPS=${GAPS:-0}
req_check roles "the server's first request has no breakdown, the next $((N - 1)) have one ($GAPS across a gap), their parts summing to req.duration" \
	"$REQ_OUT" "$PORT" "$N" "$GAPS" <<'PY'
import json, sys
port, n, gaps = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
srv = [r for r in map(json.loads, open(sys.argv[1])) if r["req.side"] == "server" and r["req.sport"] == port]
assert len(srv) == n, srv
parts = ["req.oncpu", "req.runq", "req.offcpu.file", "req.offcpu.net", "req.offcpu.lock",
         "req.offcpu.poll", "req.offcpu.sleep", "req.offcpu.other"]
assert all(srv[0].get(k) is None for k in parts), srv[0]
whole = [r for r in srv[1:] if r.get("req.oncpu") is not None]
assert len(whole) == n - 1 - gaps, (gaps, srv)
for r in srv[1:]:
    if r not in whole:
        assert all(r.get(k) is None for k in parts), r
for r in whole:
    assert all(isinstance(r.get(k), int) for k in parts) and sum(r[k] for k in parts) == r["req.duration"], r
    # the 30 ms nanosleep with its run-queue wait (the scheduler's clock
    # splits the two: prof_slices saw the sleep alone 106 ns short), less a
    # millisecond for the timer armed in the call before its switch out
    assert r["req.offcpu.sleep"] + r["req.runq"] >= 29 * 10**6, r
print("ok")
PY

# The kernel's side: the client's batches in the capture file. Followed all
# along, each PING's wait would be one (40, and its sleeps); let go at its
# first, it sends the batch of none that began following and those built
# before the agent acted: the first PONG's wait and the second's pause, 3 at
# most unless the agent lagged the kernel by over a second; then the client
# looked for itself in the kernel's table POLLS times, each a few waits more
# (16 to a batch).
CTID=$(head -n 1 "$TMP/client.out")
POLLS=$(sed -n 2p "$TMP/client.out")
POLLS=${POLLS:-0}
"$AGENT" -r "$TMP/roles.scap" -j -p '%evt.type %thread.tid' "evt.type=cpuslices and thread.tid=$CTID" \
	>"$TMP/client_batches.json" 2>"$TMP/client_batches.err"
expect "the capture file reads back" [ $? = 0 ] || tail -n 3 "$TMP/client_batches.err"
B=$(grep -c . "$TMP/client_batches.json")
expect "the client thread $CTID sent 1 to $((5 + POLLS)) batches, not one per PING ($B; $POLLS looks at the kernel's table)" \
	[ "$B" -ge 1 ] && [ "$B" -le $((5 + POLLS)) ]

# The replay decides the same: the same records, field for field.
"$AGENT" -r "$TMP/roles.scap" --requests --profile -j -p "$FMT" \
	"req.sport=$RPORT or proc.name=phase_server" >"$TMP/replay.out" 2>"$TMP/replay.err"
expect "the replay runs" [ $? = 0 ] || tail -n 3 "$TMP/replay.err"
expect "the replay's records are the live ones" cmp -s "$REQ_OUT" "$TMP/replay.out" ||
	diff "$REQ_OUT" "$TMP/replay.out" | head -n 6
expect "... and its exit line the same counts of threads let go" \
	[ "$(grep -o '[0-9]* threads let go.*' "$REQ_ERR")" = "$(grep -o '[0-9]* threads let go.*' "$TMP/replay.err")" ]
finish
