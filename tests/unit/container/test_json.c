/* sysdig's container JSON: ours read back field by field, a container object as
 * sysdig 0.29.3 writes it, and malformed ones counted, never trusted. */
#include <json-c/json.h>

#include "container.h"
#include "test_util.h"

#define CID "3ad7b26ded6d8e7b23da7d48fe889434573036c27ae5a74837233de441c3601e"

static struct container_table *file_table(void)
{
	struct container_table_opts o = { .no_lookup = true };

	return container_table__new(&o);
}

static struct container_info *by_id(struct container_table *t, const char *path)
{
	struct container_ident id;

	if (!cgroup__container(path, strlen(path), &id))
		return NULL;
	return container_table__get(t, &id, 1);
}

static void test_round_trip(void)
{
	struct container_table *t = file_table(), *t2 = file_table();
	struct container_info *c, *back;
	json_object *o, *cont, *labels, *v;
	char *json;
	size_t len;

	c = by_id(t, "/kubepods/besteffort/pod0f5d2a2e-1c5b-4a8e-9d7c-2b1f6e4a9c3d/" CID);
	CHECK(c != NULL);
	if (!c)
		return;
	/* what a lookup would have found */
	c->type = CT_CONTAINERD;
	c->lookup = CL_FOUND;
	c->privileged = 1;
	c->name = strdup("nginx \"quoted\" \\ name");
	c->image = strdup("docker.io/library/nginx:1.25");
	c->image_repo = strdup("docker.io/library/nginx");
	c->image_tag = strdup("1.25");
	c->image_id = strdup("abc123");
	c->pod_name = strdup("web-0");
	c->pod_namespace = strdup("shop");
	CHECK(container_info__to_json(c, &json, &len) == 0);
	CHECK(strlen(json) == len);
	/* sysdig's shape */
	o = json_tokener_parse(json);
	CHECK(o && json_object_object_get_ex(o, "container", &cont));
	CHECK(json_object_object_get_ex(cont, "id", &v) &&
	      strcmp(json_object_get_string(v), "3ad7b26ded6d") == 0);
	CHECK(json_object_object_get_ex(cont, "type", &v) && json_object_get_int(v) == CT_CONTAINERD);
	CHECK(json_object_object_get_ex(cont, "lookup_state", &v) && json_object_get_int(v) == 1);
	CHECK(json_object_object_get_ex(cont, "ip", &v) &&
	      strcmp(json_object_get_string(v), "0.0.0.0") == 0);
	CHECK(json_object_object_get_ex(cont, "labels", &labels) &&
	      json_object_object_get_ex(labels, "io.kubernetes.pod.uid", &v) &&
	      strcmp(json_object_get_string(v), "0f5d2a2e-1c5b-4a8e-9d7c-2b1f6e4a9c3d") == 0);
	json_object_put(o);

	/* read back: every field the same */
	CHECK(container_table__import_json(t2, json, len + 1) == 0);
	back = by_id(t2, "/docker/" CID);
	CHECK(back != NULL);
	if (back) {
		CHECK_STR(back->id, "3ad7b26ded6d");
		CHECK_STR(back->full_id, CID);
		CHECK_INT(back->type, CT_CONTAINERD);
		CHECK_INT(back->privileged, 1);
		CHECK_STR(back->name, "nginx \"quoted\" \\ name");
		CHECK_STR(back->image, "docker.io/library/nginx:1.25");
		CHECK_STR(back->image_repo, "docker.io/library/nginx");
		CHECK_STR(back->image_tag, "1.25");
		CHECK_STR(back->image_id, "abc123");
		CHECK_STR(back->pod_name, "web-0");
		CHECK_STR(back->pod_namespace, "shop");
		CHECK_STR(back->pod_uid, "0f5d2a2e-1c5b-4a8e-9d7c-2b1f6e4a9c3d");
		CHECK_INT(back->lookup, CL_FOUND);
	}
	free(json);
	container_info__put(back);
	container_info__put(c);
	container_table__free(t);
	container_table__free(t2);
}

