/* Which runtime's files to read for a container, by what its cgroup path says. */
#include "meta_int.h"

typedef int (*meta_reader)(const char *, const struct container_ident *, struct container_info *);

static const meta_reader any[] = { meta__containerd, meta__docker, meta__storage, NULL };
static const meta_reader docker[] = { meta__docker, NULL };
static const meta_reader containerd[] = { meta__containerd, NULL };
static const meta_reader storage[] = { meta__storage, NULL };

static const meta_reader *readers(const struct container_ident *id)
{
	/* a bare hex id (under kubepods or a containerd namespace) may be any */
	if (id->ambiguous)
		return any;
	switch (id->type) {
	case CT_DOCKER:
		return docker;
	case CT_CONTAINERD:
		return containerd;
	case CT_CRIO:
	case CT_PODMAN:
		return storage;
	default:
		return any;
	}
}

int meta__lookup(const char *root, const struct container_ident *id, struct container_info *ci)
{
	int rc;

	/* LXC keeps no file of ours: the name is the id, as sysdig shows it */
	if (id->type == CT_LXC || id->type == CT_LIBVIRT_LXC)
		return meta__set(&ci->name, id->id) ?: 1;
	for (const meta_reader *r = readers(id); *r; r++)
		if ((rc = (*r)(root, id, ci)) != 0)
			return rc;
	return 0;
}
