#!/usr/bin/env bash
# Exit-only capture against the default (enter and exit from their own
# tracepoints) on one workload: two agents capture the same events at the same
# time and must print the same lines per thread, field by field, except what
# the README says differs (the enter event's time, its CPU, evt.latency); -v
# says which mode each runs in, and which it picks by default. A third agent
# with the other engine (--engine perf: perf rings instead of the default BPF
# ring buffers) must print exactly the default's lines.
source "$(dirname "$0")/lib.sh"
need_live

# No evt.num, times or CPUs: two drivers number and stamp the same event
# differently, and an exit-only enter event is stamped on the CPU of its exit.
FMT='*%proc.name %thread.tid %proc.pid %proc.ppid %user.uid %evt.dir %evt.type %fd.name %fd.type %evt.res %evt.args'
# The workload runs as a copy of bash with a name of its own; its children
# (cat, seq, the helper) are caught by the parent's name.
cp "$(command -v bash)" "$TMP/modewl"
cat >"$TMP/eat.c" <<'C'
/* execveat relative to a dirfd, and with AT_EMPTY_PATH; sendfile with an
 * offset; a thread that exits with exit(2); then exit_group. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
static void *thread_main(void *arg) { syscall(SYS_exit, 0); return arg; }
int main(int argc, char **argv)
{
	char *av[] = { argv[0], "x", NULL };
	pthread_t t;
	off_t off = 3;
	int d, in, out;

	if (argc > 1 && argv[1][0] == 'x')
		return 0;
	in = open("/etc/passwd", O_RDONLY);
	out = open("/dev/null", O_WRONLY);
	sendfile(out, in, &off, 10);
	pthread_create(&t, NULL, thread_main, NULL);
	pthread_join(t, NULL);
	if (argc > 1 && argv[1][0] == 'a') {	/* AT_FDCWD, an absolute path */
		syscall(SYS_execveat, AT_FDCWD, argv[2], av, NULL, 0);
		return 1;
	}
	if (argc > 1 && argv[1][0] == 'e') {
		in = open(argv[0], O_RDONLY);
		syscall(SYS_execveat, in, "", av, NULL, AT_EMPTY_PATH);
		return 1;
	}
	d = open(argv[2], O_RDONLY | O_DIRECTORY);
	syscall(SYS_execveat, d, "modeeat", av, NULL, 0);
	return 1;
}
C
gcc -O2 -pthread -o "$TMP/modeeat" "$TMP/eat.c" || { echo "FAIL: cannot build the helper"; exit 1; }
cp "$TMP/modeeat" "$TMP/modeabs"
FILTER='proc.name=modewl or proc.pname=modewl or proc.name in (modeeat, modeabs)'

"$AGENT" -v -p "$FMT" "$FILTER" >"$TMP/ee.out" 2>"$TMP/ee.err" &
ee=$!
"$AGENT" -v --exit-only -p "$FMT" -w "$TMP/eo.scap" "$FILTER" >"$TMP/eo.out" 2>"$TMP/eo.err" &
eo=$!
"$AGENT" -v --engine perf -p "$FMT" "$FILTER" >"$TMP/pf.out" 2>"$TMP/pf.err" &
pf=$!
AGENT_PID=$ee	# lib.sh's cleanup kills it; the others below
trap 'kill -9 $eo $pf 2>/dev/null; cleanup_e2e' EXIT
expect "the default agent starts" wait_capturing "$TMP/ee.err" $ee
expect "the --exit-only agent starts" wait_capturing "$TMP/eo.err" $eo
expect "the --engine perf agent starts" wait_capturing "$TMP/pf.err" $pf
expect "-v: the default engine writes BPF ring buffers" grep -q 'ring mode bpf-ringbuf' "$TMP/ee.err"
expect "-v: --engine perf reads perf rings" grep -Eq 'ring mode (double-map|slack-copy)' "$TMP/pf.err"
expect "-v: the default sends enter and exit events" grep -q 'enter and exit events from sys_enter' "$TMP/ee.err"
expect "-v: --exit-only is exit-only" grep -q 'exit-only (--exit-only)' "$TMP/eo.err"

# Files, pipes, forks and execs, failing calls, blocking calls (sleep, a read
# on a pipe that waits for its writer), then the helper.
"$TMP/modewl" -c '
	for i in $(seq 1 100); do
		cat /etc/hostname >/dev/null
		echo "$i" >"$1/f.$((i % 7))"
		read -r _ <"$1/f.$((i % 7))"
		cat /nonexistent-$i 2>/dev/null
		[ $((i % 25)) = 0 ] && sleep 0.05
	done
	(sleep 0.2; echo late) | cat >/dev/null
	echo x | cat | wc -c >/dev/null
	"$1/modeeat" r "$1"
	"$1/modeabs" a "$1/modeabs"
	"$1/modeeat" e' modewl "$TMP"
