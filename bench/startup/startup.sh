#!/usr/bin/env bash
# startup.sh: what an agent's start costs, per filter, engine and mode: BPF
# programs loaded (the kernel's count, bpftool), the kernel memory they are
# charged (bpftool's memlock sum), and the time from exec to the agent saying
# it captures (its -v line), median and range of RUNS starts.
#   usage: sudo bench/startup/startup.sh [RUNS [AGENT [AGENT_BEFORE]]]
# With AGENT_BEFORE (an agent built from an earlier commit) each row has its
# figures too, from starts alternated with AGENT's. Agents run one at a time.
set -u
here=$(cd "$(dirname "$0")" && pwd)
runs=${1:-5}
agent=${2:-$here/../../build/userspace/agent/agent}
before=${3:-}
[ -x "$agent" ] || { echo "no agent at $agent (build first)" >&2; exit 2; }
[ -z "$before" ] || [ -x "$before" ] || { echo "no agent at $before" >&2; exit 2; }
command -v bpftool >/dev/null || PATH=$PATH:/usr/sbin
tmp=$(mktemp -d /tmp/startup-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
exec python3 - "$runs" "$tmp" "$agent" ${before:+"$before"} <<'PY'
import json, os, signal, statistics, subprocess, sys, time

runs, tmp, agents = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
W = os.path.join(tmp, "w.scap")
CASES = [
    ("evt.type=openat", ["evt.type=openat"]),
    ("evt.type=openat, exit-only", ["--exit-only", "evt.type=openat"]),
    ("evt.type=openat, perf engine", ["--engine", "perf", "evt.type=openat"]),
    ("proc.name=nginx", ["proc.name=nginx"]),
    ("capture-all -q (exit-only)", ["-q"]),
    ("capture-all -q, perf engine", ["-q", "--engine", "perf"]),
    ("capture-all -q --no-exit-only", ["-q", "--no-exit-only"]),
    ("-w, capture-all", ["-q", "-w", W]),
    ("-w evt.type=openat", ["-q", "-w", W, "evt.type=openat"]),
    ("--requests -q", ["--requests", "-q"]),
    ("--requests -q --profile --metrics", ["--requests", "-q", "--profile", "--metrics", "127.0.0.1:19587"]),
]

def progs():
    out = subprocess.run(["bpftool", "prog", "show", "--json"], capture_output=True,
                         text=True, check=True).stdout
    return {p["id"]: p.get("bytes_memlock", 0) for p in json.loads(out)}

def start(agent, args):
    """(ms from exec to 'capturing', programs it added, their memlock bytes)"""
    before = progs()
    t0 = time.monotonic()
    p = subprocess.Popen([agent, "-v"] + args, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    ms = None
    for line in p.stderr:
        if "capturing" in line:
            ms = (time.monotonic() - t0) * 1000
            break
    now = progs()
    new = {i: m for i, m in now.items() if i not in before}
    p.send_signal(signal.SIGINT)
    p.stderr.read()
    p.wait(timeout=30)
    if ms is None:
        sys.exit("%s %s did not start" % (agent, " ".join(args)))
    # let the kernel free them before the next start is counted
    for _ in range(100):
        if not set(new) & set(progs()):
            break
        time.sleep(0.05)
    return ms, len(new), sum(new.values())

rows = []
for name, args in CASES:
    res = [[] for _ in agents]
    for r in range(runs):
        for k, a in enumerate(agents):
            res[k].append(start(a, args))
    rows.append((name, res))

label = ["after", "before"]
hdr = "| start of | " + " | ".join(
    "%s: programs | %s: KiB | %s: ms to capturing, median (min-max)" % ((label[k],) * 3)
    for k in range(len(agents))) + " |"
print(hdr)
print("|" + "---|" * (1 + 3 * len(agents)))
for name, res in rows:
    cells = [name]
    for k in range(len(agents)):
        ms = [x[0] for x in res[k]]
        cells += ["%d" % statistics.median(x[1] for x in res[k]),
                  "%d" % (statistics.median(x[2] for x in res[k]) / 1024),
                  "%.0f (%.0f-%.0f)" % (statistics.median(ms), min(ms), max(ms))]
    print("| " + " | ".join(cells) + " |")
print("\n%d starts per row and agent, alternated; programs and KiB from bpftool prog show "
      "(memlock), time from exec to the -v line saying it captures." % runs)
PY
