#!/usr/bin/env bash
# TCP health (issue 35), against the kernel's own counters, in a network
# namespace of the test's own (its loopback only, MTU 1500 so that segments
# are real-sized), with the agent's --tcp -j records:
# - nginx serves a file to curl through a loopback that drops 5% of the
#   packets (iptables' statistic match; no netem here): the records'
#   retransmits add up to the namespace's TcpRetransSegs (nstat), exactly;
# - connects to a closed port are refused, and connects whose SYNs are
#   dropped time out (tcp_syn_retries 1), each counted exactly, with the
#   SYNs' retransmits (TcpRetransSegs);
# - clients that abort established connections (SO_LINGER 0): the resets
#   sent and received add up to TcpOutRsts, the reset records to
#   TcpEstabResets, and each end's srtt at the close is what ss -ti showed
#   of its idle socket just before (within 10%);
# - IPv6 on [::1], and IPv4 over an IPv6 socket written as IPv4;
# - -r of the live agent's -w file prints the same records;
# - the records name the processes (curl and nginx, python3), a server
#   listening before the agent started too (the agent's /proc scan);
# - the agent_tcp_* metrics (--metrics) hold the same counts, and request
#   mode (--requests --metrics) counts TCP health beside the requests.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_servers.sh"
need_live
need_pkgs nginx-light curl iproute2 iptables
NS=agent-tcp-$$
cleanup_tcp() {
	ip netns pids "$NS" 2>/dev/null | xargs -r kill -9 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	cleanup_e2e
}
trap cleanup_tcp EXIT
inns() { ip netns exec "$NS" "$@"; }

ip netns add "$NS" && inns ip link set lo mtu 1500 && inns ip link set lo up
expect "a namespace of its own with a 1500-byte loopback" \
	bash -c "ip netns exec $NS ip link show lo | grep -q 'mtu 1500'" || { finish; exit 1; }
# a connect whose SYNs go unanswered gives up after 1 + 2 s
inns sysctl -qw net.ipv4.tcp_syn_retries=1
inns iptables -w -A INPUT -p tcp --dport 18602 --syn -j DROP
expect "iptables can drop in the namespace" [ $? = 0 ] || { finish; exit 1; }

# nstat's counters of the namespace: NAME VALUE lines, absolute (-a) and
# not kept as history (-s).
counters() { inns nstat -asz TcpRetransSegs TcpOutRsts TcpEstabResets TcpAttemptFails >"$1"; }
delta() {	# delta BEFORE AFTER NAME
	echo $(($(awk -v n="$3" '$1 == n { print $2 }' "$2") - $(awk -v n="$3" '$1 == n { print $2 }' "$1")))
}

mkdir -p "$SRV/www/up" "$SRV/logs" "$SRV/tmp"
head -c 4000000 /dev/urandom >"$SRV/www/big"
echo hello >"$SRV/www/index.html"
{ ngx_head "$SRV"; cat <<EOF
access_log $SRV/logs/access.log;
server {
	listen 127.0.0.1:18600; root $SRV/www;
	client_max_body_size 16m; client_body_temp_path $SRV/tmp;
	location /up/ { dav_methods PUT; }
}
}
EOF
} >"$SRV/nginx.conf"

# 0. A server listening before the agent starts: the agent's /proc scan
# names its port's process for the kernel.
inns python3 - >"$TMP/old.pid" <<'PY' &
import os, socket, sys
l = socket.socket()
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("127.0.0.1", 18605))
l.listen(8)
print(os.getpid(), flush=True)
l.settimeout(60)
for _ in range(3):
    a, _ = l.accept()
    a.sendall(a.recv(100))
    a.close()
PY
wait_for 15 test -s "$TMP/old.pid"
FMT='*%tcp.side %tcp.outcome %tcp.established %tcp.client %tcp.server %tcp.sport %tcp.cport'
FMT+=' %tcp.duration %tcp.connect %tcp.srtt %tcp.retransmits %tcp.resets.sent'
FMT+=' %tcp.resets.received %tcp.bytes.sent %tcp.bytes.received %tcp.client.proc %tcp.server.proc'
FMT+=' %tcp.client.pid %tcp.server.pid'
start_agent "$TMP/tcp.json" "$TMP/tcp.err" --tcp -j -p "$FMT" --metrics 127.0.0.1:18609 \
	-w "$TMP/tcp.scap" \
	'tcp.sport in (18600, 18601, 18602, 18603, 18604, 18605)' ||
	{ echo "FAIL: the agent did not start"; cat "$TMP/tcp.err"; finish; exit 1; }

