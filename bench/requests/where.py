"""where.py: where a row's cost went, for bench/requests/where.sh (via
lib.sh's rb_where). Reads the per-program BPF counts before and after the
load, perf stat's syscall counts and a perf report of the load's samples,
and prints each per request.
  usage: where.py DIR REQUESTS
DIR holds progs.before, progs.after (id name run_time_ns run_cnt, bpftool),
sys.server, sys.agent, sys.all (perf stat -x, raw_syscalls:sys_enter) and
perf.txt (perf report --stdio --no-children --sort comm,sym -g none)."""
import re
import sys

d, n = sys.argv[1], int(sys.argv[2])


def progs(f):
    out = {}
    for line in open(f):
        i, name, ns, cnt = line.split()
        out[i] = (name, int(ns), int(cnt))
    return out


def syscalls(f):
    try:
        for line in open(f):
            parts = line.split(",")
            if len(parts) > 2 and "sys_enter" in parts[2]:
                return int(parts[0]) if parts[0].isdigit() else 0
    except OSError:
        pass
    return 0


srv, agent, all_ = (syscalls(d + "/sys." + k) for k in ("server", "agent", "all"))
print("  syscalls per request: server %.2f, agent %.3f, the rest (load tool, host) %.2f" % (
    srv / n, agent / n, (all_ - srv - agent) / n))

try:
    b, a = progs(d + "/progs.before"), progs(d + "/progs.after")
    rows, total = [], 0.0
    for i, (name, ns, cnt) in a.items():
        if i not in b:
            continue
        dns, dcnt = ns - b[i][1], cnt - b[i][2]
        if dcnt <= 0:
            continue
        total += dns / n
        rows.append((dns / n, name, dcnt / n, dns / dcnt))
    if rows:
        print("  %-24s %10s %8s %9s" % ("BPF program", "runs/req", "ns/run", "ns/req"))
        for per, name, runs, nsrun in sorted(rows, reverse=True):
            print("  %-24s %10.2f %8.0f %9.0f" % (name, runs, nsrun, per))
        print("  %-24s %10s %8s %9.0f" % ("all (bpf_stats)", "", "", total))
except OSError:
    pass

# perf's samples of the whole machine over the load, by what they were in
CATS = [
    ("BPF programs (JITed)", re.compile(r"^bpf_prog_")),
    ("BPF ring and output", re.compile(r"ringbuf|perf_output|perf_event_output|__output_copy|perf_prepare_sample|perf_tp_event|bpf_event_output")),
    ("BPF copies from user", re.compile(r"copy_from_user_nofault|probe_read|strncpy_from_user|copy_user_generic|rep_movs_alternative|__copy_from_user")),
    ("BPF maps and helpers", re.compile(r"htab_|lookup_elem|bpf_get_|bpf_map_|array_map|bpf_tail|bpf_ktime|percpu_array|bpf_task_pt_regs|bpf_spin")),
    ("tracepoint and trampoline", re.compile(r"__bpf_trace|bpf_trace_run|__traceiter|syscall_exit_work|syscall_trace_enter|trace_sys_|__bpf_prog_enter|__bpf_prog_exit|bpf_trampoline|syscall_exit_to_user_mode_prepare|__rcu_read_(un)?lock|migrate_(en|dis)able|bpf_prog_start_time|bpf_prog_inc_misses")),
]
try:
    rows = {}
    tot = 0.0
    rx = re.compile(r"^\s+([\d.]+)%\s+(\S+(?: \S+)*?)\s+\[([k.])\]\s+(\S+)")
    count = 0	# cpu-clock's period is in ns: the event count is the ns sampled
    syms = {}
    for line in open(d + "/perf.txt"):
        m = re.match(r"# Event count \(approx\.\): (\d+)", line)
        if m:
            count += int(m.group(1))
        m = rx.match(line)
        if not m:
            continue
        pct, comm, where, sym = float(m.group(1)), m.group(2), m.group(3), m.group(4)
        cat = None
        if where == "k":
            for name, r in CATS:
                if r.search(sym):
                    cat = name
                    break
        if cat is None:
            who = "agent" if comm.startswith("agent") else comm
            cat = "%s, %s" % (who, "kernel" if where == "k" else "user")
        rows[cat] = rows.get(cat, 0.0) + pct
        if where == "k" and not comm.startswith("swapper"):
            syms[sym] = syms.get(sym, 0.0) + pct
        tot += pct
    hz = float(open(d + "/perf.hz").read())
    print("  perf (cpu-clock at %.0f Hz per CPU, %.0f ms of CPU sampled), CPU ns per request:" % (
        hz, count / 1e6))
    for cat, pct in sorted(rows.items(), key=lambda kv: -kv[1]):
        if pct < 0.5:
            continue
        print("    %-40s %8.0f  (%4.1f%%)" % (cat, pct / 100 * count / n, pct))
    progs_ = sorted(((v, k) for k, v in syms.items() if k.startswith("bpf_prog_")), reverse=True)
    if progs_:
        print("  BPF programs by perf (a tail-called filler apart from its caller), CPU ns per request:")
        for pct, sym in progs_[:10]:
            print("    %-40s %8.0f  (%4.1f%%)" % (re.sub(r"^bpf_prog_[0-9a-f]+_", "", sym)[:40],
                                               pct / 100 * count / n, pct))
    print("  the kernel's busiest functions (idle left out), CPU ns per request:")
    for sym, pct in sorted(syms.items(), key=lambda kv: -kv[1])[:int(sys.argv[3]) if len(sys.argv) > 3 else 15]:
        print("    %-40s %8.0f  (%4.1f%%)" % (sym[:40], pct / 100 * count / n, pct))
except OSError:
    pass
