#!/usr/bin/env bash
# Request mode against dnsmasq (issue 23): dig asks over UDP (several digs at
# once) and over TCP (one connection for many queries, and one per query);
# names under a.test answer 10.0.0.1 to A, every other name or type under
# .test is NXDOMAIN. Ground truth is dnsmasq's query log: the agent's
# server-side DNS records per (type, name, rcode) equal its queries and their
# replies, NXDOMAIN (rcode 3) included; TCP queries carry names of their own
# (t*, tn*) so both transports are counted. glibc's resolver (getent ahosts,
# Python's socket.getaddrinfo) asks a second dnsmasq, on port 53 of a network
# namespace's loopback, as /etc/resolv.conf says in a mount namespace. dig and
# glibc send their UDP queries with sendmmsg (glibc a lookup's A and AAAA in
# one call): each has its client-side record too. BIND (named, two network
# threads) reads its UDP queries with recvmmsg and answers each with a
# sendmmsg naming the client: its records per (type, name, rcode) equal its
# query log's, and each of dig's and dnsperf's queries to it has both ends'
# records (dnsperf keeps 64 in flight, so that a recvmmsg reads many).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_servers.sh"
need_live
need_pkgs dnsmasq-base bind9-dnsutils bind9 dnsperf iproute2
t0=$SECONDS

PORT=15353
port_free "$PORT" || PORT=$(free_port)
srv_start dnsmasq dnsmasq --keep-in-foreground --conf-file=/dev/null --pid-file= --user=root \
	--no-resolv --no-hosts --port "$PORT" --listen-address 127.0.0.1 --bind-interfaces \
	--log-queries --log-facility="$SRV/queries.log" --address=/a.test/10.0.0.1 --local=/test/
DNS_PID=$SRV_PID
expect "dnsmasq listens on 127.0.0.1:$PORT" wait_port "$PORT" || cat "$SRV/dnsmasq.log"
# BIND, authoritative for b.test (dns/bind_conf.sh): names under w.b.test
# answer, every other name is NXDOMAIN; its queries logged. Its port is
# below the ephemeral range (free_port): dig's sockets have SO_REUSEPORT, as
# BIND's do, and the kernel may autobind one to BIND's own port, where it
# asks itself (about 1 query in 28 000; once in CI)
BPORT=$(free_port)
bash "$(dirname "$0")/dns/bind_conf.sh" "$SRV" "$BPORT" "$SRV/bind-queries.log"
srv_start named named -f -c "$SRV/named.conf" -u root -n 2
BIND_PID=$SRV_PID
expect "named listens on 127.0.0.1:$BPORT" wait_port "$BPORT" 30 || tail -n 5 "$SRV/named.log"
# the records of this test's servers: the host's, and port 53's in the
# namespace, whose processes are named (the host's own resolver's are not)
expect "the agent starts in request mode" req_agent_start \
	"req.sport in ($PORT, $BPORT) or (req.sport=53 and proc.name in (getent, python3, dnsmasq))"

for j in 1 2 3 4; do
	for i in $(seq 1 60); do
		echo "u$j-$i.a.test"; echo "u$j-$i.a.test MX"; echo "un$j-$i.test AAAA"
	done >"$SRV/udp$j"
done
# dnsmasq answers at most 50 queries on a TCP connection (and drops the next
# one unlogged): 40 per dig +keepopen
for j in 1 2 3; do
	for i in $(seq 1 20); do echo "t$j-$i.a.test"; echo "tn$j-$i.test TXT"; done >"$SRV/tcp$j"
