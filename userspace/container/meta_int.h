/* Internal to the container library: reading the runtimes' files. */
#ifndef CONTAINER_META_INT_H
#define CONTAINER_META_INT_H

#include <json-c/json.h>

#include "container.h"

/* Per-container files (OCI config.json, Docker's config.v2.json) are a few KiB;
 * containers/storage's containers.json lists every container of the host. */
#define META_FILE_MAX (1u << 20)
#define META_LIST_MAX (32u << 20)
/* Longest string kept from a runtime file (names, images). */
#define META_STR_MAX 1024
/* JSON nesting accepted (OCI specs nest about 6 deep). */
#define META_JSON_DEPTH 32

/* The JSON document at HOST_ROOT + PATH, at most MAX bytes, whose top level is
 * of type WANT: a regular file, read without following a symlink at its last
 * component. NULL with *ERR -ENOENT (absent), -EFBIG (too big), -EINVAL (not a
 * regular file, invalid JSON or not a WANT), -ENOMEM or another -errno
 * (unreadable). */
json_object *meta__read_json(const char *root, const char *path, size_t max,
			     json_type want, int *err);

/* Whether HOST_ROOT + PATH exists (any type). */
bool meta__exists(const char *root, const char *path);

/* The string member KEY of OBJ (NULL when absent or not a string). */
const char *meta__str(json_object *obj, const char *key);
/* The object member KEY of OBJ, or NULL. */
json_object *meta__obj(json_object *obj, const char *key);

/* Sets *DST to a copy of S (cut to META_STR_MAX, cut at a NUL), freeing the old
 * value; an empty or NULL S leaves *DST alone. 0 or -ENOMEM. */
int meta__set(char **dst, const char *s);

/* The pod from the kubelet's labels io.kubernetes.pod.name, .namespace and .uid,
 * members of OBJ (Docker's labels, CRI-O's annotations, sysdig's JSON). */
int meta__set_pod_labels(struct container_info *ci, json_object *obj);

/* Sets ci->image_id from an image id, with or without "sha256:". */
int meta__set_image_id(struct container_info *ci, const char *s);

/* Splits an image reference "host:port/repo/name:tag@sha256:..." into
 * image_repo, image_tag (sysdig: "latest" when none) and image_digest. */
int meta__split_image(struct container_info *ci);

/* The readers: 1 found (CI filled), 0 no file for this container, or -errno for
 * a file that was there but could not be used. */
int meta__containerd(const char *root, const struct container_ident *id,
		     struct container_info *ci);
int meta__docker(const char *root, const struct container_ident *id, struct container_info *ci);
/* CRI-O and Podman: containers/storage's per-container config.json and list. */
int meta__storage(const char *root, const struct container_ident *id, struct container_info *ci);

/* Tries the readers IDENT's type suggests, in order. Same returns. */
int meta__lookup(const char *root, const struct container_ident *id, struct container_info *ci);

/* container_table.c, for container_json.c: the entry of ID kept to the end
 * (made if absent; NULL with errno ENOSPC or ENOMEM), the count of malformed
 * JSON, and the metadata strings of an entry freed. */
struct container_info *container_table__pin(struct container_table *t, const char *id);
void container_table__bad_json(struct container_table *t);
void container_info__clear(struct container_info *ci);

#endif
