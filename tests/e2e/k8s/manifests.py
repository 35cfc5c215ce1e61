#!/usr/bin/env python3
"""Checks on the objects `kubectl kustomize deploy/k8s/overlays/X` renders.

  manifests.py args FILE           the agent's arguments as the kubelet passes them
                                   ($(VAR) filled in from env and the ConfigMap),
                                   one line, separated by \\x1f
  manifests.py json FILE           the objects as a JSON array (for validate.mjs)
  manifests.py check FILE CHECK... exits 1 naming what is wrong:
    security CAP...      least privilege: exactly these capabilities
    mounts RUNTIME       only the host paths the agent reads, read-only under /host
    memory CPUS          requests and limits count the perf rings of CPUS CPUs
    metrics | no-metrics the Prometheus overlay's port, probes and annotations agree
    placement            every node, critical priority, rolling updates
    image REF            every container runs REF
"""
import json
import re
import sys

import yaml

# What the agent reads on the host (userspace/container/meta_*.c, users.c,
# procfs.c), by container runtime; the runtime files are mounted per runtime.
HOST_PATHS = {"/proc", "/sys/kernel/btf", "/etc/passwd", "/etc/group"}
RUNTIME_PATHS = {
    "containerd": ["/run/containerd/io.containerd.runtime.v2.task"],
    "cri-o": ["/var/lib/containers/storage", "/run/containers/storage"],
    "docker": ["/var/lib/docker/containers"],
}
MI = 1 << 20
# agent defaults (README: Flags) and the heap, tables and BPF maps the sizing
# formula in deploy/k8s/base/daemonset.yaml allows for
RING_DEFAULT = QUEUE_DEFAULT = 8 * MI
AGENT_BASE = 64 * MI


def load(path):
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d]


def daemonset(docs):
    ds = [d for d in docs if d["kind"] == "DaemonSet"]
    assert len(ds) == 1, "want one DaemonSet, have %d" % len(ds)
    return ds[0]


def agent_container(docs):
    (c,) = [c for c in daemonset(docs)["spec"]["template"]["spec"]["containers"] if c["name"] == "agent"]
    return c


def env_of(docs, c):
    """The container's environment as the kubelet builds it (value, ConfigMap keys)."""
    cms = {d["metadata"]["name"]: d.get("data", {}) for d in docs if d["kind"] == "ConfigMap"}
    env = {}
    for src in c.get("envFrom", []):
        env.update(cms[src["configMapRef"]["name"]])
    for e in c.get("env", []):
        if "value" in e:
            env[e["name"]] = expand(e["value"], env)
        elif "configMapKeyRef" in e.get("valueFrom", {}):
            ref = e["valueFrom"]["configMapKeyRef"]
            assert ref["name"] in cms, "env %s: no ConfigMap %s" % (e["name"], ref["name"])
            env[e["name"]] = cms[ref["name"]][ref["key"]]
    return env


def expand(s, env):
    """Kubernetes' $(VAR) expansion: $$ is a literal $, unknown names stay as written."""
    return re.sub(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)",
                  lambda m: "$" if m.group(0) == "$$" else env.get(m.group(1), m.group(0)), s)


def args(docs):
    c = agent_container(docs)
    env = env_of(docs, c)
    return [expand(a, env) for a in c.get("command", []) + c.get("args", [])]


def opt(argv, name):
    """Value of --name=V or --name V, None when absent."""
    for i, a in enumerate(argv):
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
        if a == name and i + 1 < len(argv):
            return argv[i + 1]
    return None


def agent_size(s):
    """The agent's sizes: K, M, G are powers of 1024."""
    m = re.fullmatch(r"(\d+)([KMG]?)", s)
    assert m, "bad size " + s
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2)]


