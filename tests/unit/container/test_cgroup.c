/* The cgroup path parser on the paths each runtime and cgroup driver makes (v1
 * and v2, cgroupfs and systemd), the runtimes' helper cgroups that are not
 * containers, host paths, and malformed ones. */
#include <stdlib.h>
#include <string.h>

#include "container.h"
#include "test_util.h"

#define ID "3ad7b26ded6d8e7b23da7d48fe889434573036c27ae5a74837233de441c3601e"
#define ID2 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID "0f5d2a2e-1c5b-4a8e-9d7c-2b1f6e4a9c3d"
#define UID_ "0f5d2a2e_1c5b_4a8e_9d7c_2b1f6e4a9c3d"

struct want {
	const char *path;
	int type;		/* -1: no container */
	const char *id;
	const char *pod;	/* "" when none */
	bool ambiguous;
};

static const struct want table[] = {
	/* Docker, cgroup v1 cgroupfs and v2 systemd */
	{ "/docker/" ID, CT_DOCKER, ID, "", false },
	{ "/system.slice/docker-" ID ".scope", CT_DOCKER, ID, "", false },
	/* Docker in Docker: the inner one */
	{ "/docker/" ID2 "/docker/" ID, CT_DOCKER, ID, "", false },
	/* Kubernetes, cgroupfs driver: a bare id under the pod (containerd or Docker) */
	{ "/kubepods/besteffort/pod" UID "/" ID, CT_CRI, ID, UID, true },
	{ "/kubepods/burstable/pod" UID "/" ID, CT_CRI, ID, UID, true },
	{ "/kubepods/pod" UID "/" ID, CT_CRI, ID, UID, true },
	/* Kubernetes, systemd driver: containerd and CRI-O scopes */
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	  ".slice/cri-containerd-" ID ".scope", CT_CONTAINERD, ID, UID, false },
	{ "/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" ID ".scope",
	  CT_CONTAINERD, ID, UID, false },
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
	  ".slice/crio-" ID ".scope", CT_CRIO, ID, UID, false },
	{ "/kubepods/besteffort/pod" UID "/crio-" ID, CT_CRIO, ID, UID, false },
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
	  ".slice/docker-" ID ".scope", CT_DOCKER, ID, UID, false },
	/* containerd's systemd path as runc is handed it, and under a cgroup namespace */
	{ "/kubepods-besteffort-pod" UID_ ".slice:cri-containerd:" ID, CT_CONTAINERD, ID, UID,
	  false },
	{ "/../../kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
	  ".slice/cri-containerd-" ID ".scope", CT_CONTAINERD, ID, UID, false },
	/* a plain containerd namespace (nerdctl, cgroupfs) */
	{ "/default/" ID, CT_CONTAINERD, ID, "", true },
	/* Podman: systemd (and its "container" sub-cgroup) and cgroupfs */
	{ "/machine.slice/libpod-" ID ".scope", CT_PODMAN, ID, "", false },
	{ "/machine.slice/libpod-" ID ".scope/container", CT_PODMAN, ID, "", false },
	{ "/libpod_parent/libpod-" ID, CT_PODMAN, ID, "", false },
	{ "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID ".scope",
	  CT_PODMAN, ID, "", false },
	/* LXC 3.0, 3.1, 4+ (and a cgroup made inside one), libvirt-lxc */
	{ "/lxc/web01", CT_LXC, "web01", "", false },
	{ "/lxc.payload/web01", CT_LXC, "web01", "", false },
	{ "/lxc.payload.web01", CT_LXC, "web01", "", false },
	{ "/lxc.payload.web01/system.slice/cron.service", CT_LXC, "web01", "", false },
	{ "/machine.slice/machine-lxc\\x2d4242\\x2dvm1.scope", CT_LIBVIRT_LXC, "4242\\x2dvm1", "",
	  false },
	{ "/libvirt/lxc/vm1", CT_LIBVIRT_LXC, "vm1", "", false },
	{ "/machine/vm1.libvirt-lxc", CT_LIBVIRT_LXC, "vm1", "", false },
	/* the runtimes' helpers are not containers */
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
	  ".slice/crio-conmon-" ID ".scope", -1, NULL, "", false },
	{ "/machine.slice/libpod-conmon-" ID ".scope", -1, NULL, "", false },
	{ "/libpod_parent/conmon", -1, NULL, "", false },
	{ "/lxc.monitor.web01", -1, NULL, "", false },
	/* the host */
	{ "/", -1, NULL, "", false },
	{ "/user.slice/user-1000.slice/session-2.scope", -1, NULL, "", false },
	{ "/system.slice/containerd.service", -1, NULL, "", false },
	{ "/kubepods.slice/kubepods-besteffort.slice", -1, NULL, "", false },
	/* malformed: no container, never a crash */
	{ "", -1, NULL, "", false },
	{ "/docker/", -1, NULL, "", false },
	{ "/docker/3ad7b26ded6d", -1, NULL, "", false },
	{ "/docker/" ID "0", -1, NULL, "", false },
	{ "/docker/3ad7b26ded6d8e7b23da7d48fe889434573036c27ae5a74837233de441c3601g", -1, NULL,
	  "", false },
	{ "/system.slice/docker-" ID ".scopex", -1, NULL, "", false },
	{ "/system.slice/docker-" ID, -1, NULL, "", false },
	{ "///docker///" ID "///", CT_DOCKER, ID, "", false },
	/* a pod uid that is not one: the container still counts, without a pod */
	{ "/kubepods/besteffort/podnot-a-uid/" ID, CT_CRI, ID, "", true },
	{ "/kubepods/besteffort/pod" "0f5d2a2e-1c5b-4a8e-9d7c-2b1f6e4a9cZZ" "/" ID, CT_CRI, ID, "",
	  true },
};

