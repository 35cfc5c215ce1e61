#!/usr/bin/env bash
# -w with sysdig's -C/-G/-W: file names, sizes, times and counts, each file
# replaying alone (agent -r and sysdig -r), -z, 0600 files, symlinks refused.
source "$(dirname "$0")/lib.sh"

# 1. Flags (no root needed).
"$AGENT" -W 3 -w "$TMP/x" >/dev/null 2>"$TMP/e"; rc=$?
expect "-W without -C/-G is refused" bash -c "[ $rc = 2 ] && grep -q -- '-C MB or -G SECS' '$TMP/e'"
"$AGENT" -C 1 >/dev/null 2>"$TMP/e"; rc=$?
expect "-C without -w is refused" bash -c "[ $rc = 2 ] && grep -q -- '-w FILE' '$TMP/e'"
"$AGENT" -C 0 -w "$TMP/x" >/dev/null 2>"$TMP/e"; rc=$?
expect "-C 0 is refused" bash -c "[ $rc = 2 ] && grep -q -- '-C takes' '$TMP/e'"
"$AGENT" -G x -w "$TMP/x" >/dev/null 2>"$TMP/e"; rc=$?
expect "-G x is refused" bash -c "[ $rc = 2 ] && grep -q -- '-G takes' '$TMP/e'"

# 2. Safety, on a replay (no root needed): 0600, a symlink at the -w path refused.
if [ -n "${FIXTURES:-}" ] && [ -r "$FIXTURES/curl_google.scap" ]; then
	(umask 022; "$AGENT" -q -r "$FIXTURES/curl_google.scap" -w "$TMP/copy.scap" 2>/dev/null)
	expect "-w creates the file 0600 (umask 022)" [ "$(stat -c %a "$TMP/copy.scap")" = 600 ]
	expect "no temporary file is left" bash -c "[ -z \"\$(ls -A '$TMP' | grep '^\.copy')\" ]"
	echo "keep me" >"$TMP/victim"; chmod 644 "$TMP/victim"
	ln -s "$TMP/victim" "$TMP/link.scap"
	"$AGENT" -q -r "$FIXTURES/curl_google.scap" -w "$TMP/link.scap" 2>"$TMP/e"; rc=$?
	expect "-w through a symlink is refused" bash -c "[ $rc = 1 ] && grep -q 'symbolic link' '$TMP/e'"
	expect "the symlink's target is untouched" \
		bash -c "[ \"\$(cat '$TMP/victim')\" = 'keep me' ] && [ \"\$(stat -c %a '$TMP/victim')\" = 644 ] && [ -L '$TMP/link.scap' ]"
fi

need_live
busy_loop() { while :; do cat /etc/hostname /etc/passwd >/dev/null; ls / >/dev/null; done; }
busy_loop & busy=$!
have_sysdig=; command -v sysdig >/dev/null && have_sysdig=1

# Each file alone: agent -r reads it to the end with its own process list.
# The replays whose lines are judged get the time a slow reader of their
# pipe needs: the default --flush-timeout (2 s) drops what is still queued
# then (counted), and a starved CPU (the busy loop's) can make it pass.
replays() {	# replays FILE [EMPTY_OK]; says on stderr which step failed
	local n s
	"$AGENT" -v -r "$1" -q 2>"$TMP/re" || { echo "  agent -r failed:"; cat "$TMP/re"; return 1; } >&2
	grep -q ' [1-9][0-9]* threads and .*(0 malformed list blocks skipped)' "$TMP/re" ||
		{ echo "  no state read back:"; cat "$TMP/re"; return 1; } >&2
	n=$("$AGENT" -r "$1" --flush-timeout 60 2>/dev/null | wc -l)
	[ "$n" -gt 0 ] || [ -n "${2:-}" ] || { echo "  no events" >&2; return 1; }
	if [ -n "$have_sysdig" ]; then
		sysdig -r "$1" >"$TMP/rs" 2>"$TMP/rse"
		s=$(wc -l <"$TMP/rs")
		[ "$s" = "$n" ] || { echo "  sysdig -r printed $s lines, agent -r $n; sysdig said:"
			tail -3 "$TMP/rse"; echo "  first differences (< agent, > sysdig):"
			"$AGENT" -r "$1" --flush-timeout 60 2>/dev/null | diff - "$TMP/rs" | head -8
			return 1; } >&2
	fi
}

# files_started ERR N: -v said N times that it writes a new file.
files_started() { [ "$(grep -c '^agent: writing ' "$1")" -ge "$2" ]; }

