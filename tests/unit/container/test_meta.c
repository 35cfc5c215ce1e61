/* The runtime file readers on fake HOST_ROOT trees holding files laid out as each
 * runtime writes them (fixtures/: Podman's from a real run, the others shaped
 * from the runtimes' sources), bad files, retries and the table's bounds. */
#include <sys/stat.h>
#include <sys/wait.h>

#include "container.h"
#include "test_util.h"

#define CID "3ad7b26ded6d8e7b23da7d48fe889434573036c27ae5a74837233de441c3601e"
#define SID "9f2c1d0e5b7a4c3e8d6f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d"
#define DID "7c8f2a1b3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8"
#define XID "5e1f0a7c9b3d2e4f6a8b0c1d3e5f7a9b1c3d5e7f9a1b3c5d7e9f1a3b5c7d9e1f"
#define PID_ "0b3d2658ed02c8fb499604a7f4d1d9cfe5e60ba9a167d776f63cfebe6e057f5d"
#define PUID "0f5d2a2e-1c5b-4a8e-9d7c-2b1f6e4a9c3d"
#define PUID_ "0f5d2a2e_1c5b_4a8e_9d7c_2b1f6e4a9c3d"
#define TASKS "run/containerd/io.containerd.runtime.v2.task/"
#define STORAGE "var/lib/containers/storage/overlay-containers/"

static const char *fixtures;

/* Copies fixture NAME to ROOT/REL. */
static void put_fixture(const char *root, const char *rel, const char *name)
{
	char path[4096], *buf;
	long n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fixtures, name);
	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "no fixture %s\n", path);
		t_failed++;
		return;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		t_failed++;
	fclose(f);
	t_put(root, rel, buf, (size_t)n);
	free(buf);
}

static struct container_table *table_at(const char *root)
{
	struct container_table_opts o = { .host_root = root };

	return container_table__new(&o);
}

/* The container the cgroup PATH names, looked up in T at time NOW. */
static struct container_info *get(struct container_table *t, const char *path, uint64_t now)
{
	struct container_ident id;

	if (!cgroup__container(path, strlen(path), &id)) {
		fprintf(stderr, "%s names no container\n", path);
		t_failed++;
		return NULL;
	}
	return container_table__get(t, &id, now);
}

static void test_containerd(void)
{
	char *root = t_tmpdir();
	struct container_table *t;
	struct container_info *c, *s, *b;
	struct container_counters n;

	put_fixture(root, TASKS "k8s.io/" CID "/config.json", "containerd-container.json");
	put_fixture(root, TASKS "k8s.io/" SID "/config.json", "containerd-sandbox.json");
	t = table_at(root);
	c = get(t, "/kubepods-besteffort-pod" PUID_ ".slice:cri-containerd:" CID, 1);
	CHECK(c != NULL);
	if (c) {
		CHECK_STR(c->id, "3ad7b26ded6d");
		CHECK_STR(c->full_id, CID);
		CHECK_INT(c->type, CT_CONTAINERD);
		CHECK_INT(c->lookup, CL_FOUND);
		CHECK_STR(c->name, "nginx");
		CHECK_STR(c->image, "docker.io/library/nginx:1.25");
		CHECK_STR(c->image_repo, "docker.io/library/nginx");
		CHECK_STR(c->image_tag, "1.25");
		CHECK_NULL(c->image_digest);
		CHECK_STR(c->pod_name, "web-6d4cf56db6-x7kq2");
		CHECK_STR(c->pod_namespace, "shop");
		CHECK_STR(c->pod_uid, PUID);
		CHECK_INT(c->privileged, -1);
		CHECK(!c->is_pod_sandbox);
	}
	/* the pod's sandbox is named after the pod; the cgroupfs layout gives a
	 * bare id that the bundle says is containerd's */
	s = get(t, "/kubepods/besteffort/pod" PUID "/" SID, 1);
	CHECK(s != NULL);
	if (s) {
		CHECK_INT(s->type, CT_CONTAINERD);
		CHECK(s->is_pod_sandbox);
		CHECK_STR(s->name, "web-6d4cf56db6-x7kq2");
		CHECK_STR(s->image, "registry.k8s.io/pause:3.9");
		CHECK_STR(s->image_tag, "3.9");
		CHECK_STR(s->pod_uid, PUID);
	}
	/* a second thread of the same container: the same entry, no second lookup */
	b = get(t, "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" PUID_
		".slice/cri-containerd-" CID ".scope", 2);
	CHECK(b == c);
	container_table__counters(t, &n);
	CHECK_INT(n.n_lookups, 2);
	CHECK_INT(n.n_found, 2);
	CHECK_INT(n.n_containers, 2);
	container_info__put(b);
	container_info__put(c);
	container_info__put(s);
	container_table__counters(t, &n);
	CHECK_INT(n.n_containers, 0);
	container_table__free(t);
	t_rmtree(root);
}

