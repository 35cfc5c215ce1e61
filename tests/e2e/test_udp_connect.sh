#!/usr/bin/env bash
# A UDP socket connected again (issue 31), on loopback only: udp/udpconn.c
# connects sockets to one peer, then to another, sends, dissolves the
# association with a connect to AF_UNSPEC and sends to the first peer again,
# on IPv6 and IPv4, unbound, bound to port 0 and bound to a port; then a
# sendto before any connect, a connect that fails, and sockets never connected
# that talk to both peers in turn. As sysdig 0.29.3 keeps a socket: a connect
# names the peer it asks for (the enter event already holds it, the exit names
# the socket from it), a connect to AF_UNSPEC keeps the last peer and takes
# the local end the kernel left, and a message to another address leaves a
# known peer as it is. The agent live, agent -r of its -w file and sysdig -r
# of that file print the same lines. One difference by design: a UDP server
# (a socket bound to a port) is named client -> server by its first datagram,
# where sysdig takes bytes of the bound port for the client's address.
source "$(dirname "$0")/lib.sh"
need_live
need_pkgs gcc libc6-dev
if ! command -v sysdig >/dev/null; then
	if [ -n "${AGENT_REQUIRE_LIVE:-}" ]; then
		echo "FAIL: sysdig is not installed (tools/deps.sh installs it)"; exit 1
	fi
	echo "skip: sysdig is not installed (tools/deps.sh installs it)"; exit 77
fi
rcv_pid=
cleanup_udp() {
	[ -n "$rcv_pid" ] && kill -9 "$rcv_pid" 2>/dev/null
	cleanup_e2e
}
trap cleanup_udp EXIT
SRC=$(cd "$(dirname "$0")/../.." && pwd)

gcc -O2 -Wall -o "$TMP/udpconn" "$SRC/tests/e2e/udp/udpconn.c" 2>"$TMP/gcc.err"
expect "udpconn compiles" [ -x "$TMP/udpconn" ] || { cat "$TMP/gcc.err"; finish; exit 1; }

# The peers, in a process of their own: [::1]:P1 and 127.0.0.1:P1, [::1]:P2
# and 127.0.0.2:P2 bound, echoing each datagram (a send to a port nobody binds
# would be refused), and a port PB free on ::1 and 127.0.0.1 for the bound
# cases.
python3 - >"$TMP/ports" <<'PY' &
import selectors, socket, sys, time
def pair(a4):
    while True:
        s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        s6.bind(("::1", 0))
        port = s6.getsockname()[1]
        s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            s4.bind((a4, port))
            return port, [s6, s4]
        except OSError:
            s6.close(); s4.close()
p1, socks = pair("127.0.0.1")
p2, more = pair("127.0.0.2")
pb, free = pair("127.0.0.1")
for s in free:
    s.close()
print(p1, p2, pb, flush=True)
sel = selectors.DefaultSelector()
for s in socks + more:
    sel.register(s, selectors.EVENT_READ)
end = time.time() + 60
while time.time() < end:
    for key, _ in sel.select(1):
        data, peer = key.fileobj.recvfrom(64)
        key.fileobj.sendto(data, peer)
PY
rcv_pid=$!
for _ in $(seq 1 50); do [ -s "$TMP/ports" ] && break; sleep 0.1; done
read -r P1 P2 PB <"$TMP/ports"
expect "the peers listen on loopback (ports $P1, $P2; $PB free)" [ -n "${PB:-}" ]

# fd.name after each event, then the line as sysdig prints it.
FMT='*%evt.num %evt.dir %evt.type %fd.type %fd.name | %evt.info'
F='proc.name=udpconn and evt.type in (socket, bind, connect, sendto, recvfrom, close)'
start_agent "$TMP/live" "$TMP/live.err" -w "$TMP/udp.scap" -p "$FMT" "$F" ||
	{ echo "FAIL: the agent did not start"; cat "$TMP/live.err"; finish; exit 1; }
