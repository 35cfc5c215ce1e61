#!/usr/bin/env bash
# A filtered -w file replays as the live run printed it: the events the filter
# left out but that change the process and fd tables go into the file flagged
# state-only, so processes started during the recording keep their users,
# sessions, paths and fds on replay; neither agent -r nor sysdig -r shows them.
source "$(dirname "$0")/lib.sh"
need_live

# Everything a user may print about a process, its thread, user, group, fd and
# container (evt.num is renumbered on replay, in sysdig too: not compared).
FMT='%evt.type %evt.dir %evt.res %proc.name %proc.exe %proc.exepath %proc.args %proc.pid %proc.ppid %proc.vpid %proc.sid %proc.sname %proc.cwd %proc.pname %thread.tid %thread.vtid %user.uid %user.name %group.gid %group.name %fd.num %fd.type %fd.name %container.id %container.name'
# The workload's cat is a copy of its own: lib.sh reads the agent's
# /proc/PID/stat with cat until it says it is capturing, and the last of
# those may run across the recording's start (CI once printed one live).
# Such a process, running as the recording began, can be known live from
# /proc on demand while neither the file's lists nor a clone in it name it,
# so a replay gives it <NA> (README, "Capture files"); this test is of the
# processes started during the recording.
FILTER='proc.name in (ls, e2e_cat, e2e_child)'
mkdir -p "$TMP/work/sub"
echo data >"$TMP/work/sub/f1"
cp /bin/sleep "$TMP/e2e_child"
cp /bin/cat "$TMP/e2e_cat"

start_agent "$TMP/live" "$TMP/err" -w "$TMP/f.scap" -p "$FMT" "$FILTER"
expect "agent starts" [ -n "${AGENT_PID:-}" ]
# Started after the recording began: new sessions, a user other than root,
# fds opened by the shell before the exec, a cwd changed before the exec.
(cd "$TMP/work/sub" && setsid "$TMP/e2e_cat" f1 >/dev/null)
(cd "$TMP/work" && exec 7<"$TMP/work/sub/f1" && "$TMP/e2e_cat" /proc/self/fd/7 >/dev/null)
setpriv --reuid=65534 --regid=65534 --clear-groups ls -l "$TMP/work" >/dev/null 2>&1
(cd /tmp && "$TMP/e2e_child" 0.1)
bash -c 'cd "$1"; exec 3>"$1/out"; ls -la /proc/self/fd >&3' _ "$TMP/work"
# (on SIGTERM the agent reads what its rings hold)
stop_agent
"$AGENT" -r "$TMP/f.scap" -p "$FMT" >"$TMP/replay" 2>"$TMP/rerr"
expect "the live run printed the workload" [ "$(wc -l <"$TMP/live")" -gt 20 ]
expect "replay prints exactly what the live run printed, line for line" \
	cmp -s "$TMP/live" "$TMP/replay" || diff "$TMP/live" "$TMP/replay" | head -20
expect "the file holds state-only events (it would not replay without them)" \
	python3 - "$TMP/f.scap" <<'PY'
import struct, sys, gzip
d = open(sys.argv[1], "rb").read()
off, n = 0, 0
while off + 8 <= len(d):
    t, l = struct.unpack_from("<II", d, off)
    if t == 0x217 and struct.unpack_from("<I", d, off + 10)[0] & 1:
        n += 1
    off += l
sys.exit(0 if n > 0 else 1)
PY
# sysdig shows none of the state-only events either: its lines are ours.
if command -v sysdig >/dev/null; then
	F2='%evt.type %evt.dir %proc.name %thread.tid %fd.num'
	sysdig -r "$TMP/f.scap" -p "$F2" >"$TMP/sysdig" 2>"$TMP/sysdig.err"
	"$AGENT" -r "$TMP/f.scap" -p "$F2" >"$TMP/ours" 2>/dev/null
	expect "sysdig -r prints the same events as agent -r (state-only ones hidden)" \
		cmp -s "$TMP/sysdig" "$TMP/ours" || { diff "$TMP/sysdig" "$TMP/ours" | head; cat "$TMP/sysdig.err"; }
fi
finish
