#!/usr/bin/env bash
# Capture files: a sysdig capture read without root (as nobody), and, as root,
# events recorded with -w read back with -r identical to what was printed live.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/collectors/out_lib.sh"
FIXTURES=${FIXTURES:?FIXTURES must name the folder of sysdig captures}
[ -d "$FIXTURES" ] || { echo "skip: no fixtures in $FIXTURES"; exit 77; }

# 1. Reading a capture needs no privileges.
as_nobody=()
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	cp "$AGENT" "$TMP/agent" && chmod 755 "$TMP" "$TMP/agent"
	as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
	reader="$TMP/agent"
else
	reader="$AGENT"
fi
"${as_nobody[@]}" "$reader" -r "$FIXTURES/curl_google.scap" -j >"$TMP/j" 2>"$TMP/je"; rc=$?
expect "-r FIXTURE -j exits 0 without root" [ $rc = 0 ]
expect "-r FIXTURE -j prints sysdig's 1221 events" [ "$(wc -l <"$TMP/j")" = 1221 ]
python3 - "$TMP/j" >"$TMP/jcheck" 2>&1 <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
first = ev[0]
# sysdig -r: 211 17:35:48.514632619 0 curl (17497) < execve res=0 exe=curl ...
assert first["evt.num"] == 211 and first["evt.type"] == "execve", first
assert first["proc.name"] == "curl" and first["thread.tid"] == 17497, first
assert first["evt.outputtime"] == 1534527348514632619, first
assert ev[-1]["evt.num"] == 1431 and ev[-1]["evt.type"] == "procexit", ev[-1]
print("ok")
PY
expect "-r FIXTURE -j: first and last events as sysdig shows them" grep -q '^ok' "$TMP/jcheck" || cat "$TMP/jcheck"
expect "the summary says capture mode file" grep -q 'capture mode: file' "$TMP/je"
"$reader" -r "$FIXTURES/single_ipv6_conn.scap" -p '%evt.num %fd.name' 'evt.type=connect and evt.dir=<' \
	>"$TMP/c" 2>/dev/null
expect "-r with a filter and -p" grep -q '^1154 2001:db8::4:54405->2001:db8::3:1234$' "$TMP/c"
# The file's process and fd lists name what existed before the capture. sysdig -r:
# 211 ... < execve ... ptid=3200(bash) ...; 1018 ... < clone res=17498(curl) ... ptid=3200(bash)
"$reader" -r "$FIXTURES/curl_google.scap" >"$TMP/plain" 2>/dev/null
expect "-r: the parent from the process list is named (event 211)" \
	grep -q '^211 17:35:48.514632619 0 curl (17497) < execve res=0 exe=curl .* ptid=3200(bash) cwd=/home/ubuntu ' "$TMP/plain"
expect "-r: the parent is named on the clone events too" \
	bash -c "[ \$(grep -c 'ptid=3200(bash)' '$TMP/plain') = 3 ] && ! grep -q 'ptid=3200(<NA>)' '$TMP/plain'"
"$reader" -r "$FIXTURES/curl_google.scap" -n 1 -p '%proc.pname %proc.ppid' >"$TMP/pn" 2>/dev/null
expect "-r: proc.pname from the process list" grep -qx 'bash 3200' "$TMP/pn"
"$AGENT" -v -r "$FIXTURES/curl_google.scap" -q 2>"$TMP/ve"
expect "-v -r says what the lists held" grep -q '54 threads and 316 fds from its lists' "$TMP/ve"
"$AGENT" -r "$TMP/missing.scap" >/dev/null 2>"$TMP/me"; rc=$?
expect "-r of a missing file: one line naming it" \
	bash -c "[ $rc = 1 ] && [ \$(wc -l <'$TMP/me') = 1 ] && grep -q 'cannot open .*missing.scap' '$TMP/me'"
head -c 5000 "$FIXTURES/curl_google.scap" | gzip -dc 2>/dev/null >"$TMP/cut.scap"
"$AGENT" -r "$TMP/cut.scap" -q 2>"$TMP/ce"; rc=$?
expect "-r of a cut-short file fails naming the offset" \
	bash -c "[ $rc = 1 ] && grep -q 'offset' '$TMP/ce'"