# 3. -C 1 -W 3: cap.scap0..2, about 10^6 bytes each but the newest, 3 at most.
#    Stopped once -v said it started the fifth file (the busy loop's pace
#    decides when, not a clock).
mkdir "$TMP/c"
start_agent /dev/null "$TMP/ce" -q -w "$TMP/c/cap.scap" -C 1 -W 3
wait_for 120 files_started "$TMP/ce" 4
kill -INT "$AGENT_PID"; wait "$AGENT_PID"; AGENT_PID=
ls -la "$TMP/c" >"$TMP/cls"
last=$(sed -n 's/.* files, the last \(.*\)$/\1/p' "$TMP/ce")
nfiles=$(sed -n 's/.* written to \([0-9]*\) files.*/\1/p' "$TMP/ce")
expect "-C 1 -W 3 rotated more than 3 times ($nfiles files)" [ "${nfiles:-0}" -gt 3 ]
expect "-C 1 -W 3 leaves cap.scap0, cap.scap1, cap.scap2 only" \
	[ "$(ls "$TMP/c" | tr '\n' ' ')" = "cap.scap0 cap.scap1 cap.scap2 " ]
for f in "$TMP"/c/cap.scap?; do
	s=$(stat -c %s "$f")
	[ "$f" = "$last" ] || expect "$(basename "$f") holds just over 10^6 bytes ($s)" \
		bash -c "[ $s -gt 1000000 ] && [ $s -lt 1070000 ]"
	expect "$(basename "$f") is 0600" [ "$(stat -c %a "$f")" = 600 ]
	expect "$(basename "$f") replays alone (agent -r${have_sysdig:+, sysdig -r})" replays "$f"
done

# 4. -G 1 for at least 3.5 s of capture: a file a second, named g.scap0,
#    g.scap1, ... Judged on the files' own event times (the clock -G follows):
#    a new file starts at the first event of a later whole second, so each
#    file but the first holds the events of one second, each a later one than
#    the file before. At least 3 files: the busy loop makes events in every
#    second of the 3.5.
mkdir "$TMP/g"
start_agent "$TMP/gout" "$TMP/gerr" -q -w "$TMP/g/g.scap" -G 1
sleep 3.5
kill -INT "$AGENT_PID"; wait "$AGENT_PID"; AGENT_PID=
n=$(ls "$TMP/g" | wc -l)
expect "-G 1 for 3.5 s: at least 3 files ($n)" [ "$n" -ge 3 ]
expect "-G 1 names them g.scap0.." [ "$(ls "$TMP/g" | head -1)" = g.scap0 ]
for ((k = 0; k < n; k++)); do
	# whole seconds by dropping the nanoseconds' 9 digits: awk's doubles
	# round a time 128 ns before a second up into the next one (2^53 < 1.8e18)
	"$AGENT" -r "$TMP/g/g.scap$k" --flush-timeout 60 -p '%evt.rawtime' 2>/dev/null | sed -E 's/[0-9]{9}$//' | uniq >"$TMP/g.sec$k"
done
seconds_apart() {	# each file the events of one whole second, each later than the last
	local k prev=0 s
	for ((k = 0; k < n; k++)); do
		[ "$(wc -l <"$TMP/g.sec$k")" -le 1 ] || { echo "  g.scap$k spans seconds $(tr '\n' ' ' <"$TMP/g.sec$k")"; return 1; }
		s=$(cat "$TMP/g.sec$k")
		[ -z "$s" ] && [ "$k" = 0 ] && continue	# the first may hold the state only
		[ -n "$s" ] && [ "$s" -gt "$prev" ] || { echo "  g.scap$k: second '$s' after $prev"; return 1; }
		prev=$s
	done
}
expect "-G 1: each file holds one second of events, each a later second" seconds_apart
# (the first file may hold the state only: sysdig's -G counts whole seconds from
# the start, so the first events may already start the next file)
for f in "$TMP"/g/*; do
	expect "$(basename "$f") replays alone" replays "$f" $([ "${f##*/}" = g.scap0 ] && echo empty-ok)
done

# 5. -z with -C and -W: gzip files, each replaying alone. Stopped once -v said
#    it started the second file.
mkdir "$TMP/z"
start_agent /dev/null "$TMP/ze" -q -z -w "$TMP/z/z.scap.gz" -C 1 -W 2
wait_for 120 files_started "$TMP/ze" 1
kill -INT "$AGENT_PID"; wait "$AGENT_PID"; AGENT_PID=
expect "-z -C 1 -W 2: z.scap.gz0 and z.scap.gz1" \
	[ "$(ls "$TMP/z" | tr '\n' ' ')" = "z.scap.gz0 z.scap.gz1 " ]
for f in "$TMP"/z/*; do
	expect "$(basename "$f") is gzip" bash -c "head -c 2 '$f' | od -An -tx1 | grep -q '1f 8b'"
	expect "$(basename "$f") replays alone" replays "$f"
done

kill "$busy" 2>/dev/null; busy=
finish
