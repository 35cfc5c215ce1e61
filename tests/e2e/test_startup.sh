#!/usr/bin/env bash
# Start-up (issue 22): the agent loads only the BPF programs its filter and mode
# need, and -v says how many and how long each step took; the kernel holds
# exactly those programs (bpftool's view); and a step that does not end is
# told on stderr, naming it, while /healthz is not 200. The slow start is real:
# strace delays every bpf() call the agent makes. The /proc scan follows the
# load: an fd moved meanwhile has its new name; and a second scan once events
# flow names the processes forked between the first and the first event.
source "$(dirname "$0")/lib.sh"
need_live
need_pkgs strace curl
command -v bpftool >/dev/null || PATH=$PATH:/usr/sbin
PY=$(python3 -c 'import sys; print(sys.executable)')

# The programs the kernel holds with an id above FLOOR, of those PID holds (its
# program and link fds, /proc/PID/fdinfo's prog_id): "id name memlock" lines.
# Programs another process loaded meanwhile are not the agent's.
progs_above() {	# progs_above FLOOR PID
	bpftool prog show --json | "$PY" -c '
import glob, json, re, sys
held = set()
for f in glob.glob("/proc/%s/fdinfo/*" % sys.argv[2]):
    try:
        held.update(int(x) for x in re.findall(r"^prog_id:\s*(\d+)$", open(f).read(), re.M))
    except OSError:
        pass
for p in json.load(sys.stdin):
    if p["id"] > int(sys.argv[1]) and p["id"] in held:
        print(p["id"], p.get("name", "?"), p.get("bytes_memlock", 0))' "$1" "$2"
}

max_id() {
	bpftool prog show --json | "$PY" -c '
import json, sys
print(max([p["id"] for p in json.load(sys.stdin)] or [0]))'
}

# How many of the programs listed in FILE are named NAME (bpftool gives the
# full name from the program's BTF; the kernel itself keeps 15 characters).
named() {	# named FILE NAME
	awk -v n="$2" '$2 == n' "$1" | wc -l
}

# One agent: started with -v and ARGS, its -v count against the kernel's.
# Leaves the kernel's list in $TMP/progs.NAME and the -v count in $loaded.
run_case() {	# run_case NAME ARGS...
	local n=$1; shift
	local floor kernel mem
	floor=$(max_id)
	start_agent "$TMP/$n.out" "$TMP/$n.err" "$@" || { expect "$n: the agent starts" false; return 1; }
	progs_above "$floor" "$AGENT_PID" >"$TMP/progs.$n"
	stop_agent
	loaded=$(sed -n 's/^agent: loaded \([0-9]*\) of \([0-9]*\) BPF programs.*/\1/p' "$TMP/$n.err")
	total=$(sed -n 's/^agent: loaded \([0-9]*\) of \([0-9]*\) BPF programs.*/\2/p' "$TMP/$n.err")
	kernel=$(wc -l <"$TMP/progs.$n")
	mem=$(awk '{ s += $3 } END { print s + 0 }' "$TMP/progs.$n")
	echo "  $n: -v says $loaded of $total, the kernel holds $kernel ($((mem / 1024)) KiB); $(grep '^agent: started' "$TMP/$n.err")"
	expect "$n: -v says how many programs were loaded" [ -n "$loaded" ]
	# The verifier's walk: the kernel refuses a program past 1M
	# instructions, and its walk is most of the start-up. A quarter of the
	# limit leaves room for kernels that prune less; a whole run's walk
	# bounds the start-up's time by what the kernel counts, not a clock.
	walked=$(sed -n "s/^agent: the kernel's verifier walked \([0-9]*\) instructions.* at most \([0-9]*\) in one program (\([a-z0-9_]*\).*/\1 \2 \3/p" "$TMP/$n.err")
	read -r vall vmax vname <<<"$walked"
	expect "$n: -v says what the verifier walked ($walked)" [ -n "$vmax" ]
	expect "$n: no program took the verifier past 250000 instructions ($vname: $vmax)" \
		[ "${vmax:-999999999}" -le 250000 ]
	expect "$n: all of them took it less than 2000000 ($vall)" [ "${vall:-999999999}" -lt 2000000 ]
	expect "$n: the kernel holds as many programs as -v says ($kernel, $loaded)" [ "$kernel" = "$loaded" ]
	# every step's time and the total: the steps add up to no more than it
	expect "$n: -v gives the start-up split" "$PY" - "$TMP/$n.err" <<'PY'
import re, sys
line = next(l for l in open(sys.argv[1]) if l.startswith("agent: started: "))
total = float(re.search(r"([0-9.]+) ms from main to capturing", line).group(1))
steps = {k: float(v) for k, v in re.findall(r"(/proc scan|BPF open|BPF load|rings|attach|kernel filter|the rest) ([0-9.]+) ms", line)}
need = {"/proc scan", "BPF open", "BPF load", "rings", "attach", "kernel filter", "the rest"}
sys.exit(0 if need <= set(steps) and abs(sum(steps.values()) - total) < 0.5 and steps["BPF load"] > 0 else 1)
PY
}

