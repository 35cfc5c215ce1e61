#!/usr/bin/env bash
# --requests --profile (README, "Profiling"): a server of our own with phases of
# known length per request (prof/phase_server.c: 20 ms on CPU, a 30 ms
# nanosleep, about 25 ms waiting on a mutex another thread holds, a 256 KiB
# write and its fsync) marks each phase's bounds with its own clocks; the
# kernel's sched_switch and sched_wakeup of its thread (tracefs) say how long
# it was blocked in each (prof/phases.py); the agent's breakdown of each
# request holds against those measures, and its parts add up to the duration.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_servers.sh"
need_live
[ -x "${PHASE_SERVER:-}" ] || { echo "PHASE_SERVER not built"; exit 1; }
N=5

# 1. Usage: stacks are sampled live only.
"$AGENT" --requests --profile --profile-out "$TMP/x" --profile-hz 99 -r /dev/null >"$TMP/opt.out" 2>&1
expect "--profile-hz with -r is a usage error" [ $? = 2 ]
expect "... saying why" grep -q 'keeps no stacks' "$TMP/opt.out"

# 2. Redis, the server, the agent, N requests one after another.
need_pkgs redis-server
RPORT=$(free_port)
mkdir -p "$SRV/redis"
srv_start redis redis-server --bind 127.0.0.1 --port "$RPORT" --save '' --appendonly no \
	--dir "$SRV/redis" --daemonize no --logfile ''
expect "redis-server listens" wait_port "$RPORT" || cat "$SRV/redis.log"
PORT=$(free_port)
srv_start phase "$PHASE_SERVER" "$PORT" "$TMP/fsync.dat" "$TMP/phases.log" "$RPORT"
PHASE_PID=$SRV_PID
expect "the phase server listens" wait_port "$PORT"
# At real-time priority (lib.sh, rt_on), so that the machine's other tasks
# (a CPU hog beside the suite, the kernel's writeback workers during its
# fsync) do not make it wait for a CPU: its phases are then the known values.
expect "the phase server runs at real-time priority" rt_on "$SRV_PID"
# The server answers on its main thread: the kernel's record of its switches
# and wakeups, the oracle of its time blocked.
expect "the kernel traces the server's thread (tracefs)" ftrace_start "$PHASE_PID"
FMT="$REQ_FORMAT %thread.tid %req.oncpu %req.runq %req.offcpu.file %req.offcpu.net"
FMT+=" %req.offcpu.lock %req.offcpu.poll %req.offcpu.sleep %req.offcpu.other"
MPORT=$(free_port)
expect "the agent starts with --requests --profile" \
	start_agent "$REQ_OUT" "$REQ_ERR" --requests --profile -j -p "$FMT" \
	--metrics "127.0.0.1:$MPORT" --profile-out "$TMP/tl" --profile-threshold http=50ms \
	--profile-hz 997 -w "$TMP/prof.scap" \
	"req.sport=$PORT or req.sport=$RPORT"
# perf's own sampler on the server meanwhile: the oracle of the stacks
command -v perf >/dev/null || need_pkgs linux-perf
# Started disabled and enabled through its control FIFO: its acknowledgement
# says the sampling is on. Its file's first bytes came before that, and a perf
# starved of CPU (CI beside two CPU hogs) once sampled none of the requests.
mkfifo "$TMP/perf.ctl" "$TMP/perf.ack"
perf record -q -D -1 --control "fifo:$TMP/perf.ctl,$TMP/perf.ack" -e cpu-clock -F 997 -g \
	-p "$PHASE_PID" -o "$TMP/perf.data" >"$TMP/perf.out" 2>&1 &
PERF_PID=$!
# read-write opens, which never block on a FIFO: a perf that failed to start
# costs the bounded read below, not a hang
exec {PERF_CTL}<>"$TMP/perf.ctl" {PERF_ACK}<>"$TMP/perf.ack"
echo enable >&"$PERF_CTL"
read -t 20 -r perf_ack <&"$PERF_ACK" || perf_ack=
expect "perf's sampler of the server is on (its control FIFO acknowledged)" [ "$perf_ack" = ack ] ||
	cat "$TMP/perf.out"
