# Real servers for the request-mode tests (test_req_*.sh): each one runs in the
# foreground on 127.0.0.1, on an unusual port, with its configuration and data
# under $TMP/srv, and is killed at exit (out_lib's PIDS). The agent runs in
# --requests mode with one JSON object per request in $REQ_OUT.
# Source after lib.sh.
source "$(dirname "${BASH_SOURCE[0]}")/collectors/out_lib.sh"
SRV=$TMP/srv
mkdir -p "$SRV"
REQ_OUT=$TMP/req.json
REQ_ERR=$TMP/req.err

# Every field the comparisons read; -j prints them as keys, numbers as numbers.
# The leading * keeps records that lack some (req.code, req.dns_id), as sysdig does.
REQ_FORMAT='*%req.side %req.protocol %req.method %req.path %req.status %req.error %req.code'
REQ_FORMAT+=' %req.duration %req.ttfb %req.request_bytes %req.response_bytes %req.bytes_in'
REQ_FORMAT+=' %req.bytes_out %req.timeout %req.aborted %req.cip %req.cport %req.sip %req.sport'
REQ_FORMAT+=' %req.conn %req.seq %req.dns_id %req.client.proc %req.server.proc %req.l4proto %proc.name'
REQ_FORMAT+=' %req.tls %req.sni'
REQ_FORMAT+=' %req.id %req.parent'

# srv_start NAME COMMAND...: COMMAND in the background, its output in $SRV/NAME.log;
# its pid in SRV_PID.
SRV_PIDS=()	# PID:START of each (START: its start time, so a reused pid is not taken for it)
srv_start() {
	local name=$1; shift
	"$@" >"$SRV/$name.log" 2>&1 &
	SRV_PID=$!
	PIDS+=("$SRV_PID")
	SRV_PIDS+=("$SRV_PID:$(proc_start "$SRV_PID")")
}

# proc_start PID: its start time (field 22 of /proc/PID/stat), or nothing.
proc_start() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	set -- ${s##*) }
	echo "${20}"
}

# srv_stop PID [SIGNAL]: signals it (TERM by default) and waits up to 10 s,
# then kills it.
srv_stop() {
	local pid=$1 end=$((SECONDS + 10))
	kill -"${2:-TERM}" "$pid" 2>/dev/null
	while kill -0 "$pid" 2>/dev/null; do
		[ $SECONDS -ge $end ] && { kill -9 "$pid" 2>/dev/null; break; }
		sleep 0.05
	done
	wait "$pid" 2>/dev/null
	return 0
}

# wait_port PORT [SECONDS]: true once something accepts on 127.0.0.1:PORT.
wait_port() { wait_for "${2:-15}" port_open "$1"; }

# port_free PORT: nothing listens on 127.0.0.1:PORT (the tests' fixed ports).
port_free() { ! port_open "$1"; }

# self_cert DIR: a self-signed certificate for CN=localhost, DIR/cert.pem and
# its key DIR/key.pem.
self_cert() {
	timeout 30 openssl req -x509 -newkey rsa:2048 -nodes -keyout "$1/key.pem" \
		-out "$1/cert.pem" -days 2 -subj /CN=localhost -batch 2>/dev/null
}

