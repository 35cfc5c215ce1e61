#!/usr/bin/env bash
# Request mode against gRPC (HTTP/2): one Python gRPC server (Debian's
# python3-grpcio, raw bytes, no protoc) on a plaintext port and a TLS port
# (a certificate the test makes with openssl req), and one client calling a
# known number of times, on one channel (one connection, many streams) per
# port: /e2e.Echo/Unary (OK), /e2e.Echo/Missing (the handler aborts with
# NOT_FOUND), /e2e.Echo/Slow (it sleeps past the client's 0.2 s deadline:
# DEADLINE_EXCEEDED), /e2e.Echo/Nope (no such method: UNIMPLEMENTED) and
# /e2e.Echo/Stream (four messages back). Ground truth is a server interceptor
# that counts each call by (port, method path, final status), and the
# plaintext port's frames on the wire, from a second agent printing that
# port's socket I/O with its bytes: on the plaintext port, both the
# server-side and the client-side grpc records equal the interceptor's counts
# per (req.path, req.status / req.code) exactly; req.error is true exactly
# when the status is not 0; none has req.tls; no record is other than grpc or
# http2.
#
# The TLS port: gRPC's C-core runs OpenSSL over a pair of memory BIOs, not
# over its socket, so no SSL_read or SSL_write it makes touches the socket.
# Each session's socket is named by the thread's first send after a call that
# knew none: the handshake's (driver README, "memory BIOs"). So the TLS port
# is checked as the plaintext one, on the plaintext the probes read (each
# Slow record either of the two, as the wire there is ciphertext), and with
# every TLS call on a known socket: none counted on no known socket, and
# both ends' sessions named by a send.
#
# DEADLINE_EXCEEDED on the wire (grpcio 1.51, C-core): the client's deadline
# timer and the server's (its deadline is the grpc-timeout header the client
# sent) fire within microseconds of each other. The client's ends the stream
# with RST_STREAM (CANCEL); the server's sends trailers (HEADERS, END_STREAM,
# grpc-status 4) and RST_STREAM (NO_ERROR) -- unless the client's RST_STREAM
# reached it first, then it sends nothing. Which comes first differs from
# call to call, and from one end to the other (the server may write its
# trailers while the client's RST_STREAM is on its way). Each end's record
# follows what its own socket saw first: the trailers give req.status 4
# (DEADLINE_EXCEEDED, req.error); a RST_STREAM gives req.aborted with no
# status. So on the plaintext port the wire decides, per stream and per end,
# which of the two each Slow call's record must be; on the TLS port (the wire
# there is ciphertext) each Slow record must be one of the two, as many as the
# server's DEADLINE_EXCEEDED calls. The interceptor counts each Slow call as
# DEADLINE_EXCEEDED either way: its handler outlives the deadline, and the
# call was ended by the core (context.is_active() false, no time left).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_servers.sh"
need_live
need_pkgs python3-grpcio openssl
t0=$SECONDS
# Debian's Python: the python3 on PATH may be another without grpc
PY=/usr/bin/python3

P1=15051 P2=15052
port_free "$P1" || P1=$(free_port)
port_free "$P2" || P2=$(free_port)
G=$SRV/grpc
mkdir -p "$G"
expect "openssl makes a self-signed certificate for CN=localhost" self_cert "$G"

# The server: P1 plaintext, P2 TLS, one grpc.server each (so that each
# interceptor knows its port) in one process; it ends on SIGTERM or after
# LIFE seconds, writing the counts once every handler has returned.
cat >"$G/server.py" <<'PY'
import json, os, signal, sys, threading, time
from concurrent import futures
import grpc

# the NOT_FOUND abort's text: gRPC percent-encodes its '%' and the é's bytes
MESSAGE = "no such thing: 100% caf\u00e9"

p1, p2, cert, key, out, life = sys.argv[1:7]
counts = {}		# "PORT PATH CODE" -> calls
lock = threading.Lock()
running = [0]		# handlers not returned yet (a Slow one outlives its call)


