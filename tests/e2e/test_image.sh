#!/usr/bin/env bash
# The container image for real, as README.md builds and runs it: a Debian 12 base
# made here with mmdebstrap from Debian's packages (no registry), deploy/Dockerfile
# built on it with buildah from a copy of this checkout littered with what
# builds leave, with a BTF file of its own (a build container also reads the
# build machine's, the default); then run with podman with the
# DaemonSet's capabilities and no others, the host's PID namespace, HOST_ROOT=/host
# and the host's paths read-only. It must capture a host process's event and a
# Podman container's, each with its container fields, under the seccomp profile
# of the README's podman command and under Docker's default one.
source "$(dirname "$0")/lib.sh"
need_live
need_pkgs mmdebstrap buildah podman runc conmon
SRC=$(cd "$(dirname "$0")/../.." && pwd)
tag=$$
# The DaemonSet's capabilities: the names under its `add:`.
DS=$SRC/deploy/k8s/base/daemonset.yaml
mapfile -t CAPS < <(awk '/^ *add:/ { f = 1; next } f && /^ *- / { print $2; next } f { exit }' "$DS")
BASE=localhost/agent-e2e-base:$tag
IMAGE=localhost/agent-e2e-image:$tag

# Storage of its own, so the test leaves nothing behind in the host's.
S=$TMP/storage
mkdir -p "$S"
podman_conf
STORE=(--root "$S/root" --runroot "$S/run" --storage-driver overlay)
B=(buildah "${STORE[@]}")
P=(podman "${STORE[@]}" --tmpdir "$S/tmp")

cleanup_image() {
	[ -n "${AGENT_PID:-}" ] && kill -9 "$AGENT_PID" 2>/dev/null
	AGENT_PID=
	timeout 30 "${P[@]}" rm -f -t 0 "agent-e2e-$tag" "e2e-img-$tag" >/dev/null 2>&1
	timeout 60 "${P[@]}" rmi -f "$IMAGE" "$BASE" >/dev/null 2>&1
	timeout 60 "${B[@]}" rm -a >/dev/null 2>&1
	timeout 60 "${B[@]}" rmi -a -f >/dev/null 2>&1
	# containers/storage keeps its overlay folder bind-mounted on itself
	findmnt -rn -o TARGET | grep "^$S/" | sort -r | xargs -r -n 1 umount -l 2>/dev/null
}
trap 'cleanup_image; cleanup_e2e' EXIT

