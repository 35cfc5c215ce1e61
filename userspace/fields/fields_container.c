/* container.* and k8s.* fields: read from the thread's container entry, filled
 * once per container (userspace/container), so extracting is a pointer lookup. */
#include <errno.h>

#include "container.h"
#include "fields_int.h"

static int str__value(struct field_value *out, const char *s)
{
	return s && *s ? value__cstr(out, s) : -ENOENT;
}

int fields__extract_container(const struct field_ref *ref, const struct ievt *ev,
			      struct field_ctx *ctx, unsigned n, struct field_value *out)
{
	const struct container_info *ci;

	(void)ctx;
	if (n || !ev->thread)
		return -ENOENT;
	ci = ev->thread->container;
	if (!ci) {
		/* the host: sysdig names it in these three fields only */
		switch (ref->info->id) {
		case F_CONTAINER_ID:
		case F_CONTAINER_FULL_ID:
		case F_CONTAINER_NAME:
		case F_CONTAINER_TYPE:
			return value__cstr(out, "host");
		default:
			return -ENOENT;
		}
	}
	switch (ref->info->id) {
	case F_CONTAINER_ID:
		return value__cstr(out, ci->id);
	case F_CONTAINER_FULL_ID:
		return value__cstr(out, ci->full_id[0] ? ci->full_id : ci->id);
	case F_CONTAINER_NAME:
		return str__value(out, ci->name);
	case F_CONTAINER_IMAGE:
		return str__value(out, ci->image);
	case F_CONTAINER_IMAGE_ID:
		return str__value(out, ci->image_id);
	case F_CONTAINER_TYPE:
		return str__value(out, container_type__name(ci->type));
	case F_CONTAINER_PRIVILEGED:
		/* known for Docker-like runtimes only, as in sysdig */
		if (ci->privileged < 0 || (ci->type != CT_DOCKER && ci->type != CT_PODMAN))
			return -ENOENT;
		return value__bool(out, ci->privileged);
	case F_CONTAINER_IMAGE_REPOSITORY:
		return str__value(out, ci->image_repo);
	case F_CONTAINER_IMAGE_TAG:
		return str__value(out, ci->image_tag);
	case F_CONTAINER_IMAGE_DIGEST:
		return str__value(out, ci->image_digest);
	case F_K8S_POD_NAME:
		return str__value(out, ci->pod_name);
	case F_K8S_POD_ID:
	case F_K8S_POD_UID:
		return str__value(out, ci->pod_uid);
	case F_K8S_NS_NAME:
		return str__value(out, ci->pod_namespace);
	default:
		return -ENOENT;
	}
}