def count(port, method, code):
    with lock:
        running[0] -= 1
        k = "%d %s %s" % (port, method, code.name)
        counts[k] = counts.get(k, 0) + 1


def final(context, raised):
    """How the call ended, once its handler returned or raised."""
    if not context.is_active():
        # ended by the core, not by the handler: the deadline passed (the
        # core ended the call at it), or the client cancelled it
        left = context.time_remaining()
        return (grpc.StatusCode.DEADLINE_EXCEEDED if left is not None and left <= 0
                else grpc.StatusCode.CANCELLED)
    if context.code() is not None:	# context.abort, set_code
        return context.code()
    return grpc.StatusCode.UNKNOWN if raised else grpc.StatusCode.OK


class Counting(grpc.ServerInterceptor):
    """Each call by (port, method, final status): its handler wrapped."""

    def __init__(self, port):
        self.port = port

    def intercept_service(self, continuation, details):
        h = continuation(details)
        port, method = self.port, details.method
        with lock:
            running[0] += 1
        if h is None:
            # no handler: grpcio answers UNIMPLEMENTED itself
            count(port, method, grpc.StatusCode.UNIMPLEMENTED)
            return None
        if h.unary_unary:
            def uu(req, context):
                try:
                    r = h.unary_unary(req, context)
                except BaseException:
                    count(port, method, final(context, True))
                    raise
                count(port, method, final(context, False))
                return r
            return grpc.unary_unary_rpc_method_handler(uu, h.request_deserializer,
                                                       h.response_serializer)
        if h.unary_stream:
            def us(req, context):
                try:
                    yield from h.unary_stream(req, context)
                except BaseException:
                    count(port, method, final(context, True))
                    raise
                count(port, method, final(context, False))
            return grpc.unary_stream_rpc_method_handler(us, h.request_deserializer,
                                                        h.response_serializer)
        raise AssertionError("a handler kind the test does not use")


def unary(req, context):
    return req


def missing(req, context):
    context.abort(grpc.StatusCode.NOT_FOUND, MESSAGE)


def slow(req, context):
    time.sleep(0.6)	# past the client's 0.2 s deadline
    return req


def stream(req, context):
    for i in range(4):
        yield req + b"/%d" % i


# raw bytes both ways: no (de)serializers
handlers = grpc.method_handlers_generic_handler("e2e.Echo", {
    "Unary": grpc.unary_unary_rpc_method_handler(unary),
    "Missing": grpc.unary_unary_rpc_method_handler(missing),
    "Slow": grpc.unary_unary_rpc_method_handler(slow),
    "Stream": grpc.unary_stream_rpc_method_handler(stream),
})
servers = []
for port, tls in ((int(p1), False), (int(p2), True)):
    # no SO_REUSEPORT: a port someone else holds fails here, not in the counts
    s = grpc.server(futures.ThreadPoolExecutor(max_workers=8), interceptors=[Counting(port)],
                    options=[("grpc.so_reuseport", 0)])
    s.add_generic_rpc_handlers((handlers,))
    addr = "127.0.0.1:%d" % port
    if tls:
        creds = grpc.ssl_server_credentials([(open(key, "rb").read(), open(cert, "rb").read())])
        bound = s.add_secure_port(addr, creds)
    else:
        bound = s.add_insecure_port(addr)
    assert bound == port, "could not bind %s" % addr
    s.start()
    servers.append(s)
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *a: stop.set())
stop.wait(float(life))
for s in servers:
    s.stop(grace=3).wait()
end = time.monotonic() + 5
while running[0] and time.monotonic() < end:
    time.sleep(0.05)
with open(out + ".tmp", "w") as f:
    json.dump({"counts": counts, "running": running[0]}, f, sort_keys=True)
os.rename(out + ".tmp", out)
print("server done:", counts, flush=True)
PY

# The client: per port, one channel, the calls one after the other; what it
# got, per (path, code), in OUT (its own view, beside the interceptor's).
cat >"$G/client.py" <<'PY'
import json, sys
import grpc

