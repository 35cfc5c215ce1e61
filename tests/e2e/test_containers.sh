#!/usr/bin/env bash
# Real containers: runc with a containerd task bundle (the CRI's annotations, a
# kubepods cgroup of the systemd driver), runc with a Docker cgroup and Docker's
# files, a runc container whose Docker file is garbage, and Podman running an
# image imported from the same busybox rootfs. A process in each opens a marker
# file; so does one on the host. The agent must name each one, filters on the
# names must select exactly its events, and a -w file must name them again in
# agent -r (with none of the runtime files around) and in sysdig -r.
source "$(dirname "$0")/lib.sh"
need_live
need_pkgs runc busybox-static podman conmon

HR=$TMP/host	# HOST_ROOT: this host's /proc, /etc, /sys and Podman's storage,
		# plus the containerd and Docker files the test writes
mkdir -p "$HR/var/lib" "$HR/run" "$TMP/empty"
for d in proc etc sys; do ln -s "/$d" "$HR/$d"; done
mkdir -p /var/lib/containers /run/containers
ln -s /var/lib/containers "$HR/var/lib/containers"
ln -s /run/containers "$HR/run/containers"

hex64() { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
CID=$(hex64)	# containerd-style
DID=$(hex64)	# Docker-style
BID=$(hex64)	# Docker-style, its file garbage
PUID=$(cat /proc/sys/kernel/random/uuid)
PUID_=${PUID//-/_}
tag=$$

pids=()
cleanup_containers() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	for c in cd dk bad; do runc delete -f "e2e-$tag-$c" >/dev/null 2>&1; done
	podman rm -f "e2e-$tag" >/dev/null 2>&1
	podman rmi -f "localhost/agent-e2e:$tag" >/dev/null 2>&1
}
trap 'cleanup_containers; cleanup_e2e' EXIT

# A busybox rootfs with a marker file.
mkroot() {	# mkroot DIR MARKER
	mkdir -p "$1/bin" "$1/proc" "$1/sys" "$1/dev" "$1/etc"
	cp /bin/busybox "$1/bin/busybox"
	for c in sh cat sleep; do ln -sf busybox "$1/bin/$c"; done
	echo "$2" >"$1/$2"
}

# An OCI bundle made by runc spec: our command, cgroup path and annotations.
mkbundle() {	# mkbundle DIR MARKER CGROUPS_PATH ANNOTATIONS_JSON
	mkroot "$1/rootfs" "$2"
	(cd "$1" && runc spec)
	python3 - "$1/config.json" "$2" "$3" "$4" <<'PY'
import json, sys
path, marker, cgroups, ann = sys.argv[1:5]
c = json.load(open(path))
c["process"]["terminal"] = False
c["process"]["args"] = ["/bin/sh", "-c", "cat /%s >/dev/null; sleep 0.2" % marker]
c["linux"]["cgroupsPath"] = cgroups
c["annotations"] = json.loads(ann)
json.dump(c, open(path, "w"), indent=1)
PY
}

# containerd: the task bundle where containerd keeps it, under the CRI's namespace.
CDB=$HR/run/containerd/io.containerd.runtime.v2.task/k8s.io/$CID
mkbundle "$CDB" "marker-cd-$tag" \
	"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod$PUID_.slice/cri-containerd-$CID.scope" \
	"{\"io.kubernetes.cri.container-type\": \"container\",
	  \"io.kubernetes.cri.container-name\": \"web\",
	  \"io.kubernetes.cri.image-name\": \"docker.io/library/busybox:1.36\",
	  \"io.kubernetes.cri.sandbox-id\": \"$(hex64)\",
	  \"io.kubernetes.cri.sandbox-name\": \"web-6d4cf56db6-x7kq2\",
	  \"io.kubernetes.cri.sandbox-namespace\": \"shop\",
	  \"io.kubernetes.cri.sandbox-uid\": \"$PUID\"}"

# Docker: a /docker/<id> cgroup and the files dockerd keeps for it.
mkbundle "$TMP/dk" "marker-dk-$tag" "/docker/$DID" '{}'
DD=$HR/var/lib/docker/containers/$DID
mkdir -p "$DD"
cat >"$DD/config.v2.json" <<EOF
{"ID":"$DID","Created":"2026-11-21T08:01:11.901234567Z","Path":"/bin/sh","Args":["-c","cat"],
 "Config":{"Hostname":"${DID:0:12}","Env":["PATH=/bin"],"Cmd":["/bin/sh"],"Image":"busybox:1.36",
 "Labels":{"com.docker.compose.service":"db"}},
 "Image":"sha256:af4709625109ae3e4c0e3ac4a4d8e64c6a5e1e8e7ba2d5d1b0a1c4b2f3e4d5c6",
 "Name":"/shop-db","Driver":"overlay2","State":{"Running":true,"Pid":1}}
EOF
echo '{"Privileged":true,"NetworkMode":"none"}' >"$DD/hostconfig.json"

# Docker again, with a config.v2.json cut short: identity only, the file counted.
mkbundle "$TMP/bad" "marker-bad-$tag" "/docker/$BID" '{}'
mkdir -p "$HR/var/lib/docker/containers/$BID"
echo '{"ID":"'"$BID"'","Name":"/half' >"$HR/var/lib/docker/containers/$BID/config.v2.json"

# Podman: its own image from the same rootfs. No systemd, no journald here.
podman_conf
mkroot "$TMP/prootfs" "marker-pm-$tag"
tar -C "$TMP/prootfs" -c . | podman import -q - "localhost/agent-e2e:$tag" >/dev/null
PMID=$(podman create -q --name "e2e-$tag" --network none "localhost/agent-e2e:$tag" \
	/bin/sh -c "cat /marker-pm-$tag >/dev/null; sleep 0.2")
expect "podman made a container" [ ${#PMID} = 64 ]

echo "marker-host-$tag" >"$TMP/marker-host-$tag"

# The agents. The recorder starts first, so the BPF fds of the others are not in
# its file's fd lists (sysdig 0.29.3 refuses that fd type).
start_bg() {	# start_bg NAME ARGS...
	local n=$1; shift
	HOST_ROOT=$HR "$AGENT" -v "$@" >"$TMP/$n.out" 2>"$TMP/$n.err" &
	pids+=($!)
	wait_capturing "$TMP/$n.err" "${pids[-1]}"
}
F='*%evt.num %evt.type %evt.dir %proc.name %fd.name %container.id %container.full_id %container.name %container.image %container.image.id %container.image.repository %container.image.tag %container.type %container.privileged %k8s.pod.name %k8s.ns.name %k8s.pod.uid %k8s.pod.id'
# (the markers are this run's alone: another process's "marker-" file is not counted)
MARK="evt.type=openat and evt.dir=< and fd.name contains marker- and fd.name endswith -$tag"
expect "recorder starts" start_bg rec -q -w "$TMP/rec.scap" "container.id!=host or fd.name contains marker-"
expect "agent with every field starts" start_bg all -j -p "$F" "$MARK"
expect "agent with -pc starts" start_bg pc -pc "container.name=web and evt.type=openat and evt.dir=<"
expect "agent on the host only starts" start_bg host -j -pk "container.id=host and $MARK"
expect "agent on Podman only starts" start_bg pm -j -p '%fd.name %container.name' \
	"container.type=podman and container.image startswith localhost/agent-e2e and $MARK"

for c in cd dk bad; do
	b=$TMP/$c; [ $c = cd ] && b=$CDB
	timeout 30 runc run -b "$b" "e2e-$tag-$c" </dev/null >/dev/null 2>"$TMP/runc-$c.err"
	expect "runc ran the $c container" [ $? = 0 ] || cat "$TMP/runc-$c.err"
done
timeout 60 podman start -a "e2e-$tag" >/dev/null 2>"$TMP/podman.err"
expect "podman ran its container" [ $? = 0 ] || cat "$TMP/podman.err"
cat "$TMP/marker-host-$tag" >/dev/null
# on SIGTERM each agent reads what its rings hold
for p in "${pids[@]}"; do kill -TERM "$p"; done
for p in "${pids[@]}"; do wait "$p"; done
pids=()

# What each marker's openat must show (None: absent).
python3 - "$TMP" "$tag" "$CID" "$DID" "$BID" "$PMID" "$PUID" >"$TMP/want.json" <<'PY'
import json, sys
tmp, tag, cid, did, bid, pmid, puid = sys.argv[1:8]
k8s = {"k8s.pod.name": "web-6d4cf56db6-x7kq2", "k8s.ns.name": "shop",
       "k8s.pod.uid": puid, "k8s.pod.id": puid}
none_k8s = {k: None for k in k8s}
want = {
  "/marker-cd-" + tag: dict(k8s, **{"container.id": cid[:12], "container.full_id": cid,
    "container.name": "web", "container.image": "docker.io/library/busybox:1.36",
    "container.image.id": None, "container.image.repository": "docker.io/library/busybox",
    "container.image.tag": "1.36", "container.type": "containerd",
    "container.privileged": None}),
  "/marker-dk-" + tag: dict(none_k8s, **{"container.id": did[:12], "container.full_id": did,
    "container.name": "shop-db", "container.image": "busybox:1.36",
    "container.image.id": "af4709625109ae3e4c0e3ac4a4d8e64c6a5e1e8e7ba2d5d1b0a1c4b2f3e4d5c6",
    "container.image.repository": "busybox", "container.image.tag": "1.36",
    "container.type": "docker", "container.privileged": True}),
  "/marker-bad-" + tag: dict(none_k8s, **{"container.id": bid[:12], "container.full_id": bid,
    "container.name": None, "container.image": None, "container.image.id": None,
    "container.image.repository": None, "container.image.tag": None,
    "container.type": "docker", "container.privileged": None}),
  "/marker-pm-" + tag: dict(none_k8s, **{"container.id": pmid[:12], "container.full_id": pmid,
    "container.name": "e2e-" + tag, "container.image": "localhost/agent-e2e:" + tag,
    "container.image.repository": "localhost/agent-e2e", "container.image.tag": tag,
    "container.type": "podman", "container.privileged": False}),
  tmp + "/marker-host-" + tag: dict(none_k8s, **{"container.id": "host",
    "container.full_id": "host", "container.name": "host", "container.image": None,
    "container.image.id": None, "container.image.repository": None,
    "container.image.tag": None, "container.type": "host", "container.privileged": None}),
}
print(json.dumps(want))
PY

# 1. Every field of each marker's openat, live.
cat >"$TMP/check.py" <<'PY'
import json, sys
want = json.load(open(sys.argv[1]))
got = {}
for l in open(sys.argv[2]):
    e = json.loads(l)
    if e["fd.name"] in want:
        got.setdefault(e["fd.name"], []).append(e)
bad = []
for name, w in want.items():
    evs = got.get(name, [])
    if len(evs) != 1:
        bad.append("%s: %d events" % (name, len(evs)))
        continue
    for k, v in w.items():
        if k == "container.image.id" and "pm-" in name:
            v = evs[0].get(k) if evs[0].get(k) and len(evs[0][k]) == 64 else "<64 hex>"
        if evs[0].get(k) != v:
            bad.append("%s: %s is %r, want %r" % (name, k, evs[0].get(k), v))
print("\n".join(bad) if bad else "ok")
PY
python3 "$TMP/check.py" "$TMP/want.json" "$TMP/all.out" >"$TMP/check1" 2>&1
expect "live: every container field of each marker's openat (containerd, Docker, bad file, Podman, host)" \
	grep -qx ok "$TMP/check1" || cat "$TMP/check1"
expect "the summary counts the garbage Docker file" grep -q ' 1 bad files' "$TMP/all.err" ||
	grep containers "$TMP/all.err"

# 2. Live filters on the names select exactly their events.
python3 - "$TMP" "$tag" "$CID" "$PMID" >"$TMP/check2" 2>&1 <<'PY'
import json, re, sys
tmp, tag, cid, pmid = sys.argv[1:5]
bad = []
pc = open(tmp + "/pc.out").read().splitlines()
line = re.compile(r"^\d+ \d\d:\d\d:\d\d\.\d{9} \d+ web \(%s\) \S+ \(\d+:\d+\) < openat " % cid[:12])
if not pc or any(not line.match(l) for l in pc):
    bad.append("-pc lines: %r" % pc[:3])
if not any("fd=3(<f>/marker-cd-%s)" % tag in l or "(<f>/marker-cd-%s)" % tag in l for l in pc):
    bad.append("-pc: no marker line")
# -pk -j: the keys of sysdig's pod line, the file in evt.info
host = [json.loads(l) for l in open(tmp + "/host.out")]
names = sorted(re.search(r"\(<f>([^)]*)\)", e["evt.info"]).group(1) for e in host)
if names != [tmp + "/marker-host-" + tag]:
    bad.append("host filter: %r" % names)
keys = ["container.id", "evt.cpu", "evt.dir", "evt.info", "evt.num", "evt.outputtime",
        "evt.type", "k8s.pod.name", "proc.name", "thread.tid", "thread.vtid"]
for e in host:
    if sorted(e) != keys or e["container.id"] != "host" or e["k8s.pod.name"] is not None:
        bad.append("-pk -j object: %r" % e)
pm = [json.loads(l) for l in open(tmp + "/pm.out")]
if [e["fd.name"] for e in pm] != ["/marker-pm-" + tag] or pm[0]["container.name"] != "e2e-" + tag:
    bad.append("podman filter: %r" % pm)
print("\n".join(bad) if bad else "ok")
PY
expect "live: container.name (-pc), container.id=host (-pk -j) and container.type/image filters select exactly their events" \
	grep -qx ok "$TMP/check2" || cat "$TMP/check2"

# 3. The -w file on a machine without the runtimes' files: the same names.
HOST_ROOT=$TMP/empty "$AGENT" -r "$TMP/rec.scap" -j -p "$F" "$MARK" >"$TMP/replay.out" 2>"$TMP/replay.err"
python3 "$TMP/check.py" "$TMP/want.json" "$TMP/replay.out" >"$TMP/check3" 2>&1
expect "agent -r of the -w file: every container field as live, without the runtime files" \
	grep -qx ok "$TMP/check3" || cat "$TMP/check3" "$TMP/replay.err"

# -j -pc: sysdig's container line as keys, container.id and container.name among them.
HOST_ROOT=$TMP/empty "$AGENT" -r "$TMP/rec.scap" -j -pc "container.name=web and $MARK" \
	>"$TMP/jpc.out" 2>/dev/null
python3 - "$TMP/jpc.out" "$CID" >"$TMP/check3b" 2>&1 <<'PY'
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
keys = ["container.id", "container.name", "evt.cpu", "evt.dir", "evt.info", "evt.num",
        "evt.outputtime", "evt.type", "proc.name", "thread.tid", "thread.vtid"]
ok = len(objs) == 1 and sorted(objs[0]) == keys and objs[0]["container.id"] == sys.argv[2][:12] \
     and objs[0]["container.name"] == "web"
print("ok" if ok else objs)
PY
expect "-j -pc objects carry container.id and container.name" grep -qx ok "$TMP/check3b" ||
	cat "$TMP/check3b"

# 4. Filters on each field select exactly that container's marker (on the file).
sel() {	# sel FILTER MARKER...: the markers FILTER selects are exactly these
	local got want
	got=$(HOST_ROOT=$TMP/empty "$AGENT" -r "$TMP/rec.scap" -p '%fd.name' "$MARK and ($1)" 2>/dev/null |
		sed 's|.*/||' | sort | tr '\n' ' ')
	want=$(printf '%s\n' "${@:2}" | sed "s/\$/-$tag/" | sort | tr '\n' ' ')
	expect "filter '$1' selects ${*:2}" [ "$got" = "$want" ] || echo "  got: $got"
}
sel "container.id=${CID:0:12}" marker-cd
sel "container.full_id=$DID" marker-dk
sel "container.name in (web, shop-db)" marker-cd marker-dk
sel "container.image=busybox:1.36" marker-dk
sel "container.image.repository endswith /busybox" marker-cd
sel "container.type=docker" marker-dk marker-bad
sel "container.privileged=true" marker-dk
sel "container.id!=host" marker-cd marker-dk marker-bad marker-pm
sel "container.id=host" marker-host
sel "k8s.ns.name=shop and k8s.pod.name=web-6d4cf56db6-x7kq2" marker-cd
sel "k8s.pod.uid=$PUID" marker-cd
sel "k8s.pod.id exists" marker-cd
sel "not container.name exists" marker-bad

# 5. sysdig 0.29.3 reads the file's container events: the same names for the
#    containerd and Docker containers and the host. (It does not itself place
#    Podman's cgroupfs layout, /libpod_parent/libpod-<id>, in a container: the
#    README says so, and this checks it still holds.)
sysdig -r "$TMP/rec.scap" -j -p '*%fd.name %container.id %container.name %container.image %container.type %k8s.pod.name %k8s.ns.name %k8s.pod.id' \
	"$MARK" >"$TMP/sysdig.out" 2>"$TMP/sysdig.err"
python3 - "$TMP/want.json" "$TMP/sysdig.out" "$tag" >"$TMP/check5" 2>&1 <<'PY'
import json, sys
want = json.load(open(sys.argv[1]))
tag = sys.argv[3]
got = {json.loads(l)["fd.name"]: json.loads(l) for l in open(sys.argv[2])}
bad = []
for name, w in want.items():
    if "-bad-" in name:
        continue
    e = got.get(name)
    if "-pm-" in name:
        # sysdig 0.29.3 does not place Podman's cgroupfs layout in a container
        if not e or e.get("container.id") != "host":
            bad.append("%s: sysdig now names Podman's container: %r" % (name, e))
        continue
    if not e:
        bad.append("%s: not in sysdig's output" % name)
        continue
    for k in ("container.id", "container.name", "container.image", "container.type",
              "k8s.pod.name", "k8s.ns.name", "k8s.pod.id"):
        v = w[k]
        if k == "container.image" and v is None:
            continue	# sysdig prints the host's image as its "<NA>" string
        if e.get(k) != v:
            bad.append("%s: sysdig's %s is %r, want %r" % (name, k, e.get(k), v))
print("\n".join(bad) if bad else "ok")
PY
expect "sysdig -r of the -w file names the containerd and Docker containers and the pod as we do" \
	grep -qx ok "$TMP/check5" || cat "$TMP/check5" "$TMP/sysdig.err"
finish
