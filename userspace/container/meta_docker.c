/* Docker: /var/lib/docker/containers/<id>/config.v2.json ("Name" with a
 * leading '/', "Image" the image id as "sha256:<hex>", "Config"."Image" the
 * image as the user named it, "Config"."Labels"), and hostconfig.json beside
 * it ("Privileged"). Under Kubernetes (dockershim, cri-dockerd) the pod is in
 * the io.kubernetes.* labels and the sandbox is named k8s_POD_... */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "meta_int.h"

#define DOCKER_DIR "/var/lib/docker/containers"

static void docker__privileged(const char *root, const char *id, struct container_info *ci)
{
	char path[PATH_MAX];
	json_object *hc, *v;
	int err;

	snprintf(path, sizeof(path), DOCKER_DIR "/%s/hostconfig.json", id);
	hc = meta__read_json(root, path, META_FILE_MAX, json_type_object, &err);
	if (!hc)
		return;
	if (json_object_object_get_ex(hc, "Privileged", &v) &&
	    json_object_is_type(v, json_type_boolean))
		ci->privileged = json_object_get_boolean(v) ? 1 : 0;
	json_object_put(hc);
}

int meta__docker(const char *root, const struct container_ident *id, struct container_info *ci)
{
	const char *name;
	json_object *cfg, *config;
	char path[PATH_MAX];
	int err = 0;

	snprintf(path, sizeof(path), DOCKER_DIR "/%s/config.v2.json", id->id);
	cfg = meta__read_json(root, path, META_FILE_MAX, json_type_object, &err);
	if (!cfg)
		return err == -ENOENT ? 0 : err;
	ci->type = CT_DOCKER;
	name = meta__str(cfg, "Name");
	if (name && name[0] == '/')
		name++;
	err |= meta__set(&ci->name, name);
	ci->is_pod_sandbox = name && strncmp(name, "k8s_POD", 7) == 0;
	config = meta__obj(cfg, "Config");
	err |= meta__set(&ci->image, meta__str(config, "Image"));
	err |= meta__set_image_id(ci, meta__str(cfg, "Image"));
	err |= meta__set_pod_labels(ci, meta__obj(config, "Labels"));
	json_object_put(cfg);
	if (err)
		return -ENOMEM;
	docker__privileged(root, id->id, ci);
	return meta__split_image(ci) ?: 1;
}