p1, p2, cert, out = sys.argv[1:5]
raw = lambda b: b
CALLS = (("/e2e.Echo/Unary", 20, "OK"), ("/e2e.Echo/Missing", 6, "NOT_FOUND"),
         ("/e2e.Echo/Slow", 4, "DEADLINE_EXCEEDED"), ("/e2e.Echo/Nope", 3, "UNIMPLEMENTED"),
         ("/e2e.Echo/Stream", 5, "OK"))
got, bad = {}, []


def calls(ch, port):
    for path, n, want in CALLS:
        if path.endswith("/Stream"):
            call = ch.unary_stream(path, request_serializer=raw, response_deserializer=raw)
        else:
            call = ch.unary_unary(path, request_serializer=raw, response_deserializer=raw)
        for i in range(n):
            msg = b"%s %d" % (path.encode(), i)
            code = "OK"
            try:
                if path.endswith("/Stream"):
                    r = list(call(msg, timeout=10))
                    if r != [msg + b"/%d" % j for j in range(4)]:
                        bad.append((port, path, r))
                else:
                    r = call(msg, timeout=0.2 if path.endswith("/Slow") else 10)
                    if r != msg:
                        bad.append((port, path, r))
            except grpc.RpcError as e:
                code = e.code().name
            if code != want:
                bad.append((port, path, code))
            k = "%s %s %s" % (port, path, code)
            got[k] = got.get(k, 0) + 1


with grpc.insecure_channel("127.0.0.1:" + p1) as ch:
    calls(ch, p1)
creds = grpc.ssl_channel_credentials(root_certificates=open(cert, "rb").read())
with grpc.secure_channel("127.0.0.1:" + p2, creds,
                         options=(("grpc.ssl_target_name_override", "localhost"),)) as ch:
    calls(ch, p2)
json.dump(got, open(out, "w"), sort_keys=True)
print("client:", got)
assert not bad, bad[:5]
PY

srv_start grpc timeout 120 "$PY" "$G/server.py" "$P1" "$P2" "$G/cert.pem" "$G/key.pem" \
	"$G/counts.json" 90
GRPC_PID=$SRV_PID
listening() { wait_port "$P1" 20 && wait_port "$P2" 5; }
expect "the gRPC server listens on 127.0.0.1:$P1 (plaintext) and :$P2 (TLS)" listening ||
	cat "$SRV/grpc.log"

# The wire on the plaintext port: every socket read and write of both ends,
# with its bytes (the HTTP/2 frames), from an agent in event mode; it says,
# per stream and per end, whether a Slow call's trailers or a RST_STREAM came
# first (see above). It parses every read and write of the host at 8 KiB
# each: rings of 64 MiB, so that a burst from the rest of a busy machine
# does not drop the port's events (it did once, 1352 of them, at 8 MiB).
WIRE=$TMP/wire.json
"$AGENT" -v -s 8192 --ring-size 64M -j -b \
	-p '%evt.num %evt.rawtime %evt.latency %thread.tid %evt.type %fd.lport %fd.rport %evt.rawres %evt.buflen %evt.buffer' \
	"fd.sport=$P1 and evt.dir='<' and evt.type in (read, write, readv, writev, sendto, recvfrom, sendmsg, recvmsg)" \
	>"$WIRE" 2>"$TMP/wire.err" &
WIRE_PID=$!
PIDS+=("$WIRE_PID")
expect "a second agent prints the plaintext port's socket I/O" wait_capturing "$TMP/wire.err" "$WIRE_PID" ||
	tail -n 5 "$TMP/wire.err"
# --metrics too: gRPC's series by its status (lib.sh: start_agent adds these)
MPORT=$(free_port)
REQ_AGENT_EXTRA="--metrics 127.0.0.1:$MPORT"
REQ_FORMAT+=' %req.message %req.sni'
expect "the agent starts in request mode" req_agent_start "req.sport in ($P1,$P2)"