# The default mode (enter and exit programs), evt.type=openat: openat's
# fillers and the state syscalls', not read's; no per-thread filter.
run_case openat 'evt.type=openat'
expect "openat: far fewer programs than the object has ($loaded of $total)" [ $((loaded * 2)) -lt "$total" ]
expect "openat: sys_enter, sys_exit and sched_process_exit are loaded" \
	[ "$(named "$TMP/progs.openat" sys_enter)$(named "$TMP/progs.openat" sys_exit)$(named "$TMP/progs.openat" sched_process_exit)" = 111 ]
expect "openat: openat's two fillers are loaded" \
	[ "$(named "$TMP/progs.openat" syscall_openat_2_e)$(named "$TMP/progs.openat" syscall_openat_2_x)" = 11 ]
expect "openat: close's are loaded (state)" [ "$(named "$TMP/progs.openat" syscall_close_x)" = 1 ]
expect "openat: read's are not" [ "$(named "$TMP/progs.openat" syscall_read_x)" = 0 ]
expect "openat: no sched_switch (no per-thread filter)" [ "$(named "$TMP/progs.openat" sched_switch)" = 0 ]
lean=$loaded

# -w with the same filter loads the same set (the state events of every
# process go into the file, and those are loaded anyway).
run_case write -w "$TMP/w.scap" 'evt.type=openat'
expect "-w evt.type=openat loads what evt.type=openat does ($loaded, $lean)" [ "$loaded" = "$lean" ]

# A process test pushed into the kernel: every syscall, and sched_switch.
run_case nginx 'proc.name=nginx'
expect "proc.name=nginx: sched_switch is loaded" [ "$(named "$TMP/progs.nginx" sched_switch)" = 1 ]
expect "proc.name=nginx: read's fillers are loaded" [ "$(named "$TMP/progs.nginx" syscall_read_x)" = 1 ]

# Capture-all, exit-only (the default of -q): the enter fillers the reader
# rebuilds are not loaded; neither is sys_enter.
run_case all -q
all_eo=$loaded
expect "capture-all -q: exit-only dispatchers (sys_exit_eo, no sys_enter)" \
	[ "$(named "$TMP/progs.all" sys_exit_eo)$(named "$TMP/progs.all" sys_enter)" = 10 ]
expect "capture-all -q: read's exit filler is loaded, pipe's enter filler is not" \
	[ "$(named "$TMP/progs.all" syscall_read_x)$(named "$TMP/progs.all" syscall_pipe_e)" = 10 ]
# Exit-only with a process test pushed: its dispatcher has the kernel
# filter's code, which the runs above leave out before load.
run_case nginx_eo -q 'proc.name=nginx'
expect "nginx_eo: sched_switch and sys_exit_eo are loaded" \
	[ "$(named "$TMP/progs.nginx_eo" sched_switch)$(named "$TMP/progs.nginx_eo" sys_exit_eo)" = 11 ]