expect "the DaemonSet adds capabilities (${CAPS[*]})" [ ${#CAPS[@]} -ge 4 ]
T0=$SECONDS
# 1. The base: Debian 12, essential packages and apt, from Debian's mirror.
timeout 300 mmdebstrap --variant=apt --format=tar bookworm "$TMP/base.tar" >"$TMP/mmdebstrap.log" 2>&1
expect "mmdebstrap made a bookworm base" [ $? = 0 ] || tail -5 "$TMP/mmdebstrap.log"
timeout 120 "${P[@]}" import -q "$TMP/base.tar" "$BASE" >/dev/null
expect "podman imported it" [ $? = 0 ] || { finish; exit; }
rm -f "$TMP/base.tar"
echo "base: $((SECONDS - T0)) s"

# 2. A copy of this checkout with what builds leave behind: build directories
# (meson's with absolute paths), a vmlinux.h and a skeleton beside the sources
# that would shadow the image's own, object files. .dockerignore must leave
# them out of the build context, and keep .git for the agent's version.
C=$TMP/checkout
mkdir "$C"
git -C "$SRC" ls-files -z --cached --others --exclude-standard |
	(cd "$SRC" && xargs -0 cp --parents -t "$C" 2>/dev/null)
cp -a "$SRC/.git" "$C/.git"
mkdir -p "$C/build/meson-private" "$C/build-asan"
echo "junk from $SRC/build" >"$C/build/meson-private/coredata.dat"
echo '#error a stale vmlinux.h' >"$C/driver/vmlinux.h"
echo '#error a stale skeleton' >"$C/driver/agent_driver.skel.h"
echo junk >"$C/proto/stale.o"
cp /sys/kernel/btf/vmlinux "$C/vmlinux.btf"
timeout 120 "${B[@]}" build -f - --build-arg BASE="$BASE" "$C" >"$TMP/ctx.log" 2>&1 <<'EOF'
ARG BASE
FROM ${BASE}
COPY . /ctx
RUN cd /ctx && echo "top: $(ls -A | tr '\n' ' ')" && \
    echo "generated: $(find . -name '*.o' -o -name '*.skel.h' -o -name vmlinux.h | wc -l)" && \
    echo "build machine's BTF: $(test -r /sys/kernel/btf/vmlinux && echo readable)"
EOF
expect "the context builds" [ $? = 0 ] || tail -5 "$TMP/ctx.log"
expect "the context has the sources and .git" grep -Eq '^top: .*\.git .*meson\.build' "$TMP/ctx.log" ||
	grep '^top:' "$TMP/ctx.log"
expect "the context has no build directory" [ -z "$(grep '^top:' "$TMP/ctx.log" | grep -E ' build[^ ]* ')" ]
expect "the context has nothing a build generated" grep -qx 'generated: 0' "$TMP/ctx.log"
# the Dockerfile's default BTF: the build machine's, seen by its build containers
expect "a build container reads the build machine's BTF" \
	grep -qx "build machine's BTF: readable" "$TMP/ctx.log"

# 3. The image, as README.md builds it, from that copy with its BTF file (one
# build: the default BTF differs only by the path meson is given).
T1=$SECONDS
timeout 600 "${B[@]}" build --layers -f "$C/deploy/Dockerfile" --build-arg BASE="$BASE" \
	--build-arg BTF=/src/vmlinux.btf -t "$IMAGE" "$C" >"$TMP/build.log" 2>&1
expect "buildah built the image from the copy, with a BTF file" [ $? = 0 ] ||
	{ tail -20 "$TMP/build.log"; finish; exit; }
echo "build: $((SECONDS - T1)) s"
expect "vmlinux.h came from that file" grep -qx 'vmlinux.h from /src/vmlinux.btf' "$TMP/build.log"
v=$(timeout 60 "${P[@]}" run --rm --network none "$IMAGE" --version 2>/dev/null)
expect "the image's agent has this checkout's version ($v)" [ "$v" = "$("$AGENT" --version)" ]
expect "the image has no compiler" [ -z "$(timeout 60 "${P[@]}" run --rm --network none \
	--entrypoint sh "$IMAGE" -c 'command -v cc clang meson' 2>/dev/null)" ]

# 4. Run it as README.md does, as the DaemonSet does on a node: uid 0 with only its
# capabilities, a read-only root, the host's PIDs and its paths read-only under
# /host. A host process and a Podman container each open a marker file. The
# private storage stands in for the host's /var/lib/containers/storage and
# /run/containers/storage (the DaemonSet's CRI-O component mounts those).
echo "marker-host-$tag" >"$TMP/marker-host-$tag"
echo "marker-pm-$tag" >"$TMP/marker-pm-$tag"
runargs=(--pid=host --network=host --read-only --security-opt apparmor=unconfined --cap-drop=ALL)
for c in "${CAPS[@]}"; do runargs+=(--cap-add="$c"); done
runargs+=(-e HOST_ROOT=/host -v /proc:/host/proc:ro -v /sys/kernel/btf:/sys/kernel/btf:ro
	-v /etc/passwd:/host/etc/passwd:ro -v /etc/group:/host/etc/group:ro
	-v "$S/root:/host/var/lib/containers/storage:ro" -v "$S/run:/host/run/containers/storage:ro")
FIELDS='*%container.id %container.name %container.type %container.image %proc.name %fd.name'

run_agent() {	# run_agent NAME SECCOMP N FILTER: the agent's container in the background
	timeout 120 "${P[@]}" run --rm --name "agent-e2e-$tag" "${runargs[@]}" \
		--security-opt seccomp="$2" "$IMAGE" -v -j -n "$3" -p "$FIELDS" "$4" >"$TMP/$1.out" 2>"$TMP/$1.err" &
	AGENT_PID=$!
	wait_capturing "$TMP/$1.err" "$AGENT_PID" 600 && return 0
	grep -v 'level=warn' "$TMP/$1.err" | tail -5
	return 1
}
wait_agent() {	# the agent stops by itself after its -n events
	local rc=0
	wait "$AGENT_PID" || rc=$?
	AGENT_PID=
	return $rc
}

MARKS="evt.type=openat and proc.name=cat and fd.name in ($TMP/marker-host-$tag, /marker-pm-$tag)"
T2=$SECONDS
expect "the agent's container starts capturing" run_agent readme unconfined 2 "$MARKS"
cat "$TMP/marker-host-$tag" >/dev/null
timeout 120 "${P[@]}" run --rm --name "e2e-img-$tag" --cidfile "$TMP/pm.cid" --network none \
	-v "$TMP/marker-pm-$tag:/marker-pm-$tag:ro" "$BASE" cat "/marker-pm-$tag" >/dev/null 2>&1
expect "podman ran a container" [ $? = 0 ]
expect "the agent captured both and stopped" wait_agent
python3 - "$TMP/readme.out" "$TMP" "$tag" "$(cat "$TMP/pm.cid" 2>/dev/null)" >"$TMP/check" 2>&1 <<'PY'
import json, sys
out, tmp, tag, pmid = sys.argv[1:5]
got = {}
for l in open(out):
    e = json.loads(l)
    got[e["fd.name"]] = e
bad = []
host = got.get(tmp + "/marker-host-" + tag)
if not host:
    bad.append("no host event")
elif (host["container.id"], host["container.name"], host["container.type"]) != ("host",) * 3:
    bad.append("host event: %r" % host)
pm = got.get("/marker-pm-" + tag)
if not pm:
    bad.append("no container event")
elif (pm["container.name"], pm["container.type"], pm["container.image"]) != \
        ("e2e-img-" + tag, "podman", "localhost/agent-e2e-base:" + tag) or \
        not pmid or pm["container.id"] != pmid[:12]:
    bad.append("container event: %r" % pm)
print("\n".join(bad) if bad else "ok")
PY
expect "host and container events carry their container fields" grep -qx ok "$TMP/check" ||
	{ cat "$TMP/check"; grep -v 'level=warn' "$TMP/readme.err" | tail -5; }
echo "run: $((SECONDS - T2)) s"

# 5. The same capabilities under Docker's default seccomp profile (moby 23+,
# containerd 1.7+), which allows bpf and perf_event_open to holders of CAP_BPF and
# CAP_PERFMON; Podman 4's own profile asks CAP_SYS_ADMIN for both.
python3 - /usr/share/containers/seccomp.json >"$TMP/seccomp.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
gated = {"bpf": "CAP_BPF", "perf_event_open": "CAP_PERFMON"}
for s in p["syscalls"]:
    s["names"] = [n for n in s["names"] if n not in gated]
p["syscalls"] = [s for s in p["syscalls"] if s["names"]]
p["syscalls"] += [{"names": [n], "action": "SCMP_ACT_ALLOW", "includes": {"caps": [c]}}
                  for n, c in gated.items()]
json.dump(p, sys.stdout)
PY
expect "the agent starts under Docker's seccomp profile" \
	run_agent docker "$TMP/seccomp.json" 1 "evt.type=openat and proc.name=cat and fd.name=$TMP/marker-host-$tag"
cat "$TMP/marker-host-$tag" >/dev/null
expect "it captured the host's event and stopped" wait_agent
expect "with its container fields" grep -q "\"container.id\":\"host\".*\"fd.name\":\"$TMP/marker-host-$tag\"" "$TMP/docker.out" ||
	cat "$TMP/docker.out"
echo "total: $((SECONDS - T0)) s"
finish
