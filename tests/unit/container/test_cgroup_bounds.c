/* The "...:<runtime>:<64 hex>" colon form at and around its shortest length,
 * each path in a buffer of exactly its size: an index computed in size_t there
 * once wrapped (UBSan: pointer overflow) on an 80-byte line. */
#include <stdlib.h>
#include <string.h>

#include "container.h"
#include "t_check.h"

#define HEX "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* Parses PATH from a heap copy with no byte after it. */
static bool parse(const char *path, struct container_ident *out)
{
	size_t n = strlen(path);
	char *copy = malloc(n ? n : 1);
	bool found;

	if (!copy)
		abort();
	memcpy(copy, path, n);
	found = cgroup__container(copy, n, out);
	free(copy);
	return found;
}

static void check_found(const char *path, unsigned type)
{
	struct container_ident id;

	CHECK(parse(path, &id));
	CHECK_INT(id.type, type);
	CHECK_STR(id.id, HEX);
}

static void check_none(const char *path)
{
	struct container_ident id;

	CHECK(!parse(path, &id));
	CHECK_STR(id.id, "");
}

int main(void)
{
	struct container_ident id;

	/* the line the fuzzer found: 80 bytes, no ':' before the runtime */
	CHECK_INT(strlen("kcri-containerd:" HEX), 80);
	check_none("kcri-containerd:" HEX);
	check_none("/kubepods/kcri-containerd:" HEX);
	/* one byte short of the form, and exactly its shortest */
	check_none("cri-containerd:" HEX);
	check_found(":cri-containerd:" HEX, CT_CONTAINERD);
	check_found("x:cri-containerd:" HEX, CT_CONTAINERD);
	/* the other runtimes at their own boundaries */
	check_none("crio:" HEX);
	check_none("kcrio:" HEX);
	check_found(":crio:" HEX, CT_CRIO);
	check_none("docker:" HEX);
	check_found(":docker:" HEX, CT_DOCKER);
	/* a real one, with its pod */
	CHECK(parse("/kubepods.slice/kubepods-burstable.slice/"
		    "kubepods-burstable-pod0a1b2c3d_4e5f_6789_abcd_ef0123456789.slice:"
		    "cri-containerd:" HEX, &id));
	CHECK_INT(id.type, CT_CONTAINERD);
	CHECK_STR(id.id, HEX);
	CHECK_STR(id.pod_uid, "0a1b2c3d-4e5f-6789-abcd-ef0123456789");
	/* a hex id one short or one long is no id */
	check_none(":cri-containerd:" HEX "0");
	check_none(":cri-containerd:" "123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
	return t_report();
}
