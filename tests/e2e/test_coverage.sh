#!/usr/bin/env bash
# Coverage: a program making the syscalls a typical process makes (loader start-
# up, files, fds, sockets, a thread, timers, signals, polling, newer calls) runs
# under strace -f while the agent captures it: every call strace saw is named
# the same by the agent, in the same order per thread, and every decoded one
# carries strace's result. The -w file of that run reads the same in sysdig -r.
source "$(dirname "$0")/lib.sh"
need_live
need_pkgs strace
SRC=$(cd "$(dirname "$0")/../.." && pwd)

mkdir "$TMP/d"
start_agent "$TMP/out" "$TMP/err" -p '*%thread.tid %evt.dir %evt.type %evt.rawres' \
	-w "$TMP/cov.scap" 'proc.name=syscall_cov'
expect "the agent captures" kill -0 "$AGENT_PID"
strace -f -qq -o "$TMP/strace" "$SYSCALL_COV" "$TMP/d"; rc=$?
# On SIGTERM the agent detaches, then reads what its rings hold: the run's
# events, all written before it ended (the driver writes a call's event
# before the call returns).
stop_agent
expect "the program ran to its end (rc $rc)" [ "$rc" = 0 ]
expect "no event was dropped" grep -q ' 0 dropped, 0 malformed' "$TMP/err"
python3 "$SRC/tests/e2e/coverage/compare.py" "$SRC" "$TMP/strace" "$TMP/out" >"$TMP/cmp"; rc=$?
cat "$TMP/cmp"
expect "every syscall strace saw is named the same, decoded results equal strace's" [ "$rc" = 0 ]
expect "the run covers at least 80 distinct syscalls" \
	[ "$(sed -n 's/.* threads, \([0-9]*\) distinct.*/\1/p' "$TMP/cmp")" -ge 80 ]
expect "at least 100 decoded results compared" \
	[ "$(sed -n 's/.* syscalls, \([0-9]*\) decoded.*/\1/p' "$TMP/cmp")" -ge 100 ]

# A shell's redirection of a builtin: bash saves stdout with fcntl(F_DUPFD),
# dup2s the file onto 1, writes, and restores 1; the next write goes to the pipe.
start_agent "$TMP/bout" "$TMP/berr" -p '%fd.num %fd.type %fd.name' \
	"proc.name=cov_bash and evt.type=write and evt.dir=<"
cp /bin/bash "$TMP/cov_bash"
"$TMP/cov_bash" -c "echo redirected > $TMP/r; echo piped" | cat >/dev/null
stop_agent
expect "a builtin's redirected write names the file" grep -qx "1 file $TMP/r" "$TMP/bout"
expect "the next write names stdout, restored from the saved fd" grep -qx "1 pipe .*" "$TMP/bout"

# The agent's own events live, as the README shows them.
mkdir "$TMP/d2"
start_agent "$TMP/mout" "$TMP/merr" 'proc.name=syscall_cov and evt.type in (memfd_create, pidfd_open) and evt.dir=<'
"$SYSCALL_COV" "$TMP/d2"
stop_agent
expect "memfd_create is decoded live (fd, name, flags)" \
	grep -q '< memfd_create fd=[0-9]*(<m>/memfd:cov (deleted)) name=cov flags=1(MFD_CLOEXEC) $' "$TMP/mout"
expect "pidfd_open is decoded live (fd, pid, flags)" \
	grep -q '< pidfd_open fd=[0-9]*(<o>anon_inode:\[pidfd\]) pid=[0-9]*(syscall_cov) flags=0(O_NONE) $' "$TMP/mout"

# The same run's -w file: sysdig reads every event and decodes it as we do.
if command -v sysdig >/dev/null; then
	"$AGENT" -r "$TMP/cov.scap" >"$TMP/ag" 2>/dev/null
	sysdig -r "$TMP/cov.scap" >"$TMP/sd" 2>/dev/null
	[ -n "${KEEP:-}" ] && cp "$TMP/cov.scap" "$TMP/out" "$TMP/strace" "$KEEP/"	# to look into a failure
	python3 "$SRC/tests/e2e/coverage/same_lines.py" "$TMP/ag" "$TMP/sd"; rc=$?
	expect "sysdig -r prints our -w file as agent -r does" [ "$rc" = 0 ]
	expect "the file holds the run (more than 250 events)" [ "$(wc -l <"$TMP/ag")" -gt 250 ]
	expect "agent -r names the agent's own events by their syscall" \
		grep -q '> memfd_create' "$TMP/ag"
fi
finish
