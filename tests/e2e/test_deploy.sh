#!/usr/bin/env bash
# The agent arguments in deploy/ (DaemonSet, systemd unit) parse and their filter
# compiles: run the agent with exactly those arguments over a sysdig capture.
source "$(dirname "$0")/lib.sh"
DEPLOY=$(cd "$(dirname "$0")/../../deploy" && pwd)
FIXTURE=$(dirname "$0")/../../../shared/fixtures/scap/curl_google.scap
[ -r "$FIXTURE" ] || { echo "skip: no fixture at $FIXTURE"; exit 77; }

# args: ["-j", "--filter", "..."] in the DaemonSet; ExecStart=... in the unit.
python3 - "$DEPLOY" >"$TMP/args" <<'PY'
import json, re, shlex, sys
d = sys.argv[1]
ds = open(d + "/daemonset.yaml").read()
m = re.search(r'^\s*args:\s*(\[.*\])\s*$', ds, re.M)
print("\x1f".join(json.loads(m.group(1))))
unit = open(d + "/agent.service").read()
m = re.search(r'^ExecStart=(\S+)\s+(.*)$', unit, re.M)
print("\x1f".join(shlex.split(m.group(2))))
PY
expect "deploy files carry agent arguments" [ "$(wc -l <"$TMP/args")" = 2 ]
n=0
while IFS= read -r line; do
	n=$((n + 1))
	IFS=$'\x1f' read -r -a args <<<"$line"	# one argument per field
	# the metrics server on a free port here, not the deployed one
	for i in "${!args[@]}"; do
		case ${args[$i]} in --metrics*) args[$i]=--metrics=127.0.0.1:0 ;; esac
	done
	"$AGENT" -r "$FIXTURE" "${args[@]}" >"$TMP/out$n" 2>"$TMP/err$n"; rc=$?
	expect "deploy arguments #$n run: ${args[*]}" [ $rc = 0 ]
	expect "deploy arguments #$n select events" [ -s "$TMP/out$n" ]
done <"$TMP/args"
# The DaemonSet mounts, read-only under HOST_ROOT, every runtime path the agent
# reads container and pod names from (the README's list).
python3 - "$DEPLOY/daemonset.yaml" >"$TMP/mounts" 2>&1 <<'PY'
import re, sys
ds = open(sys.argv[1]).read()
assert re.search(r"name: HOST_ROOT\s+value: /host\b", ds), "HOST_ROOT is not /host"
mounts = {m[0]: (m[1], m[2]) for m in re.findall(
    r"\{ name: ([\w-]+), mountPath: (\S+), readOnly: (\w+) \}", ds)}
vols = dict(re.findall(r"\{ name: ([\w-]+), hostPath: \{ path: (\S+) \} \}", ds))
bad = []
for path in ("/run/containerd", "/var/lib/docker/containers", "/var/lib/containers/storage",
             "/run/containers/storage"):
    names = [n for n, p in vols.items() if p == path]
    if not names or mounts.get(names[0]) != ("/host" + path, "true"):
        bad.append(path)
print("missing or writable: " + " ".join(bad) if bad else "ok")
PY
expect "the DaemonSet mounts the runtimes' files read-only under /host" grep -qx ok "$TMP/mounts" ||
	cat "$TMP/mounts"
# Its liveness probe asks /healthz on the port the agent's --metrics serves.
expect "the DaemonSet serves metrics and probes /healthz on that port" python3 - "$DEPLOY/daemonset.yaml" <<'PY'
import json, re, sys
ds = open(sys.argv[1]).read()
args = json.loads(re.search(r'^\s*args:\s*(\[.*\])\s*$', ds, re.M).group(1))
port = [a.split(":")[-1] for a in args if a.startswith("--metrics=")]
assert port, args
assert re.search(r"containerPort: %s\b" % port[0], ds), "no containerPort " + port[0]
assert re.search(r"livenessProbe:\s+httpGet: \{ path: /healthz, port: metrics \}", ds), "no probe"
PY
finish