expect "the client made its calls, each with the status it expects, over plaintext and TLS" \
	timeout 60 "$PY" "$G/client.py" "$P1" "$P2" "$G/cert.pem" "$G/client.json" >"$G/client.out" 2>&1 ||
	tail -n 5 "$G/client.out"
# Metrics count each request once, from the server's side: both ports'
# calls (the TLS port's from its plaintext), classed by gRPC's status; a
# Slow call is DEADLINE_EXCEEDED or, its stream reset first, aborted.
grpc_metrics() {
	curl -s "http://127.0.0.1:$MPORT/metrics" >"$TMP/metrics.txt" &&
	/usr/bin/python3 - "$TMP/metrics.txt" >"$TMP/metrics.check" 2>&1 <<'PY'
import re, sys
sums = {}
for l in open(sys.argv[1]):
    if l.startswith("agent_request_total{") and 'protocol="grpc"' in l:
        lab = dict(re.findall(r'(\w+)="([^"]*)"', l[:l.rindex("}")]))
        k = (lab.get("request_content"), lab.get("response_content"))
        sums[k] = sums.get(k, 0) + float(l.split()[-1])
# two ports, each with the client's calls
want = {("/e2e.Echo/Unary", "OK"): 40, ("/e2e.Echo/Missing", "NOT_FOUND"): 12,
        ("/e2e.Echo/Nope", "UNIMPLEMENTED"): 6, ("/e2e.Echo/Stream", "OK"): 10}
slow = sum(v for (p, c), v in sums.items()
           if p == "/e2e.Echo/Slow" and c in ("DEADLINE_EXCEEDED", "aborted"))
print(sorted(sums.items()))
assert all(sums.get(k) == v for k, v in want.items()) and slow == 8 and \
    sum(sums.values()) == sum(want.values()) + 8, "differ"
PY
}
expect "--metrics: agent_request_total for grpc per path and gRPC status (response_content) == the calls made" \
	wait_for 30 grpc_metrics || cat "$TMP/metrics.check"
req_agent_stop; rc=$?
expect "the agent exits 0" [ $rc = 0 ] || tail -n 5 "$REQ_ERR"
kill -TERM "$WIRE_PID" 2>/dev/null
wire_rc=0
wait "$WIRE_PID" || wire_rc=$?
expect "the wire agent exits 0" [ $wire_rc = 0 ] || tail -n 5 "$TMP/wire.err"
srv_stop "$GRPC_PID"
expect "the server wrote its counts, every handler returned" \
	grep -q '"running": 0' "$G/counts.json" || tail -n 5 "$SRV/grpc.log"

# The checks, one per port (grpc_lib.check).
cat >"$TMP/grpc_lib.py" <<'PY'
"""test_req_grpc.sh's comparisons: the agent's records against the
interceptor's counts and, on the plaintext port, the wire."""
import base64, json
import req_lib as R

# the server's NOT_FOUND text (server.py), as req.message must give it
MESSAGE = "no such thing: 100% caf\u00e9"
NAMES = ["OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
         "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
         "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
         "UNAUTHENTICATED"]
SLOW = "/e2e.Echo/Slow"
DATA, HEADERS, RST = 0, 1, 3
END_STREAM = 1
SENDS = ("write", "writev", "sendto", "sendmsg")
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
# Two agents stamp the same syscall each at its own probe (the request agent
# inside the call, at the socket's tracepoint; the wire agent at its exit, a
# preempted thread's much later): two threads' calls that overlapped, or
# events closer than this, may be in another order in the wire agent's view
# than in the request agent's.
CLOSE_NS = 50000


def truth(path):
    """The interceptor's counts: {port: {(path, code): calls}}."""
    out = {}
    for k, n in json.load(open(path))["counts"].items():
        port, p, code = k.split(" ")
        out.setdefault(int(port), {})[(p, code)] = n
    return out


def client_view(path):
    out = {}
    for k, n in json.load(open(path)).items():
        port, p, code = k.split(" ")
        out.setdefault(int(port), {})[(p, code)] = n
    return out