for i in $(seq 1 $N); do
	timeout 10 curl -s -o /dev/null "http://127.0.0.1:$PORT/work?i=$i"
done
kill -INT "$PERF_PID"; wait "$PERF_PID"
exec {PERF_CTL}>&- {PERF_ACK}>&-
perf script -i "$TMP/perf.data" -F comm,tid,ip,sym,dso >"$TMP/perf.txt" 2>/dev/null
# The metrics (rendered about once a second): polled until the N requests are
# in agent_request_total (served) and agent_request_profiled_total (less
# one across a gap: below), for at most 20 s.
python3 - "$MPORT" "$N" "$TMP/metrics.txt" <<'PY'
import re, sys, time, urllib.request
port, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for _ in range(200):
    text = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % port, timeout=5).read().decode()
    open(out, "w").write(text)
    def total(name):
        return sum(float(l.split()[-1]) for l in text.splitlines()
                   if l.startswith(name + "{") and 'process="phase_server"' in l)
    if total("agent_request_total") >= n and total("agent_request_profiled_total") >= n - 1:
        if total("agent_request_profiled_total") >= n or _ >= 20:
            break
    time.sleep(0.1)
PY
expect "the kernel's trace of the server's thread is whole" ftrace_stop "$TMP/sched.txt"
/usr/bin/python3 "$(dirname "$0")/prof/phases.py" "$TMP/phases.log" "$TMP/sched.txt" \
	"$TMP/phases.json" >"$TMP/phases.out" 2>&1
expect "the server's marks and the kernel's trace give each phase (its CPU clock under its time on CPU)" [ $? = 0 ] ||
	tail -n 5 "$TMP/phases.out"
req_agent_stop
expect "the agent exits 0" [ $? = 0 ] || tail -n 5 "$REQ_ERR"
srv_stop "$SRV_PID"
# A gap may be a switch the tracepoints hid (driver/README.md, "Switches not
# seen": on these VMs a wakeup or switch on a CPU coming out of idle is now
# and then shown to no tracer, perf's and ftrace's included) in any followed
# thread; a request across one has no breakdown, counted so. At most one of
# the N here (CI saw one in a few dozen runs); GAPS of them, checked below
# to be the records without a breakdown and left out of the checks of
# breakdowns and timelines. No event is dropped.
expect "the exit line counts the threads followed and at most one request across a gap" \
	grep -qE '^agent: profiling: [0-9]+ threads followed now, 0 not followed .*, 0 batches past .*, [0-9]+ gaps .*, 0 batches malformed; server requests with no CPU breakdown: 0 whose thread was not followed, 0 answered by another thread, [01] across a gap' "$REQ_ERR" ||
	grep 'profiling' "$REQ_ERR"
GAPS=$(sed -nE 's/^agent: profiling: .* ([0-9]+) across a gap.*/\1/p' "$REQ_ERR")
GAPS=${GAPS:-0}
NB=$((N - GAPS))	# the requests with a breakdown
expect "no event dropped" grep -qE '^agent: dropped 0 ' "$REQ_ERR" || grep dropped "$REQ_ERR"

# 3. Each request's breakdown against the oracle's measures: on CPU, the
# request's wall time less its time blocked and its run_delay; sleep, lock and
# file, its time blocked in each phase; the run queue, the kernel's own
# run_delay. Each within 10% or 2 ms (the agent's span, from the read's exit
# to the write's, holds the server's marks and a few syscalls more).
req_check breakdown "each bucket within 10% (or 2 ms) of the server's phases; the parts sum to req.duration; the metrics sum the records" \
	"$REQ_OUT" "$TMP/phases.json" "$N" "$TMP/metrics.txt" "$PORT" "$GAPS" <<'PY'
import json, re, sys
port, gaps = int(sys.argv[5]), int(sys.argv[6])
recs = [json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["req.sport"] == port]
srv = [r for r in recs if r["req.side"] == "server"]
log = json.load(open(sys.argv[2]))
n = int(sys.argv[3])
assert len(srv) == n == len(log), (len(srv), len(log))
# those across a gap (the exit line's count) have no breakdown at all
whole = [(r, p) for r, p in zip(srv, log) if r.get("req.oncpu") is not None]
assert len(whole) == n - gaps and all(r.get("req.runq") is None for r in srv if r.get("req.oncpu") is None), (gaps, srv)
ms = 1e6
def close(got, want):
    return abs(got - want) <= max(0.10 * want, 2 * ms)