run_case all_perf -q --engine perf
expect "capture-all with --engine perf loads the same ($loaded, $all_eo)" [ "$loaded" = "$all_eo" ]
run_case all_ee -q --no-exit-only
expect "capture-all with enter programs loads every filler ($loaded > $all_eo)" [ "$loaded" -gt "$all_eo" ]
expect "capture-all with enter programs: pipe's enter filler is loaded" \
	[ "$(named "$TMP/progs.all_ee" syscall_pipe_e)" = 1 ]

# Request mode with all it can load: the compact socket programs, the TLS
# probes, profiling and TCP health (--metrics). Its socket programs copy the
# buffers and look for HTTP/2, Redis and PostgreSQL openings in them: a loop
# there, unrolled, once took the verifier to 843 000 instructions in one
# program and 7 s of start-up.
MPORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
run_case requests --requests -q --profile --metrics "127.0.0.1:$MPORT"
expect "requests: the socket tracepoints' and the TLS probes' programs are loaded" \
	[ "$(named "$TMP/progs.requests" socktp_send)$(named "$TMP/progs.requests" tlsp_write_ret)$(named "$TMP/progs.requests" tcp_state)" = 111 ]

# --- a start that does not end ------------------------------------------------
# Every bpf() call delayed by 300 ms: the load takes minutes. The agent says
# which step it is in after AGENT_START_WARN_SECS and again after each further
# bound, and /healthz is 503 meanwhile.
PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
AGENT_START_WARN_SECS=1 strace -f -qq -o /dev/null -e trace=bpf -e inject=bpf:delay_enter=300ms \
	"$AGENT" -v -q --metrics="127.0.0.1:$PORT" 'evt.type=openat' >"$TMP/slow.out" 2>"$TMP/slow.err" &
tracer=$!
slow=
for _ in $(seq 1 100); do
	# strace's child by the binary's name (15 characters of it, as the
	# kernel keeps), which may be another than agent: strace forks short-lived
	# children of its own first, to probe ptrace, and a busy machine shows them
	slow=$(pgrep -P "$tracer" -x "$(basename "$AGENT" | cut -c1-15)") && break
	sleep 0.1
done
cleanup_slow() { kill -9 "$tracer" $slow 2>/dev/null; cleanup_e2e; }
trap cleanup_slow EXIT
for _ in $(seq 1 150); do
	[ "$(grep -c 'loading its BPF programs has not finished' "$TMP/slow.err")" -ge 2 ] && break
	sleep 0.1
done
code=$(curl -s -m 5 -o "$TMP/health" -w '%{http_code}' "http://127.0.0.1:$PORT/healthz")
sed 's/^/  /' "$TMP/slow.err" | head -n 3
# the age is measured when the watch wakes, late on a loaded machine: any
# whole number of seconds
expect "a slow load is told on stderr, naming the step" \
	grep -qE '^agent: still starting: loading its BPF programs has not finished after [0-9]+ s' "$TMP/slow.err"
expect "... and pointing at dmesg and the kernel's BPF loader" \
	grep -q "the kernel's BPF loader has not answered. \`dmesg\` tells whether tasks hang in it" "$TMP/slow.err"
expect "... and again while it lasts" \
	[ "$(grep -cE 'has not finished after [0-9]+ s' "$TMP/slow.err")" -ge 2 ]
expect "/healthz is not 200 before capture runs ($code: $(cat "$TMP/health" 2>/dev/null))" [ "$code" = 503 ]
expect "the agent has not said it captures" bash -c "! grep -q capturing '$TMP/slow.err'"
kill -9 "$tracer" $slow 2>/dev/null
wait "$tracer" 2>/dev/null
# nothing it loaded is left behind
expect "no driver program is left loaded after the slow agent was killed" no_progs_loaded

# The /proc scan comes after the programs are loaded and attached (paused): a
# process that moves a file onto its fd 5 while the agent loads is seen with
# the new file. The mover stops the agent as soon as it holds a BPF program
# fd (it is loading), moves the fd, and lets it go on; scanned before the
# load, the agent would name the old file.
: >"$TMP/scan.err"
"$PY" - "$TMP" <<'PY' &
import os, signal, sys, time
tmp = sys.argv[1]
os.dup2(os.open(tmp + "/scan-old", os.O_WRONLY | os.O_CREAT, 0o600), 5)
open(tmp + "/mover.pid", "w").write(str(os.getpid()))
while not os.path.exists(tmp + "/agent.pid"):
    time.sleep(0.001)