# A damaged file (the capfile fuzzer's, tests/fuzz) whose clone exit names its
# caller as its own child, and whose last block runs past its end: the clone
# counted, the cut named, exit 1.
"$AGENT" -r "$(dirname "$0")/../fuzz/corpus/capfile/clone_self.scap" -q 2>"$TMP/se"; rc=$?
expect "-r of a file with a clone of its caller: counted, the cut named" \
	bash -c "[ $rc = 1 ] && grep -q '^agent: 1 clone exits named their caller' '$TMP/se' &&
		grep -q '^agent: file truncated: .* at offset 9256' '$TMP/se'" ||
	cat "$TMP/se"
# A capture our agent recorded (the capreq fuzzer's seed: a Python process on
# loopback), in request mode: its DNS client sent from a fresh UDP socket
# (sendto's enter names no port of its own), so its end is the port the answer
# came to, on the address it is bound to; the server saw it from 127.0.0.1.
"$AGENT" -r "$(dirname "$0")/../fuzz/corpus/capreq/loopback_http_redis_dns.scap" --requests \
	-j 'req.protocol=dns' >"$TMP/dns.j" 2>/dev/null
expect "-r --requests names an unbound UDP client by its own port (both sides' records)" \
	bash -c "grep -q '\"req.client\":\"0.0.0.0:41980\".*\"req.server\":\"127.0.0.1:49487\",\"req.side\":\"client\"' '$TMP/dns.j' &&
		grep -q '\"req.client\":\"127.0.0.1:41980\".*\"req.server\":\"127.0.0.1:49487\",\"req.side\":\"server\"' '$TMP/dns.j' &&
		[ \$(wc -l <'$TMP/dns.j') = 2 ]" || cat "$TMP/dns.j"
"$AGENT" -z >/dev/null 2>"$TMP/ze"; rc=$?
expect "-z without -w is refused" bash -c "[ $rc = 2 ] && grep -q -- '-w FILE' '$TMP/ze'"

# 2. Record 20 events (root), read them back: the same events.
if [ "$(id -u)" != 0 ] || [ ! -r /sys/kernel/btf/vmlinux ]; then
	echo "skip: recording needs root and BTF"
	finish; exit $?
fi
FMT='%evt.rawtime %evt.cpu %thread.tid %evt.dir %evt.type %evt.rawres %evt.rawarg.fd'
FLT='evt.type in (openat, read, close) and proc.name=cat'
# The cats go on until the agent has its events, however long it takes to start.
for z in "" "-z"; do
	( while :; do cat /etc/hostname >/dev/null; sleep 0.02; done ) &
	gen=$!
	timeout 100 "$AGENT" -w "$TMP/rec.scap" $z -n 20 -p "*$FMT" "$FLT" >"$TMP/live" 2>"$TMP/le"; rc=$?
	kill "$gen" 2>/dev/null; wait "$gen" 2>/dev/null
	expect "agent -w $z -n 20 exits 0" [ $rc = 0 ]
	expect "agent -w $z says 20 events written" grep -q '^agent: 20 events written to' "$TMP/le"
	"$AGENT" -r "$TMP/rec.scap" -p "*$FMT" >"$TMP/back" 2>"$TMP/be"; rc=$?
	expect "agent -r of its own $z file exits 0" [ $rc = 0 ]
	expect "agent -r $z prints the same 20 events" \
		bash -c "[ \$(wc -l <'$TMP/live') = 20 ] && cmp -s '$TMP/live' '$TMP/back'" ||
		diff "$TMP/live" "$TMP/back" | head -5
	if [ -n "$z" ]; then
		expect "-z writes gzip" bash -c "head -c 2 '$TMP/rec.scap' | od -An -tx1 | grep -q '1f 8b'"
	fi
done
# -q: nothing on stdout, the file still written.
( while :; do cat /etc/hostname >/dev/null; sleep 0.02; done ) &
gen=$!
timeout 100 "$AGENT" -q -w "$TMP/q.scap" -n 5 "$FLT" >"$TMP/qout" 2>/dev/null; rc=$?
kill "$gen" 2>/dev/null; wait "$gen" 2>/dev/null
"$AGENT" -r "$TMP/q.scap" >"$TMP/qback" 2>/dev/null
expect "-q -w prints nothing and writes the events" \
	bash -c "[ $rc = 0 ] && [ ! -s '$TMP/qout' ] && [ \$(wc -l <'$TMP/qback') = 5 ]"