done
# a UDP query lost on a busy machine is asked again: dnsmasq logs it twice and
# the agent sees it twice, so the counts still agree
dq() { timeout 30 dig @127.0.0.1 -p "$PORT" +tries=2 +time=5 "$@"; }
load() {
	local rc=0 p=()
	for j in 1 2 3 4; do dq -f "$SRV/udp$j" >"$SRV/udp$j.out" & p+=($!); done
	for x in "${p[@]}"; do wait "$x" || rc=1; done
	for j in 1 2 3; do dq +tcp +keepopen -f "$SRV/tcp$j" >"$SRV/tcp$j.out" || rc=1; done
	# dig -f says 0 even when one query of the batch failed: each query must
	# have its answer, a message with QR set (a dig given the server's own
	# port reads its query back: the server port is below the ephemeral
	# range, server_port.py, so that no dig is). A try that timed out and was asked again is no
	# failure (dig says "communications error ... timed out" for the try):
	# dnsmasq logs both and the agent sees both (below).
	local f got
	for f in "$SRV"/udp[1-4] "$SRV"/tcp[1-3]; do
		got=$(grep -c '^;; flags: qr' "$f.out")
		[ "$got" = "$(wc -l <"$f")" ] && continue
		echo "    ${f##*/}: $got answers to $(wc -l <"$f") queries"
		grep -m 3 -e 'timed out' -e 'communications error' -e 'no servers' "$f.out" | sed 's/^/    /'
		rc=1
	done
	for i in 1 2 3 4 5; do dq +tcp "tc$i.a.test" "tcn$i.test" >/dev/null || rc=1; done
	# a client that uses sendto/recvfrom, naming the server
	timeout 20 python3 - "$PORT" <<'PY' || rc=1
import socket, struct, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(5)
for i in range(1, 21):
    name = ("p%d.a.test" if i % 2 else "pn%d.test") % i
    q = struct.pack(">HHHHHH", 0x4000 + i, 0x0100, 1, 0, 0, 0)
    q += b"".join(bytes([len(x)]) + x.encode() for x in name.split(".")) + b"\0" + struct.pack(">HH", 1, 1)
    s.sendto(q, ("127.0.0.1", int(sys.argv[1])))
    a, _ = s.recvfrom(4096)
    assert a[:2] == q[:2] and a[3] & 15 == (0 if i % 2 else 3), a[:4]
# a try given up on: the query asked again with its id before its answer
# was read (as a client whose timer ran out does), one answer read, the
# socket closed: dnsmasq answers both, the client's other try is left open
q = struct.pack(">HHHHHH", 0x4100, 0x0100, 1, 0, 0, 0) + b"\x05retry\x01a\x04test\x00" + struct.pack(">HH", 1, 1)
s.sendto(q, ("127.0.0.1", int(sys.argv[1])))
time.sleep(0.2)
s.sendto(q, ("127.0.0.1", int(sys.argv[1])))
a, _ = s.recvfrom(4096)
assert a[:2] == q[:2], a[:4]
s.close()
PY
	return $rc
}
expect "dig asked over UDP and TCP" load

# BIND: four digs at once over UDP (its recvmmsg may read several), one
# connection over TCP, then dnsperf (many in flight)
bq() { timeout 30 dig @127.0.0.1 -p "$BPORT" +tries=2 +time=5 "$@"; }
bind_load() {
	local rc=0 p=() j i f got
	for j in 1 2 3 4; do
		for i in $(seq 1 30); do
			echo "h$j-$i.w.b.test"; echo "h$j-$i.w.b.test MX"; echo "n$j-$i.b.test"
		done >"$SRV/bind$j"
	done
	for i in $(seq 1 10); do echo "t$i.w.b.test"; echo "tn$i.b.test TXT"; done >"$SRV/bindtcp"
	for j in 1 2 3 4; do bq -f "$SRV/bind$j" >"$SRV/bind$j.out" & p+=($!); done
	for x in "${p[@]}"; do wait "$x" || rc=1; done
	bq +tcp +keepopen -f "$SRV/bindtcp" >"$SRV/bindtcp.out" || rc=1
	# dnsperf: 64 queries in flight from 8 sockets, so that BIND's
	# recvmmsg reads up to the 19 it asks for at once; none may be lost
	# (its socket's buffer holds far more than 64 small datagrams)
	for i in $(seq 1 100); do echo "p$i.w.b.test A"; echo "pn$i.b.test A"; done >"$SRV/perf.q"
	timeout 60 dnsperf -s 127.0.0.1 -p "$BPORT" -d "$SRV/perf.q" -n 10 -c 8 -q 64 -t 5 \
		>"$SRV/dnsperf.out" 2>&1 || rc=1
	grep -q 'Queries completed: *2000 ' "$SRV/dnsperf.out" ||
		{ grep -E 'Queries (sent|completed|lost)' "$SRV/dnsperf.out" | sed 's/^/    /'; rc=1; }
	# what the clients said beside their answers (a try lost, a reply
	# refused, an answer not matching its query), for the checks below
	grep -hiE 'communications error|warning|mismatch|truncated|refused|unexpected' \
		"$SRV"/bind[1-4].out "$SRV/bindtcp.out" "$SRV/dnsperf.out" |
		grep -v 'recursion requested but not available' | sort | uniq -c | sed 's/^/    /'
	for f in "$SRV"/bind[1-4] "$SRV/bindtcp"; do
		got=$(grep -c '^;; flags: qr' "$f.out")
		[ "$got" = "$(wc -l <"$f")" ] && continue
		echo "    ${f##*/}: $got answers to $(wc -l <"$f") queries"
		rc=1
	done
	return $rc
}
expect "dig and dnsperf asked BIND over UDP, dig over TCP" bind_load