# (on SIGINT each agent reads what its rings hold: the workload's events)
kill -INT $ee $eo $pf
wait $ee; rc_ee=$?
wait $eo; rc_eo=$?
wait $pf; rc_pf=$?
AGENT_PID=
expect "the agents exit 0" [ "$rc_ee$rc_eo$rc_pf" = 000 ]
# (the workload's events are far fewer than an 8M ring holds, whatever the
# readers' pace)
for m in ee eo pf; do
	expect "$m: 0 dropped" grep -Eq 'events read, [0-9]+ matched, 0 dropped' "$TMP/$m.err"
done

# Enter events exit-only leaves out (rt_sigprocmask's generic one, getuid's
# without params) are rebuilt by the reader: printed, and written to -w's file
# like any other, so a replay prints the same events.
expect "exit-only prints the rebuilt enter events" grep -Eq ' > (rt_sigprocmask|getuid) ' "$TMP/eo.out"
"$AGENT" -r "$TMP/eo.scap" -p "$FMT" "$FILTER" >"$TMP/eo.replay" 2>"$TMP/eo.rerr"
# (evt.args aside: execve's and clone's long args print shorter from the file)
cut -d' ' -f1-10 "$TMP/eo.out" >"$TMP/eo.head"
cut -d' ' -f1-10 "$TMP/eo.replay" >"$TMP/eo.rhead"
expect "exit-only: the -w file replays the live events exactly" cmp "$TMP/eo.head" "$TMP/eo.rhead" ||
	diff "$TMP/eo.head" "$TMP/eo.rhead" | head -20

# The differences the README names, made equal before comparing: with exit-only
# - rt_sigreturn has no enter event (the kernel clears the syscall number on
#   return; its exit event is lost in both modes);
# - a param read from user memory the call paged in is complete, where at
#   sys_enter it was empty (e.g. openat's name before its page was touched).
# Per thread in order: a stable sort by tid keeps each thread's order.
# - an execveat with AT_FDCWD and an absolute path (modeabs) is an execve:
#   that enter line is checked on its own.
grep -v ' > rt_sigreturn ' "$TMP/ee.out" | grep -v '^modeabs .* > execveat ' |
	sort -s -k2,2n >"$TMP/ee.sorted"
grep -v '^modeabs .* > execve ' "$TMP/eo.out" | sort -s -k2,2n >"$TMP/eo.sorted"
expect "default: execveat(AT_FDCWD, absolute path)" \
	grep -Eq '^modeabs .* > execveat .*dirfd=-100\(AT_FDCWD\) pathname='"$TMP"'/modeabs flags=0' "$TMP/ee.out"
expect "exit-only: that execveat's enter is an execve" \
	grep -Eq '^modeabs .* > execve .*filename='"$TMP"'/modeabs' "$TMP/eo.out"
n=$(wc -l <"$TMP/ee.sorted")
echo "lines: enter+exit $n (without rt_sigreturn's enter), exit-only $(wc -l <"$TMP/eo.sorted")"
expect "the workload was seen (>= 2000 lines)" [ "$n" -ge 2000 ]
# Line by line; where they differ, each param empty in the default's line
# (k=) may be complete in exit-only's; anything else is a difference.
paste "$TMP/ee.sorted" "$TMP/eo.sorted" | awk -F '\t' '
	$1 == $2 { same++; next }
	{
		na = split($1, a, " "); nb = split($2, b, " ")
		ok = na == nb
		for (i = 1; ok && i <= na; i++)
			if (a[i] != b[i] && !(a[i] ~ /^[a-z_]+=$/ && index(b[i], a[i]) == 1))
				ok = 0
		if (ok) { filled++; next }
		bad++; if (bad <= 10) print "differs:\n  " $1 "\n  " $2
	}
	END { printf "lines the same: %d, params filled only in exit-only: %d, differing: %d\n",
		same, filled, bad; exit bad > 0 }' >"$TMP/cmp.txt"
rc=$?
[ -n "${KEEP_OUT:-}" ] && cp "$TMP"/e?.sorted "$KEEP_OUT"/
cat "$TMP/cmp.txt"
expect "both modes print the same lines per thread (but for the above)" [ $rc = 0 ]
expect "as many lines in both" [ "$n" = "$(wc -l <"$TMP/eo.sorted")" ]
# The engines: perf rings and BPF ring buffers carry the same frames.
sort -s -k2,2n "$TMP/ee.out" >"$TMP/ee.all"
sort -s -k2,2n "$TMP/pf.out" >"$TMP/pf.all"
echo "lines: --engine perf $(wc -l <"$TMP/pf.all"), default engine $(wc -l <"$TMP/ee.all")"
expect "--engine perf prints the default engine's lines, per thread" cmp -s "$TMP/ee.all" "$TMP/pf.all" ||
	diff "$TMP/ee.all" "$TMP/pf.all" | head -10