def near(got, want, what, r):
    assert close(got, want), "%s: agent %.3f ms, server %.3f ms: %s" % (what, got / ms, want / ms, r)
# on CPU, sleep, lock and file: the trace's measure, or, where the trace lost
# a switch of the thread (phases.py), the kernel counters' one, for at most
# one request of the N (CI saw one in some ten runs)
by_counters = []
def near2(got, p, k, what, r):
    if close(got, p[k]):
        return
    assert close(got, p["counted"][k]), "%s: agent %.3f ms, server %.3f ms (by its counters %.3f): %s" % (
        what, got / ms, p[k] / ms, p["counted"][k] / ms, r)
    by_counters.append((r[1]["req.id"], what, got, p[k], p["counted"][k]))
for r, p in whole:
    parts = ["req.oncpu", "req.runq", "req.offcpu.file", "req.offcpu.net", "req.offcpu.lock",
             "req.offcpu.poll", "req.offcpu.sleep", "req.offcpu.other"]
    assert all(isinstance(r.get(k), int) for k in parts), r
    assert sum(r[k] for k in parts) == r["req.duration"], r
    assert r["thread.tid"] == p["tid"], (r, p)
    near2(r["req.oncpu"], p, "on", "on CPU", (p, r))
    near2(r["req.offcpu.sleep"], p, "sleep", "sleep", (p, r))
    near2(r["req.offcpu.lock"], p, "lock", "lock", (p, r))
    near2(r["req.offcpu.file"], p, "file", "file (open, write, fsync, close)", (p, r))
    near(r["req.runq"], p["runq"], "run queue (the kernel's run_delay)", (p, r))
    # the network waits are the Redis call's (its wall time holds them)
    assert r["req.offcpu.net"] <= p["redis"] + 2 * ms and r["req.offcpu.poll"] <= 2 * ms, (p, r)
    assert r["req.offcpu.other"] <= 2 * ms, r
    print("  request id %d: on %.1f ms (server %.1f; its CPU clock %.1f), sleep %.1f (%.1f), lock %.1f (%.1f), file %.1f (%.1f), runq %.2f (%.2f), net %.2f (Redis %.2f), other %.2f ms" % (
        r["req.id"], r["req.oncpu"] / ms, p["on"] / ms, p["cpu"] / ms, r["req.offcpu.sleep"] / ms, p["sleep"] / ms,
        r["req.offcpu.lock"] / ms, p["lock"] / ms, r["req.offcpu.file"] / ms, p["file"] / ms,
        r["req.runq"] / ms, p["runq"] / ms, r["req.offcpu.net"] / ms, p["redis"] / ms, r["req.offcpu.other"] / ms))
for i, what, got, trace, ctr in by_counters:
    print("  request id %d: %s by the kernel's counters (agent %.3f ms, counters %.3f), the trace "
          "lost a switch (it gave %.3f)" % (i, what, got / ms, ctr / ms, trace / ms))
assert len({i for i, *_ in by_counters}) <= 1, "more than one request's trace lost switches"
# the metrics: the same records' sums per reason, for the server's series
met = {}
for l in open(sys.argv[4]):
    m = re.match(r'(agent_request_(?:profiled_total|oncpu_seconds_total|runq_seconds_total|offcpu_seconds_total))\{(.*)\} (\S+)$', l)
    if m and 'process="phase_server"' in m.group(2):
        reason = re.search(r'reason="(\w+)"', m.group(2))
        key = m.group(1) + (":" + reason.group(1) if reason else "")
        met[key] = met.get(key, 0) + float(m.group(3))
assert met.get("agent_request_profiled_total") == n - gaps, met
def sec(k):
    return sum(r[k] for r, _ in whole) / 1e9
for key, field in [("agent_request_oncpu_seconds_total", "req.oncpu"),
                   ("agent_request_runq_seconds_total", "req.runq")] + [
                   ("agent_request_offcpu_seconds_total:" + k, "req.offcpu." + k)
                   for k in ("file", "net", "lock", "poll", "sleep", "other")]:
    assert abs(met.get(key, -1) - sec(field)) < 1e-6, (key, met.get(key), sec(field))
