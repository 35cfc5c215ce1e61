#!/usr/bin/env bash
# An fd number reused while its close still runs (reuse/close_reuse.c): the
# kernel frees the number at the start of close(), so another thread's accept
# can get it and return, and serve a request on it, before that close returns.
# A FUSE file whose flush waits (reuse/slowfs.c) holds the close open until
# close_reuse has served a request on the new socket (it then makes the gate
# directory the flush waits for), so the race happens every round, on any
# machine however slow, and then 300 ms more: longer than the agent's order
# window (10 ms), so the close's exit is read after the new socket's events.
# The agent must keep the new connection's fd entry: plain capture names the
# close by the file it closed and the accepted socket's I/O by its
# connection, with and without exit-only capture, and request mode pairs
# every request on it (before the fix, exit-only capture took the close's
# late exit for the new socket's and lost its requests). Loopback only.
source "$(dirname "$0")/lib.sh"
need_live
need_pkgs gcc libc6-dev pkg-config fuse3 libfuse3-dev
SRC=$(cd "$(dirname "$0")/../.." && pwd)
MNT=$TMP/mnt
fs_pid=
cleanup_reuse() {
	if [ -n "$fs_pid" ]; then
		fusermount3 -u "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null
		# (slowfs ends a moment after the unmount)
		for _ in $(seq 50); do kill -0 "$fs_pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$fs_pid" 2>/dev/null
	fi
	cleanup_e2e
}
trap cleanup_reuse EXIT

gcc -O2 -Wall -o "$TMP/slowfs" "$SRC/tests/e2e/reuse/slowfs.c" \
	$(pkg-config --cflags --libs fuse3) 2>"$TMP/gcc.err" &&
	gcc -O2 -Wall -pthread -o "$TMP/close_reuse" "$SRC/tests/e2e/reuse/close_reuse.c" \
		2>>"$TMP/gcc.err"
expect "slowfs and close_reuse compile" [ -x "$TMP/close_reuse" ] ||
	{ cat "$TMP/gcc.err"; finish; exit 1; }
mkdir -p "$MNT"
SLOWFS_DELAY_MS=300 SLOWFS_GATE=$TMP/gate "$TMP/slowfs" "$MNT" -f -s 2>"$TMP/slowfs.err" &
fs_pid=$!
for _ in $(seq 100); do [ -r "$MNT/slow" ] && break; sleep 0.1; done
expect "slowfs mounted (its file readable)" [ -r "$MNT/slow" ] ||
	{ cat "$TMP/slowfs.err"; finish; exit 1; }
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
ROUNDS=5

# run NAME ARGS...: the agent with ARGS around one run of close_reuse.
run() {
	local name=$1; shift
	start_agent "$TMP/$name.out" "$TMP/$name.err" "$@" ||
		{ cat "$TMP/$name.err"; return 1; }
	"$TMP/close_reuse" "$MNT/slow" "$PORT" "$ROUNDS" "$TMP/gate" >"$TMP/$name.run" 2>&1
	local rc=$?
	sleep 0.5
	stop_agent
	cat "$TMP/$name.run"
	expect "$name: every round's number was reused while its close ran" \
		[ "$rc" = 0 ] && grep -q "^reused $ROUNDS of $ROUNDS$" "$TMP/$name.run"
}

# counted NAME: plain capture's exit line counted each round's close as one
# that returned after another thread's call had the number.
counted() {
	local name=$1
	expect "$name: the agent counted those closes (at least $ROUNDS)" python3 - "$TMP/$name.err" \
		"$ROUNDS" <<'PY'
import re, sys
m = re.search(r"^agent: (\d+) closes returned after another thread's call", open(sys.argv[1]).read(), re.M)
print("closes counted:", m and m.group(1))
sys.exit(0 if m and int(m.group(1)) >= int(sys.argv[2]) else 1)
PY
}