"$TMP/udpconn" "$P1" "$P2" "$PB"; rc=$?
sleep 0.5
stop_agent
expect "udpconn ran as expected" [ "$rc" = 0 ]
"$AGENT" -r "$TMP/udp.scap" -p "$FMT" "$F" >"$TMP/replay" 2>"$TMP/replay.err"
sysdig -r "$TMP/udp.scap" -p "$FMT" "$F" >"$TMP/sysdig" 2>"$TMP/sysdig.err"
"$AGENT" -r "$TMP/udp.scap" "$F" >"$TMP/replay.default" 2>/dev/null
sysdig -r "$TMP/udp.scap" "$F" >"$TMP/sysdig.default" 2>/dev/null
[ -n "${KEEP:-}" ] && cp "$TMP/udp.scap" "$TMP/live" "$TMP/replay" "$TMP/sysdig" "$KEEP/"

# Event numbers of a live run and of its file differ (the file holds fewer).
cut -d' ' -f2- "$TMP/live" >"$TMP/live.nonum"
cut -d' ' -f2- "$TMP/replay" >"$TMP/replay.nonum"
expect "the run printed its events ($(wc -l <"$TMP/live") lines)" [ "$(wc -l <"$TMP/live")" -ge 80 ]
expect "agent -r prints the lines the live agent printed" \
	diff "$TMP/live.nonum" "$TMP/replay.nonum"
expect "sysdig -r prints the lines agent -r prints (fd.name after each event, evt.info)" \
	diff "$TMP/replay" "$TMP/sysdig"
expect "sysdig -r prints the lines agent -r prints (default format)" \
	diff "$TMP/replay.default" "$TMP/sysdig.default"

# What the issue names, line by line. NAMES: the fd.name of each connect exit
# and of each sendto enter that follows, per case.
names() {	# names TYPE-PREFIX: the fd.name of each exit of connect and enter of sendto
	awk -v t="$1" '$3 == "connect" && $2 == "<" || $3 == "sendto" && $2 == ">" {
		if (index($4, t) == 1) print $3, $2, $5 }' "$TMP/live"
}
P=[0-9][0-9]*
has_seq() {	# has_seq FILE REGEX...: the lines match the regexes one after another
	local f=$1; shift
	python3 - "$f" "$@" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
want = sys.argv[2:]
i = 0
for l in lines:
    if i < len(want) and re.fullmatch(want[i], l):
        i += 1
sys.exit(0 if i == len(want) else 1)
PY
}
names ipv6 >"$TMP/names6"
names ipv4 >"$TMP/names4"
expect "IPv6: the second connect names the new peer; after AF_UNSPEC the socket keeps it, unbound again" \
	has_seq "$TMP/names6" "connect < ::1:$P->::1:$P1" "sendto > ::1:$P->::1:$P1" \
	"connect < ::1:$P->::1:$P2" "sendto > ::1:$P->::1:$P2" "sendto > ::1:$P->::1:$P2" \
	"connect < :::0->::1:$P2" "sendto > :::0->::1:$P2"
expect "IPv4 (127.0.0.1 then 127.0.0.2): the same" \
	has_seq "$TMP/names4" "connect < 127.0.0.1:$P->127.0.0.1:$P1" \
	"connect < 127.0.0.1:$P->127.0.0.2:$P2" "sendto > 127.0.0.1:$P->127.0.0.2:$P2" \
	"connect < 0.0.0.0:0->127.0.0.2:$P2" "sendto > 0.0.0.0:0->127.0.0.2:$P2"
expect "bound to port 0: the connect's enter shows the bound address, AF_UNSPEC keeps it" \
	has_seq "$TMP/live" "$P > connect ipv6 ::1:0 \| fd=$P\(<6>::1:0\) addr=::1:$P1 " \
	"$P < connect ipv6 ::1:0->::1:$P2 \| res=0 tuple=::1:0->::1:0 "