static void test_containerd_namespaces(void)
{
	char *root = t_tmpdir();
	struct container_table *t;
	struct container_info *c, *d;

	/* nerdctl's default namespace: found there, no CRI names */
	put_fixture(root, TASKS "default/" CID "/config.json", "podman-config.json");
	/* Docker's containers in containerd's moby namespace: Docker's files name them */
	put_fixture(root, TASKS "moby/" DID "/config.json", "podman-config.json");
	put_fixture(root, "var/lib/docker/containers/" DID "/config.v2.json", "docker-config.v2.json");
	t = table_at(root);
	c = get(t, "/default/" CID, 1);
	CHECK(c && c->type == CT_CONTAINERD && c->lookup == CL_FOUND && !c->name);
	d = get(t, "/kubepods/burstable/pod" PUID "/" DID, 1);
	CHECK(d && d->type == CT_DOCKER && d->name && strcmp(d->name, "shop-db-1") == 0);
	container_info__put(c);
	container_info__put(d);
	container_table__free(t);
	t_rmtree(root);
}

static void test_docker(void)
{
	char *root = t_tmpdir();
	struct container_table *t;
	struct container_info *c;

	put_fixture(root, "var/lib/docker/containers/" DID "/config.v2.json", "docker-config.v2.json");
	put_fixture(root, "var/lib/docker/containers/" DID "/hostconfig.json", "docker-hostconfig.json");
	t = table_at(root);
	c = get(t, "/system.slice/docker-" DID ".scope", 1);
	CHECK(c != NULL);
	if (c) {
		CHECK_INT(c->type, CT_DOCKER);
		CHECK_STR(c->id, "7c8f2a1b3d4e");
		CHECK_STR(c->name, "shop-db-1");
		CHECK_STR(c->image, "postgres:16");
		CHECK_STR(c->image_repo, "postgres");
		CHECK_STR(c->image_tag, "16");
		CHECK_STR(c->image_id,
			  "d3a2b1c0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2");
		CHECK_INT(c->privileged, 1);
		CHECK_NULL(c->pod_name);
	}
	container_info__put(c);
	container_table__free(t);
	t_rmtree(root);
}

/* Under Kubernetes with dockershim or cri-dockerd: the pod in the kubelet's labels,
 * the sandbox named k8s_POD_... */
static void test_docker_k8s(void)
{
	static const char cfg[] =
		"{\"ID\":\"" DID "\",\"Name\":\"/k8s_POD_web-0_shop_" PUID "_0\","
		"\"Image\":\"sha256:aa\",\"Config\":{\"Image\":\"registry.k8s.io/pause:3.9\","
		"\"Labels\":{\"io.kubernetes.pod.name\":\"web-0\",\"io.kubernetes.pod.namespace\":"
		"\"shop\",\"io.kubernetes.pod.uid\":\"" PUID "\",\"io.kubernetes.docker.type\":"
		"\"podsandbox\"}}}";
	char *root = t_tmpdir();
	struct container_table *t;
	struct container_info *c;

	t_puts(root, "var/lib/docker/containers/" DID "/config.v2.json", cfg);
	t = table_at(root);
	c = get(t, "/kubepods/besteffort/pod" PUID "/" DID, 1);
	CHECK(c != NULL);
	if (c) {
		CHECK_INT(c->type, CT_DOCKER);
		CHECK(c->is_pod_sandbox);
		CHECK_STR(c->pod_name, "web-0");
		CHECK_STR(c->pod_namespace, "shop");
		CHECK_STR(c->pod_uid, PUID);
		CHECK_STR(c->image_repo, "registry.k8s.io/pause");
		CHECK_INT(c->privileged, -1);	/* no hostconfig.json */
	}
	container_info__put(c);
	container_table__free(t);
	t_rmtree(root);
}

