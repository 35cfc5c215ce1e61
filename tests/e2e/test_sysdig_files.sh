#!/usr/bin/env bash
# sysdig 0.29.3 reads every file -w writes (plain, gzip, filtered) when the host
# holds BPF fds and memfds, as every real host running the agent does, and prints
# the same lines as `agent -r`, but for the differences listed in compare.py.
source "$(dirname "$0")/lib.sh"
need_live
if ! command -v sysdig >/dev/null; then
	if [ -n "${AGENT_REQUIRE_LIVE:-}" ]; then
		echo "FAIL: sysdig is not installed (tools/deps.sh installs it)"; exit 1
	fi
	echo "skip: sysdig is not installed (tools/deps.sh installs it)"; exit 77
fi
rec_pids=()
holder_pid=
cleanup_sysdig() {
	for p in "${rec_pids[@]}" $holder_pid; do kill -9 "$p" 2>/dev/null; done
	cleanup_e2e
}
trap cleanup_sysdig EXIT

# 1. What the files will list: another agent's BPF fds (maps, programs, links)
#    and a process holding a memfd, which writes to it during the recording.
start_agent "$TMP/bpf.out" "$TMP/bpf.err" -q -M 60
expect "a second agent runs, holding BPF fds" \
	bash -c "ls -l /proc/$AGENT_PID/fd | grep -q 'anon_inode:bpf-map'"
python3 - "$TMP" >"$TMP/holder" <<'PY' &
import os, sys, time
tmp = sys.argv[1]
m = os.memfd_create("e2e-sysdig-memfd")
print(os.getpid(), m, flush=True)
while not os.path.exists(tmp + "/go"):
    time.sleep(0.05)
for _ in range(20):
    os.write(m, b"x")
    os.lseek(m, 0, 0)
    os.read(m, 1)
    time.sleep(0.05)
PY
holder_pid=$!
for _ in $(seq 1 100); do [ -s "$TMP/holder" ] && break; sleep 0.05; done
read -r hpid mfd <"$TMP/holder"
expect "a process holds a memfd" [ -n "${mfd:-}" ]

# 2. Three recordings at once: plain, gzip, filtered (each also lists the BPF fds
#    of the recorders started before it). The second agent stops 1 s after the
#    last one captures, and all three are stopped 1 s after that (-M 60 only
#    bounds them): a fixed length could end the first before the second agent
#    stops when three starts in a row take seconds each on a loaded machine.
FLT="evt.type in (read, write, lseek, close, openat, ioctl, bpf, epoll_wait) or proc.pid=$hpid"
record() {	# record NAME ARGS...
	local n=$1; shift
	"$AGENT" -v -q -w "$TMP/$n.scap" -M 60 "$@" >"$TMP/$n.out" 2>"$TMP/$n.err" &
	rec_pids+=($!)
	wait_capturing "$TMP/$n.err" "${rec_pids[-1]}"
}
record plain
record gzip -z
record filtered "$FLT"
touch "$TMP/go"
( for _ in $(seq 1 40); do cat /etc/hostname >/dev/null; ls / >/dev/null; sleep 0.05; done ) &
busy=$!
sleep 1
# The second agent exits mid-recording: it closes its BPF fds in the files.
stop_agent
wait "$busy"; busy=
sleep 1
for p in "${rec_pids[@]}"; do kill -INT "$p"; done
i=0
for n in plain gzip filtered; do
	rc=0; wait "${rec_pids[$i]}" || rc=$?
	i=$((i + 1))
	expect "agent -w ($n) exits 0 and says what it wrote" \
		bash -c "[ $rc = 0 ] && grep -q '^agent: [0-9]* events written to $TMP/$n.scap' '$TMP/$n.err'"
done
rec_pids=()
wait "$holder_pid"; holder_pid=
expect "-z wrote gzip" bash -c "head -c 2 '$TMP/gzip.scap' | od -An -tx1 | grep -q '1f 8b'"
expect "the plain file lists BPF fds and the memfd" \
	bash -c "grep -aq 'anon_inode:bpf-map' '$TMP/plain.scap' && grep -aq '/memfd:e2e-sysdig-memfd' '$TMP/plain.scap'"

