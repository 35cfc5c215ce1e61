#!/usr/bin/env bash
# --requests --profile (README, "Profiling"): a server of our own with phases of
# known length per request (prof/phase_server.c: 20 ms on CPU, a 30 ms
# nanosleep, about 25 ms waiting on a mutex another thread holds, a 256 KiB
# write and its fsync) measures each phase itself; the agent's breakdown of each
# request holds against those measures, and its parts add up to the duration.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_servers.sh"
need_live
[ -x "${PHASE_SERVER:-}" ] || { echo "PHASE_SERVER not built"; exit 1; }
N=5

# 1. Usage: live threads only (alone, tests/e2e/test_profile_host).
"$AGENT" --requests --profile -w "$TMP/x.scap" >"$TMP/opt.out" 2>&1
expect "--requests --profile with -w is a usage error" [ $? = 2 ]

# 2. The server, the agent, N requests one after another.
PORT=$(free_port)
srv_start phase "$PHASE_SERVER" "$PORT" "$TMP/fsync.dat" "$TMP/phases.log"
expect "the phase server listens" wait_port "$PORT"
# At real-time priority (lib.sh, rt_on), so that the machine's other tasks
# (a CPU hog beside the suite, the kernel's writeback workers during its
# fsync) do not make it wait for a CPU: its phases are then the known values.
expect "the phase server runs at real-time priority" rt_on "$SRV_PID"
FMT="$REQ_FORMAT %thread.tid %req.oncpu %req.runq %req.offcpu.file %req.offcpu.net"
FMT+=" %req.offcpu.lock %req.offcpu.poll %req.offcpu.sleep %req.offcpu.other"
expect "the agent starts with --requests --profile" \
	start_agent "$REQ_OUT" "$REQ_ERR" --requests --profile -j -p "$FMT" "req.sport=$PORT"
for i in $(seq 1 $N); do
	timeout 10 curl -s -o /dev/null "http://127.0.0.1:$PORT/work?i=$i"
done
req_agent_stop
expect "the agent exits 0" [ $? = 0 ] || tail -n 5 "$REQ_ERR"
srv_stop "$SRV_PID"
expect "the exit line counts the threads followed and nothing lost" \
	grep -qE '^agent: profiling: [0-9]+ threads followed now, 0 not followed .*, 0 batches past .*, 0 gaps .*, 0 batches malformed; server requests with no CPU breakdown: 0 whose thread was not followed, 0 answered by another thread, 0 across a gap' "$REQ_ERR" ||
	grep 'profiling' "$REQ_ERR"

# 3. Each request's breakdown against the server's own measures. Buckets
# within 10% or 2 ms of the measure (the agent's span, from the read's exit to
# the write's, holds the server's measured calls and a few syscalls more).
req_check breakdown "each bucket within 10% (or 2 ms) of the server's measure; the parts sum to req.duration" \
	"$REQ_OUT" "$TMP/phases.log" "$N" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
srv = [r for r in recs if r["req.side"] == "server"]
log = [list(map(int, l.split())) for l in open(sys.argv[2])]
n = int(sys.argv[3])
assert len(srv) == n == len(log), (len(srv), len(log))
ms = 1e6
def near(got, want, what, r):
    assert abs(got - want) <= max(0.10 * want, 2 * ms), "%s: agent %.3f ms, server %.3f ms: %s" % (what, got / ms, want / ms, r)
for r, (tid, holder, cpu, sleep, lock, fsync) in zip(srv, log):
    parts = ["req.oncpu", "req.runq", "req.offcpu.file", "req.offcpu.net", "req.offcpu.lock",
             "req.offcpu.poll", "req.offcpu.sleep", "req.offcpu.other"]
    assert all(isinstance(r.get(k), int) for k in parts), r
    assert sum(r[k] for k in parts) == r["req.duration"], r
    assert r["thread.tid"] == tid, (r, tid)
    near(r["req.oncpu"], cpu, "on CPU", r)
    near(r["req.offcpu.sleep"], sleep, "sleep", r)
    near(r["req.offcpu.lock"], lock, "lock", r)
    near(r["req.offcpu.file"], fsync, "file (write + fsync)", r)
    assert r["req.offcpu.net"] <= 2 * ms and r["req.offcpu.poll"] <= 2 * ms, r
    assert r["req.runq"] <= 2 * ms and r["req.offcpu.other"] <= 2 * ms, r
    print("  request id %d: on %.1f ms (server %.1f), sleep %.1f (%.1f), lock %.1f (%.1f), file %.1f (%.1f), runq %.2f, other %.2f ms" % (
        r["req.id"], r["req.oncpu"] / ms, cpu / ms, r["req.offcpu.sleep"] / ms, sleep / ms,
        r["req.offcpu.lock"] / ms, lock / ms, r["req.offcpu.file"] / ms, fsync / ms,
        r["req.runq"] / ms, r["req.offcpu.other"] / ms))
cl = [r for r in recs if r["req.side"] == "client"]
assert cl and all(r.get("req.oncpu") is None for r in cl), ("client records carry no breakdown", cl[:1])
print("ok")
PY
finish