static void test_crio(void)
{
	char *root = t_tmpdir();
	struct container_table *t;
	struct container_info *c;

	/* CRI-O's bundle copy under the run root */
	put_fixture(root, "run/containers/storage/overlay-containers/" XID "/userdata/config.json",
		    "crio-config.json");
	t = table_at(root);
	c = get(t, "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" PUID_
		".slice/crio-" XID ".scope", 1);
	CHECK(c != NULL);
	if (c) {
		CHECK_INT(c->type, CT_CRIO);
		CHECK_STR(c->name, "cache");
		CHECK_STR(c->image, "docker.io/library/redis:7.2");
		CHECK_STR(c->image_tag, "7.2");
		CHECK_STR(c->image_id,
			  "7e89539dd8bd2f8a1ecbd5b0bba5b7f1d37a1b1d9e6e3a2c4f5b6a7d8e9f0a1b");
		CHECK_STR(c->pod_name, "cache-0");
		CHECK_STR(c->pod_namespace, "data");
		CHECK_STR(c->pod_uid, PUID);
		CHECK(!c->is_pod_sandbox);
	}
	container_info__put(c);
	container_table__free(t);
	t_rmtree(root);
}

static void test_podman(void)
{
	char *root = t_tmpdir();
	struct container_table *t;
	struct container_info *c;

	put_fixture(root, STORAGE PID_ "/userdata/config.json", "podman-config.json");
	put_fixture(root, STORAGE "containers.json", "podman-containers.json");
	t = table_at(root);
	c = get(t, "/libpod_parent/libpod-" PID_, 1);
	CHECK(c != NULL);
	if (c) {
		CHECK_INT(c->type, CT_PODMAN);
		CHECK_STR(c->name, "web1");
		CHECK_STR(c->image, "localhost/bbtest:1");
		CHECK_STR(c->image_repo, "localhost/bbtest");
		CHECK_STR(c->image_tag, "1");
		CHECK_STR(c->image_id,
			  "4b438df749e716a3f8fa466a9de09cd3e31cfd34aea68db56592129c25eb47f1");
		CHECK_INT(c->privileged, 0);
	}
	container_info__put(c);
	container_table__free(t);
	t_rmtree(root);

	/* a list over 32 MiB is not read: the container is counted, not named */
	root = t_tmpdir();
	{
		char path[4096];
		struct container_counters n;
		FILE *f;

		put_fixture(root, STORAGE PID_ "/userdata/config.json", "podman-config.json");
		snprintf(path, sizeof(path), "%s/" STORAGE "containers.json", root);
		f = fopen(path, "w");
		CHECK(f && ftruncate(fileno(f), (33 << 20)) == 0);
		if (f)
			fclose(f);
		t = table_at(root);
		c = get(t, "/libpod_parent/libpod-" PID_, 1);
		CHECK(c && c->lookup == CL_FAILED && !c->name);
		container_table__counters(t, &n);
		CHECK_INT(n.n_bad_files, 1);
		container_info__put(c);
		container_table__free(t);
		t_rmtree(root);
	}

	/* podman run --rm: listed in volatile-containers.json only */
	root = t_tmpdir();
	put_fixture(root, STORAGE PID_ "/userdata/config.json", "podman-config.json");
	put_fixture(root, STORAGE "volatile-containers.json", "podman-containers.json");
	t_puts(root, STORAGE "containers.json", "[]");
	t = table_at(root);
	c = get(t, "/machine.slice/libpod-" PID_ ".scope", 1);
	CHECK(c && c->name && strcmp(c->name, "web1") == 0);
	container_info__put(c);
	container_table__free(t);
	t_rmtree(root);
}

static void test_lxc(void)
{
	struct container_table *t = table_at("/nonexistent");
	struct container_info *c = get(t, "/lxc.payload.web01", 1);

	CHECK(c && c->type == CT_LXC && strcmp(c->id, "web01") == 0 && c->name &&
	      strcmp(c->name, "web01") == 0);
	container_info__put(c);
	container_table__free(t);
}

/* No file yet: identity only, looked up again a second later, at most 3 times. */
static void test_retry(void)
{
	char *root = t_tmpdir();
	struct container_table *t = table_at(root);
	struct container_info *c, *c2;
	struct container_counters n;
	const uint64_t s = 1000000000ULL;

	c = get(t, "/kubepods/besteffort/pod" PUID "/" CID, 5 * s);
	CHECK(c && c->lookup == CL_MISSING && !c->name);
	CHECK(c && c->pod_uid && strcmp(c->pod_uid, PUID) == 0);
	CHECK(c && c->type == CT_CRI);
	put_fixture(root, TASKS "k8s.io/" CID "/config.json", "containerd-container.json");
	/* too soon: no new lookup */
	c2 = get(t, "/kubepods/besteffort/pod" PUID "/" CID, 5 * s + 10);
	CHECK(c2 == c && !c->name);
	container_info__put(c2);
	c2 = get(t, "/kubepods/besteffort/pod" PUID "/" CID, 7 * s);
	CHECK(c2 == c && c->lookup == CL_FOUND && c->name && strcmp(c->name, "nginx") == 0);
	CHECK(c->type == CT_CONTAINERD);
	container_info__put(c2);
	container_table__counters(t, &n);
	CHECK_INT(n.n_lookups, 2);
	CHECK_INT(n.n_missing, 1);
	CHECK_INT(n.n_found, 1);
	container_info__put(c);

	/* never found: three lookups in all */
	c = get(t, "/docker/" DID, 1);
	for (int i = 2; i < 10; i++)
		container_info__put(get(t, "/docker/" DID, (uint64_t)i * 2 * s));
	container_table__counters(t, &n);
	CHECK_INT(n.n_lookups, 2 + 3);
	container_info__put(c);
	container_table__free(t);
	t_rmtree(root);
}

