/* sysdig's container JSON, as its capture files carry it in container events:
 * {"container": {"id", "full_id", "type" (a number), "name", "image", "imageid",
 * "imagerepo", "imagetag", "imagedigest", "privileged", "is_pod_sandbox",
 * "lookup_state" (1 found, 2 failed), "labels": {...}, ...}}. The pod is in the
 * kubelet's labels io.kubernetes.pod.name / .namespace / .uid, where sysdig's
 * k8s.* fields read it. */
#include <errno.h>
#include <string.h>

#include "meta_int.h"

/* sinsp_container_lookup_state */
#define LOOKUP_SUCCESSFUL 1
#define LOOKUP_FAILED 2
/* A container object larger than this is not one sysdig wrote. */
#define CONTAINER_JSON_MAX (1u << 20)

static bool json__bool(json_object *o, const char *key, bool *out)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_boolean))
		return false;
	*out = json_object_get_boolean(v);
	return true;
}

static int json__fill(json_object *c, struct container_info *ci)
{
	json_object *labels = meta__obj(c, "labels"), *v;
	const char *full = meta__str(c, "full_id");
	bool b;
	int err = 0;

	container_info__clear(ci);
	if (full && strlen(full) <= CONTAINER_ID_MAX)
		memcpy(ci->full_id, full, strlen(full) + 1);
	if (json_object_object_get_ex(c, "type", &v) && json_object_is_type(v, json_type_int) &&
	    json_object_get_int64(v) >= 0 && json_object_get_int64(v) < CT__COUNT)
		ci->type = (uint8_t)json_object_get_int64(v);
	ci->privileged = json__bool(c, "privileged", &b) ? b : -1;
	ci->is_pod_sandbox = json__bool(c, "is_pod_sandbox", &b) && b;
	err |= meta__set(&ci->name, meta__str(c, "name"));
	err |= meta__set(&ci->image, meta__str(c, "image"));
	err |= meta__set(&ci->image_id, meta__str(c, "imageid"));
	err |= meta__set(&ci->image_repo, meta__str(c, "imagerepo"));
	err |= meta__set(&ci->image_tag, meta__str(c, "imagetag"));
	err |= meta__set(&ci->image_digest, meta__str(c, "imagedigest"));
	err |= meta__set_pod_labels(ci, labels);
	ci->lookup = CL_FOUND;
	if (json_object_object_get_ex(c, "lookup_state", &v) &&
	    json_object_is_type(v, json_type_int) && json_object_get_int64(v) == LOOKUP_FAILED)
		ci->lookup = CL_FAILED;
	return err ? -ENOMEM : 0;
}

int container_table__import_json(struct container_table *t, const char *json, size_t len)
{
	struct json_tokener *tok;
	struct container_info *ci;
	json_object *root = NULL, *c;
	const char *id;
	int rc = -EINVAL;

	if (len > CONTAINER_JSON_MAX) {
		container_table__bad_json(t);
		return -EINVAL;
	}
	tok = json_tokener_new_ex(META_JSON_DEPTH);
	if (!tok)
		return -ENOMEM;
	/* sysdig counts the terminating NUL in the param */
	while (len && json[len - 1] == '\0')
		len--;
	root = json_tokener_parse_ex(tok, json, (int)len);
	if (json_tokener_get_error(tok) != json_tokener_success)
		goto out;
	c = meta__obj(root, "container");
	id = meta__str(c, "id");
	if (!id || !*id || strlen(id) > CONTAINER_ID_MAX)
		goto out;
	ci = container_table__pin(t, id);
	if (!ci) {
		rc = -errno;
		goto done;
	}
	rc = json__fill(c, ci);
	goto done;
out:
	container_table__bad_json(t);
done:
	json_object_put(root);
	json_tokener_free(tok);
	return rc;
}

static int add_obj(json_object *o, const char *key, json_object *v)
{
	return v && json_object_object_add(o, key, v) == 0 ? 0 : -ENOMEM;
}

static int add_str(json_object *o, const char *key, const char *s)
{
	return add_obj(o, key, json_object_new_string(s ? s : ""));
}

static json_object *labels__new(const struct container_info *ci)
{
	json_object *l = json_object_new_object();
	int err = 0;

	if (!l)
		return NULL;
	if (ci->pod_name)
		err |= add_str(l, "io.kubernetes.pod.name", ci->pod_name);
	if (ci->pod_namespace)
		err |= add_str(l, "io.kubernetes.pod.namespace", ci->pod_namespace);
	if (ci->pod_uid)
		err |= add_str(l, "io.kubernetes.pod.uid", ci->pod_uid);
	if (err) {
		json_object_put(l);
		return NULL;
	}
	return l;
}

int container_info__to_json(const struct container_info *ci, char **out, size_t *len)
{
	json_object *root = json_object_new_object(), *c = json_object_new_object();
	const char *s;
	size_t n;
	int err = 0;

	if (!root || !c || json_object_object_add(root, "container", c)) {
		json_object_put(root);
		json_object_put(c);
		return -ENOMEM;
	}
	err |= add_str(c, "id", ci->id);
	err |= add_str(c, "full_id", ci->full_id);
	err |= add_obj(c, "type", json_object_new_int(ci->type));
	err |= add_str(c, "name", ci->name);
	err |= add_str(c, "image", ci->image);
	err |= add_str(c, "imageid", ci->image_id);
	err |= add_str(c, "imagerepo", ci->image_repo);
	err |= add_str(c, "imagetag", ci->image_tag);
	err |= add_str(c, "imagedigest", ci->image_digest);
	if (ci->privileged >= 0)
		err |= add_obj(c, "privileged", json_object_new_boolean(ci->privileged));
	err |= add_obj(c, "is_pod_sandbox", json_object_new_boolean(ci->is_pod_sandbox));
	err |= add_obj(c, "lookup_state", json_object_new_int(ci->lookup == CL_FOUND ?
								   LOOKUP_SUCCESSFUL : LOOKUP_FAILED));
	err |= add_obj(c, "created_time", json_object_new_int(0));
	err |= add_obj(c, "Mounts", json_object_new_array());
	/* sysdig's reader parses "ip" and would reject an empty one */
	err |= add_str(c, "ip", "0.0.0.0");
	err |= add_obj(c, "port_mappings", json_object_new_array());
	err |= add_obj(c, "labels", labels__new(ci));
	err |= add_obj(c, "env", json_object_new_array());
	if (err) {
		json_object_put(root);
		return -ENOMEM;
	}
	s = json_object_to_json_string_length(root, JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE, &n);
	*out = s ? strndup(s, n) : NULL;
	json_object_put(root);
	if (!*out)
		return -ENOMEM;
	if (len)
		*len = n;
	return 0;
}
