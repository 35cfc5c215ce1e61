/* containerd: the OCI bundle of each task, under its namespace,
 *   /run/containerd/io.containerd.runtime.v2.task/<namespace>/<id>/config.json
 * (runtime v1: io.containerd.runtime.v1.linux). Its CRI plugin (namespace k8s.io)
 * names the container, pod and image in the spec's annotations. Docker's own
 * containers are there too (namespace moby): those are read from Docker's files. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "meta_int.h"

static const char *const task_dirs[] = {
	"/run/containerd/io.containerd.runtime.v2.task",
	"/run/containerd/io.containerd.runtime.v1.linux",
};

/* Finds the namespace holding bundle ID under DIR: NS filled, 0, or -ENOENT. */
static int bundle__find(const char *root, const char *dir, const char *id, char *ns, size_t n)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int rc = -ENOENT;

	/* the CRI's namespace first: on a node nearly every task is there */
	snprintf(path, sizeof(path), "%s/k8s.io/%s/config.json", dir, id);
	if (meta__exists(root, path)) {
		snprintf(ns, n, "k8s.io");
		return 0;
	}
	if (snprintf(path, sizeof(path), "%s%s", root, dir) >= (int)sizeof(path))
		return -ENOENT;
	d = opendir(path);
	if (!d)
		return -ENOENT;
	while ((de = readdir(d))) {
		char cfg[PATH_MAX];

		if (de->d_name[0] == '.' || strlen(de->d_name) >= n)
			continue;
		snprintf(cfg, sizeof(cfg), "%s/%s/%s/config.json", dir, de->d_name, id);
		if (meta__exists(root, cfg)) {
			snprintf(ns, n, "%s", de->d_name);
			rc = 0;
			break;
		}
	}
	closedir(d);
	return rc;
}

static int cri__fill(json_object *ann, struct container_info *ci)
{
	const char *kind = meta__str(ann, "io.kubernetes.cri.container-type");
	int err = 0;

	ci->is_pod_sandbox = kind && strcmp(kind, "sandbox") == 0;
	/* a pod's sandbox is named after the pod, as the CRI reports it */
	err |= meta__set(&ci->name, meta__str(ann, ci->is_pod_sandbox
					      ? "io.kubernetes.cri.sandbox-name"
					      : "io.kubernetes.cri.container-name"));
	err |= meta__set(&ci->image, meta__str(ann, ci->is_pod_sandbox
					       ? "io.kubernetes.cri.podsandbox.image-name"
					       : "io.kubernetes.cri.image-name"));
	err |= meta__set(&ci->pod_name, meta__str(ann, "io.kubernetes.cri.sandbox-name"));
	err |= meta__set(&ci->pod_namespace, meta__str(ann, "io.kubernetes.cri.sandbox-namespace"));
	err |= meta__set(&ci->pod_uid, meta__str(ann, "io.kubernetes.cri.sandbox-uid"));
	/* nerdctl's containers (not the CRI's) carry their name here */
	if (!ci->name)
		err |= meta__set(&ci->name, meta__str(ann, "nerdctl/name"));
	return err ? -ENOMEM : meta__split_image(ci);
}

int meta__containerd(const char *root, const struct container_ident *id,
		     struct container_info *ci)
{
	char ns[NAME_MAX + 1], path[PATH_MAX];
	json_object *spec;
	int err = 0, rc;

	for (size_t i = 0; i < sizeof(task_dirs) / sizeof(task_dirs[0]); i++) {
		if (bundle__find(root, task_dirs[i], id->id, ns, sizeof(ns)))
			continue;
		if (strcmp(ns, "moby") == 0)
			return meta__docker(root, id, ci);
		snprintf(path, sizeof(path), "%s/%s/%s/config.json", task_dirs[i], ns, id->id);
		spec = meta__read_json(root, path, META_FILE_MAX, json_type_object, &err);
		if (!spec)
			return err == -ENOENT ? 0 : err;	/* gone since: no file */
		ci->type = CT_CONTAINERD;
		rc = cri__fill(meta__obj(spec, "annotations"), ci);
		json_object_put(spec);
		return rc < 0 ? rc : 1;
	}
	return 0;
}