def wire(path, port):
    """Each end's streams on PORT as its socket saw them, by (side, client
    port): {stream: (how, near)}, how the first of the response's
    END_STREAM ("end") or a RST_STREAM either way ("rst"), near true when
    the other came in another read or write that began before the first's
    returned, or less than CLOSE_NS after it (in one, the frames' order is
    the bytes'). Also the directions whose bytes
    were cut (the walk of that direction stops there)."""
    evs = sorted((json.loads(l) for l in open(path) if l.strip()), key=lambda e: e["evt.num"])
    acc, started, streams, cut = {}, set(), {}, []
    for e in evs:
        if e["evt.rawres"] <= 0:
            continue
        side = "server" if e["fd.lport"] == port else "client"
        cport = e["fd.rport"] if side == "server" else e["fd.lport"]
        req = (side == "client") == (e["evt.type"] in SENDS)	# client -> server
        k = (side, cport, req)
        if k in cut:
            continue
        b = base64.b64decode(e.get("evt.buffer") or "")
        if len(b) != e["evt.rawres"]:
            cut.append(k)
            continue
        a = acc.get(k, b"") + b
        if req and k not in started:
            started.add(k)
            if not a.startswith(PREFACE):
                cut.append(k)
                continue
            a = a[len(PREFACE):]
        st = streams.setdefault((side, cport), {})
        idx = 0
        while len(a) >= 9:
            idx += 1
            n = int.from_bytes(a[:3], "big")
            if len(a) < 9 + n:
                break
            t, fl, sid = a[3], a[4], int.from_bytes(a[5:9], "big") & 0x7fffffff
            a = a[9 + n:]
            if req and t == HEADERS and sid not in st:
                st[sid] = {}
            how = "rst" if t == RST else \
                  "end" if not req and t in (DATA, HEADERS) and fl & END_STREAM else None
            if how and sid in st:
                st[sid].setdefault(how, (e["evt.num"], idx, e["evt.rawtime"],
                                         e["evt.rawtime"] - e["evt.latency"]))
        acc[k] = a
    out = {}
    for key, st in streams.items():
        out[key] = {}
        for sid, seen in st.items():
            if not seen:
                out[key][sid] = (None, False)
                continue
            how = min(seen, key=seen.get)
            other = [v for h, v in seen.items() if h != how]
            # the kernel moves a call's bytes somewhere between its enter
            # and its exit: the other came in a call that began before the
            # first's returned, so either may have moved first
            near = bool(other) and other[0][0] != seen[how][0] and \
                (other[0][3] < seen[how][2] or other[0][2] - seen[how][2] < CLOSE_NS)
            out[key][sid] = (how, near)
    return out, cut


