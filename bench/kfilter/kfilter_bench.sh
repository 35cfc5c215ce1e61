#!/usr/bin/env bash
# What kernel filtering by process saves: ../shared/bench/side_by_side.sh (a
# 2-thread getppid storm, bare, under the peer and under each agent command, in
# one run) with filters that name a process, a container and a syscall, with and
# without the kernel filter. A runc container (busybox-static, sleeping) gives
# container.id a real value; no nginx runs, so 'proc.name=nginx' matches nothing.
#   usage: sudo bench/kfilter/kfilter_bench.sh AGENT [OLD_AGENT] [-s SECS]
# OLD_AGENT (another build) adds its 'evt.type=openat' row, to show that filter
# did not get slower.
set -uo pipefail
agent=${1:?usage: kfilter_bench.sh AGENT [OLD_AGENT] [SIDE_BY_SIDE_ARGS...]}
old=${2:-}
shift $(($# < 2 ? $# : 2))
here=$(cd "$(dirname "$0")" && pwd)
sbs=${SIDE_BY_SIDE:-$here/../../../shared/bench/side_by_side.sh}
command -v runc >/dev/null && [ -x /bin/busybox ] || {
	echo "needs runc and busybox-static (apt-get install runc busybox-static)"; exit 1; }
work=$(mktemp -d /tmp/kfbench-XXXX)
id=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
trap 'runc delete -f "kfb-$id" >/dev/null 2>&1; rm -rf "$work"' EXIT
mkdir -p "$work/rootfs/bin"
cp /bin/busybox "$work/rootfs/bin/"
ln -s busybox "$work/rootfs/bin/sleep"
(cd "$work" && runc spec) || exit 1
python3 - "$work/config.json" "$id" <<'PY'
import json, sys
p, cid = sys.argv[1], sys.argv[2]
c = json.load(open(p))
c["process"]["args"] = ["/bin/sleep", "3600"]
c["process"]["terminal"] = False
c["linux"]["cgroupsPath"] = "/docker/" + cid	# a layout container.id names
json.dump(c, open(p, "w"))
PY
(cd "$work" && runc run -d "kfb-$id" >/dev/null 2>&1 </dev/null) || { echo "runc run failed"; exit 1; }
cid=${id:0:12}
# -q alone captures exit-only (no event leaves the agent); --no-exit-only rows
# give the enter-and-exit figures, -j --exit-only those of an agent that prints.
rows=("$agent -q evt.type=openat" "$agent -q --no-exit-only evt.type=openat")
[ -n "$old" ] && rows+=("$old -q evt.type=openat")
rows+=("$agent -q proc.name=nginx" "$agent -q --no-exit-only proc.name=nginx"
       "$agent -j --exit-only proc.name=nginx"
       "$agent -q --no-kernel-filter proc.name=nginx"
       "$agent -q container.id=$cid" "$agent -q --no-exit-only container.id=$cid"
       "$agent -q 'proc.name=nginx and evt.type=openat'")
echo "container $cid running; no nginx"
"$sbs" "$@" "${rows[@]}"