static void check_one(const struct want *w)
{
	struct container_ident id;
	bool found = cgroup__container(w->path, strlen(w->path), &id);

	if (w->type < 0) {
		if (found)
			fprintf(stderr, "%s: found %s, want none\n", w->path, id.id);
		CHECK(!found);
		return;
	}
	CHECK(found);
	if (!found) {
		fprintf(stderr, "%s: no container found\n", w->path);
		return;
	}
	CHECK_INT(id.type, w->type);
	CHECK_STR(id.id, w->id);
	CHECK_STR(id.pod_uid, w->pod);
	CHECK_INT(id.ambiguous, w->ambiguous);
}

/* A thread's cgroups list: the first path naming a container wins. */
static void check_list(void)
{
	static const char list[] = "cpu=/\0cpuacct=/\0memory=/docker/" ID "\0pids=/docker/" ID2;
	static const char host[] = "cpu=/\0memory=/user.slice";
	static const char cut[] = "cpu=/docker/3ad7b26ded6d8e7b23da7d48fe889434573036c27ae5a748";
	struct container_ident id;

	CHECK(cgroups__container(list, sizeof(list), &id));
	CHECK_STR(id.id, ID);
	CHECK(!cgroups__container(host, sizeof(host), &id));
	CHECK(!cgroups__container(NULL, 0, &id));
	/* a list cut short, without its NUL, and entries without '=' */
	CHECK(!cgroups__container(cut, sizeof(cut) - 1, &id));
	CHECK(!cgroups__container("garbage\0/docker/" ID, 8, &id));
}

/* Long and odd input: bounded work, no container, no crash. */
static void check_hostile(void)
{
	size_t n = 1 << 20;
	char *p = malloc(n);
	struct container_ident id;

	memset(p, '/', n);
	CHECK(!cgroup__container(p, n, &id));
	for (size_t i = 0; i < n; i++)
		p[i] = i % 2 ? 'a' : '/';
	CHECK(!cgroup__container(p, n, &id));
	/* an embedded NUL ends the path */
	memcpy(p, "/docker/" ID, 8 + 64);
	p[8 + 30] = '\0';
	CHECK(!cgroup__container(p, 8 + 64, &id));
	free(p);
	CHECK(!cgroup__container(NULL, 10, &id));
}

int main(void)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		check_one(&table[i]);
	check_list();
	check_hostile();
	CHECK_STR(container_type__name(CT_CRIO), "cri-o");
	CHECK_STR(container_type__name(CT_PODMAN), "podman");
	CHECK(container_type__name(CT__COUNT) == NULL);
	return t_report();
}
