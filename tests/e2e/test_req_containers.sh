#!/usr/bin/env bash
# Request mode across two containers (issue 23): busybox httpd in one runc
# container, busybox wget in another, each a containerd task of its own pod
# (the CRI's annotations). Both stay in the host's network namespace (no
# "network" entry in config.json), so they talk over 127.0.0.1 and each
# request is seen from both ends on this host. The agent must name both
# containers and pods on every record, count one edge client -> server in its
# service map, and Debian's Prometheus, scraping --metrics, must return that
# edge with both ends' labels and the exact count.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/collectors/out_lib.sh"
need_live
need_pkgs runc busybox-static prometheus curl graphviz
t0=$SECONDS

OK=20		# requests for a file (200)
MISS=5		# requests for a missing path (404)
N=$((OK + MISS))
NS=shop
SRV_CT=web;  SRV_POD=web-6d4cf56db6-x7kq2
CLI_CT=load; CLI_POD=load-7b9c8f6d5b-k2m4x

HR=$TMP/host	# HOST_ROOT: this host's /proc, /etc, /sys and containerd's task bundles
mkdir -p "$HR/run"
for d in proc etc sys; do ln -s "/$d" "$HR/$d"; done
export HOST_ROOT=$HR

hex64() { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
tag=$$
PORT=$(free_port)
MPORT=$(free_port)
TASKS=$HR/run/containerd/io.containerd.runtime.v2.task/k8s.io

cts=()		# runc container names
puids=()	# pod uids, their cgroup slices removed at exit
cleanup_containers() {
	local c u
	for c in "${cts[@]}"; do
		runc kill "$c" KILL >/dev/null 2>&1
		runc delete -f "$c" >/dev/null 2>&1
	done
	# runc removes the containers' cgroups; the pods' slices are ours
	for u in "${puids[@]}"; do
		find /sys/fs/cgroup -depth -type d -name "*pod${u//-/_}.slice" \
			-exec rmdir {} + 2>/dev/null
	done
}
trap 'cleanup_containers; cleanup_out; cleanup_e2e' EXIT
trap 'exit 143' TERM INT	# so that a test harness's stop still cleans up

# ctr_bundle NAME POD COMMAND: a containerd task bundle of a busybox rootfs in
# pod POD of namespace $NS, running COMMAND with sh -c, in the host's network
# namespace. Sets CT_BUNDLE and CT_ID.
ctr_bundle() {
	local name=$1 pod=$2 cmd=$3 puid
	CT_ID=$(hex64)
	puid=$(cat /proc/sys/kernel/random/uuid)
	puids+=("$puid")
	CT_BUNDLE=$TASKS/$CT_ID
	mkdir -p "$CT_BUNDLE/rootfs/bin" "$CT_BUNDLE/rootfs/www"
	cp /bin/busybox "$CT_BUNDLE/rootfs/bin/busybox"
	# by these names, so that they are the processes' names
	for c in sh httpd wget; do ln -s busybox "$CT_BUNDLE/rootfs/bin/$c"; done
	(cd "$CT_BUNDLE" && runc spec)
	python3 - "$CT_BUNDLE/config.json" "$cmd" \
		"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${puid//-/_}.slice/cri-containerd-$CT_ID.scope" \
		"$name" "$pod" "$NS" "$puid" "$(hex64)" <<'PY'
import json, sys
path, cmd, cgroups, name, pod, ns, puid, sandbox = sys.argv[1:9]
c = json.load(open(path))
c["process"]["terminal"] = False
c["process"]["args"] = ["/bin/sh", "-c", cmd]
c["linux"]["cgroupsPath"] = cgroups
c["linux"]["namespaces"] = [n for n in c["linux"]["namespaces"] if n["type"] != "network"]
c["annotations"] = {
    "io.kubernetes.cri.container-type": "container",
    "io.kubernetes.cri.container-name": name,
    "io.kubernetes.cri.image-name": "docker.io/library/busybox:1.36",
    "io.kubernetes.cri.sandbox-id": sandbox,
    "io.kubernetes.cri.sandbox-name": pod,
    "io.kubernetes.cri.sandbox-namespace": ns,
    "io.kubernetes.cri.sandbox-uid": puid,
}
json.dump(c, open(path, "w"), indent=1)
PY
}

# The server: httpd in the foreground, one page and nothing else.
ctr_bundle "$SRV_CT" "$SRV_POD" "exec /bin/httpd -f -p 127.0.0.1:$PORT -h /www"
SRV_B=$CT_BUNDLE
echo "page of the e2e test" >"$SRV_B/rootfs/www/page.txt"
# The client: $OK fetches of the page, then $MISS of a missing path, one
# connection each (busybox wget sends Connection: close).
ctr_bundle "$CLI_CT" "$CLI_POD" "i=0; while [ \$i -lt $OK ]; do
	/bin/wget -q -O /dev/null http://127.0.0.1:$PORT/page.txt || exit 1; i=\$((i + 1)); done
	i=0; while [ \$i -lt $MISS ]; do
	/bin/wget -q -O /dev/null http://127.0.0.1:$PORT/missing 2>/dev/null && exit 1; i=\$((i + 1)); done
	exit 0"
CLI_B=$CT_BUNDLE

# Prometheus first: its first scrape comes some seconds after it starts.
expect "Prometheus starts, scraping 127.0.0.1:$MPORT every second" start_prometheus "127.0.0.1:$MPORT" ||
	tail -n 5 "$PROM/log"

F='*%req.side %req.protocol %req.method %req.path %req.status %req.aborted %req.timeout'
F+=' %req.cport %req.seq %req.client.proc %req.server.proc %req.client.container'
F+=' %req.server.container %req.client.pod %req.server.pod %proc.name %container.name'
start_agent "$TMP/req.json" "$TMP/req.err" --requests -j -p "$F" --metrics "127.0.0.1:$MPORT" \
	--service-map "$TMP/map.json" "req.sport=$PORT"
expect "the agent starts in request mode with --metrics and --service-map" [ $? = 0 ] ||
	tail -n 8 "$TMP/req.err"

cts+=("e2e-$tag-srv")
timeout 60 runc run -b "$SRV_B" "e2e-$tag-srv" </dev/null >"$TMP/srv.log" 2>&1 &
PIDS+=($!)
expect "the server container's httpd listens on 127.0.0.1:$PORT" wait_for 15 port_open "$PORT" ||
	cat "$TMP/srv.log"
cts+=("e2e-$tag-cli")
timeout 30 runc run -b "$CLI_B" "e2e-$tag-cli" </dev/null >"$TMP/cli.log" 2>&1
expect "the client container made $OK good and $MISS missing requests" [ $? = 0 ] ||
	cat "$TMP/cli.log"

# Prometheus: the edge's series, both ends named, summing to N once the last
# request was counted and scraped.
edge_sum() {
	prom_query "sum(agent_edge_request_total{src_container=\"$CLI_CT\",dst_container=\"$SRV_CT\"})" |
		python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")'
}
edge_is_n() { [ "$(edge_sum)" = "$N" ]; }
expect "Prometheus returns the edge $CLI_CT -> $SRV_CT with $N requests" wait_for 20 edge_is_n ||
	echo "    its sum: '$(edge_sum)'"
prom_query agent_edge_request_total >"$TMP/prom_edge.json"
prom_query agent_request_duration_seconds_count >"$TMP/prom_dur.json"

# The service map at exit, and the records.
kill -TERM "$AGENT_PID" 2>/dev/null
wait_agent 20
expect "the agent exits 0" [ $? = 0 ] || tail -n 5 "$TMP/req.err"
runc kill "e2e-$tag-srv" KILL >/dev/null 2>&1

pycheck records "server-side records: exactly $N http with their paths and statuses; every record names both containers and pods" \
	"$TMP/req.json" "$N" "$OK" "$MISS" "$CLI_CT" "$SRV_CT" "$CLI_POD" "$SRV_POD" "$TMP/req.err" <<'PY'
import json, sys
path, n, ok, miss, cct, sct, cpod, spod, err = sys.argv[1:10]
n, ok, miss = int(n), int(ok), int(miss)
# the pairing's counters and the kernel drops, for a failure's reader
for l in open(err, errors="replace"):
    if l.startswith(("agent: requests:", "agent: dropped")):
        print(l.rstrip())
recs = [json.loads(l) for l in open(path) if l.strip()]
server = [r for r in recs if r.get("req.side") == "server"]
client = [r for r in recs if r.get("req.side") == "client"]
print("%d records: %d server-side, %d client-side" % (len(recs), len(server), len(client)))
bad = []
for side, rs in (("server", server), ("client", client)):
    got = {}
    for r in rs:
        k = (r.get("req.protocol"), r.get("req.method"), r.get("req.path"), r.get("req.status"),
             r.get("req.aborted") in (True, "true"), r.get("req.timeout") in (True, "true"))
        got[k] = got.get(k, 0) + 1
    want = {("http", "GET", "/page.txt", 200, False, False): ok,
            ("http", "GET", "/missing", 404, False, False): miss}
    if got != want:
        bad.append("%s-side (protocol, method, path, status, aborted, timeout): %r, want %r"
                   % (side, got, want))
    names = {}
    for r in rs:
        k = tuple(r.get(f) for f in ("req.client.container", "req.server.container",
                                     "req.client.pod", "req.server.pod",
                                     "req.client.proc", "req.server.proc", "container.name"))
        names[k] = names.get(k, 0) + 1
    local = sct if side == "server" else cct
    want = {(cct, sct, cpod, spod, "wget", "httpd", local): len(rs)}
    if names != want:
        bad.append("%s-side (client/server container, pod, proc; container.name): %r, want %r"
                   % (side, names, want))
# one request, two records: the same (client port, request number) on each side
keys = lambda rs: sorted((r.get("req.cport"), r.get("req.seq")) for r in rs)
if keys(server) != keys(client):
    bad.append("the sides' (cport, seq) differ: server %r, client %r" % (keys(server)[:5], keys(client)[:5]))
for b in bad:
    print(b)
print("ok" if not bad else "%d differences" % len(bad))
PY

pycheck map "the service map: one edge $CLI_CT -> $SRV_CT, $N requests, both nodes named by container and pod" \
	"$TMP/map.json" "$N" "$CLI_CT" "$SRV_CT" "$CLI_POD" "$SRV_POD" "$NS" <<'PY'
import json, sys
path, n, cct, sct, cpod, spod, ns = sys.argv[1:8]
m = json.load(open(path))
nodes = {x["id"]: x for x in m["nodes"]}
print("nodes:", [(x["container"], x["pod"], x["requests_in"], x["requests_out"]) for x in m["nodes"]])
print("edges:", [(nodes[e["source"]]["container"], nodes[e["target"]]["container"], e["protocol"],
                  e["requests"], e["errors"]) for e in m["edges"]])
assert len(m["edges"]) == 1, ("edges", m["edges"])
e = m["edges"][0]
src, dst = nodes[e["source"]], nodes[e["target"]]
assert (src["container"], src["pod"], src["namespace"]) == (cct, cpod, ns), src
assert (dst["container"], dst["pod"], dst["namespace"]) == (sct, spod, ns), dst
assert (e["protocol"], e["requests"], e["errors"], e["timeouts"]) == ("http", int(n), 0, 0), e
assert (src["requests_out"], dst["requests_in"]) == (int(n), int(n)), (src, dst)
# (the map also draws connects that failed, such as the test's own probes of
# a port not yet listening: nodes of theirs have no requests)
assert len([x for x in m["nodes"] if x["requests_in"] or x["requests_out"]]) == 2, m["nodes"]
assert all(x["failed_connects_in"] or x["failed_connects_out"] for x in m["nodes"]
           if not (x["requests_in"] or x["requests_out"])), m["nodes"]
print("ok")
PY
expect "the service map's DOT draws with dot -Tsvg" timeout 20 dot -Tsvg -o "$TMP/map.svg" "$TMP/map.dot" ||
	cat "$TMP/map.dot"
# README's picture is this drawing: REQ_MAP_SVG=docs/service-map.svg keeps it
[ -n "${REQ_MAP_SVG:-}" ] && cp "$TMP/map.svg" "$REQ_MAP_SVG"
# (SVG writes '-' as &#45;)
expect "the drawing names both containers' pods" \
	[ "$(sed 's/&#45;/-/g' "$TMP/map.svg" | grep -o -e "$CLI_POD" -e "$SRV_POD" | sort -u | wc -l)" = 2 ]

pycheck prom "Prometheus' series: agent_edge_request_total by response class ($OK 2xx, $MISS 4xx) and agent_request_duration_seconds_count ($N) carry both ends' containers and pods" \
	"$TMP/prom_edge.json" "$TMP/prom_dur.json" "$OK" "$MISS" "$CLI_CT" "$SRV_CT" "$CLI_POD" "$SRV_POD" "$NS" <<'PY'
import json, sys
fe, fd, ok, miss, cct, sct, cpod, spod, ns = sys.argv[1:10]
edge = json.load(open(fe))["data"]["result"]
dur = json.load(open(fd))["data"]["result"]
for s in edge + dur:
    print(s["metric"].get("__name__"), {k: v for k, v in s["metric"].items()
          if k in ("src_container", "dst_container", "src_pod", "dst_pod", "container", "pod",
                   "request_content", "response_content")}, s["value"][1])
want_labels = dict(src_container=cct, dst_container=sct, src_pod=cpod, dst_pod=spod,
                   src_namespace=ns, dst_namespace=ns, protocol="http")
got = {}
for s in edge:
    l = s["metric"]
    assert all(l.get(k) == v for k, v in want_labels.items()), ("edge labels", l)
    got[l.get("response_content")] = got.get(l.get("response_content"), 0) + int(s["value"][1])
assert got == {"2xx": int(ok), "4xx": int(miss)}, ("edge requests by class", got)
got = {}
for s in dur:
    l = s["metric"]
    assert (l.get("container"), l.get("pod"), l.get("namespace"), l.get("protocol")) == \
        (sct, spod, ns, "http"), ("entity labels", l)
    k = (l.get("request_content"), l.get("response_content"))
    got[k] = got.get(k, 0) + int(s["value"][1])
assert got == {("/page.txt", "2xx"): int(ok), ("/missing", "4xx"): int(miss)}, ("durations counted", got)
print("ok")
PY
echo "    $((SECONDS - t0)) s"
finish