print("  metrics: %d profiled, on %.4f s, sleep %.4f s, lock %.4f s, file %.4f s: the records' sums" % (
    n - gaps, met["agent_request_oncpu_seconds_total"], met["agent_request_offcpu_seconds_total:sleep"],
    met["agent_request_offcpu_seconds_total:lock"], met["agent_request_offcpu_seconds_total:file"]))
cl = [r for r in recs if r["req.side"] == "client"]
assert cl and all(r.get("req.oncpu") is None for r in cl), ("client records carry no breakdown", cl[:1])
print("ok")
PY

# 4. The Redis call each request made: its client record names the request
# (req.parent = its req.id). Each request's timeline (all are over the 50 ms
# given): its slices by reason sum to its record's breakdown; the 30 ms sleep
# in clock_nanosleep, the mutex wait released by the holder thread (the log's
# tid), the fsync on the file's path; its Redis call, as the record says;
# the SVG well-formed XML.
req_check timelines "each Redis call linked by req.parent; each request's timeline names its waits, the holder as the lock's waker, the fsync's file and the Redis call" \
	"$REQ_OUT" "$TMP/phases.json" "$N" "$TMP/tl" "$PORT" "$RPORT" "$TMP/fsync.dat" "$GAPS" <<'PY'
import glob, json, os, sys, xml.etree.ElementTree as E
out, logf, n, tl, port, rport, fpath, gaps = sys.argv[1:9]
n, port, rport, gaps = int(n), int(port), int(rport), int(gaps)
recs = [json.loads(l) for l in open(out)]
srv = [r for r in recs if r["req.side"] == "server" and r["req.sport"] == port]
calls = [r for r in recs if r["req.side"] == "client" and r["req.sport"] == rport and r["proc.name"] == "phase_server"]
log = json.load(open(logf))
assert len(srv) == n == len(log), (len(srv), len(log))
ms = 1e6
for r in srv:
    mine = [c for c in calls if c["req.parent"] == r["req.id"]]
    assert len(mine) == 1 and mine[0]["req.protocol"] == "redis" and mine[0]["req.method"] == "PING", (r, mine)
    assert r["req.id"] and not r.get("req.parent"), r
files = sorted(glob.glob(tl + "/req-*.json"))
# a timeline for each request with a breakdown (one across a gap has none)
assert len(files) == n - gaps, files
kinds = ["runq", "file", "net", "lock", "poll", "sleep", "other"]
named = 0
for r, p in zip(srv, log):
    if r.get("req.oncpu") is None:
        continue
    tid, holder, sleep = p["tid"], p["holder"], p["sleep"]
    t = json.load(open("%s/req-%d.json" % (tl, r["req.id"])))
    q = t["req"]
    assert q["req.id"] == r["req.id"] and q["thread.tid"] == tid and q["req.duration"] == r["req.duration"], (q, r)
    assert t["whole"] is True and t["start"] < t["end"], t
    by = dict.fromkeys(kinds, 0)
    for sl in t["slices"]:
        assert sl["state"] in ("runq", "off"), sl
        assert 0 <= sl["offset"] and sl["offset"] + sl["dur"] <= t["end"] - t["start"], sl
        by[sl["reason"]] += sl["dur"]
    for k in kinds:
        want = r["req.runq"] if k == "runq" else r["req.offcpu." + k]
        assert abs(by[k] - want) <= max(0.01 * want, 0.5 * ms), (k, by[k], want, t)
    sleeps = [sl for sl in t["slices"] if sl["reason"] == "sleep"]
    assert len(sleeps) == 1 and sleeps[0]["syscall"] in ("clock_nanosleep", "nanosleep") and abs(sleeps[0]["dur"] - sleep) <= 2 * ms, sleeps
    locks = [sl for sl in t["slices"] if sl["reason"] == "lock" and sl["dur"] > 5 * ms]
    assert locks and all(sl["syscall"] == "futex" and sl["futex"].startswith("0x") for sl in locks), locks
    # the waker comes from sched_waking, which on these VMs now and then
    # misses a wakeup on a CPU coming out of idle: then no waker, never a
    # wrong one; the holder named in at least one request
    if any(sl.get("waker.tid") == holder and sl.get("waker.name") == "phase_server" for sl in locks):
        named += 1
    else:
        assert all(not sl.get("waker.tid") for sl in locks), (holder, locks)
    files_ = [sl for sl in t["slices"] if sl["reason"] == "file"]
    assert files_ and any(sl.get("fd.name") == fpath and sl["syscall"] in ("fsync", "write") for sl in files_), files_
    c = [c for c in calls if c["req.parent"] == r["req.id"]][0]
    assert len(t["calls"]) == 1 and t["calls"][0]["req.id"] == c["req.id"] and t["calls"][0]["protocol"] == "redis" \
        and t["calls"][0]["request"] == "PING" and t["calls"][0]["dur"] == c["req.duration"], (t["calls"], c)
    root = E.parse("%s/req-%d.svg" % (tl, r["req.id"])).getroot()
    assert root.tag.endswith("svg") and "redis PING" in "".join(root.itertext()), root
    print("  request id %d: %d slices (sleep %.1f ms in %s; lock %.1f ms released by %d; file %s), Redis call %d (%.3f ms)" % (
        r["req.id"], len(t["slices"]), sleeps[0]["dur"] / ms, sleeps[0]["syscall"], sum(sl["dur"] for sl in locks) / ms,
        holder, fpath, c["req.id"], c["req.duration"] / ms))
