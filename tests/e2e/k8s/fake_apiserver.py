#!/usr/bin/env python3
"""Just enough of a Kubernetes API server for `kubectl apply -k` and `kubectl delete -k`
to run as a user runs them: discovery for the kinds deploy/k8s renders, an OpenAPI v3
index saying the server validates fields (so kubectl sends fieldValidation=Strict
instead of fetching schemas), no objects at first, creates and deletes accepted.
Every created object is written to OUTDIR/<kind>-<name>.json for the test to validate.

  fake_apiserver.py OUTDIR     prints its port on stdout, serves on 127.0.0.1 until killed
"""
import http.server
import json
import os
import sys

RESOURCES = {  # group/version -> (resource, kind)
    "v1": [("configmaps", "ConfigMap"), ("serviceaccounts", "ServiceAccount")],
    "apps/v1": [("daemonsets", "DaemonSet")],
}
OUTDIR = sys.argv[1]


def gv_path(gv):
    return "api/" + gv if "/" not in gv else "apis/" + gv


def discovery(path):
    if path == "/version":
        return {"major": "1", "minor": "32", "gitVersion": "v1.32.0"}
    if path == "/api":
        return {"kind": "APIVersions", "versions": ["v1"]}
    if path == "/apis":
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
            {"name": gv.split("/")[0],
             "versions": [{"groupVersion": gv, "version": gv.split("/")[1]}],
             "preferredVersion": {"groupVersion": gv, "version": gv.split("/")[1]}}
            for gv in RESOURCES if "/" in gv]}
    if path == "/openapi/v3":
        return {"paths": {gv_path(gv): {"serverRelativeURL": "/openapi/v3/" + gv_path(gv)}
                          for gv in RESOURCES}}
    for gv, kinds in RESOURCES.items():
        group, _, version = gv.rpartition("/")
        if path == "/" + gv_path(gv):
            return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv,
                    "resources": [{"name": r, "singularName": k.lower(), "namespaced": True,
                                   "kind": k, "verbs": ["create", "delete", "get", "list",
                                                        "patch", "update", "watch"]}
                                  for r, k in kinds]}
        # kubectl looks for a fieldValidation parameter on the kind's PATCH
        if path == "/openapi/v3/" + gv_path(gv):
            return {"openapi": "3.0.0", "info": {"title": "fake", "version": "v1"}, "paths": {
                "/%s/namespaces/{namespace}/%s/{name}" % (gv_path(gv), r): {"patch": {
                    "x-kubernetes-group-version-kind": {"group": group, "version": version, "kind": k},
                    "parameters": [{"name": "fieldValidation", "in": "query",
                                    "schema": {"type": "string"}}]}}
                for r, k in kinds}}
    return None


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, fmt, *args):
        sys.stderr.write("%s %s\n" % (self.command, self.path))

    def reply(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def not_found(self):
        self.reply(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                         "reason": "NotFound", "code": 404})

    def do_GET(self):
        path = self.path.split("?")[0]
        if path == "/api/v1/namespaces/kube-system":
            return self.reply(200, {"kind": "Namespace", "apiVersion": "v1",
                                    "metadata": {"name": "kube-system"}})
        obj = discovery(path)
        self.reply(200, obj) if obj is not None else self.not_found()

    def do_POST(self):
        obj = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        if "fieldValidation=Strict" not in self.path:
            return self.reply(400, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                    "message": "expected fieldValidation=Strict", "code": 400})
        with open(os.path.join(OUTDIR, "%s-%s.json" % (obj["kind"], obj["metadata"]["name"])), "w") as f:
            json.dump(obj, f)
        self.reply(201, obj)

    def do_DELETE(self):
        self.reply(200, {"kind": "Status", "apiVersion": "v1", "status": "Success"})


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