/* Bad files: the names stay empty, each is counted, nothing crashes or hangs. */
static void test_bad_files(void)
{
	static const char *const bad[] = {
		"{\"Name\": \"/x\", \"Config\": {\"Image\": ",	/* cut short */
		"not json at all",
		"[\"an\", \"array\"]",
		"{\"Name\": \"/x\"} trailing",
		"",
	};
	const char *rel = "var/lib/docker/containers/" DID "/config.v2.json";
	struct container_counters n;
	uint64_t want_bad = 0;
	char path[4096];

	for (int k = 0; k < 9; k++) {
		char *root = t_tmpdir();
		struct container_table *t;
		struct container_info *c;

		if (k < 5) {
			t_puts(root, rel, bad[k]);
		} else if (k == 5) {
			/* 2 MiB: over the bound */
			size_t big = 2u << 20;
			char *b = malloc(big);

			memset(b, ' ', big);
			b[0] = '{';
			b[big - 1] = '}';
			t_put(root, rel, b, big);
			free(b);
		} else if (k == 6) {
			/* valid, but nested deeper than any runtime writes */
			char b[4096] = "{\"Name\": ";

			for (int i = 0; i < 200; i++)
				strcat(b, "[");
			for (int i = 0; i < 200; i++)
				strcat(b, "]");
			strcat(b, "}");
			t_puts(root, rel, b);
		} else if (k == 7) {
			/* a symlink planted in place of the file */
			t_puts(root, "elsewhere.json", "{\"Name\": \"/planted\"}");
			snprintf(path, sizeof(path), "%s/elsewhere.json", root);
			t_link(root, rel, path);
		} else {
			/* a FIFO: opening it must not block */
			snprintf(path, sizeof(path), "%s/%s", root, rel);
			t_mkdirs(path);
			rmdir(path);
			if (mkfifo(path, 0600) < 0)
				t_failed++;
		}
		t = table_at(root);
		c = get(t, "/docker/" DID, 1);
		CHECK(c != NULL);
		if (c) {
			CHECK_INT(c->lookup, CL_FAILED);
			CHECK_NULL(c->name);
			CHECK_NULL(c->image);
			CHECK_STR(c->id, "7c8f2a1b3d4e");
			CHECK_INT(c->type, CT_DOCKER);
		}
		container_table__counters(t, &n);
		want_bad = 1;
		CHECK_INT(n.n_bad_files, want_bad);
		container_info__put(c);
		container_table__free(t);
		t_rmtree(root);
	}
	/* a directory where the file should be */
	{
		char *root = t_tmpdir();
		struct container_table *t;
		struct container_info *c;

		snprintf(path, sizeof(path), "%s/%s", root, rel);
		t_mkdirs(path);
		t = table_at(root);
		c = get(t, "/docker/" DID, 1);
		CHECK(c && c->lookup == CL_FAILED && !c->name);
		container_info__put(c);
		container_table__free(t);
		t_rmtree(root);
	}
}

/* A file its reader may not read (EACCES): counted, no names. Root reads
 * anything, so as root the check runs in a child that became nobody. */
static int unreadable_once(const char *root)
{
	struct container_table *t = table_at(root);
	struct container_info *c = get(t, "/docker/" DID, 1);
	struct container_counters n;
	int bad = !c || c->lookup != CL_FAILED || c->name != NULL;

	container_table__counters(t, &n);
	bad |= n.n_bad_files != 1;
	container_info__put(c);
	container_table__free(t);
	return bad;
}