# ngx_head DIR: the start of an nginx.conf of a test's: one process in the
# foreground, its pid and error log under DIR, up to the http block's
# opening (the caller writes the rest, and closes it).
ngx_head() {
	cat <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $1/nginx.pid;
error_log $1/logs/error.log;
events { worker_connections 256; }
http {
EOF
}

# req_agent_start FILTER: the agent in request mode, writing $REQ_OUT; returns
# once it captures (false if it did not start).
req_agent_start() {
	start_agent "$REQ_OUT" "$REQ_ERR" --requests -j -p "$REQ_FORMAT" "$1" ||
		{ echo "    the agent did not start:"; sed 's/^/    /' "$REQ_ERR" | tail -n 8; return 1; }
}

# req_agent_stop: once the servers' last events are in the kernel's rings (see
# srv_settled; their clients have ended, so theirs are), SIGTERM, which the
# agent answers by reading what its rings hold, and a bounded wait; the
# agent's exit status.
req_agent_stop() {
	wait_for 30 srv_settled || echo "    a server still runs or writes after 30 s: stopping the agent all the same"
	kill -TERM "$AGENT_PID" 2>/dev/null
	wait_agent 20
}

# srv_settled: every thread of the servers srv_start started (their children
# too) sleeps, and not in a call that sends or closes. A client can read a
# response before the server's write returns (another CPU runs it), so the
# client's end says nothing of the server's exit event; a thread asleep in
# any other call has returned from its writes, and the driver writes a call's
# event before the call returns. /proc/TID/syscall names the call a sleeping
# thread is in ("running" while it runs or waits for a CPU). Numbers of the
# x86_64 table, the driver's.
SRV_SENDS=" 1 3 18 20 40 44 46 48 275 276 278 296 307 326 328 436 "	# write close pwrite64 writev sendfile sendto sendmsg shutdown splice tee vmsplice pwritev sendmmsg copy_file_range pwritev2 close_range
srv_settled() {
	local p t nr roots=()
	for p in "${SRV_PIDS[@]}"; do
		[ "$(proc_start "${p%%:*}")" = "${p#*:}" ] && roots+=("${p%%:*}")
	done
	for p in $(proc_tree "${roots[@]}"); do
		for t in /proc/"$p"/task/*; do
			[ -d "$t" ] || continue
			read -r nr _ 2>/dev/null <"$t/syscall" || continue	# gone meanwhile
			[ "$nr" = running ] && return 1
			[[ $SRV_SENDS == *" $nr "* ]] && return 1
		done
	done
	return 0
}

# proc_tree PID...: those of PIDs still running and all their descendants.
proc_tree() {
	[ $# = 0 ] && return
	ps -e -o pid=,ppid= | awk -v roots="$*" '
		BEGIN { n = split(roots, r, " "); for (i = 1; i <= n; i++) want[r[i]] = 1 }
		{ parent[$1] = $2; pids[++m] = $1 }
		END {
			do {
				more = 0
				for (i = 1; i <= m; i++)
					if (!(pids[i] in want) && (parent[pids[i]] in want)) { want[pids[i]] = 1; more = 1 }
			} while (more)
			for (i = 1; i <= m; i++) if (pids[i] in want) print pids[i]
		}'
}

# req_py: writes the Python helpers the comparisons import (module req_lib).
req_py() {
	cat >"$TMP/req_lib.py" <<'PY'
"""The agent's request records and its summary, for the test_req_*.sh checks."""
import json, re

ABORTED = []


def yes(v):
    """A bool field's value: JSON true (or the text "true")."""
    return v is True or v == "true"


def records(path, protocol=None, side=None):
    """The JSON records in PATH (each line must parse), optionally only one
    protocol and side. Absent fields read as None. Requests left open (aborted
    or timed out) are in ABORTED, not in the result: none of the servers' logs
    counts them as requests."""
    out = []
    for n, line in enumerate(open(path, errors="replace"), 1):
        line = line.strip()
        if not line:
            continue
        try:
            r = json.loads(line)
        except ValueError:
            raise AssertionError("line %d of the agent's output is not JSON: %r" % (n, line[:300]))
        if protocol is not None and r.get("req.protocol") != protocol:
            continue
        if side is not None and r.get("req.side") != side:
            continue
        if yes(r.get("req.aborted")) or yes(r.get("req.timeout")):
            ABORTED.append(r)
            continue
        out.append(r)
    return out


def kernel_drops(err_path):
    """The kernel drops in the agent's summary, or None without a summary."""
    for line in open(err_path, errors="replace"):
        m = re.match(r"^agent: (\d+) events read, (\d+) matched, (\d+) dropped", line)
        if m:
            drops = int(m[3])
    return locals().get("drops")


def metric_total(path, name, process):
    """The sum of metric NAME's series whose process label is PROCESS."""
    return sum(float(l.split()[-1]) for l in open(path)
               if l.startswith(name + "{") and 'process="%s"' % process in l)


def metric_by_content(path, name, process, protocol):
    """Metric NAME's series at PROCESS for PROTOCOL, summed by
    (request_content, response_content)."""
    out = {}
    for l in open(path):
        m = re.match(r"%s\{(.*)\} (\S+)$" % re.escape(name), l.strip())
        if not m:
            continue
        lab = dict(re.findall(r'(\w+)="([^"]*)"', m[1]))
        if lab.get("process") == process and lab.get("protocol") == protocol:
            k = (lab.get("request_content"), lab.get("response_content"))
            out[k] = out.get(k, 0) + int(float(m[2]))
    return out


def quiet_summary(err_path):
    """Metrics-only request mode's exit line: records paired, client
    connections left to their server's side, of them kept in the kernel and
    refused there, and the syscalls kept there."""
    line = [l for l in open(err_path, errors="replace") if "requests:" in l and "paired" in l]
    assert line, "no requests line in the exit summary"
    m = re.search(r"requests: (\d+) paired.*?(\d+) client connections left to their server's side "
                  r"\((\d+) of them kept in the kernel, (\d+) refused there; (\d+) syscalls kept there\)",
                  line[0])
    assert m, "no quiet connections in: " + line[0]
    return dict(zip(("paired", "quiet", "handed", "refused", "kept"), (int(x) for x in m.groups())))


def metric_by(path, name, label, **match):
    """Metric NAME's series summed by the value of their label LABEL, over
    those whose labels have the values MATCH gives."""
    sums = {}
    for l in open(path):
        if not l.startswith(name + "{"):
            continue
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', l[:l.rindex("}")]))
        if all(labels.get(k) == v for k, v in match.items()):
            sums[labels.get(label)] = sums.get(labels.get(label), 0) + float(l.split()[-1])
    return sums


def redis_calls(info_path):
    """Commands Redis counted (calls + rejected_calls), INFO itself left out."""
    calls = 0
    for l in open(info_path):
        m = re.match(r"cmdstat_([^:|]+)[^:]*:calls=(\d+),.*?(rejected_calls=(\d+))?", l.strip())
        if m and m[1] != "info":
            calls += int(m[2]) + int(m[4] or 0)
    return calls


def mariadb_log(path):
    """MariaDB's general log: each connection by id (user, database, denied:
    its login failed) and each command as (id, command, argument), command
    "Query", "Init DB", "Quit", ... One line per entry (the tests' statements
    are one line each); a NUL that ends a statement is kept."""
    conns, cmds = {}, []
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"^(?:\d{6} +[\d:]+\t|\t\t)\s*(\d+) ([A-Za-z ]+?)\t(.*)$", line.rstrip("\n"))
        if not m:
            continue
        cid, cmd, arg = int(m[1]), m[2], m[3]
        if cmd != "Connect":
            cmds.append((cid, cmd, arg))
        elif arg.startswith("Access denied for user"):
            conns.setdefault(cid, {})["denied"] = True
        else:
            c = re.match(r"^(.*)@\S* on (\S*) using ", arg)
            assert c, "a Connect line not understood: %r" % arg
            conns[cid] = {"user": c[1], "db": c[2], "denied": False}
    return conns, cmds


def http_response(s, buf=b""):
    """One HTTP/1.1 response off socket S, read to its Content-Length (BUF:
    bytes of it read before): its head (with the empty line), its body, and
    the bytes read past it."""
    while b"\r\n\r\n" not in buf:
        d = s.recv(65536)
        assert d, ("closed mid-head", buf)
        buf += d
    head, _, rest = buf.partition(b"\r\n\r\n")
    n = sum(int(l.split(b":", 1)[1]) for l in head.split(b"\r\n")[1:]
            if l.split(b":", 1)[0].strip().lower() == b"content-length")
    while len(rest) < n:
        d = s.recv(65536)
        assert d, "closed mid-body"
        rest += d
    return head + b"\r\n\r\n", rest[:n], rest[n:]


def short(r):
    """One record as a short line for failure messages."""
    keys = ("req.side", "req.protocol", "req.method", "req.path", "req.status", "req.error",
            "req.code", "req.duration", "req.response_bytes", "req.cport", "req.seq",
            "req.conn", "req.dns_id", "req.aborted", "req.timeout", "proc.name")
    return " ".join("%s=%s" % (k[4:] if k.startswith("req.") else k, r.get(k)) for k in keys)


def counts(items):
    c = {}
    for i in items:
        c[i] = c.get(i, 0) + 1
    return c


def diff_counts(got, want):
    """The keys whose counts differ, as (key, got, want), sorted."""
    return sorted((k, got.get(k, 0), want.get(k, 0)) for k in set(got) | set(want)
                  if got.get(k, 0) != want.get(k, 0))


def assert_counts(*checks):
    """Each (WHAT, GOT, WANT): equal counts, else one line per difference."""
    bad = ["%s %s: agent %d, ground truth %d" % ((what,) + d)
           for what, got, want in checks for d in diff_counts(got, want)]
    assert not bad, "\n".join(["%d differences" % len(bad)] + bad[:12])


def by_conn(recs, side):
    """SIDE's records by connection (its client port), each in order."""
    out = {}
    for r in sorted((r for r in recs if r.get("req.side") == side),
                    key=lambda r: (r.get("req.conn"), r.get("req.seq"))):
        out.setdefault(r.get("req.cport"), []).append(r)
    return out


def conn_key(r):
    """One request of a connection: the client's port and its number there."""
    return r.get("req.cport"), r.get("req.seq")


def pair_sides(recs, key=conn_key):
    """Client-side records whose request has no server-side record (the same
    KEY), and the pairs whose server-side duration exceeds the client-side one."""
    server = {}
    for r in recs:
        if r.get("req.side") == "server":
            server.setdefault(key(r), []).append(r)
    lone, slower = [], []
    for r in recs:
        if r.get("req.side") != "client":
            continue
        s = server.get(key(r))
        if not s:
            lone.append(r)
            continue
        s = s.pop(0)
        if s["req.duration"] > r["req.duration"]:
            slower.append((s, r))
    return lone, slower


def check_sides(path, protocol, client_procs, server_procs, key=conn_key, sport=None,
                not_sport=None, retries=False):
    """Both ends on this host: each client-side record of PROTOCOL (to server
    port SPORT, if given; not to NOT_SPORT) has its server-side record (the
    same KEY), never slower; as many of each; the processes named (the
    server's: any, with SERVER_PROCS None). RETRIES
    (a datagram protocol): a server-side record whose client gave up on it
    and asked again has the client's left-open record (in ABORTED, the same
    KEY) instead of a completed one."""
    del ABORTED[:]
    want = lambda r: (r.get("req.protocol") == protocol and
                      (sport is None or r.get("req.sport") == sport) and
                      (not_sport is None or r.get("req.sport") != not_sport))
    recs = [r for r in records(path) if want(r)]
    client = [r for r in recs if r.get("req.side") == "client"]
    server = [r for r in recs if r.get("req.side") == "server"]
    lone, slower = pair_sides(recs, key)
    procs = counts(r.get("proc.name") for r in client)
    sprocs = counts(r.get("proc.name") for r in server)
    print("client-side %d (by process %s), server-side %d (by process %s)"
          % (len(client), procs, len(server), sprocs))
    for r in lone[:5]:
        print("  client-side with no server-side record:", short(r))
    for s, c in slower[:5]:
        print("  server %d ns > client %d ns:\n    %s\n    %s"
              % (s["req.duration"], c["req.duration"], short(s), short(c)))
    # the server-side records no completed client-side one has
    ckeys = counts(key(r) for r in client)
    gave_up = counts(key(r) for r in ABORTED if want(r) and r.get("req.side") == "client")
    unmatched = tries = 0
    for r in server:
        if ckeys.get(key(r), 0) > 0:
            ckeys[key(r)] -= 1
        elif retries and gave_up.get(key(r), 0) > 0:
            gave_up[key(r)] -= 1
            tries += 1
            print("  a try its client gave up on and asked again:", short(r))
        else:
            unmatched += 1
            print("  server-side with no client-side record:", short(r))
    assert not lone and not slower, ("lone client-side", len(lone), "server slower", len(slower))
    assert not unmatched and len(client) + tries == len(server), \
        ("each request seen from both ends", len(client), tries, len(server))
    assert set(procs) <= set(client_procs) and \
        (server_procs is None or set(sprocs) == set(server_procs)), (procs, sprocs)
PY
	export PYTHONPATH=$TMP${PYTHONPATH:+:$PYTHONPATH}
}
req_py

# req_check NAME DESCRIPTION ARGS... <<'PY': pycheck, and the figures the check
# printed before its "ok" shown on success too.
req_check() {
	local name=$1
	pycheck "$@"
	grep -q '^ok' "$TMP/$name.check" && grep -v '^ok' "$TMP/$name.check" | sed 's/^/    /'
	return 0
}