assert named >= 1, "no lock wait named its holder as its waker"
if named < n - gaps:
    print("  %d of %d lock waits with no waker: their wakeups hidden from the tracepoints" % (n - gaps - named, n - gaps))
print("ok")
PY
expect "the exit line counts the timelines written" \
	grep -qE "^agent: slow requests' timelines: $NB written to .* \(0 with slices not kept\), 0 past 10 a second, 0 could not be written" "$REQ_ERR" ||
	grep timelines "$REQ_ERR"
# 5. On-CPU stacks: the server's file of collapsed stacks names phase_spin
# (its 20 ms on CPU per request) as the user function in the most samples,
# over half of them,
# leaving out the threads' roots (main, start_thread and what calls them), and so does
# perf record -g of the server over the same requests; each timeline's
# stacks have it too.
req_check stacks "phase_spin tops the server's on-CPU stacks, as in perf record -g; each slow request's stacks hold it" \
	"$TMP/tl" "$TMP/perf.txt" "$N" <<'PY'
import collections, glob, json, sys
tl, perf, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
ROOTS = {"main", "_start", "__libc_start_main", "__libc_start_call_main", "start_thread",
         "clone", "clone3", "__clone", "__clone3"}
def top(stacks):
    # user frames with a name, the threads' roots left out
    inc = collections.Counter()
    for frames, k in stacks:
        for f in set(frames):
            if not f.startswith("[") and not f.endswith("_[k]") and f.split("@")[0] not in ROOTS:
                inc[f] += k
    return inc
ours = []
for l in open(tl + "/stacks-host-phase_server.folded"):
    st, k = l.rsplit(" ", 1)
    ours.append((st.split(";")[1:], int(k)))
total = sum(k for _, k in ours)
inc = top(ours)
# most of the server's CPU time is the spin (phase_server.c), the rest a few syscalls
assert inc and inc.most_common(1)[0][0] == "phase_spin" and inc["phase_spin"] > total / 2, (total, inc.most_common(5))
# perf script: a sample's header line, then one "ip sym" line per frame
theirs, frames = [], None
for l in open(perf):
    if not l.strip():
        if frames is not None:
            theirs.append((frames, 1))
        frames = None
    elif not l.startswith("\t") and not l.startswith(" "):
        frames = []
    elif frames is not None:
        # "ip sym+off (dso)": the kernel's frames marked as ours are
        parts = l.split(None, 1)
        rest = parts[1].strip() if len(parts) > 1 else "[unknown] ([unknown])"
        sym, _, dso = rest.rpartition(" (")
        sym = sym.split("+")[0] or "[unknown]"
        frames.append(sym + "_[k]" if "kernel.kallsyms" in dso else sym)
if frames:
    theirs.append((frames, 1))