expect "the agent named the listening ports it found running" \
	grep -qE 'TCP health: [1-9][0-9]* listening ports' "$TMP/tcp.err"
inns python3 -c '
import socket
for _ in range(3):
    c = socket.create_connection(("127.0.0.1", 18605), timeout=10)
    c.sendall(b"hello")
    c.recv(100)
    c.close()
'

# 1. A lossy transfer: nginx to curl, 5% of the packets either way dropped.
srv_start nginx ip netns exec "$NS" nginx -c "$SRV/nginx.conf" -p "$SRV"
ngx=$SRV_PID
listening() { inns ss -Hltn 'sport = :18600' | grep -q .; }
wait_for 15 listening
counters "$TMP/c0"
inns iptables -w -A INPUT -p tcp --dport 18600 -m statistic --mode random --probability 0.05 -j DROP
inns iptables -w -A INPUT -p tcp --sport 18600 -m statistic --mode random --probability 0.05 -j DROP
ok=0
for i in 1 2 3 4; do
	inns curl -s -m 30 -o "$TMP/got" http://127.0.0.1:18600/big && cmp -s "$TMP/got" "$SRV/www/big" &&
		ok=$((ok + 1))
done
expect "curl fetched the file 4 times through the loss" [ "$ok" = 4 ]
inns iptables -w -D INPUT -p tcp --dport 18600 -m statistic --mode random --probability 0.05 -j DROP
inns iptables -w -D INPUT -p tcp --sport 18600 -m statistic --mode random --probability 0.05 -j DROP
# every connection closed (TIME-WAIT sockets send nothing more)
settled() { ! inns ss -Htan | grep -vE '^(LISTEN|TIME-WAIT)' | grep -q .; }
wait_for 30 settled
counters "$TMP/c1"

# refuse N: N connects to a port nobody listens on.
refuse() {
	inns python3 -c '
import socket, sys
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    try:
        s.connect(("127.0.0.1", 18601))
    except ConnectionRefusedError:
        pass
    s.close()
' "$1"
}

# 2. Refused: 20 connects to a port nobody listens on.
refuse 20
counters "$TMP/c2"

# 3. Timed out: 5 connects whose SYNs are dropped, at once.
inns python3 -c '
import socket, threading
def one():
    s = socket.socket()
    try:
        s.connect(("127.0.0.1", 18602))
    except OSError:
        pass
    s.close()
ts = [threading.Thread(target=one) for _ in range(5)]
[t.start() for t in ts]
[t.join() for t in ts]
'
wait_for 30 settled
counters "$TMP/c3"

# 4. Resets: 10 established connections, an echo each, idle for a second
# (no delayed ACK left to move srtt), ss -ti of both ends, then each client
# aborts (SO_LINGER 0: a reset, no more RTT samples).
inns python3 - "$TMP/ss" <<'PY'
import socket, struct, subprocess, sys, time
l = socket.socket()
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("127.0.0.1", 18603))
l.listen(16)
pairs = []
for _ in range(10):
    c = socket.create_connection(("127.0.0.1", 18603), timeout=10)
    a, _ = l.accept()
    c.sendall(b"x" * 3000)
    got = b""
    while len(got) < 3000:
        got += a.recv(65536)
    a.sendall(got)
    back = b""
    while len(back) < 3000:
        back += c.recv(65536)
    pairs.append((c, a))
time.sleep(1)
with open(sys.argv[1], "w") as f:
    f.write(subprocess.run(["ss", "-Htin", "state", "established"], capture_output=True,
                           text=True).stdout)
for c, a in pairs:
    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    c.close()
time.sleep(0.3)
for c, a in pairs:
    a.close()
l.close()
PY
wait_for 30 settled
counters "$TMP/c4"

# 5. IPv6: 3 connections on [::1], and 2 from an IPv6 socket to IPv4's
# loopback (::ffff:127.0.0.1, written as IPv4), each 100 bytes each way.
inns python3 - <<'PY'
import socket
for fam, host, lhost in ((socket.AF_INET6, "::1", "::1"),
                         (socket.AF_INET6, "::ffff:127.0.0.1", "::")):
    l = socket.socket(socket.AF_INET6)
    l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if lhost == "::":
        l.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    l.bind((lhost, 18604))
    l.listen(8)
    for _ in range(3 if host == "::1" else 2):
        c = socket.socket(fam)
        c.connect((host, 18604))
        a, _ = l.accept()
        c.sendall(b"q" * 100)
        got = b""
        while len(got) < 100:
            got += a.recv(1000)
        a.sendall(got)
        back = b""
        while len(back) < 100:
            back += c.recv(1000)
        c.close()
        a.close()
    l.close()