for what in '> execveat .*dirfd=[0-9]+\(<d>'"$TMP"'\) pathname=modeeat\('"$TMP"'/modeeat\) flags=0' \
	    '> execveat .*dirfd=[0-9]+\(<f>'"$TMP"'/modeeat\) pathname= flags=1\(AT_EMPTY_PATH\)' \
	    '> sendfile .*out_fd=[0-9]+\(<f>/dev/null\) in_fd=[0-9]+\(<f>/etc/passwd\) offset=3 size=10' \
	    '> exit ' '> exit_group ' '> (clock_)?nanosleep ' '< read .*res=5 data=late'; do
	expect "exit-only shows: $what" grep -Eq -- "$what" "$TMP/eo.sorted"
done

# evt.latency: the default times a 0.3 s sleep; exit-only's enter event carries
# its exit's timestamp, so its latency is 0.
# A call still blocked when the capture stops (modeblock's sleep) has its
# enter event by default and no event in exit-only mode: the stop comes once
# the kernel shows modeblock asleep in clock_nanosleep (230). modesleep's
# latency is a kernel bound: it slept 0.3 s of CLOCK_MONOTONIC, and the
# driver's CLOCK_BOOTTIME stamps run at least as far.
cp "$(command -v sleep)" "$TMP/modesleep"
cp "$(command -v sleep)" "$TMP/modeblock"
for m in ee eo; do
	opt=; [ $m = eo ] && opt=--exit-only
	"$AGENT" -v $opt -p '%proc.name %evt.dir %evt.type %evt.latency' \
		'proc.name in (modesleep, modeblock) and evt.type=clock_nanosleep' >"$TMP/lat.$m" 2>"$TMP/lat.$m.err" &
	AGENT_PID=$!
	wait_capturing "$TMP/lat.$m.err" $AGENT_PID
	"$TMP/modeblock" 30 & block=$!
	"$TMP/modesleep" 0.3
	wait_for 30 asleep_in $block 230
	kill -INT $AGENT_PID; wait $AGENT_PID; AGENT_PID=
	kill $block; wait $block 2>/dev/null
done
echo "evt.latency (ns): default $(grep 'modesleep <' "$TMP/lat.ee"), exit-only $(grep 'modesleep <' "$TMP/lat.eo")"
expect "default: the sleep's latency is >= 0.3 s" awk '$2 == "<" { n++; ok = $4 >= 300000000 } END { exit !(n == 1 && ok) }' "$TMP/lat.ee"
expect "exit-only: the latency is 0" awk '$2 == "<" { n++; ok = $4 == 0 } END { exit !(n == 1 && ok) }' "$TMP/lat.eo"
expect "default: the blocked call's enter event" grep -q '^modeblock > clock_nanosleep' "$TMP/lat.ee"
expect "exit-only: no event of the blocked call" [ "$(grep -c '^modeblock' "$TMP/lat.eo")" = 0 ]

# The default picks exit-only only where no event leaves the agent. These runs
# stop by time (-M), not by count: a CI machine can be so quiet that nothing but
# the agent makes a syscall, and exit-only never sees the blocked ones.
timeout 60 "$AGENT" -v -q -M 1 >/dev/null 2>"$TMP/q.err"
expect "-v -q: exit-only by default" grep -q 'exit-only (no event leaves the agent)' "$TMP/q.err"
expect "-v -q, every syscall: on the raw sys_exit tracepoint" grep -q 'on the raw sys_exit tracepoint' "$TMP/q.err"
expect "-v -q: nothing needs the tables, events are counted, not parsed" \
	grep -q 'events are checked and counted, not parsed' "$TMP/q.err"
timeout 60 "$AGENT" -v -q -M 1 evt.type=close >/dev/null 2>"$TMP/qf.err"
absent() { ! grep -q "$1" "$2"; }
expect "-v -q with a filter: events are parsed" absent 'counted, not parsed' "$TMP/qf.err"
expect "... and the agent ran" grep -q 'capturing' "$TMP/qf.err"
expect "-v -q evt.type=close: on close's own exit tracepoint" \
	grep -qE 'on the own exit tracepoints of [0-9]+ syscalls' "$TMP/qf.err"
AGENT_NO_SYSCALL_TPS=1 timeout 60 "$AGENT" -v -q -M 1 evt.type=close >/dev/null 2>"$TMP/qr.err"
expect "... AGENT_NO_SYSCALL_TPS=1: on the raw one" grep -q 'on the raw sys_exit tracepoint' "$TMP/qr.err"
timeout 60 "$AGENT" -v -q --no-exit-only -M 1 >/dev/null 2>"$TMP/qn.err"
expect "-q --no-exit-only: enter and exit" grep -q 'enter and exit events from sys_enter' "$TMP/qn.err"
timeout 60 "$AGENT" -v -q -w "$TMP/q.scap" -M 1 >/dev/null 2>"$TMP/qw.err"
expect "-q -w: enter and exit (the file keeps enter times)" grep -q 'enter and exit events from sys_enter' "$TMP/qw.err"
finish
