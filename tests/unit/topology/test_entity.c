/* Naming ends: containers with their pod and a guessed workload, host
 * processes, addresses (IPv4 and RFC 5952 IPv6). */
#include <arpa/inet.h>

#include "t_check.h"
#include "topo_entity.h"
#include "topo_rec.h"

static void check_workload(const char *pod, const char *kind, const char *name)
{
	char k[16], n[254];

	topo__workload(pod, k, sizeof(k), n, sizeof(n));
	CHECK_STR(k, kind);
	CHECK_STR(n, name);
}

static void test_workload(void)
{
	check_workload("web-7d4b9c8f6b-x2x9z", "Deployment", "web");
	check_workload("my-api-server-5c9f8b7d4-wxz2k", "Deployment", "my-api-server");
	check_workload("coredns-565d847f94-8qzvb", "Deployment", "coredns");
	check_workload("redis-0", "StatefulSet", "redis");
	check_workload("pg-cluster-12", "StatefulSet", "pg-cluster");
	check_workload("kube-proxy-x7k2p", "DaemonSet", "kube-proxy");
	check_workload("node-exporter-4hq9m", "DaemonSet", "node-exporter");
	/* all digits: an ordinal, though a DaemonSet suffix could be so */
	check_workload("db-24567", "StatefulSet", "db");
	/* not the shapes: the pod name itself */
	check_workload("standalone", "", "standalone");
	check_workload("web-ABCDE", "", "web-ABCDE");
	/* vowels: a word, not a generated suffix */
	check_workload("web-abcde", "", "web-abcde");
	check_workload("my-service-proxy", "", "my-service-proxy");
	check_workload("web-abcd", "", "web-abcd");
	check_workload("-0", "", "-0");
	check_workload("web-", "", "web-");
	check_workload("", "", "");
	/* a hash of 4 or 11 is not a ReplicaSet's: the last part alone decides */
	check_workload("web-bcdf-x2x9z", "DaemonSet", "web-bcdf");
	check_workload("web-bcdfghjklmn-x2x9z", "DaemonSet", "web-bcdfghjklmn");
}

static void test_ip(void)
{
	uint8_t ip[16] = { 0 };
	char out[TOPO_IP_MAX];

	inet_pton(AF_INET, "10.1.2.3", ip);
	CHECK_INT(topo__ip_text(ip, PPM_AF_INET, out, sizeof(out)), 0);
	CHECK_STR(out, "10.1.2.3");
	inet_pton(AF_INET6, "2001:0db8:0000:0000:0000:0000:0000:0001", ip);
	CHECK_INT(topo__ip_text(ip, PPM_AF_INET6, out, sizeof(out)), 0);
	CHECK_STR(out, "2001:db8::1");
	inet_pton(AF_INET6, "::ffff:127.0.0.1", ip);
	CHECK_INT(topo__ip_text(ip, PPM_AF_INET6, out, sizeof(out)), 0);
	CHECK_STR(out, "::ffff:127.0.0.1");
	CHECK_INT(topo__ip_text(ip, PPM_AF_UNIX, out, sizeof(out)), -EAFNOSUPPORT);
}

static void test_ends(void)
{
	struct container_info ci = { .id = "0123456789ab" };
	struct req_record r = rec__http("10.0.0.1", "10.0.0.2", 8080, REQ_SIDE_SERVER, "/", 200, 1);
	struct topo_name n, m;

	ci.name = "nginx";
	ci.pod_name = "web-7d4b9c8f6b-x2x9z";
	ci.pod_namespace = "shop";
	rec__local(&r.server, "nginx", &ci);
	topo_name__from_end(&n, &r.server, r.family, true);
	CHECK_INT(n.kind, TOPO_KIND_CONTAINER);
	CHECK_STR(n.ns, "shop");
	CHECK_STR(n.wl_kind, "Deployment");
	CHECK_STR(n.wl_name, "web");
	CHECK_STR(n.pod, "web-7d4b9c8f6b-x2x9z");
	CHECK_STR(n.container, "nginx");
	CHECK_STR(n.container_id, "0123456789ab");
	CHECK_STR(n.process, "");
	/* a local end is not named by the address it was reached on */
	CHECK_STR(n.ip, "");
	CHECK_INT(n.port, 0);

	/* a container outside Kubernetes: no pod, no workload */
	ci.pod_name = ci.pod_namespace = NULL;
	topo_name__from_end(&n, &r.server, r.family, true);
	CHECK_STR(n.wl_kind, "");
	CHECK_STR(n.wl_name, "");
	CHECK_STR(n.container, "nginx");

	/* the host: the process, container_id "host" */
	rec__local(&r.server, "redis-server", NULL);
	topo_name__from_end(&n, &r.server, r.family, true);
	CHECK_INT(n.kind, TOPO_KIND_HOST);
	CHECK_STR(n.process, "redis-server");
	CHECK_STR(n.container_id, "host");

	/* a remote server: address and port; a remote client: no port */
	r.server.local = false;
	topo_name__from_end(&n, &r.server, r.family, true);
	CHECK_INT(n.kind, TOPO_KIND_REMOTE);
	CHECK_STR(n.ip, "10.0.0.2");
	CHECK_INT(n.port, 8080);
	topo_name__from_end(&n, &r.client, r.family, false);
	CHECK_INT(n.kind, TOPO_KIND_REMOTE);
	CHECK_STR(n.ip, "10.0.0.1");
	CHECK_INT(n.port, 0);
	CHECK_STR(n.process, "");

	/* equal ends give byte-equal names (the tables memcmp them) */
	topo_name__from_end(&m, &r.client, r.family, false);
	CHECK(memcmp(&n, &m, sizeof(n)) == 0);

	topo_name__other(&n);
	CHECK_INT(n.kind, TOPO_KIND_OTHER);
	CHECK_STR(n.wl_name, "other");
}

int main(void)
{
	test_workload();
	test_ip();
	test_ends();
	return t_report();
}