PY
wait_for 30 settled
srv_stop "$ngx"
# msum FILE FAMILY [LABEL=VALUE]: the sum of FILE's FAMILY samples (with the label)
msum() {
	awk -v f="$2" -v l="${3:-}" 'index($0, f "{") == 1 && (l == "" || index($0, l)) {
		n += $NF } END { print n + 0 }' "$1"
}
# scraped PORT FILE FAMILY LABEL=VALUE N: a scrape into FILE whose sum is N.
# The agent reads its rings and makes the metrics' text again once a second,
# later on a loaded machine: scraped until the counts awaited are in.
scraped() { curl -s -m 5 "http://127.0.0.1:$1/metrics" >"$2" && [ "$(msum "$2" "$3" "$4")" = "$5" ]; }
wait_for 30 scraped 18609 "$TMP/metrics" agent_tcp_connections_total '' 47
stop_agent
expect "the agent ended cleanly" grep -qE '^agent: dropped 0 ' "$TMP/tcp.err" ||
	tail -5 "$TMP/tcp.err"

python3 - "$TMP" "$(delta "$TMP/c0" "$TMP/c1" TcpRetransSegs)" \
	"$(delta "$TMP/c1" "$TMP/c2" TcpOutRsts)" "$(delta "$TMP/c2" "$TMP/c3" TcpRetransSegs)" \
	"$(delta "$TMP/c3" "$TMP/c4" TcpOutRsts)" "$(delta "$TMP/c3" "$TMP/c4" TcpEstabResets)" \
	<<'PY' >"$TMP/checks"
import json, re, sys
tmp, retrans1, rsts2, retrans3, rsts4, estab4 = sys.argv[1], *map(int, sys.argv[2:])
recs = [json.loads(l) for l in open(tmp + "/tcp.json") if l.startswith("{")]
def by(port): return [r for r in recs if r.get("tcp.sport") == port]
def out(ok, what): print(("ok" if ok else "FAIL") + ": " + what)
# 1
r1 = by(18600)
cl = [r for r in r1 if r["tcp.side"] == "client"]
sv = [r for r in r1 if r["tcp.side"] == "server"]
out(len(cl) == 4 and len(sv) == 4, "the transfer: 4 client and 4 server records (%d, %d)" % (len(cl), len(sv)))
got = sum(r["tcp.retransmits"] for r in r1)
out(got == retrans1 and got > 0,
    "the transfer's retransmits: %d in the records, TcpRetransSegs grew by %d" % (got, retrans1))
out(all(r["tcp.bytes.received"] >= 4000000 for r in cl), "each curl received the 4 MB file")
out(all(r.get("tcp.client.proc") == "curl" for r in cl) and
    all(r.get("tcp.server.proc") == "nginx" for r in sv) and
    len({r.get("tcp.server.pid") for r in sv}) == 1, "the ends are curl and nginx (one process)")
out(all(r["tcp.outcome"] == "closed" and r["tcp.connect"] > 0 for r in cl), "curl's connects were established and closed")
# 2
r2 = by(18601)
out(len(r2) == 20 and all(r["tcp.outcome"] == "refused" and r["tcp.side"] == "client" and
                          r["tcp.resets.received"] == 1 and not r["tcp.established"] for r in r2),
    "20 refused connects, each with its reset (%d records)" % len(r2))
out(rsts2 == 20, "TcpOutRsts grew by 20 (%d)" % rsts2)
# 3
r3 = by(18602)
out(len(r3) == 5 and all(r["tcp.outcome"] == "timedout" for r in r3),
    "5 timed-out connects (%d records: %s)" % (len(r3), sorted({r["tcp.outcome"] for r in r3})))
got = sum(r["tcp.retransmits"] for r in r3)
out(got == retrans3 and got >= 5, "their SYN retransmits: %d in the records, TcpRetransSegs +%d" % (got, retrans3))
out(all(2.5e9 < r["tcp.duration"] < 10e9 for r in r3), "each gave up after about 3 s")
# 4
r4 = by(18603)
cl = [r for r in r4 if r["tcp.side"] == "client"]
sv = [r for r in r4 if r["tcp.side"] == "server"]
out(len(cl) == 10 and len(sv) == 10 and all(r["tcp.outcome"] == "reset" for r in r4),
    "10 aborted connections, both ends reset (%d, %d records)" % (len(cl), len(sv)))