# 3. sysdig reads each file and prints the lines agent -r prints.
# '|' between fields: names may hold spaces.
FMT='*%evt.num|%evt.rawtime|%evt.cpu|%evt.type|%evt.dir|%proc.name|%proc.pid|%thread.tid|%fd.num|%fd.type|%fd.name|%evt.res'
[ -n "${KEEP:-}" ] && cp "$TMP"/*.scap "$KEEP/"	# to look into a failure
for n in plain gzip filtered; do
	sysdig -r "$TMP/$n.scap" -p "$FMT" >"$TMP/$n.sysdig" 2>"$TMP/$n.serr"; src=$?
	"$AGENT" -r "$TMP/$n.scap" -p "$FMT" >"$TMP/$n.agent" 2>"$TMP/$n.aerr"; arc=$?
	expect "sysdig -r of the $n file exits 0" [ $src = 0 ] || head -3 "$TMP/$n.serr"
	expect "agent -r of the $n file exits 0" [ $arc = 0 ]
	python3 - "$TMP/$n.agent" "$TMP/$n.sysdig" >"$TMP/$n.cmp" 2>&1 <<'PY'
import sys
a = open(sys.argv[1], encoding="utf-8", errors="replace").read().splitlines()
s = open(sys.argv[2], encoding="utf-8", errors="replace").read().splitlines()
# Differences where sysdig 0.29.3 is the one lacking, each with its reason.
known = {"memfd": 0, "unknown-thread pid": 0}
bad, fdiff = [], []
dupped = set()	# (tid, fd) whose enter line showed the agent's entry for a dup
for i, (x, y) in enumerate(zip(a, s)):
    if x == y:
        continue
    fx, fy = x.split("|"), y.split("|")
    if len(fx) != len(fy):
        bad.append((i + 1, x, y))
        continue
    # sysdig 0.29.3 has no memfd fd type: its /proc scan and its reader make a
    # file of /memfd:NAME (libscap scap_fds.c); ours says memfd.
    if fx[9] == "memfd" and fy[9] == "file":
        fx[9] = "file"
        known["memfd"] += 1
    # Nor a bpf fd type: the file lists BPF fds as unsupported, which sysdig
    # shows as <NA> and agent -r as bpf again (by their anon_inode:bpf- name).
    if fx[9] == "bpf" and fy[9] == "<NA>" and fx[10].startswith("anon_inode:bpf-"):
        fx[9] = "<NA>"
        known["bpf"] = known.get("bpf", 0) + 1
    # Syscalls sysdig 0.29.3 names '<unknown>' (newer than its table, or the
    # agent's own events, written as the generic pair) or 'sigreturn': the
    # agent names them as the kernel does (rseq, statx, rt_sigreturn).
    if fx[3] != fy[3] and (fy[3] == "<unknown>" or (fy[3], fx[3]) == ("sigreturn", "rt_sigreturn")):
        fx[3] = fy[3]
        known["syscall name"] = known.get("syscall name", 0) + 1
    # A thread neither the lists nor a clone named: sysdig makes one up whose
    # pid is its tid (a guess); ours leaves proc.pid <NA>.
    if fx[5] == "<NA>" and fx[6] == "<NA>" and fy[6] == fy[7]:
        fx[6] = fy[6]
        known["unknown-thread pid"] += 1
    # A dup (bash's F_DUPFD and dup2 around a builtin's redirection) of an fd
    # neither side knows, onto a number both know: sysdig keeps the number's
    # old entry, the agent an entry of unknown type and empty name (the fd is
    # no longer what the old entry says), which children inherit. Told by an
    # enter line (an fd no table holds has no name there, this one has the
    # empty one), and then that call's exit. A CI run whose recorder started
    # mid-redirection had 266 such lines.
    dup_like = fx[9] == "<NA>" and fx[10] == "" and fy[9] != "<NA>" and fx[8] == fy[8]
    if dup_like and (fx[4] == ">" or (fx[7], fx[8]) in dupped):
        if fx[4] == ">":
            dupped.add((fx[7], fx[8]))
        fx[9], fx[10] = fy[9], fy[10]
        known["dup of an unknown fd"] = known.get("dup of an unknown fd", 0) + 1
    if fx == fy:
        continue
    # The fd fields (num, type, name) after dup/fcntl, of fds whose open the
    # file does not hold, of relative paths under an unknown cwd (sysdig
    # writes "<UNKNOWN>name"), of unix connects: the two parsers track fds
    # differently there (ours is being fixed with the decoding of every
    # syscall). Counted and shown; every other field must be the same.
    core = [k for k in range(len(fx)) if k not in (8, 9, 10)]
    if all(fx[k] == fy[k] for k in core):
        known["fd fields"] = known.get("fd fields", 0) + 1
        fdiff.append((i + 1, x, y))
        continue
    bad.append((i + 1, x, y))
print("lines %d agent, %d sysdig; known differences %s; unexplained %d"
      % (len(a), len(s), known, len(bad)))
for n, x, y in bad[:5]:
    print("line %d\n  agent:  %s\n  sysdig: %s" % (n, x, y))
for n, x, y in fdiff[:3]:
    print("fd fields, line %d\n  agent:  %s\n  sysdig: %s" % (n, x, y))
# whose lines they are, to tell a parser's fault from a busy neighbour's
by = {}
for n, x, y in fdiff:
    k = "%s/%s" % (y.split("|")[5], y.split("|")[6])
    by[k] = by.get(k, 0) + 1
print("fd fields by process:", sorted(by.items(), key=lambda kv: -kv[1])[:8])
# The fd fields agree on at least 99% of the lines.
ok = len(a) == len(s) and len(a) > 0 and not bad and len(fdiff) * 100 <= len(a)
sys.exit(0 if ok else 1)
PY
	expect "sysdig -r and agent -r print the same lines for the $n file (fd fields: 99%)" \
		python3 - "$TMP/$n.cmp" <<'PY2'
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"^lines (\d+) agent, (\d+) sysdig; known differences (\{.*\}); unexplained (\d+)$", t, re.M)
k = eval(m.group(3))
sys.exit(0 if m.group(1) == m.group(2) and m.group(4) == "0" and k.get("fd fields", 0) * 100 <= int(m.group(1)) else 1)
PY2
	cat "$TMP/$n.cmp" | head -16
done
sysdig -r "$TMP/filtered.scap" -p "$FMT" "$FLT" >"$TMP/filtered.again" 2>/dev/null
expect "the filtered file holds only what matched, to sysdig too" \
	bash -c "[ -s '$TMP/filtered.sysdig' ] && cmp -s '$TMP/filtered.sysdig' '$TMP/filtered.again'"
expect "the BPF fds the file listed are named in sysdig's lines (the closes)" \
	grep -q '|anon_inode:bpf-map|' "$TMP/plain.sysdig"
expect "the memfd is named in sysdig's lines" \
	grep -qF "|$hpid|$hpid|$mfd|file|/memfd:e2e-sysdig-memfd (deleted)|" "$TMP/plain.sysdig"
finish