# glibc's resolver: a dnsmasq of its own on 127.0.0.1:53 in a network
# namespace (port 53 of the host's loopback may be taken), named by a
# resolv.conf bind-mounted in a mount namespace; its search domain is under
# .test, so that a name glibc tries with it is answered (NXDOMAIN) and logged
gai() {
	printf 'nameserver 127.0.0.1\nsearch s.test\noptions timeout:5 attempts:2\n' >"$SRV/resolv.conf"
	timeout 60 unshare -mn bash -c '
		srv=$1
		ip link set lo up || exit 1
		mount --bind "$srv/resolv.conf" /etc/resolv.conf || exit 1
		dnsmasq --keep-in-foreground --conf-file=/dev/null --pid-file= --user=root \
			--no-resolv --no-hosts --port 53 --listen-address 127.0.0.1 --bind-interfaces \
			--log-queries --log-facility="$srv/gai.log" --address=/a.test/10.0.0.1 \
			--local=/test/ 2>"$srv/gai.err" & d=$!
		for i in $(seq 100); do grep -q "0100007F:0035 " /proc/net/udp && break; sleep 0.1; done
		rc=0
		for i in $(seq 1 10); do
			getent ahosts "g$i.a.test" >>"$srv/gai.out" || { echo "g$i.a.test: no answer"; rc=1; }
			! getent ahosts "gn$i.test" >>"$srv/gai.out" || { echo "gn$i.test answered"; rc=1; }
		done
		/usr/bin/python3 -c "
import socket
for i in range(1, 6):
    a = socket.getaddrinfo(\"py%d.a.test\" % i, 80, type=socket.SOCK_STREAM)
    assert a[0][4][0] == \"10.0.0.1\", a
" || rc=1
		kill $d; wait $d
		exit $rc' gai "$SRV"
}
expect "getent ahosts and Python's getaddrinfo asked through glibc" gai || cat "$SRV/gai.err"
req_agent_stop; rc=$?
expect "the agent exits 0" [ $rc = 0 ] || tail -n 5 "$REQ_ERR"
srv_stop "$DNS_PID"
srv_stop "$BIND_PID"

req_check dns "server-side DNS records per (type, name, rcode) == dnsmasq's queries and replies" \
	"$REQ_OUT" "$REQ_ERR" "$SRV/queries.log" "$SRV/gai.log" "$BPORT" <<'PY'
import re, sys, req_lib as R
out, err = sys.argv[1:3]
bport = int(sys.argv[5])
RCODE = {"NXDOMAIN": 3, "SERVFAIL": 2, "REFUSED": 5}
queries, pending, nx = [], {}, 0
for l in open(sys.argv[3]).readlines() + open(sys.argv[4]).readlines():
    # each dnsmasq process (the TCP ones are forks) logs a query, then its reply
    m = re.search(r"dnsmasq\[(\d+)\]: query\[(\w+)\] (\S+) from 127\.0\.0\.1$", l)
    if m:
        q = [m[2], m[3], None]
        queries.append(q)
        pending[m[1]] = q
        continue
    m = re.search(r"dnsmasq\[(\d+)\]: (?:config|reply|cached) (\S+) is (\S+)", l)
    if m and m[1] in pending and pending[m[1]][1] == m[2]:
        pending.pop(m[1])[2] = RCODE.get(m[3], 0)
        nx += m[3] == "NXDOMAIN"
assert not pending, ("queries with no reply in the log", list(pending.values())[:5])
recs = R.records(out)
server = [r for r in recs if r.get("req.side") == "server" and r.get("req.sport") != bport]
other = [r for r in server if r.get("req.protocol") != "dns"]
server = [r for r in server if r.get("req.protocol") == "dns"]
tcp = lambda name: name.startswith("t")
print("agent: %d records (%d server-side dns, %d server-side not dns), %d aborted or timed out, kernel drops %s"
      % (len(recs), len(server), len(other), len(R.ABORTED), R.kernel_drops(err)))
print("log: %d queries (%d over TCP), %d NXDOMAIN; agent: %d (%d over TCP), %d with rcode 3"
      % (len(queries), sum(tcp(q[1]) for q in queries), nx, len(server),
         sum(tcp(r.get("req.path") or "") for r in server),
         sum(r.get("req.status") == 3 for r in server)))
for r in other[:5]:
    print("  not dns:", R.short(r))
got = R.counts((r.get("req.method"), r.get("req.path"), r.get("req.status")) for r in server)
want = R.counts(tuple(q) for q in queries)
bad = ["(type, name, rcode) %s: agent %d, log %d" % d for d in R.diff_counts(got, want)]
bad += ["no transaction id: " + R.short(r) for r in server if not isinstance(r.get("req.dns_id"), int)][:5]
assert not other, "server-side records not parsed as DNS"
assert not bad, "\n".join(["%d differences" % len(bad)] + bad[:10])
assert sum(r.get("req.status") == 3 for r in server) == nx
print("ok")
PY

req_check sides "each query dig (UDP by sendmmsg, TCP), python3 (sendto) and glibc (sendmmsg) sent to dnsmasq has its server-side record (by client port and transaction id), which is never slower; every answer had its query, but those dig read on a socket sharing the port of one that gave up (SO_REUSEPORT; dig says \"ID mismatch\")" \
	"$REQ_OUT" "$REQ_ERR" "$SRV/gai.log" "$BPORT" "$SRV" <<'PY'
import glob, re, sys, req_lib as R
out, err, gai_log = sys.argv[1:4]
# (a try that timed out and was asked again, on the same socket with the
# same id: dnsmasq answered both, the client read one answer and its other
# record was left open)
R.check_sides(out, "dns", ("dig", "python3", "getent"), ("dnsmasq",),
              key=lambda r: (r.get("req.cport"), r.get("req.dns_id"), r.get("req.path")),
              not_sport=int(sys.argv[4]), retries=True)
client = [r for r in R.records(out) if r.get("req.protocol") == "dns" and r.get("req.side") == "client"]
sent = lambda proc, l4, pre: sum(r.get("proc.name") == proc and r.get("req.l4proto") == l4 and
                                (r.get("req.path") or "").startswith(pre) for r in client)
# the glibc side: a record per query its dnsmasq logged, A and AAAA each
gai = [m.groups() for m in (re.search(r"query\[(\w+)\] (\S+) from", l) for l in open(gai_log)) if m]
gai_got = R.counts((r.get("req.method"), r.get("req.path")) for r in client if r.get("req.sport") == 53)
print("client-side: dig %d over UDP, %d over TCP; getent %d, python3 (getaddrinfo) %d; glibc's dnsmasq logged %d"
      % (sent("dig", "udp", ""), sent("dig", "tcp", ""), sent("getent", "udp", "g"),
         sent("python3", "udp", "py"), len(gai)))
assert sent("dig", "udp", "u") >= 4 * 180, "dig's UDP queries with a client-side record: %d" % sent("dig", "udp", "u")
assert gai_got == R.counts(tuple(q) for q in gai), "glibc's queries: agent %s, log %s" % (gai_got, R.counts(tuple(q) for q in gai))
assert sum(t == "AAAA" for t, _ in gai) >= 25 and sent("getent", "udp", "g") >= 40 and \
    sent("python3", "udp", "py") >= 10, "glibc asked for A and AAAA"
summary = [l for l in open(err) if l.startswith("agent: requests:")]
assert summary and " 0 recvmmsg and sendmmsg messages" in summary[0], "the agent's summary: %s" % summary
# A response with no request: dig's sockets have SO_REUSEPORT, so a
# retry's socket (or another dig's) may share the port of one that gave up,
# and the kernel gives it that one's late answer, which dig reads and warns
# of ("ID mismatch"); the agent counts it. No more of them than those.
m = re.search(r" (\d+) responses without a request", summary[0])
mismatch = sum(l.count("ID mismatch") for f in glob.glob(sys.argv[5] + "/*.out") for l in open(f))
print("responses without a request: %s (dig read %d answers to another socket's query)"
      % (m and m[1], mismatch))
assert m and int(m[1]) <= mismatch, "the agent's summary: %s" % summary
print("ok")
PY
req_check bind "BIND's server-side records (recvmmsg, sendmmsg naming the client; TCP) per (type, name, rcode) == its query log; each of dig's and dnsperf's queries has both ends' records, the server's never slower" \
	"$REQ_OUT" "$REQ_ERR" "$SRV/bind-queries.log" "$BPORT" "$SRV" <<'PY'
import re, sys, req_lib as R
out, err, qlog, bport, srv = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
# "client @0x... 127.0.0.1#PORT (NAME): query: NAME IN TYPE FLAGS (127.0.0.1)";
# T among the flags: over TCP
logged = []
for l in open(qlog):
    m = re.search(r"#(\d+) \((\S+)\): query: (\S+) IN (\S+) (\S+)", l)
    if m:
        logged.append((int(m[1]), m[4], m[3], 0 if m[3].endswith(".w.b.test") else 3, "T" in m[5]))
recs = [r for r in R.records(out) if r.get("req.sport") == bport]
server = [r for r in recs if r.get("req.side") == "server"]
client = [r for r in recs if r.get("req.side") == "client"]
left = [r for r in R.ABORTED if r.get("req.sport") == bport]
print("log: %d queries (%d over TCP, %d NXDOMAIN); agent: %d server-side (%d over TCP, by thread %s), %d client-side (by process %s), %d left open"
      % (len(logged), sum(q[4] for q in logged), sum(q[3] == 3 for q in logged), len(server),
         sum(r.get("req.l4proto") == "tcp" for r in server),
         R.counts(r.get("proc.name") for r in server), len(client),
         R.counts(r.get("proc.name") for r in client), len(left)))
for r in left[:4]:
    print("left open: " + R.short(r))
assert all(r.get("req.protocol") == "dns" for r in recs), "records not parsed as DNS"
got = R.counts((r.get("req.method"), r.get("req.path"), r.get("req.status"),
                r.get("req.l4proto") == "tcp") for r in server)
want = R.counts((q[1], q[2], q[3], q[4]) for q in logged)
bad = ["(type, name, rcode, tcp) %s: agent %d, log %d" % d for d in R.diff_counts(got, want)]
assert not bad, "\n".join(["%d differences" % len(bad)] + bad[:10])
# by client port too: UDP's answers name the client, message by message
got = R.counts((r.get("req.cport"), r.get("req.path")) for r in server)
want = R.counts((q[0], q[2]) for q in logged)
assert got == want, ("by client port", R.diff_counts(got, want)[:10])
# every query the clients asked is in the log (a UDP query dig asked again
# after a lost try is logged twice): by (name, type), from their files
asked = []
for f, times in [("bind1", 1), ("bind2", 1), ("bind3", 1), ("bind4", 1), ("bindtcp", 1), ("perf.q", 10)]:
    for l in open("%s/%s" % (srv, f)):
        w = l.split()
        asked += [(w[0], w[1] if len(w) > 1 else "A")] * times
short = [d for d in R.diff_counts(R.counts((q[2], q[1]) for q in logged), R.counts(asked)) if d[1] < d[2]]
assert len(asked) == 4 * 90 + 20 + 2000 and not short, \
    ("%d asked, %d logged; (name, type) logged fewer times than asked, as (key, logged, asked)"
     % (len(asked), len(logged)), short[:10])
# both ends (a try dig gave up on and asked again: BIND answered both); its
# records name BIND's network threads, as many as it runs
R.check_sides(out, "dns", ("dig", "dnsperf"), None,
              key=lambda r: (r.get("req.cport"), r.get("req.dns_id"), r.get("req.path")),
              sport=bport, retries=True)
print("ok")
PY
echo "    $((SECONDS - t0)) s"
finish