sent = sum(r["tcp.resets.sent"] for r in r4)
rcvd = sum(r["tcp.resets.received"] for r in r4)
out(sent == rsts4 == 10 and rcvd == 10,
    "resets: %d sent and %d received in the records, TcpOutRsts +%d" % (sent, rcvd, rsts4))
out(estab4 == len(r4), "TcpEstabResets +%d, %d reset records" % (estab4, len(r4)))
out(all(r["tcp.bytes.sent"] == 3000 and r["tcp.bytes.received"] == 3000 for r in r4),
    "each end sent and received its 3000 bytes")
# ss -ti of each established socket: local, peer, rtt:SRTT(ms)/...
ss = {}
lines = open(tmp + "/ss").read().splitlines()
for i, line in enumerate(lines):
    m = re.match(r"\s*\d+\s+\d+\s+\S+:(\d+)\s+\S+:(\d+)", line)
    rtt = re.search(r"\brtt:([\d.]+)/", lines[i + 1]) if m and i + 1 < len(lines) else None
    if m and rtt:
        ss[(int(m.group(1)), int(m.group(2)))] = float(rtt.group(1)) * 1e6   # ms to ns
bad = []
for r in r4:
    c, s = r["tcp.cport"], r["tcp.sport"]
    key = (c, s) if r["tcp.side"] == "client" else (s, c)
    want = ss.get(key)
    if want is None or "tcp.srtt" not in r or abs(r["tcp.srtt"] - want) > 0.1 * want + 1000:
        bad.append((r["tcp.side"], key, r.get("tcp.srtt"), want))
out(len(ss) == 20 and not bad, "srtt at the close within 10%% of ss -ti's rtt, all 20 ends (%d seen; off: %s)"
    % (len(ss), bad[:3]))
out(all(r.get("tcp.client.proc" if r["tcp.side"] == "client" else "tcp.server.proc") ==
        "python3" for r in r4), "the ends are python3's")
# 5
r5 = by(18604)
v6 = [r for r in r5 if r["tcp.server"].startswith("[::1]:")]
v4 = [r for r in r5 if r["tcp.server"] == "127.0.0.1:18604"]
out(len(v6) == 6 and len(v4) == 4 and len(r5) == 10,
    "IPv6: 6 records on [::1], 4 of IPv4 over IPv6 sockets written as IPv4 (%d, %d of %d)"
    % (len(v6), len(v4), len(r5)))
out(all(r["tcp.client"] == "[::1]:%d" % r["tcp.cport"] for r in v6) and
    all(r["tcp.client"] == "127.0.0.1:%d" % r["tcp.cport"] for r in v4),
    "their client ends' addresses")
out(all(r["tcp.outcome"] == "closed" and r["tcp.bytes.sent"] == 100 and
        r["tcp.bytes.received"] == 100 for r in r5), "each closed after 100 bytes each way")
# 0
oldpid = int(open(tmp + "/old.pid").read())
sv = [r for r in by(18605) if r["tcp.side"] == "server"]
out(len(sv) == 3 and all(r.get("tcp.server.pid") == oldpid and r.get("tcp.server.proc") == "python3"
                         for r in sv),
    "a server older than the agent: its 3 connections name it (pid %d): %s"
    % (oldpid, [(r.get("tcp.server.proc"), r.get("tcp.server.pid")) for r in sv]))
# the agent_tcp_* metrics: the same counts, summed over the edges
def metric(name, **labels):
    n = 0
    for line in open(tmp + "/metrics"):
        m = re.match(r"(\w+)\{(.*)\} (\S+)$", line.strip())
        if not m or m.group(1) != name:
            continue
        have = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
        if all(have.get(k) == v for k, v in labels.items()):
            n += float(m.group(3))
    return int(n)
want = {"refused": 20, "timedout": 5, "established": 22}
got = {k: metric("agent_tcp_connect_total", outcome=k) for k in want}
out(got == want, "agent_tcp_connect_total by outcome: %s" % got)
out(metric("agent_tcp_accept_total") == 22, "agent_tcp_accept_total: %d (22)" % metric("agent_tcp_accept_total"))
allre = sum(r["tcp.retransmits"] for r in recs)
out(metric("agent_tcp_retransmit_total") == allre == retrans1 + retrans3,
    "agent_tcp_retransmit_total: %d, the records %d, TcpRetransSegs %d"
    % (metric("agent_tcp_retransmit_total"), allre, retrans1 + retrans3))