expect "bound to port 0 on IPv4: AF_UNSPEC keeps the peer and the bound address" \
	grep -q " < connect ipv4 127.0.0.1:0->127.0.0.2:$P2 | res=0 tuple=127.0.0.1:0->0.0.0.0:0 $" "$TMP/live"
expect "bound to port $PB on IPv4: the socket keeps its server's side, the peer first (sysdig's order)" \
	grep -q " < connect ipv4 127.0.0.1:$P1->127.0.0.1:$PB | res=0 tuple=127.0.0.1:$PB->127.0.0.1:$P1 $" "$TMP/live"
expect "never connected: the first peer stays the socket's, a reply's source becomes its source end" \
	has_seq "$TMP/live" "$P < sendto ipv4 0.0.0.0:0->127.0.0.1:$P1 \| res=1 data=q " \
	"$P > sendto ipv4 127.0.0.1:$P1->127.0.0.1:$P \| fd=$P\(<4u>127.0.0.1:$P1->127.0.0.1:$P\) size=1 tuple=0.0.0.0:$P->127.0.0.2:$P2 "
expect "a connect to a v4-mapped address makes the socket IPv4 on its enter; its failure names the tuple" \
	has_seq "$TMP/live" "$P > connect ipv4  \| fd=$P\(<4>\) addr=::ffff:127.0.0.1:$P1 " \
	"$P < connect ipv4 0.0.0.0:$P->127.0.0.1:$P1 \| res=-101\(ENETUNREACH\) tuple=0.0.0.0:$P->127.0.0.1:$P1 "

# A UDP server on 127.0.0.1:PB reads a datagram from 127.0.0.1, in a file of
# its own: named client -> server; sysdig 0.29.3 reads the bound port's bytes
# (low, high), then its protocol number for UDP (3), as the client's address.
start_agent "$TMP/srv.live" "$TMP/srv.err" -w "$TMP/srv.scap" -p "$FMT" "$F" ||
	{ echo "FAIL: the agent did not start"; cat "$TMP/srv.err"; finish; exit 1; }
"$TMP/udpconn" server "$PB" >"$TMP/server" &
spid=$!
for _ in $(seq 1 50); do [ -s "$TMP/server" ] && break; sleep 0.1; done
python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1], flush=True)
s.sendto(b"q", ("127.0.0.1", int(sys.argv[1])))' "$PB" >"$TMP/client"
wait "$spid"; rc=$?
sleep 0.5
stop_agent
read -r CP <"$TMP/client"
expect "the UDP server read the datagram from port $CP" [ "$rc" = 0 ] && [ -n "$CP" ]
"$AGENT" -r "$TMP/srv.scap" -p "$FMT" "$F" >"$TMP/srv.replay" 2>/dev/null
sysdig -r "$TMP/srv.scap" -p "$FMT" "$F" >"$TMP/srv.sysdig" 2>/dev/null
[ -n "${KEEP:-}" ] && cp "$TMP"/srv.* "$KEEP/"
expect "the server's recvfrom names it client -> server, live and in agent -r" \
	has_seq "$TMP/srv.replay" "$P < recvfrom ipv4 127.0.0.1:$CP->127.0.0.1:$PB \| res=1 data=q tuple=127.0.0.1:$CP->127.0.0.1:$PB "
expect "agent -r prints the server's lines the live agent printed" \
	diff <(cut -d' ' -f2- "$TMP/srv.live") <(cut -d' ' -f2- "$TMP/srv.replay")
expect "sysdig -r names it from the bound port's bytes ($((PB & 255)).$((PB >> 8)).3.0)" \
	has_seq "$TMP/srv.sysdig" "$P < recvfrom ipv4 127.0.0.1:$CP->$((PB & 255)).$((PB >> 8)).3.0:$PB \| res=1 data=q tuple=127.0.0.1:$CP->127.0.0.1:$PB "
finish
