#!/usr/bin/env bash
# deploy/k8s against the Kubernetes API: every object each overlay renders (with
# each runtime's component) validates against the API's schemas, strictly, and
# broken copies do not; the README's kubectl apply -k / delete -k run against a
# stand-in API server, which gets exactly those objects. No cluster needed.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
K8S_TESTS=$ROOT/tests/e2e/k8s

command -v kubectl >/dev/null || need_pkgs kubectl
command -v node >/dev/null && command -v npm >/dev/null || need_pkgs nodejs npm
need_pkgs python3-yaml
command -v kubectl >/dev/null || { echo "FAIL: no kubectl (package kubectl)"; exit 1; }

# The schemas: kubernetes-models, versions pinned by the lock file.
mkdir "$TMP/npm"
cp "$K8S_TESTS/package.json" "$K8S_TESTS/package-lock.json" "$K8S_TESTS/validate.mjs" "$TMP/npm/"
expect "the Kubernetes schemas install (npm ci)" \
	bash -c "cd '$TMP/npm' && timeout 240 npm ci --no-audit --no-fund --loglevel=error >'$TMP/npm.log' 2>&1" ||
	tail -20 "$TMP/npm.log"
validate() { node "$TMP/npm/validate.mjs" "$@" >"$TMP/v.out"; }

# Each overlay, with each runtime's component in place of the base's default.
cp -r "$ROOT/deploy/k8s" "$TMP/k8s"
for rt in containerd cri-o docker; do
	sed -i "s|- ../components/containerd$|- ../components/$rt|" "$TMP/k8s/base/kustomization.yaml"
	for o in stdout prometheus; do
		kubectl kustomize "$TMP/k8s/overlays/$o" >"$TMP/$o-$rt.yaml" &&
			python3 "$K8S_TESTS/manifests.py" json "$TMP/$o-$rt.yaml" >"$TMP/$o-$rt.json"
		expect "overlays/$o ($rt) validates against the API schemas" validate "$TMP/$o-$rt.json" ||
			grep -v '^ok' "$TMP/v.out"
	done
	sed -i "s|- ../components/$rt$|- ../components/containerd|" "$TMP/k8s/base/kustomization.yaml"
done

# The validation can fail: one mistake each, as a hand edit would make them.
python3 - "$TMP/prometheus-containerd.json" "$TMP" <<'PY'
import copy, json, sys
objs = json.load(open(sys.argv[1]))
def broken(name, edit):
    o = copy.deepcopy(objs)
    ds = next(x for x in o if x["kind"] == "DaemonSet")
    edit(ds["spec"]["template"]["spec"], ds["spec"]["template"]["spec"]["containers"][0])
    json.dump(o, open("%s/broken-%s.json" % (sys.argv[2], name), "w"))
broken("type", lambda pod, c: pod.update(hostPID="true"))
broken("field", lambda pod, c: c["securityContext"].update(readOnlyRootFileSystem=True))
broken("required", lambda pod, c: c["ports"][0].pop("containerPort"))
broken("quantity", lambda pod, c: c["resources"]["limits"].update(memory="256MB"))
broken("enum", lambda pod, c: c["securityContext"]["seccompProfile"].update(type="Default"))
PY
for b in type:hostPID field:readOnlyRootFileSystem required:containerPort quantity:memory enum:type; do
	validate "$TMP/broken-${b%%:*}.json"; rc=$?
	expect "a DaemonSet with a bad ${b%%:*} is rejected, naming ${b#*:}" \
		bash -c "[ $rc = 1 ] && grep -q '${b#*:}' '$TMP/v.out'" || cat "$TMP/v.out"
done

# The README's commands, from the repository's root, against a stand-in API server.
mkdir "$TMP/api"
python3 "$K8S_TESTS/fake_apiserver.py" "$TMP/api" >"$TMP/api.port" 2>"$TMP/api.log" &
api=$!
trap 'kill $api 2>/dev/null; cleanup_e2e' EXIT
wait_for 30 test -s "$TMP/api.port"
cat >"$TMP/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters: [{ name: test, cluster: { server: "http://127.0.0.1:$(cat "$TMP/api.port")" } }]
users: [{ name: test, user: {} }]
contexts: [{ name: test, context: { cluster: test, user: test } }]
current-context: test
EOF
export KUBECONFIG=$TMP/kubeconfig
cd "$ROOT"
for o in stdout prometheus; do
	rm -f "$TMP/api/"*
	timeout 60 kubectl apply -k "deploy/k8s/overlays/$o" >"$TMP/apply.out" 2>&1; rc=$?
	expect "kubectl apply -k deploy/k8s/overlays/$o creates the DaemonSet, its ServiceAccount and ConfigMap" \
		bash -c "[ $rc = 0 ] && grep -q '^daemonset.apps/agent created' '$TMP/apply.out' &&
			grep -q '^serviceaccount/agent created' '$TMP/apply.out' &&
			grep -q '^configmap/agent-[a-z0-9]* created' '$TMP/apply.out'" || cat "$TMP/apply.out"
	# what the server got is what kubectl kustomize renders (plus apply's annotation)
	expect "the API server got exactly overlays/$o's objects" python3 - "$TMP/api" "$TMP/$o-containerd.json" <<'PY'
import glob, json, sys
got = {}
for f in glob.glob(sys.argv[1] + "/*.json"):
    o = json.load(open(f))
    o["metadata"].get("annotations", {}).pop("kubectl.kubernetes.io/last-applied-configuration", None)
    if not o["metadata"].get("annotations"):
        o["metadata"].pop("annotations", None)
    got[o["kind"], o["metadata"]["name"]] = o
want = {(o["kind"], o["metadata"]["name"]): o for o in json.load(open(sys.argv[2]))}
assert got == want, "server got %s, rendered %s" % (sorted(got), sorted(want))
PY
	timeout 60 kubectl delete -k "deploy/k8s/overlays/$o" >"$TMP/delete.out" 2>&1; rc=$?
	expect "kubectl delete -k deploy/k8s/overlays/$o deletes them" \
		bash -c "[ $rc = 0 ] && grep -q '^daemonset.apps \"agent\" deleted' '$TMP/delete.out'" || cat "$TMP/delete.out"
done
image=$(python3 -c 'import sys, yaml; i = yaml.safe_load(open(sys.argv[1]))["images"][0]
print("%s:%s" % (i["newName"], i["newTag"]))' deploy/k8s/base/kustomization.yaml)
kubectl kustomize deploy/k8s/overlays/prometheus | grep 'image:' >"$TMP/image.out"
expect "kubectl kustomize ... | grep image: shows the base's image, $image" \
	grep -qx " *image: $image" "$TMP/image.out"
finish
