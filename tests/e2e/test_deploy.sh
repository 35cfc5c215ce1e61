#!/usr/bin/env bash
# The agent arguments in deploy/ (each Kubernetes overlay as kubectl kustomize
# renders it, the systemd unit) parse and their filter compiles: run the agent with
# exactly those arguments over a sysdig capture. The DaemonSet is what the README
# says: the unit's capabilities and no more, only the host paths the agent reads
# (read-only, nothing created on the host), memory that counts the perf rings,
# metrics port and probes that agree, every node, the image set in one place.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DEPLOY=$ROOT/deploy
M=$ROOT/tests/e2e/k8s/manifests.py
FIXTURE=$ROOT/../shared/fixtures/scap/curl_google.scap
[ -r "$FIXTURE" ] || { echo "skip: no fixture at $FIXTURE"; exit 77; }
command -v kubectl >/dev/null || need_pkgs kubectl
need_pkgs python3-yaml
command -v kubectl >/dev/null || { echo "FAIL: no kubectl (package kubectl)"; exit 1; }
# The node size the DaemonSet's memory is stated for (deploy/k8s/base/daemonset.yaml).
NODE_CPUS=16

for o in stdout prometheus; do
	expect "kubectl kustomize renders overlays/$o" \
		bash -c "kubectl kustomize '$DEPLOY/k8s/overlays/$o' >'$TMP/$o.yaml' 2>'$TMP/err'" || cat "$TMP/err"
done

# args, as the kubelet passes them ($(VAR) filled in from the ConfigMap), and
# ExecStart=... in the unit: one line each, arguments separated by \x1f.
for o in stdout prometheus; do python3 "$M" args "$TMP/$o.yaml"; done >"$TMP/args"
python3 - "$DEPLOY/agent.service" >>"$TMP/args" <<'PY'
import re, shlex, sys
unit = open(sys.argv[1]).read()
m = re.search(r'^ExecStart=(\S+)\s+(.*)$', unit, re.M)
print("\x1f".join(shlex.split(m.group(2))))
PY
expect "deploy files carry agent arguments" [ "$(grep -c . "$TMP/args")" = 3 ]
n=0
while IFS= read -r line; do
	n=$((n + 1))
	IFS=$'\x1f' read -r -a args <<<"$line"	# one argument per field
	# the metrics server on a free port here, not the deployed one; files here too
	for i in "${!args[@]}"; do
		case ${args[$i]} in
		--metrics*) args[$i]=--metrics=127.0.0.1:0 ;;
		file:*) args[$i]=file:$TMP/file$n ;;
		--output=file:*) args[$i]=--output=file:$TMP/file$n ;;
		esac
	done
	"$AGENT" -r "$FIXTURE" "${args[@]}" >"$TMP/out$n" 2>"$TMP/err$n"; rc=$?
	expect "deploy arguments #$n run: ${args[*]}" [ $rc = 0 ] || tail -3 "$TMP/err$n"
	expect "deploy arguments #$n select events" \
		bash -c "[ -s '$TMP/out$n' ] || [ -s '$TMP/file$n' ]"
done <"$TMP/args"

check() {	# check DESCRIPTION OVERLAY CHECK ARGS...: manifests.py says what is wrong
	local what=$1 o=$2; shift 2
	expect "overlays/$o: $what" python3 "$M" check "$TMP/$o.yaml" "$@"
}
# The unit's capability set is the documented one; the DaemonSet holds exactly it.
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$DEPLOY/agent.service")
expect "the unit names its capabilities ($caps)" [ -n "$caps" ]
for o in stdout prometheus; do
	check "not privileged: uid 0 with only $caps, read-only root, hostPID" $o security $caps
	check "mounts only what the agent reads, read-only under /host (containerd)" $o mounts containerd
	check "memory request and limit count the rings of a $NODE_CPUS-CPU node" $o memory $NODE_CPUS
	check "runs on every node, system-node-critical, rolling updates" $o placement
done
# The checks can fail: the old DaemonSet's faults, put back into a copy.
python3 - "$TMP/prometheus.yaml" >"$TMP/old.yaml" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
pod = next(d for d in docs if d["kind"] == "DaemonSet")["spec"]["template"]["spec"]
c = pod["containers"][0]
c["securityContext"] = {"privileged": True}
c["resources"] = {"requests": {"memory": "64Mi"}, "limits": {"memory": "128Mi"}}
c["volumeMounts"].append({"name": "etc", "mountPath": "/host/etc", "readOnly": True})
pod["volumes"].append({"name": "etc", "hostPath": {"path": "/etc"}})
c["ports"][0]["containerPort"] = 9377
yaml.safe_dump_all(docs, sys.stdout)
PY
for c in "security $caps|privileged" "mounts containerd|/etc" "memory $NODE_CPUS|rings" "metrics|9377"; do
	read -r -a chk <<<"${c%|*}"
	python3 "$M" check "$TMP/old.yaml" "${chk[@]}" >"$TMP/check.out"; rc=$?
	expect "check ${chk[0]} catches the old DaemonSet's fault (${c#*|})" \
		bash -c "[ $rc = 1 ] && grep -q '${c#*|}' '$TMP/check.out'" || cat "$TMP/check.out"
done
check "serves --metrics on the containerPort the annotations name, probes /healthz there" prometheus metrics
check "no metrics server, no probes" stdout no-metrics

# Each runtime's component, in place of the base's containerd, mounts its files.
cp -r "$DEPLOY/k8s" "$TMP/k8s"
for rt in cri-o docker; do
	sed -i "s|- ../components/containerd$|- ../components/$rt|" "$TMP/k8s/base/kustomization.yaml"
	kubectl kustomize "$TMP/k8s/overlays/stdout" >"$TMP/stdout-$rt.yaml"
	expect "components/$rt: mounts only what the agent reads ($rt), read-only under /host" \
		python3 "$M" check "$TMP/stdout-$rt.yaml" mounts $rt
	expect "components/$rt: still least privilege" \
		python3 "$M" check "$TMP/stdout-$rt.yaml" security $caps
	sed -i "s|- ../components/$rt$|- ../components/containerd|" "$TMP/k8s/base/kustomization.yaml"
done

# The image is set in one place: the base's images: entry reaches every overlay.
image() { python3 -c 'import sys, yaml; i = yaml.safe_load(open(sys.argv[1]))["images"][0]
print("%s:%s" % (i["newName"], i["newTag"]))' "$1"; }
for o in stdout prometheus; do
	check "runs the base's image, $(image "$DEPLOY/k8s/base/kustomization.yaml")" $o \
		image "$(image "$DEPLOY/k8s/base/kustomization.yaml")"
done
sed -i 's|^\( *newName:\).*|\1 registry.test/team/agent|; s|^\( *newTag:\).*|\1 "9.9"|' \
	"$TMP/k8s/base/kustomization.yaml"
for o in stdout prometheus; do
	kubectl kustomize "$TMP/k8s/overlays/$o" >"$TMP/$o-image.yaml"
	expect "overlays/$o: another image in the base's images: is the one it runs" \
		python3 "$M" check "$TMP/$o-image.yaml" image registry.test/team/agent:9.9
done
expect "every container says image: agent, for the base's images: to set" \
	bash -c "! grep -rn '^[- ]*image:' '$DEPLOY/k8s' --include=*.yaml | grep -v 'image: agent$'"
finish