# 3. -w starts the file with the processes and fds that exist already: a process that
#    opened a file, a TCP connection, a memfd and a pipe before the recording, and
#    only writes during it, is replayed with its name, args, cwd and every fd's name.
mkdir -p "$TMP/holder-cwd"
python3 - "$TMP" >"$TMP/holder" <<'PY' &
import os, socket, sys, time
tmp = sys.argv[1]
os.chdir(tmp + "/holder-cwd")
f = open(tmp + "/held-file.txt", "w")
l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("127.0.0.1", 0)); l.listen(1)
c = socket.create_connection(l.getsockname()); s, _ = l.accept()
m = os.memfd_create("held-memfd")
r, w = os.pipe()
print(os.getpid(), f.fileno(), c.fileno(), m, w, c.getsockname()[1], l.getsockname()[1], flush=True)
while not os.path.exists(tmp + "/go"):
    time.sleep(0.05)
for _ in range(3):
    for fd in (f.fileno(), c.fileno(), m, w):
        os.write(fd, b"x")
    time.sleep(0.05)
PY
hpid=$!
wait_for 30 test -s "$TMP/holder"
read -r pid ffd cfd mfd wfd cport lport <"$TMP/holder"
# The holder writes once the agent captures (not after a fixed time: loading
# the driver takes longer on a slow machine).
timeout 100 "$AGENT" -v -q -w "$TMP/state.scap" -n 24 "evt.type=write and proc.pid=$pid" \
	2>"$TMP/state.err" &
spid=$!
wait_capturing "$TMP/state.err" "$spid" 200
touch "$TMP/go"
wait "$spid"
wait "$hpid"
SFMT='%evt.dir %proc.name %proc.args %proc.cwd %proc.pname %fd.num %fd.typechar %fd.name'
"$AGENT" -r "$TMP/state.scap" -p "$SFMT" 'evt.dir=<' >"$TMP/sback" 2>"$TMP/sbe"
want() {	# the replayed line of fd $1, $2 its type letter, $3 its name
	echo "< python3 - $TMP $TMP/holder-cwd/ bash $1 $2 $3"
}
expect "-r of a -w file: a pre-existing process and its file, by name" \
	grep -qxF "$(want "$ffd" f "$TMP/held-file.txt")" "$TMP/sback" || head -3 "$TMP/sback" "$TMP/sbe"
expect "-r of a -w file: its TCP connection, by tuple" \
	grep -qxF "$(want "$cfd" 4 "127.0.0.1:$cport->127.0.0.1:$lport")" "$TMP/sback"
expect "-r of a -w file: its memfd and pipe" \
	bash -c "grep -qxF '$(want "$mfd" m "/memfd:held-memfd (deleted)")' '$TMP/sback' &&
		 grep -qE '^< python3 .* $wfd p pipe:\[[0-9]+\]$' '$TMP/sback'"
expect "-r of a -w file: all 12 write exits, each with its fd named" \
	bash -c "[ \$(grep -c . '$TMP/sback') = 12 ] && ! grep -q '<NA>' '$TMP/sback'"
# sysdig reads the same file the same way (it has no memfd type: a file to it).
if command -v sysdig >/dev/null; then
	sysdig -r "$TMP/state.scap" -p "$SFMT" 'evt.dir=<' >"$TMP/ssys" 2>&1
	sed 's/ m \/memfd:/ f \/memfd:/' "$TMP/sback" >"$TMP/sback-f"
	expect "sysdig -r of a -w file names the same processes and fds" \
		cmp -s "$TMP/sback-f" "$TMP/ssys" || diff "$TMP/sback-f" "$TMP/ssys" | head -5
elif [ -n "${AGENT_REQUIRE_LIVE:-}" ]; then
	expect "sysdig is installed to check our files against (tools/deps.sh)" false
fi

# sysdig's buffer printing flags on a known buffer (curl reading an ELF header).
q="evt.type=read and evt.dir=< and evt.rawres>0"
expect "-x prints buffers in hex" bash -c "\"$AGENT\" -r '$FIXTURES/curl_google.scap' -x -p '%evt.buffer' '$q' -n 1 | grep -q '^7f454c46'"
expect "-b prints buffers in base64" bash -c "\"$AGENT\" -r '$FIXTURES/curl_google.scap' -b -p '%evt.buffer' '$q' -n 1 | grep -q '^f0VMRg'"
expect "buffers print as ASCII by default" bash -c "\"$AGENT\" -r '$FIXTURES/curl_google.scap' -p '%evt.buffer' '$q' -n 1 | grep -q '^\.ELF'"
# The whole replay, text and JSON, is byte for byte what sysdig 0.29.3 prints for
# these files (SHA-256 of `sysdig -r FILE [-j]`, recorded with the Debian sysdig;
# to investigate a mismatch: diff <(agent -r F) <(sysdig -r F)).
while read -r file mode sum; do
	[ "$mode" = - ] && mode=
	got=$("$AGENT" -r "$FIXTURES/$file" $mode 2>/dev/null | sha256sum | cut -d' ' -f1)
	expect "agent -r $file $mode prints exactly what sysdig -r prints" [ "$got" = "$sum" ]