static void test_unreadable(void)
{
	char *root = t_tmpdir();
	char path[4096];
	int status = 0;
	pid_t pid;

	put_fixture(root, "var/lib/docker/containers/" DID "/config.v2.json", "docker-config.v2.json");
	snprintf(path, sizeof(path), "%s/var/lib/docker/containers/" DID "/config.v2.json", root);
	CHECK(chmod(path, 0) == 0);
	chmod(root, 0755);
	if (geteuid() != 0) {
		CHECK(unreadable_once(root) == 0);
		t_rmtree(root);
		return;
	}
	pid = fork();
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		_exit(unreadable_once(root));
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	t_rmtree(root);
}

/* Thousands of short-lived containers: memory follows the live ones only; the
 * bounds hold with counts. */
static void test_bounds(void)
{
	struct container_table_opts o = { .host_root = "/nonexistent", .max_entries = 100 };
	struct container_counters n;
	struct container_info *keep[150];
	struct container_table *t = table_at("/nonexistent");
	char path[128];
	int made = 0;

	for (int i = 0; i < 20000; i++) {
		snprintf(path, sizeof(path), "/docker/%012x%052d", i, 0);
		container_info__put(get(t, path, (uint64_t)i));
	}
	container_table__counters(t, &n);
	CHECK_INT(n.n_containers, 0);
	CHECK_INT(n.n_seen, 20000);
	CHECK_INT(n.n_missing, 20000);
	container_table__free(t);

	t = container_table__new(&o);
	for (int i = 0; i < 150; i++) {
		snprintf(path, sizeof(path), "/docker/%012x%052d", i + 1, 0);
		errno = 0;
		keep[i] = get(t, path, 1);
		made += keep[i] != NULL;
		if (!keep[i])
			CHECK_INT(errno, ENOSPC);
	}
	CHECK_INT(made, 100);
	container_table__counters(t, &n);
	CHECK_INT(n.n_containers, 100);
	CHECK_INT(n.n_full, 50);
	for (int i = 0; i < 150; i++)
		container_info__put(keep[i]);
	container_table__free(t);
}

/* The default bounds: 65536 containers, 4096 of them named (LXC containers are
 * named without a file). */
static void test_default_bounds(void)
{
	struct container_info **c = calloc(65537, sizeof(*c));
	struct container_table *t = table_at("/nonexistent");
	struct container_counters n;
	char path[64];
	int made = 0, named = 0;

	for (int i = 0; i < 65537; i++) {
		snprintf(path, sizeof(path), "/lxc/c%d", i);
		c[i] = get(t, path, 1);
		made += c[i] != NULL;
		named += c[i] && c[i]->name;
	}
	CHECK_INT(made, 65536);
	CHECK_INT(named, 4096);
	container_table__counters(t, &n);
	CHECK_INT(n.n_full, 1);
	CHECK_INT(n.n_not_named, 65536 - 4096);
	for (int i = 0; i < 65537; i++)
		container_info__put(c[i]);
	free(c);
	container_table__free(t);
}

/* At most max_named containers keep names; the others are counted. */
static void test_max_named(void)
{
	char *root = t_tmpdir();
	struct container_table_opts o = { .host_root = root, .max_named = 3 };
	struct container_info *c[5];
	struct container_counters n;
	struct container_table *t;
	char rel[256], path[128];
	int named = 0;

	for (int i = 0; i < 5; i++) {
		snprintf(rel, sizeof(rel), "var/lib/docker/containers/%012x%052d/config.v2.json", i + 1, 0);
		put_fixture(root, rel, "docker-config.v2.json");
	}
	t = container_table__new(&o);
	for (int i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "/docker/%012x%052d", i + 1, 0);
		c[i] = get(t, path, 1);
		named += c[i] && c[i]->name != NULL;
	}
	CHECK_INT(named, 3);
	container_table__counters(t, &n);
	CHECK_INT(n.n_not_named, 2);
	/* one goes: the next new container gets a name again */
	container_info__put(c[0]);
	snprintf(path, sizeof(path), "/docker/%012x%052d", 1, 0);
	c[0] = get(t, path, 1);
	CHECK(c[0] && c[0]->name);
	for (int i = 0; i < 5; i++)
		container_info__put(c[i]);
	container_table__free(t);
	t_rmtree(root);
}

int main(int argc, char **argv)
{
	fixtures = argc > 1 ? argv[1] : "fixtures";
	test_containerd();
	test_containerd_namespaces();
	test_docker();
	test_docker_k8s();
	test_crio();
	test_podman();
	test_lxc();
	test_retry();
	test_bad_files();
	test_unreadable();
	test_bounds();
	test_default_bounds();
	test_max_named();
	return t_report();
}
