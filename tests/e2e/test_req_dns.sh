#!/usr/bin/env bash
# Request mode against dnsmasq (issue 23): dig asks over UDP (several digs at
# once) and over TCP (one connection for many queries, and one per query);
# names under a.test answer 10.0.0.1 to A, every other name or type under
# .test is NXDOMAIN. Ground truth is dnsmasq's query log: the agent's
# server-side DNS records per (type, name, rcode) equal its queries and their
# replies, NXDOMAIN (rcode 3) included; TCP queries carry names of their own
# (t*, tn*) so both transports are counted.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_servers.sh"
need_live
need_pkgs dnsmasq-base bind9-dnsutils
t0=$SECONDS

PORT=15353
port_free "$PORT" || PORT=$(free_port)
srv_start dnsmasq dnsmasq --keep-in-foreground --conf-file=/dev/null --pid-file= --user=root \
	--no-resolv --no-hosts --port "$PORT" --listen-address 127.0.0.1 --bind-interfaces \
	--log-queries --log-facility="$SRV/queries.log" --address=/a.test/10.0.0.1 --local=/test/
DNS_PID=$SRV_PID
expect "dnsmasq listens on 127.0.0.1:$PORT" wait_port "$PORT" || cat "$SRV/dnsmasq.log"
expect "the agent starts in request mode" req_agent_start "req.sport=$PORT"

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
	# have its answer. A try that timed out and was asked again is no
	# failure (dig says "communications error ... timed out" for the try):
	# dnsmasq logs both and the agent sees both (below).
	local f got
	for f in "$SRV"/udp[1-4] "$SRV"/tcp[1-3]; do
		got=$(grep -c -- '->>HEADER<<-' "$f.out")
		[ "$got" = "$(wc -l <"$f")" ] && continue
		echo "    ${f##*/}: $got answers to $(wc -l <"$f") queries"
		grep -m 3 -e 'timed out' -e 'communications error' -e 'no servers' "$f.out" | sed 's/^/    /'
		rc=1
	done
	for i in 1 2 3 4 5; do dq +tcp "tc$i.a.test" "tcn$i.test" >/dev/null || rc=1; done
	# dig sends its UDP queries with sendmmsg, whose event in sysdig 0.29.3's
	# schema carries no fd and no bytes: those are seen on the server's side
	# only. A client that uses sendto/recvfrom is seen on both.
	timeout 20 python3 - "$PORT" <<'PY' || rc=1
import socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(5)
for i in range(1, 21):
    name = ("p%d.a.test" if i % 2 else "pn%d.test") % i
    q = struct.pack(">HHHHHH", 0x4000 + i, 0x0100, 1, 0, 0, 0)
    q += b"".join(bytes([len(x)]) + x.encode() for x in name.split(".")) + b"\0" + struct.pack(">HH", 1, 1)
    s.sendto(q, ("127.0.0.1", int(sys.argv[1])))
    a, _ = s.recvfrom(4096)
    assert a[:2] == q[:2] and a[3] & 15 == (0 if i % 2 else 3), a[:4]
PY
	return $rc
}
expect "dig asked over UDP and TCP" load
req_agent_stop; rc=$?
expect "the agent exits 0" [ $rc = 0 ] || tail -n 5 "$REQ_ERR"
srv_stop "$DNS_PID"

req_check dns "server-side DNS records per (type, name, rcode) == dnsmasq's queries and replies" \
	"$REQ_OUT" "$REQ_ERR" "$SRV/queries.log" <<'PY'
import re, sys, req_lib as R
out, err, log = sys.argv[1:4]
RCODE = {"NXDOMAIN": 3, "SERVFAIL": 2, "REFUSED": 5}
queries, pending, nx = [], {}, 0
for l in open(log):
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
server = [r for r in recs if r.get("req.side") == "server"]
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

req_check sides "each query dig (TCP) and python3 (UDP, sendto) sent has its server-side record (by client port and transaction id), which is never slower" \
	"$REQ_OUT" "$TMP/sides.json" <<'PY'
import json, sys, req_lib as R
# dig's UDP queries (sendmmsg) have no client-side record: left out of both sides
keep = [r for r in R.records(sys.argv[1]) if r.get("req.l4proto") == "tcp" or
        (r.get("req.path") or "").startswith(("p", "pn"))]
with open(sys.argv[2], "w") as f:
    for r in keep:
        f.write(json.dumps(r) + "\n")
R.check_sides(sys.argv[2], "dns", ("dig", "python3"), ("dnsmasq",),
              key=lambda r: (r.get("req.cport"), r.get("req.dns_id"), r.get("req.path")))
print("ok")
PY
echo "    $((SECONDS - t0)) s"
finish