agent = int(open(tmp + "/agent.pid").read())
moved = False
for _ in range(60000):
    try:
        links = [os.readlink("/proc/%d/fd/%s" % (agent, f)) for f in os.listdir("/proc/%d/fd" % agent)]
    except OSError:
        links = []
    if "anon_inode:bpf-prog" in links:
        os.kill(agent, signal.SIGSTOP)
        os.dup2(os.open(tmp + "/scan-new", os.O_WRONLY | os.O_CREAT, 0o600), 5)
        os.kill(agent, signal.SIGCONT)
        moved = True
        break
    time.sleep(0.001)
print("moved" if moved else "never saw the agent load", flush=True)
while not os.path.exists(tmp + "/go"):
    time.sleep(0.01)
os.write(5, b"x")
PY
mover=$!
for _ in $(seq 1 100); do [ -s "$TMP/mover.pid" ] && break; sleep 0.05; done
"$AGENT" -v -p '%proc.pid %fd.num %fd.name' "proc.pid=$(cat "$TMP/mover.pid") and evt.type=write and evt.dir=<" \
	>"$TMP/scan.out" 2>"$TMP/scan.err" &
AGENT_PID=$!
echo "$AGENT_PID" >"$TMP/agent.pid.new" && mv "$TMP/agent.pid.new" "$TMP/agent.pid"
wait_capturing "$TMP/scan.err" "$AGENT_PID"
touch "$TMP/go"
wait "$mover"
sleep 0.5
stop_agent
echo "  the mover's write: $(cat "$TMP/scan.out")"
expect "a file moved onto an fd during the BPF load is the fd's name at the first event" \
	grep -qx "$(cat "$TMP/mover.pid") 5 $TMP/scan-new" "$TMP/scan.out"

# A process forked after the /proc scan but before the first event has no
# clone event to name it (a shell's subshell, forked by a script while the
# agent starts). The agent scans again for new threads once events flow, so
# that a file's lists name it. A spawner forks a child every 2 ms, from before
# the agent starts until after it captures; each child reads /dev/zero every
# 50 ms for 1.5 s and never execs. Every child with a read in the file must be
# named: alive at the second scan, or forked after events flowed.
"$PY" - "$TMP" <<'PY' &
import os, sys, time
tmp = sys.argv[1]
z = os.open("/dev/zero", os.O_RDONLY)
kids = open(tmp + "/kids", "w")
while not os.path.exists(tmp + "/spawn-stop"):
    pid = os.fork()
    if pid == 0:
        for _ in range(30):
            os.read(z, 1)
            time.sleep(0.05)
        os._exit(0)
    kids.write("%d\n" % pid)
    kids.flush()
    time.sleep(0.002)
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
PY
spawner=$!
sleep 0.3
start_agent "$TMP/kids.out" "$TMP/kids.err" -q -w "$TMP/kids.scap" "evt.type=read"
sleep 0.3
touch "$TMP/spawn-stop"
wait "$spawner"
stop_agent
"$AGENT" -r "$TMP/kids.scap" -p '%thread.tid %proc.name' "evt.type=read and evt.dir=<" \
	>"$TMP/kids.read" 2>"$TMP/kids.rerr"
"$PY" - "$TMP/kids" "$TMP/kids.read" >"$TMP/kids.check" <<'PY'
import sys
kids = set(open(sys.argv[1]).read().split())
seen, nameless = set(), set()
for l in open(sys.argv[2]):
    tid, name = l.split()[:2]
    if tid in kids:
        seen.add(tid)
        if name == "<NA>":
            nameless.add(tid)
print("%d children forked, %d read in the file, %d of them nameless %s"
      % (len(kids), len(seen), len(nameless), sorted(nameless)[:5]))
sys.exit(0 if seen and not nameless else 1)
PY
rc=$?
expect "every child a spawner forked around the agent's start is named in the file ($(cat "$TMP/kids.check"))" [ $rc = 0 ]
finish
