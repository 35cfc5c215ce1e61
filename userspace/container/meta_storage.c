/* CRI-O and Podman keep their containers in containers/storage:
 *   <storage>/<driver>-containers/<id>/userdata/config.json   the OCI spec
 *   <storage>/<driver>-containers/containers.json             every container:
 *       "id", "names", "image", "metadata" (a JSON string: "image-name", "name")
 *   <storage>/<driver>-containers/volatile-containers.json    the same for
 *       containers made to be removed (podman run --rm) or a transient store
 * with <storage> /var/lib/containers/storage (or /run/containers/storage). The
 * spec's annotation io.container.manager says which runtime made it: "libpod"
 * (Podman: name and image from the lists, io.podman.annotations.privileged
 * "TRUE" only when privileged) or "cri-o" (the pod and container from the
 * kubelet's io.kubernetes.* labels, which CRI-O copies into the annotations,
 * the image from io.kubernetes.cri-o.Image as the kubelet asked for it). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "meta_int.h"

static const char *const storages[] = {
	"/var/lib/containers/storage",
	"/run/containers/storage",
};

static const char *const drivers[] = {
	"overlay", "vfs", "btrfs", "zfs", "devmapper", "aufs",
};

/* The directory "<storage>/<driver>-containers" that holds ID; 0 or -ENOENT. */
static int storage__find(const char *root, const char *id, char *dir, size_t n)
{
	char path[PATH_MAX];

	for (size_t s = 0; s < sizeof(storages) / sizeof(storages[0]); s++) {
		for (size_t d = 0; d < sizeof(drivers) / sizeof(drivers[0]); d++) {
			snprintf(path, sizeof(path), "%s/%s-containers/%s/userdata/config.json",
				 storages[s], drivers[d], id);
			if (!meta__exists(root, path))
				continue;
			snprintf(dir, n, "%s/%s-containers", storages[s], drivers[d]);
			return 0;
		}
	}
	return -ENOENT;
}

static const char *const lists[] = { "containers.json", "volatile-containers.json" };

/* Podman: the container's name and image from its entry in list file PATH.
 * 1 found, 0 not listed there, -errno. */
static int podman__list(const char *root, const char *path, const char *id,
			struct container_info *ci)
{
	json_object *list, *meta = NULL;
	size_t n;
	int err = 0, rc = 0;

	list = meta__read_json(root, path, META_LIST_MAX, json_type_array, &err);
	if (!list)
		return err == -ENOENT ? 0 : err;
	n = json_object_array_length(list);
	for (size_t i = 0; i < n && !rc; i++) {
		json_object *e = json_object_array_get_idx(list, i), *names, *first;
		const char *eid = meta__str(e, "id"), *m;

		if (!eid || strcmp(eid, id))
			continue;
		rc = 1;
		if (json_object_object_get_ex(e, "names", &names) &&
		    json_object_is_type(names, json_type_array) &&
		    (first = json_object_array_get_idx(names, 0)) &&
		    json_object_is_type(first, json_type_string))
			err |= meta__set(&ci->name, json_object_get_string(first));
		/* "metadata" is itself JSON, in a string */
		m = meta__str(e, "metadata");
		if (m && (meta = json_tokener_parse(m)) && json_object_is_type(meta, json_type_object)) {
			err |= meta__set(&ci->image, meta__str(meta, "image-name"));
			err |= meta__set_image_id(ci, meta__str(meta, "image-id"));
			if (!ci->name)
				err |= meta__set(&ci->name, meta__str(meta, "name"));
		}
		if (!ci->image_id)
			err |= meta__set_image_id(ci, meta__str(e, "image"));
		json_object_put(meta);
	}
	json_object_put(list);
	return err ? -ENOMEM : rc;
}

/* Podman: the lists of the storage that holds the container (DIR) and of the
 * other storage with the same driver. */
static int podman__lists(const char *root, const char *dir, const char *id,
			 struct container_info *ci)
{
	const char *driver = strrchr(dir, '/');
	char path[PATH_MAX];
	int rc;

	for (size_t s = 0; s < sizeof(storages) / sizeof(storages[0]); s++) {
		for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
			snprintf(path, sizeof(path), "%s%s/%s", storages[s], driver, lists[l]);
			if ((rc = podman__list(root, path, id, ci)) != 0)
				return rc;
		}
	}
	return 0;
}

static int crio__fill(json_object *ann, struct container_info *ci)
{
	const char *kind = meta__str(ann, "io.kubernetes.cri-o.ContainerType");
	int err = 0;

	ci->type = CT_CRIO;
	ci->is_pod_sandbox = kind && strcmp(kind, "sandbox") == 0;
	err |= meta__set(&ci->name, meta__str(ann, ci->is_pod_sandbox
					      ? "io.kubernetes.pod.name"
					      : "io.kubernetes.container.name"));
	err |= meta__set(&ci->image, meta__str(ann, "io.kubernetes.cri-o.Image"));
	if (!ci->image)
		err |= meta__set(&ci->image, meta__str(ann, "io.kubernetes.cri-o.ImageName"));
	err |= meta__set_image_id(ci, meta__str(ann, "io.kubernetes.cri-o.ImageRef"));
	err |= meta__set_pod_labels(ci, ann);
	return err ? -ENOMEM : meta__split_image(ci);
}

/* "<storage>/<driver>-containers" */
#define STORAGE_DIR_MAX 128

int meta__storage(const char *root, const struct container_ident *id, struct container_info *ci)
{
	char dir[STORAGE_DIR_MAX], path[PATH_MAX];
	const char *manager, *priv;
	json_object *spec, *ann;
	int err = 0, rc;

	if (storage__find(root, id->id, dir, sizeof(dir)))
		return 0;
	snprintf(path, sizeof(path), "%s/%s/userdata/config.json", dir, id->id);
	spec = meta__read_json(root, path, META_FILE_MAX, json_type_object, &err);
	if (!spec)
		return err == -ENOENT ? 0 : err;
	ann = meta__obj(spec, "annotations");
	manager = meta__str(ann, "io.container.manager");
	if ((manager && strcmp(manager, "cri-o") == 0) ||
	    (!manager && meta__str(ann, "io.kubernetes.cri-o.ContainerType"))) {
		rc = crio__fill(ann, ci);
		json_object_put(spec);
		return rc < 0 ? rc : 1;
	}
	ci->type = CT_PODMAN;
	priv = meta__str(ann, "io.podman.annotations.privileged");
	ci->privileged = priv && strcasecmp(priv, "true") == 0;
	json_object_put(spec);
	rc = podman__lists(root, dir, id->id, ci);
	return rc < 0 ? rc : meta__split_image(ci) ?: 1;
}