def check(out, err, counts, client, port, tls, wire_path=None):
    want_all = truth(counts)
    want = want_all.get(port, {})
    seen_by_client = client_view(client).get(port, {})
    recs = R.records(out)
    aborted = [r for r in R.ABORTED if r.get("req.sport") == port]
    recs = [r for r in recs if r.get("req.sport") == port]
    bad = []
    if seen_by_client != want:
        bad.append("the client's view %s differs from the interceptor's %s"
                   % (sorted(seen_by_client.items()), sorted(want.items())))
    slow_want = want.get((SLOW, "DEADLINE_EXCEEDED"), 0)
    print("port %d (%s): interceptor %d calls: %s" % (port, "TLS" if tls else "plaintext",
          sum(want.values()), ", ".join("%s %s %d" % (p, c, n) for (p, c), n in sorted(want.items()))))
    protos = R.counts(r.get("req.protocol") for r in recs + aborted)
    print("  agent's records on the port by protocol: %s (%d aborted or timed out)"
          % (protos, len(aborted)))
    other = [r for r in recs + aborted if r.get("req.protocol") not in ("grpc", "http2", "tls")]
    if other:
        bad.append("%d records neither grpc, http2 nor tls, e.g. %s" % (len(other), R.short(other[0])))
    h2 = [r for r in recs + aborted if r.get("req.protocol") in ("grpc", "http2")]
    if any(R.yes(r.get("req.tls")) != tls for r in h2):
        r = [r for r in h2 if R.yes(r.get("req.tls")) != tls][0]
        bad.append("a record with req.tls %s: %s" % (r.get("req.tls"), R.short(r)))
    for r in h2:
        st = r.get("req.status")
        if R.yes(r.get("req.error")) != (st is not None and st != 0):
            bad.append("req.error %s with req.status %s: %s" % (r.get("req.error"), st, R.short(r)))
            break
        if (r.get("req.code") or None) != (NAMES[st] if st is not None and 0 <= st < len(NAMES) else None):
            bad.append("req.code %s with req.status %s: %s" % (r.get("req.code"), st, R.short(r)))
            break
        # grpc-message, percent-encoded on the wire: the abort's text
        # exactly; none on an OK call
        if r.get("req.path") == "/e2e.Echo/Missing" and r.get("req.code") == "NOT_FOUND" and \
                r.get("req.message") != MESSAGE:
            bad.append("req.message %r, want %r: %s" % (r.get("req.message"), MESSAGE, R.short(r)))
            break
        if r.get("req.code") == "OK" and r.get("req.message") is not None:
            bad.append("req.message %r on an OK call: %s" % (r.get("req.message"), R.short(r)))
            break
    if any(R.yes(r.get("req.timeout")) for r in aborted):
        bad.append("records timed out: %s" % R.short([r for r in aborted if R.yes(r.get("req.timeout"))][0]))

    flows = None
    if wire_path:
        flows, cut = wire(wire_path, port)
        if cut:
            bad.append("the wire agent's bytes were cut (or had no preface) on %s" % cut)
    for side in ("server", "client"):
        mine = [r for r in h2 if r.get("req.side") == side]
        ab = [r for r in mine if R.yes(r.get("req.aborted"))]
        done = [r for r in mine if not R.yes(r.get("req.aborted"))]
        got = R.counts((r.get("req.path"), r.get("req.code") or "(none)") for r in done
                       if r.get("req.protocol") == "grpc")
        nongrpc = [r for r in done if r.get("req.protocol") != "grpc"]
        if nongrpc:
            bad.append("%s side: %d http2 records of gRPC calls, e.g. %s"
                       % (side, len(nongrpc), R.short(nongrpc[0])))
        if any(r.get("req.path") != SLOW or r.get("req.status") is not None for r in ab):
            bad.append("%s side: aborted records other than Slow ones with no status: %s"
                       % (side, [R.short(r) for r in ab if r.get("req.path") != SLOW][:3]))
        if flows is not None:
            # each stream's record, in order, against what that end saw first
            rst = close = 0
            for (s, cport), st in sorted(flows.items()):
                if s != side:
                    continue
                rs = sorted((r for r in mine if r.get("req.cport") == cport),
                            key=lambda r: r.get("req.seq"))
                sids = sorted(st)
                if len(rs) != len(sids):
                    bad.append("%s side, client port %d: %d streams on the wire, %d records"
                               % (side, cport, len(sids), len(rs)))
                for sid, r in zip(sids, rs):
                    how, near = st[sid]
                    close += near
                    if how is None:
                        bad.append("%s side: stream %d never ended on the wire" % (side, sid))
                    elif not near and R.yes(r.get("req.aborted")) != (how == "rst"):
                        bad.append("%s side, client port %d, stream %d: the wire's %s came first, "
                                   "the record: %s" % (side, cport, sid, "RST_STREAM" if how == "rst"
                                                       else "END_STREAM", R.short(r)))
                    rst += R.yes(r.get("req.aborted")) if near else how == "rst"
            print("  %s side: on the wire %d streams, %d ended first by a RST_STREAM (%d in calls "
                  "that overlapped, or within %d us, the END_STREAM's: either accepted)"
                  % (side, sum(len(st) for (s, _), st in flows.items() if s == side), rst, close,
                     CLOSE_NS // 1000))
            n_rst = rst
        else:
            # ciphertext: each Slow call is either record (above)
            n_rst = len(ab)
        expect = dict(want)
        if n_rst:
            expect[(SLOW, "DEADLINE_EXCEEDED")] = slow_want - n_rst
        print("  %s side: agent %d grpc records, %d of Slow with DEADLINE_EXCEEDED, %d aborted "
              "(RST_STREAM first): %s"
              % (side, sum(got.values()), got.get((SLOW, "DEADLINE_EXCEEDED"), 0), len(ab),
                 ", ".join("%s %s %d" % (p, c, n) for (p, c), n in sorted(got.items()))))
        if len(ab) != n_rst or n_rst > slow_want:
            bad.append("%s side: %d aborted records, the wire ended %d Slow calls (of %d) by RST_STREAM"
                       % (side, len(ab), n_rst, slow_want))
        bad += ["%s side, %s %s: agent %d, interceptor %d (less the RST_STREAM-ended)"
                % ((side,) + k + (g, w)) for k, g, w in R.diff_counts(got, expect)]
    if R.kernel_drops(err) != 0:
        bad.append("kernel drops: %s" % R.kernel_drops(err))
    assert not bad, "\n".join(["%d problems" % len(bad)] + bad[:16])
    print("ok")
PY
CHK=("$REQ_OUT" "$REQ_ERR" "$G/counts.json" "$G/client.json")
req_check grpc_plain "plaintext port: server-side and client-side grpc records per (path, status) == the interceptor's; aborted ones == the wire's RST_STREAMs, stream for stream" \
	"${CHK[@]}" "$P1" "$WIRE" "$TMP/wire.err" <<'PY'
import sys, req_lib as R, grpc_lib as G
out, err, counts, client, port, wire, wire_err = sys.argv[1:8]
assert R.kernel_drops(wire_err) == 0, "the wire agent dropped events: %s" % R.kernel_drops(wire_err)
G.check(out, err, counts, client, int(port), False, wire)
PY
req_check grpc_tls "TLS port (gRPC's memory BIOs): server-side and client-side grpc records from the plaintext, req.tls, per (path, status) == the interceptor's; no TLS call on no known socket" \
	"${CHK[@]}" "$P2" <<'PY'
import re, sys, req_lib as R, grpc_lib as G
out, err, counts, client, port = sys.argv[1:6]
text = open(err).read()
m = re.search(r"(\d+) TLS calls on no known socket \(not sent\), (\d+) TLS sessions named", text)
assert m, "no TLS line in the summary"
nofd, named = int(m[1]), int(m[2])
print("  summary: %d TLS calls on no known socket, %d TLS sessions named by a send" % (nofd, named))
# one channel: the client's session and the server's, each named once
assert nofd == 0 and named == 2, "want 0 calls on no known socket and 2 sessions named"
G.check(out, err, counts, client, int(port), True)
# (G.check read them already, R.ABORTED holds the aborted ones twice)
recs = {r.get("req.id"): r for r in R.records(out) + R.ABORTED
        if r.get("req.sport") == int(port) and r.get("req.protocol") == "grpc"}.values()
# the server name of the ClientHello, sent before the client's session was
# named, on both ends' records: the name the client checks the certificate for
names = R.counts((r.get("req.side"), r.get("req.sni")) for r in recs)
print("  req.sni by side: %s" % sorted(names.items()))
assert set(names) == {("server", "localhost"), ("client", "localhost")}, "req.sni"
# both ends number the calls alike (req.seq), though each saw the handshake's
# ciphertext up to a different point: the same call under the same number
ends = {}
for r in recs:
    ends.setdefault(r.get("req.side"), {})[(r.get("req.cport"), r.get("req.seq"))] = r.get("req.path")
assert ends.get("server") and ends.get("server") == ends.get("client"), \
    "req.seq differs between the ends: %s" % sorted(set(ends.get("server", {}).items()) ^
                                                     set(ends.get("client", {}).items()))[:6]
print("  both ends: %d calls under the same req.seq" % len(ends["server"]))
PY
echo "    $((SECONDS - t0)) s"
finish