pinc = top(theirs)
assert pinc and pinc.most_common(1)[0][0] == "phase_spin" and pinc["phase_spin"] > len(theirs) / 2, (len(theirs), pinc.most_common(5))
for f in sorted(glob.glob(tl + "/req-*.json")):
    t = json.load(open(f))
    assert any("phase_spin" in s["stack"].split(";") for s in t["stacks"]), (f, t["stacks"][:3])
print("  ours: %d samples of phase_server, phase_spin in %d; perf: %d samples, phase_spin in %d" % (
    total, inc["phase_spin"], len(theirs), pinc["phase_spin"]))
print("ok")
PY
# A sample whose stacks could not be walked (neither has an address) is
# counted; at most 5% of the samples here (none expected: the stacks ride in
# the events, so none is lost to a table).
expect "the exit line counts the stacks, at most 5% of them not walked" awk '
	/^agent: on-CPU stacks: / { n = $4 + 0; lost = $(NF - 4) + 0; ok = n > 0 && lost <= 0.05 * n && /\(0 samples past/ }
	END { exit !ok }' "$REQ_ERR" || grep 'on-CPU' "$REQ_ERR"
# 6. The capture file the agent wrote (-w) replays (-r) with the same
# records, every field and breakdown, and the same timelines but for their
# stacks, which a replay does not name (the file has their addresses; the
# processes whose mappings would name them are gone).
"$AGENT" -r "$TMP/prof.scap" --requests --profile -j -p "$FMT" --profile-out "$TMP/tl2" \
	--profile-threshold http=50ms "req.sport=$PORT or req.sport=$RPORT" \
	>"$TMP/replay.out" 2>"$TMP/replay.err"
expect "the agent replays its capture file with --requests --profile" [ $? = 0 ] ||
	tail -n 5 "$TMP/replay.err"
req_check replay "the replay's records are the live ones, field for field; its timelines too, but for their stacks" \
	"$REQ_OUT" "$TMP/replay.out" "$TMP/tl" "$TMP/tl2" "$NB" <<'PY'
import glob, json, os, sys
live, again, tl, tl2, n = sys.argv[1:6]
a = [json.loads(l) for l in open(live)]
b = [json.loads(l) for l in open(again)]
assert a == b, ("records differ", len(a), len(b), [(x, y) for x, y in zip(a, b) if x != y][:1])
names = sorted(os.path.basename(f) for f in glob.glob(tl + "/req-*.json"))
assert len(names) == int(n) and names == sorted(os.path.basename(f) for f in glob.glob(tl2 + "/req-*.json")), names
for f in names:
    x, y = json.load(open(tl + "/" + f)), json.load(open(tl2 + "/" + f))
    assert x.pop("stacks") and "stacks" not in y and x == y, (f, x, y)
print("  %d records, %d timelines alike" % (len(a), len(names)))
print("ok")
PY
expect "... and says the same of the profiling" \
	diff <(grep '^agent: profiling:' "$REQ_ERR") <(grep '^agent: profiling:' "$TMP/replay.err")
# 7. The file the timelines name came from the driver, not from an open:
# with --profile-out, request mode keeps the file opens in the kernel, and
# the capture file holds the server's fdname events naming its fsync's file
# and none of its opens.
"$AGENT" -r "$TMP/prof.scap" -p '%evt.type %evt.args' \
	"proc.pid=$PHASE_PID and (evt.type in (open, openat, openat2, creat, fdname))" \
	>"$TMP/names.txt" 2>"$TMP/names.err"
expect "the file waited on is named by the driver's fdname events; no open of the server's was sent" \
	awk -v f="$TMP/fsync.dat" '
		$1 == "fdname" && index($0, "name=" f) { named++ }
		$1 != "fdname" { opens++ }
		END { exit !(named >= 1 && opens == 0) }' "$TMP/names.txt" ||
	{ head -n 5 "$TMP/names.txt"; tail -n 3 "$TMP/names.err"; }
# README's picture is one of them: PROFILE_SVG=docs/profile-request.svg keeps it
[ -n "${PROFILE_SVG:-}" ] && cp "$(ls "$TMP"/tl/req-*.svg | head -n 1)" "$PROFILE_SVG"
finish
