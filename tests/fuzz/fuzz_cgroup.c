/* The cgroup path parser: the input as one cgroup path (cgroup__container) and
 * as a thread's "ctrl=/path\0..." list (cgroups__container). Any container can
 * choose its cgroup names, so these bytes are untrusted. */
#include <string.h>

#include "container.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct container_ident id;
	char short_id[CONTAINER_ID_MAX + 1];

	if (cgroup__container((const char *)data, size, &id)) {
		/* what a match fills must be terminated strings */
		container_ident__short_id(&id, short_id);
		if (strlen(id.id) > CONTAINER_ID_MAX || strlen(id.pod_uid) > CONTAINER_POD_UID_MAX ||
		    !container_type__name(id.type))
			__builtin_trap();
	}
	if (cgroups__container((const char *)data, size, &id))
		container_ident__short_id(&id, short_id);
	return 0;
}