def quantity(s):
    """A Kubernetes memory quantity in bytes (Ki/Mi/Gi binary, k/M/G decimal)."""
    m = re.fullmatch(r"(\d+)(Ki|Mi|Gi|Ti|k|M|G|T)?", str(s))
    assert m, "bad quantity %s" % s
    mult = {None: 1, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40,
            "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}[m.group(2)]
    return int(m.group(1)) * mult


def check_security(docs, caps):
    pod = daemonset(docs)["spec"]["template"]["spec"]
    c = agent_container(docs)
    sc = c.get("securityContext", {})
    want = sorted(a.removeprefix("CAP_") for a in caps)
    have = sorted(a.removeprefix("CAP_") for a in sc.get("capabilities", {}).get("add", []))
    bad = []
    if sc.get("privileged", False):
        bad.append("privileged")
    if have != want:
        bad.append("capabilities %s, want %s" % (have, want))
    if set(have) & {"ALL", "SYS_ADMIN", "SYS_MODULE", "NET_ADMIN", "SYS_RAWIO"}:
        bad.append("capabilities %s amount to privileged" % have)
    if sc.get("capabilities", {}).get("drop") != ["ALL"]:
        bad.append("does not drop ALL other capabilities")
    if sc.get("allowPrivilegeEscalation") is not False:
        bad.append("allowPrivilegeEscalation is not false")
    if sc.get("readOnlyRootFilesystem") is not True:
        bad.append("root filesystem writable")
    if sc.get("runAsUser") != 0:
        bad.append("not uid 0: added capabilities would not be effective")
    if pod.get("hostPID") is not True:
        bad.append("no hostPID")
    for k in ("hostNetwork", "hostIPC"):
        if pod.get(k):
            bad.append(k)
    if sc.get("seccompProfile", {}).get("type") not in ("RuntimeDefault", "Unconfined"):
        bad.append("seccomp profile not set")
    return bad


def check_mounts(docs, runtime):
    pod = daemonset(docs)["spec"]["template"]["spec"]
    c = agent_container(docs)
    vols = {v["name"]: v for v in pod.get("volumes", [])}
    bad = []
    if env_of(docs, c).get("HOST_ROOT") != "/host":
        bad.append("HOST_ROOT is not /host")
    allowed = HOST_PATHS | set(RUNTIME_PATHS[runtime])
    mounted = {}
    for m in c.get("volumeMounts", []):
        v = vols[m["name"]]
        if "hostPath" not in v:
            continue
        hp = v["hostPath"]
        path = hp["path"].rstrip("/") or "/"
        if path not in allowed:
            bad.append("host path %s is not one the agent needs" % path)
        if not m.get("readOnly"):
            bad.append("%s writable" % path)
        # the kernel's BTF is looked for where libbpf looks, the rest under HOST_ROOT
        if m["mountPath"] != (path if path == "/sys/kernel/btf" else "/host" + path):
            bad.append("%s mounted at %s" % (path, m["mountPath"]))
        # nothing created on the host: the path must be there, as what it should be
        if hp.get("type") not in ("Directory", "File"):
            bad.append("%s hostPath type %r" % (path, hp.get("type")))
        mounted[path] = m
    for path in sorted(allowed - set(mounted)):
        bad.append("%s not mounted" % path)
    return bad


def check_memory(docs, cpus):
    c = agent_container(docs)
    argv = args(docs)
    res = c.get("resources", {})
    rs, qs = opt(argv, "--ring-size"), opt(argv, "--queue-size")
    ring = agent_size(rs) if rs else RING_DEFAULT
    queue = agent_size(qs) if qs else QUEUE_DEFAULT
    outputs = sum(1 for a in argv if a == "--output" or a.startswith("--output="))
    outputs = outputs or (0 if "-q" in argv else 1)
    want_req = ring * cpus + AGENT_BASE
    want_lim = want_req + queue * outputs
    bad = []
    req = quantity(res.get("requests", {}).get("memory", 0))
    lim = quantity(res.get("limits", {}).get("memory", 0))
    if req < want_req:
        bad.append("memory request %d MiB < rings %d x %d MiB + %d MiB" % (req // MI, cpus, ring // MI, AGENT_BASE // MI))
    if lim < want_lim:
        bad.append("memory limit %d MiB < %d MiB (request + %d output queues of %d MiB)"
                   % (lim // MI, want_lim // MI, outputs, queue // MI))
    if "cpu" in res.get("limits", {}):
        bad.append("a CPU limit throttles the ring reader")
    return bad


def check_metrics(docs, want):
    ds = daemonset(docs)
    c = agent_container(docs)
    argv = args(docs)
    m = opt(argv, "--metrics")
    if not want:
        bad = ["serves --metrics where none is wanted"] if m or "--metrics" in argv else []
        if c.get("livenessProbe") or c.get("ports"):
            bad.append("probes or ports without a metrics server")
        return bad
    if not m:
        return ["no --metrics=ADDR:PORT"]
    addr, _, port = m.rpartition(":")
    bad = []
    if addr not in ("", "0.0.0.0", "[::]"):
        bad.append("--metrics=%s is not reachable from the kubelet and Prometheus" % m)
    ports = {p.get("name"): p["containerPort"] for p in c.get("ports", [])}
    if str(ports.get("metrics")) != port:
        bad.append("containerPort metrics %s, --metrics port %s" % (ports.get("metrics"), port))
    ann = ds["spec"]["template"]["metadata"].get("annotations", {})
    if ann.get("prometheus.io/scrape") != "true" or ann.get("prometheus.io/port") != port:
        bad.append("prometheus.io annotations %s" % ann)
    for probe in ("livenessProbe", "readinessProbe"):
        get = c.get(probe, {}).get("httpGet", {})
        if get.get("path") != "/healthz" or str(get.get("port")) not in ("metrics", port):
            bad.append("%s %s is not /healthz on the metrics port" % (probe, get))
    return bad


def check_placement(docs):
    ds = daemonset(docs)
    pod = ds["spec"]["template"]["spec"]
    bad = []
    if not any(t.get("operator") == "Exists" and not t.get("key") and not t.get("effect")
               for t in pod.get("tolerations", [])):
        bad.append("does not tolerate every taint")
    if pod.get("priorityClassName") != "system-node-critical":
        bad.append("priority class %s" % pod.get("priorityClassName"))
    # system-node-critical pods are admitted in kube-system only (by default)
    if ds["metadata"].get("namespace") != "kube-system":
        bad.append("namespace %s" % ds["metadata"].get("namespace"))
    upd = ds["spec"].get("updateStrategy", {})
    if upd.get("type") != "RollingUpdate" or "maxUnavailable" not in upd.get("rollingUpdate", {}):
        bad.append("update strategy %s" % upd)
    sas = [d["metadata"]["name"] for d in docs if d["kind"] == "ServiceAccount"]
    if pod.get("serviceAccountName") not in sas:
        bad.append("service account %s not rendered" % pod.get("serviceAccountName"))
    if pod.get("automountServiceAccountToken") is not False:
        bad.append("mounts an API token it does not use")
    return bad


def check_image(docs, ref):
    imgs = [c["image"] for c in daemonset(docs)["spec"]["template"]["spec"]["containers"]]
    return ["image %s, want %s" % (i, ref) for i in imgs if i != ref]


def main(argv):
    cmd, path = argv[1], argv[2]
    docs = load(path)
    if cmd == "args":
        print("\x1f".join(args(docs)))
        return 0
    if cmd == "json":
        json.dump(docs, sys.stdout)
        return 0
    name, rest = argv[3], argv[4:]
    bad = {
        "security": lambda: check_security(docs, rest),
        "mounts": lambda: check_mounts(docs, rest[0]),
        "memory": lambda: check_memory(docs, int(rest[0])),
        "metrics": lambda: check_metrics(docs, True),
        "no-metrics": lambda: check_metrics(docs, False),
        "placement": lambda: check_placement(docs),
        "image": lambda: check_image(docs, rest[0]),
    }[name]()
    for b in bad:
        print("  %s: %s" % (path.rsplit("/", 1)[-1], b))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