/* The object sysdig 0.29.3's container_to_json writes (a Docker container). */
static const char sysdig_json[] =
	"{\"container\":{\"Mounts\":[{\"Destination\":\"/data\",\"Mode\":\"\","
	"\"Propagation\":\"rprivate\",\"RW\":true,\"Source\":\"/srv/data\"}],"
	"\"cpu_period\":100000,\"cpu_quota\":0,\"cpu_shares\":1024,\"cpuset_cpu_count\":0,"
	"\"created_time\":1700000000,\"env\":[],\"full_id\":\"" CID "\",\"id\":\"3ad7b26ded6d\","
	"\"image\":\"redis:7\",\"imagedigest\":\"\",\"imageid\":\"7e89539dd8bd\","
	"\"imagerepo\":\"redis\",\"imagetag\":\"7\",\"ip\":\"172.17.0.3\",\"is_pod_sandbox\":false,"
	"\"labels\":{\"io.kubernetes.pod.name\":\"cache-0\",\"io.kubernetes.pod.namespace\":"
	"\"data\",\"io.kubernetes.pod.uid\":\"11111111-2222-3333-4444-555555555555\"},"
	"\"lookup_state\":1,\"memory_limit\":0,\"metadata_deadline\":0,\"name\":\"k8s_cache\","
	"\"port_mappings\":[],\"privileged\":false,\"swap_limit\":0,\"type\":0}}\n";

static void test_sysdig_object(void)
{
	static const char renamed[] = "{\"container\":{\"id\":\"3ad7b26ded6d\","
				      "\"name\":\"renamed\",\"type\":0}}";
	struct container_table *t = file_table();
	struct container_info *c;
	struct container_counters n;

	CHECK(container_table__import_json(t, sysdig_json, sizeof(sysdig_json)) == 0);
	/* imported containers stay for the whole replay, without threads */
	container_table__counters(t, &n);
	CHECK_INT(n.n_containers, 1);
	c = by_id(t, "/docker/" CID);
	CHECK(c && c->type == CT_DOCKER && c->privileged == 0);
	CHECK(c && c->name && strcmp(c->name, "k8s_cache") == 0);
	CHECK(c && c->image_id && strcmp(c->image_id, "7e89539dd8bd") == 0);
	CHECK(c && !c->image_digest);	/* "" is none */
	CHECK(c && c->pod_name && strcmp(c->pod_name, "cache-0") == 0);
	CHECK(c && c->pod_namespace && strcmp(c->pod_namespace, "data") == 0);
	container_info__put(c);
	container_table__counters(t, &n);
	CHECK_INT(n.n_containers, 1);
	/* a second event for the same container updates it */
	CHECK(container_table__import_json(t, renamed, strlen(renamed)) == 0);
	c = by_id(t, "/docker/" CID);
	CHECK(c && c->name && strcmp(c->name, "renamed") == 0 && !c->image);
	container_info__put(c);
	container_table__free(t);
}

static void test_malformed(void)
{
	static const char *const bad[] = {
		"",
		"{",
		"not json",
		"[]",
		"{\"container\": 5}",
		"{\"container\": {\"name\": \"no id\"}}",
		"{\"container\": {\"id\": \"\"}}",
		"{\"container\": {\"id\": 42}}",
		"{\"container\": {\"id\": \"00000000000000000000000000000000000000000000000000000000"
		"000000000\"}}",	/* longer than any id */
	};
	static const char odd[] = "{\"container\":{\"id\":\"abc\",\"type\":\"x\",\"name\":7,"
				  "\"privileged\":\"yes\",\"labels\":[1]}}";
	struct container_table *t = file_table();
	struct container_counters n;
	size_t big = (1u << 20) + 10;
	char *huge = malloc(big);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_INT(container_table__import_json(t, bad[i], strlen(bad[i])), -EINVAL);
	memset(huge, ' ', big);
	CHECK_INT(container_table__import_json(t, huge, big), -EINVAL);
	free(huge);
	/* wrong types are ignored field by field, the object still counts */
	CHECK(container_table__import_json(t, odd, strlen(odd)) == 0);
	container_table__counters(t, &n);
	CHECK_INT(n.n_bad_json, sizeof(bad) / sizeof(bad[0]) + 1);
	CHECK_INT(n.n_containers, 1);
	container_table__free(t);
}

int main(void)
{
	test_round_trip();
	test_sysdig_object();
	test_malformed();
	return t_report();
}