out(metric("agent_tcp_resets_total", direction="sent") == 10 and
    metric("agent_tcp_resets_total", direction="received") == 30,
    "agent_tcp_resets_total: sent %d (10), received %d (30: 20 refusals, 10 aborts)"
    % (metric("agent_tcp_resets_total", direction="sent"),
       metric("agent_tcp_resets_total", direction="received")))
out(metric("agent_tcp_connections_total") == 47,
    "agent_tcp_connections_total: %d (47 connections, each once)" % metric("agent_tcp_connections_total"))
PY
# The -w file makes the same records again: -r FILE --tcp, no kernel.
"$AGENT" -r "$TMP/tcp.scap" --tcp -j -p "$FMT" \
	'tcp.sport in (18600, 18601, 18602, 18603, 18604, 18605)' >"$TMP/replay.json" 2>"$TMP/replay.err"
expect "-r of the -w file prints the same $(grep -c . "$TMP/tcp.json") records" \
	cmp -s <(grep '^{' "$TMP/tcp.json") <(grep '^{' "$TMP/replay.json")

# 6. Request mode counts TCP health too (--requests --metrics): 5 refused
# connects and 4 HTTP requests to nginx, each on its own connection.
srv_start nginx2 ip netns exec "$NS" nginx -c "$SRV/nginx.conf" -p "$SRV"
ngx=$SRV_PID
wait_for 15 listening
start_agent "$TMP/req.out" "$TMP/req.err" --requests -q --metrics 127.0.0.1:18610 \
	--service-map "$TMP/req.map.json" ||
	{ echo "FAIL: the request-mode agent did not start"; cat "$TMP/req.err"; }
refuse 5
for i in 1 2 3 4; do inns curl -s -m 10 -o /dev/null http://127.0.0.1:18600/index.html; done
wait_for 30 settled
srv_stop "$ngx"
wait_for 30 scraped 18610 "$TMP/req.metrics" agent_request_total 'process="nginx"' 4
wait_for 30 scraped 18610 "$TMP/req.metrics" agent_tcp_connect_total 'outcome="refused"' 5
stop_agent
sample() { msum "$TMP/req.metrics" "$@"; }	# sample FAMILY LABEL=VALUE
refused=$(sample agent_tcp_connect_total 'outcome="refused"')
accepted=$(sample agent_tcp_accept_total 'dst_process="nginx"')
requests=$(sample agent_request_total 'process="nginx"')
echo "request mode: refused connects $refused, accepted by nginx $accepted, nginx's requests $requests"
expect "--requests --metrics: agent_tcp_connect_total counts the 5 refused connects" [ "$refused" = 5 ]
expect "--requests --metrics: agent_tcp_accept_total counts nginx's 4 connections" [ "$accepted" = 4 ]
expect "--requests --metrics: the 4 requests beside them" [ "$requests" = 4 ]
expect "the service map draws the 5 refused connects: python3 -> 127.0.0.1:18601, and nginx's requests" \
	python3 - "$TMP/req.map.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
n = {x["id"]: x for x in m["nodes"]}
te = [e for e in m["tcp_edges"] if n[e["target"]]["title"] == "127.0.0.1:18601"]
print("    map: tcp edges to 18601:", [(n[e["source"]]["title"], e["connects"]) for e in te])
assert len(te) == 1 and n[te[0]["source"]]["process"] == "python3", te
assert te[0]["connects"]["refused"] == 5 and te[0]["connects"]["established"] == 0, te
assert n[te[0]["target"]]["failed_connects_in"] == 5, n[te[0]["target"]]
# a connection made is drawn by its requests, not as a TCP edge
assert not [e for e in m["tcp_edges"] if n[e["target"]]["process"] == "nginx"], m["tcp_edges"]
assert sum(e["requests"] for e in m["edges"] if n[e["target"]]["process"] == "nginx") == 4, m["edges"]
PY


# 7. A request record carries its connection's TCP state: curl PUTs the 4 MB
# file to nginx (WebDAV) while 5% of the segments of 400 bytes and more to
# nginx are dropped. The handshake, the ACKs, the FIN and nginx's replies
# always pass, so every retransmit in the namespace is curl's, of the
# upload's data, and all of them happen before nginx has the whole body and
# answers: each curl record's tcp.retransmits is its connection's count.
srv_start nginx3 ip netns exec "$NS" nginx -c "$SRV/nginx.conf" -p "$SRV"
ngx=$SRV_PID
wait_for 15 listening
# beside it, an agent that keeps the requests that hit a retransmit
start_agent "$TMP/rq.lossy" "$TMP/rq.lossy.err" --requests -j -p '*%proc.name %tcp.retransmits' \
	'req.sport = 18600 and tcp.retransmits > 0' ||
	{ echo "FAIL: the second request-mode agent did not start"; cat "$TMP/rq.lossy.err"; }