# Plain capture: each round's events of close_reuse. T1's accept gets the
# number, and its read, write and close on it name the connection: the new
# socket's entry is kept. T2's close names the FUSE file with sys_enter
# attached; in exit-only capture, a close held longer than the order window
# (10 ms) is read after the accept, so it names no file (the empty name, as
# sysdig prints an exit's fd it does not know), never the socket.
plain_check() {	# plain_check NAME FILE_NAMED(1|0)
	python3 - "$TMP/$1.out" "$TMP/$1.run" "$MNT/slow" "$PORT" "$2" <<'PY'
import re, sys
out, run, slow, port, named = sys.argv[1:6]
rounds = [re.match(r"round (\d+): fd (\d+) closed by tid (\d+) reused by accept in tid (\d+)", l)
          for l in open(run)]
rounds = [m.groups() for m in rounds if m]
evs = [l.rstrip("\n").split(" ", 5) for l in open(out)]
evs = [e for e in evs if len(e) == 6 and e[2] == "<"]  # tid type dir fd.num rawres fd.name
conn = "127.0.0.1:%s" % port
server = rounds[0][3] if rounds else None
accepts = [i for i, e in enumerate(evs) if e[0] == server and e[1] == "accept" and e[4] != "-1"]
bad = 0
for k, (r, fd, closer, _) in enumerate(rounds):
    close = [e for e in evs if e[0] == closer and e[1] == "close" and e[3] == fd]
    lo = accepts[k] if k < len(accepts) else len(evs)
    hi = accepts[k + 1] if k + 1 < len(accepts) else len(evs)
    mine = [e for e in evs[lo:hi] if e[0] == server and e[3] == fd]
    io = [e for e in mine if e[1] in ("read", "write")]  # two exchanges
    own = [e for e in mine if e[1] == "close"]
    ok = (len(close) == 1 and close[0][5] == (slow if named == "1" else "") and
          len(mine) > 0 and mine[0][1] == "accept" and conn in mine[0][5] and
          len(io) == 4 and all(e[5] == mine[0][5] for e in io) and
          len(own) == 1 and own[0][5] == mine[0][5])
    print("round %s: T2's close names %r; T1: %s: %s" % (r, close[0][5] if close else None,
          [(e[1], e[5]) for e in mine], "ok" if ok else "WRONG"))
    bad += not ok
sys.exit(0 if rounds and len(accepts) == len(rounds) and not bad else 1)
PY
}

FMT='*%thread.tid %evt.type %evt.dir %fd.num %evt.rawres %fd.name'
FILTER='proc.name=close_reuse and evt.type in (close, accept, read, write)'
run plain-full --no-exit-only -p "$FMT" "$FILTER"
counted plain-full
expect "plain capture: the close names the file it closed, the new socket's calls their connection" \
	plain_check plain-full 1
run plain-exit-only --exit-only -p "$FMT" "$FILTER"
counted plain-exit-only
expect "plain capture, exit-only: the new socket's calls name their connection, the close names nothing" \
	plain_check plain-exit-only 0

# Request mode (exit-only, compact path): every request served on the reused
# number is paired, on both sides, as the program made it: the one during the
# close and the one after it returned. The file's close itself stays in the
# kernel (a close of no socket), so only the accepted socket's calls come.
run req --requests -j
# The FUSE file's close is of no socket: request mode keeps it in the kernel,
# so none of the rounds' closes reaches the agent (each would have been one of
# the closes counted as returned after another thread's call).
expect "req: the FUSE file's closes stayed in the kernel (at least $ROUNDS closes of non-socket fds kept, fewer than $ROUNDS closes that returned after another thread's call)" \
	python3 - "$TMP/req.err" "$ROUNDS" <<'PY'
import re, sys
err, rounds = open(sys.argv[1]).read(), int(sys.argv[2])
k = re.search(r"; (\d+) closes of non-socket fds,", err)
r = re.search(r"^agent: (\d+) closes returned after another thread's call", err, re.M)
print("closes kept:", k and k.group(1), "closes returned after another thread's call:", r and r.group(1))
# (the line is left out when there were none)
sys.exit(0 if k and int(k.group(1)) >= rounds and (not r or int(r.group(1)) < rounds) else 1)
PY
expect "request mode: every round's request paired on both sides" python3 - "$TMP/req.out" \
	"$ROUNDS" "$PORT" <<'PY'
import json, sys
out, rounds, port = sys.argv[1], int(sys.argv[2]), sys.argv[3]
recs = [json.loads(l) for l in open(out) if l.startswith("{")]
mine = [r for r in recs if r.get("proc.name") == "close_reuse" and
        r.get("req.server") == "127.0.0.1:" + port]
want = sorted("/round%d%s" % (i, t) for i in range(1, rounds + 1) for t in ("", "/after"))
ok = True
for side in ("server", "client"):
    got = sorted(r["req.path"] for r in mine if r["req.side"] == side)
    st = {r["req.status"] for r in mine if r["req.side"] == side}
    print(side, got, st)
    ok = ok and got == want and st == {200}
sys.exit(0 if ok else 1)
PY
finish