done <<'SUMS'
curl_google.scap - ca548404d94e1f9d4402e1c6412457e54fbe66d417d39dd1fc6a06ce8aebde31
curl_google.scap -j 256c9560aecd735e9c1b0a8f615872c018302fcf93e56339d56ae36f386b8ac0
single_ipv6_conn.scap - abdd4f3a5cf2c91bc6a95ffcf372fd723d62d9e9be6c59803d013a795e352d9a
single_ipv6_conn.scap -j 10b2371f5e103c2183653d4b9c757b762f57cf5694def8a8022809daa2e04b13
SUMS

# A replay waits for a slow reader instead of dropping lines (nothing is lost in
# the kernel meanwhile): a 4K queue and a reader that starts only once the
# agent waits for it (its write to the pipe asleep) get it all (the 108 KB of
# text cannot sit in the queue and a 64K pipe). The replay waits up to 2 s
# for progress: this shell and the reader answer within milliseconds, at
# real-time priority (rt_on in lib.sh) so that a CPU hog cannot slow them.
mkfifo "$TMP/slow.fifo"
"$AGENT" -r "$FIXTURES/curl_google.scap" --queue-size 4K 2>"$TMP/slow.err" >"$TMP/slow.fifo" &
apid=$!
rt_on $$
python3 -c '
import hashlib, os, sys, time
f = open(sys.argv[1], "rb")	# lets the agent open its end
while not os.path.exists(sys.argv[2]):
    time.sleep(0.005)
print(hashlib.sha256(f.read()).hexdigest())' "$TMP/slow.fifo" "$TMP/slow.go" >"$TMP/slow.sum" &
rpid=$!
expect "the replay waits for its reader (asleep writing to its pipe)" wait_for 30 write_blocked "$apid" 1
touch "$TMP/slow.go"
wait "$rpid"; wait "$apid"
rt_off $$
expect "a replay to a late reader loses no line (4K queue)" \
	[ "$(cat "$TMP/slow.sum")" = ca548404d94e1f9d4402e1c6412457e54fbe66d417d39dd1fc6a06ce8aebde31 ]
expect "and says it dropped none" grep -q ' 0 dropped (queue full 0,' "$TMP/slow.err"
# A reader that never reads: after 2 s without progress the replay drops (and
# counts) instead of waiting forever; SIGTERM ends the wait at once.
start=$(date +%s%N)
( "$AGENT" -r "$FIXTURES/curl_google.scap" -j -v --queue-size 4K --flush-timeout 0.2 \
	2>"$TMP/stall.err"; date +%s%N >"$TMP/stall.end" ) |
	{ sleep 15; [ -s "$TMP/stall.end" ] && echo "the agent had ended" >"$TMP/stall.reader"; }
ms=$(( ($(cat "$TMP/stall.end") - start) / 1000000 ))
# At least the 2 s the replay waits by its own clock (CLOCK_REALTIME here
# moves with it but for steps, which nothing makes during a test); the end is
# seen by the reader itself: the agent did not wait for it to go away.
expect "a stalled reader: the replay gives up waiting after 2 s ($ms ms) and ends while its reader still sleeps" \
	bash -c "[ $ms -ge 2000 ] && [ -s '$TMP/stall.reader' ]"
expect "and counts the lines it dropped" grep -q 'dropped (queue full [1-9]' "$TMP/stall.err"
# SIGTERM to a replay blocked on a full pipe (its reader sleeps): gone within
# 1 s. The agent and this shell at real-time priority for the measurement
# (rt_on in lib.sh).
mkfifo "$TMP/term.fifo"
sleep 60 <"$TMP/term.fifo" >/dev/null &
PIDS+=($!)
"$AGENT" -r "$FIXTURES/curl_google.scap" -j -v --queue-size 4K 2>"$TMP/term.err" >"$TMP/term.fifo" &
AGENT_PID=$!
expect "the replay waits for its reader" wait_for 30 write_blocked "$AGENT_PID" 1
rt_on "$AGENT_PID" $$
term_timed; ms=$TERM_MS
rt_off $$
expect "SIGTERM stops a replay waiting for its reader within 1 s ($ms ms)" [ "$ms" -lt 1000 ]
expect "and the summary counts what was left" grep -q 'output stdout: .* dropped' "$TMP/term.err"
finish
