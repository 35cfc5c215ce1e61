/* The container runtimes' files as the agent reads them under HOST_ROOT, and
 * sysdig's container JSON from capture files. The first byte picks the file the
 * rest of the input becomes; the other files of that runtime hold fixed, valid
 * content. Each lookup goes through the public table, as the agent's does. */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container.h"
#include "fuzz_input.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* one id for every runtime: each keeps its files under its own tree */
#define ID "0b3d2658ed02c8fb499604a7f4d1d9cfe5e60ba9a167d776f63cfebe6e057f5d"
#define DOCKER "/var/lib/docker/containers/" ID
#define CONTAINERD "/run/containerd/io.containerd.runtime.v2.task/k8s.io/" ID
#define STORAGE "/var/lib/containers/storage/overlay-containers"
#define PODMAN_SPEC "{\"annotations\":{\"io.container.manager\":\"libpod\"}}"
#define PODMAN_LIST "[{\"id\":\"" ID "\",\"names\":[\"web\"]}]"

enum mode { M_DOCKER, M_CONTAINERD, M_STORAGE_SPEC, M_STORAGE_LIST, M_SYSDIG_JSON, M__COUNT };

/* tmpfs where there is one: every input is written to a file */
static char root[] = "/dev/shm/fuzz-runtime-XXXXXX";

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void root__remove(void)
{
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* mkdir -p ROOT + DIR */
static void dir__make(const char *dir)
{
	char path[4096];
	size_t n = (size_t)snprintf(path, sizeof(path), "%s%s", root, dir);

	for (size_t i = strlen(root) + 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		path[i] = '\0';
		mkdir(path, 0700);
		if (i < n)
			path[i] = '/';
	}
}

static void file__write(const char *rel, const void *data, size_t size)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || fuzz_input__write(fd, data, size))
		abort();
	close(fd);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (!mkdtemp(root)) {
		strcpy(root, "/tmp/fuzz-runtime-XXXXXX");
		if (!mkdtemp(root))
			abort();
	}
	atexit(root__remove);
	dir__make(DOCKER);
	dir__make(CONTAINERD);
	dir__make(STORAGE "/" ID "/userdata");
	return 0;
}

static void lookup(uint8_t type)
{
	struct container_table_opts o = { .host_root = root };
	struct container_table *t = container_table__new(&o);
	struct container_ident id = { .type = type };
	struct container_info *ci;

	if (!t)
		return;
	memcpy(id.id, ID, sizeof(ID));
	ci = container_table__get(t, &id, 0);
	container_info__put(ci);
	container_table__free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct container_table_opts o = { .no_lookup = true };
	struct container_table *t;

	if (size < 1)
		return 0;
	switch (data[0] % M__COUNT) {
	case M_DOCKER:
		/* hostconfig.json is read only beside a valid config.v2.json */
		file__write(DOCKER "/config.v2.json", data + 1, size - 1);
		file__write(DOCKER "/hostconfig.json", data + 1, size - 1);
		lookup(CT_DOCKER);
		break;
	case M_CONTAINERD:
		file__write(CONTAINERD "/config.json", data + 1, size - 1);
		lookup(CT_CONTAINERD);
		break;
	case M_STORAGE_SPEC:
		file__write(STORAGE "/" ID "/userdata/config.json", data + 1, size - 1);
		file__write(STORAGE "/containers.json", PODMAN_LIST, strlen(PODMAN_LIST));
		lookup(CT_CRIO);
		break;
	case M_STORAGE_LIST:
		file__write(STORAGE "/" ID "/userdata/config.json", PODMAN_SPEC, strlen(PODMAN_SPEC));
		file__write(STORAGE "/containers.json", data + 1, size - 1);
		lookup(CT_PODMAN);
		break;
	case M_SYSDIG_JSON:
		t = container_table__new(&o);
		if (t) {
			container_table__import_json(t, (const char *)data + 1, size - 1);
			container_table__free(t);
		}
		break;
	}
	return 0;
}