LOSSY_PID=$AGENT_PID
start_agent "$TMP/rq.json" "$TMP/rq.err" --requests -j \
	-p '*%proc.name %req.side %req.method %req.status %req.bytes_out %req.duration %tcp.retransmits %tcp.srtt' \
	'req.sport = 18600' ||
	{ echo "FAIL: the request-mode agent did not start"; cat "$TMP/rq.err"; }
UPLOSS=(INPUT -p tcp --dport 18600 -m length --length 400:65535 -m statistic --mode random
	--probability 0.05 -j DROP)
inns iptables -w -A "${UPLOSS[@]}"
counters "$TMP/u0"
for i in 1 2 3; do
	# (no "Expect: 100-continue": the body goes at once, the record is one
	# request and its one response)
	inns curl -s -m 60 -H 'Expect:' -T "$SRV/www/big" -o /dev/null -w '%{http_code}\n' \
		"http://127.0.0.1:18600/up/f$i"
done >"$TMP/put.codes"
wait_for 30 settled
counters "$TMP/u1"
inns iptables -w -D "${UPLOSS[@]}"
srv_stop "$ngx"
sleep 2.5
stop_agent
kill -TERM "$LOSSY_PID"; wait "$LOSSY_PID"
cmp -s "$SRV/www/big" "$SRV/www/up/f3" && echo "ok: nginx stored the upload whole" >>"$TMP/checks" ||
	echo "FAIL: nginx stored the upload whole" >>"$TMP/checks"
python3 - "$TMP" "$(delta "$TMP/u0" "$TMP/u1" TcpRetransSegs)" <<'PY' >>"$TMP/checks"
import json, sys
tmp, retrans = sys.argv[1], int(sys.argv[2])
recs = [json.loads(l) for l in open(tmp + "/rq.json") if l.startswith("{")]
codes = open(tmp + "/put.codes").read().split()
def out(ok, what): print(("ok" if ok else "FAIL") + ": " + what)
cl = [r for r in recs if r["req.side"] == "client"]
sv = [r for r in recs if r["req.side"] == "server"]
out(codes == ["201"] * 3, "curl PUT the file 3 times (%s)" % codes)
out(len(cl) == 3 and len(sv) == 3 and
    all(r["req.method"] == "PUT" and r["req.status"] == 201 for r in cl + sv) and
    all(r["req.bytes_out"] >= 4000000 for r in cl) and
    [r["proc.name"] for r in cl] == ["curl"] * 3 and [r["proc.name"] for r in sv] == ["nginx"] * 3,
    "3 PUT records of 4 MB on each side, curl's and nginx's (%d, %d)" % (len(cl), len(sv)))
got = sum(r.get("tcp.retransmits") or 0 for r in cl)
other = sum(r.get("tcp.retransmits") or 0 for r in sv)
print("    upload: curl's records' retransmits %s, nginx's %d, TcpRetransSegs %d" %
      ([r.get("tcp.retransmits") for r in cl], other, retrans))
out(got == retrans and got > 0 and other == 0,
    "the upload's requests' tcp.retransmits sum to TcpRetransSegs, exactly (%d, %d)" % (got, retrans))
out(all((r.get("tcp.srtt") or 0) > 0 and r["tcp.srtt"] < 1000000000 for r in cl + sv),
    "every request record has its connection's srtt (%s)" % [r.get("tcp.srtt") for r in cl + sv])
lossy = [json.loads(l) for l in open(tmp + "/rq.lossy") if l.startswith("{")]
want = sorted((r["proc.name"], r["tcp.retransmits"]) for r in recs if (r.get("tcp.retransmits") or 0) > 0)
out(sorted((r["proc.name"], r["tcp.retransmits"]) for r in lossy) == want and want,
    "the filter 'tcp.retransmits > 0' keeps those requests, and only those (%d)" % len(lossy))
PY

cat "$TMP/checks"
n=$(grep -c '^ok' "$TMP/checks"); f=$(grep -c '^FAIL' "$TMP/checks")
checks=$((checks + n + f)); failures=$((failures + f))
expect "the checks ran (31)" [ $((n + f)) -ge 31 ]
finish
