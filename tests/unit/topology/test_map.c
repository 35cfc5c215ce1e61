/* The service map (with TCP health's failed connects): JSON that python3
 * reads with the structure expected, DOT that Graphviz draws (argv[1]:
 * python3, argv[2]: dot; "" when missing: those checks are skipped, said
 * so), and writes that fail whole. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "t_check.h"
#include "topo_int.h"
#include "topo_rec.h"

static char dir[] = "/tmp/test_topo_map.XXXXXX";

static int run(const char *cmd)
{
	int rc = system(cmd);

	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static int files_in(const char *d)
{
	DIR *dp = opendir(d);
	struct dirent *de;
	int n = 0;

	while (dp && (de = readdir(dp)))
		n += de->d_name[0] != '.';
	if (dp)
		closedir(dp);
	return n;
}

static struct topo *build(struct container_info *web, struct container_info *db)
{
	struct topo *t = topo__new(NULL);
	struct req_record r;
	struct tcp_record tr;

	/* web (a pod) calls db (a container with a hostile name) on this host,
	 * both sides seen: one edge with both ends named */
	r = rec__http("10.0.0.5", "10.0.0.6", 5432, REQ_SIDE_SERVER, "SELECT", 0, 3000000);
	r.proto = REQ_PROTO_PGSQL;
	rec__local(&r.client, "python3", web);
	rec__local(&r.server, "postgres", db);
	r.both_sides = true;
	for (int i = 0; i < 10; i++) {
		r.duration = 1000000 * (uint64_t)(i + 1);
		r.error = i == 9;
		CHECK_INT(topo__add(t, &r), 0);
		r.side = REQ_SIDE_CLIENT;
		CHECK_INT(topo__add(t, &r), 0);
		r.side = REQ_SIDE_SERVER;
	}
	/* web calls a remote IPv6 server */
	r = rec__http("10.0.0.5", "10.0.0.6", 443, REQ_SIDE_CLIENT, "/", 200, 40000000);
	r.family = PPM_AF_INET6;
	inet_pton(AF_INET6, "2001:db8::7", r.server.ip);
	r.proto = REQ_PROTO_TLS;
	rec__local(&r.client, "python3", web);
	CHECK_INT(topo__add(t, &r), 0);
	/* a host process serves DNS to a remote client */
	r = rec__http("192.168.1.9", "192.168.1.1", 53, REQ_SIDE_SERVER, "example.org", 3, 100000);
	r.proto = REQ_PROTO_DNS;
	rec__local(&r.server, "dnsmasq", NULL);
	CHECK_INT(topo__add(t, &r), 0);
	/* TCP health: web's connection to db, made (not drawn: its requests
	 * are), and its connects to a cache that failed: 3 refused, 1 timed
	 * out, beside 2 made (drawn, one edge) */
	tr = rec__tcp("10.0.0.5", "10.0.0.6", 5432, REQ_SIDE_CLIENT, TCP_OUTCOME_CLOSED);
	rec__local(&tr.client, "python3", web);
	CHECK_INT(topo__add_tcp(t, &tr), 0);
	tr.server.port = 6379;
	inet_pton(AF_INET, "10.0.0.9", tr.server.ip);
	for (int i = 0; i < 6; i++) {
		tr.outcome = i < 3 ? TCP_OUTCOME_REFUSED : i == 3 ? TCP_OUTCOME_TIMEDOUT :
								  TCP_OUTCOME_CLOSED;
		CHECK_INT(topo__add_tcp(t, &tr), 0);
	}
	return t;
}

static void test_json(struct topo *t, const char *python)
{
	char path[256], cmd[2048];
	FILE *f;

	snprintf(path, sizeof(path), "%s/map.json", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_INT(topo__write_json(t, f), 0);
	CHECK_INT(fclose(f), 0);
	if (!*python) {
		printf("python3 not found: the JSON is not parsed\n");
		return;
	}
	snprintf(cmd, sizeof(cmd), "'%s' -m json.tool '%s' > /dev/null", python, path);
	CHECK_INT(run(cmd), 0);
	/* nodes: web, db, the IPv6 server, dnsmasq, its client, the cache;
	 * edges: three, and one of failed connects */
	snprintf(cmd, sizeof(cmd), "'%s' -c '\n"
		 "import json, sys\n"
		 "d = json.load(open(sys.argv[1]))\n"
		 "n = {x[\"id\"]: x for x in d[\"nodes\"]}\n"
		 "assert len(n) == 6, n\n"
		 "e = d[\"edges\"]\n"
		 "assert len(e) == 3, e\n"
		 "pg = [x for x in e if x[\"protocol\"] == \"pgsql\"][0]\n"
		 "assert pg[\"requests\"] == 10 and pg[\"errors\"] == 1, pg\n"
		 "assert abs(pg[\"mean_ms\"] - 5.5) < 1e-9, pg\n"
		 "assert n[pg[\"source\"]][\"workload_name\"] == \"web\"\n"
		 "assert n[pg[\"source\"]][\"workload_kind\"] == \"Deployment\"\n"
		 "assert n[pg[\"target\"]][\"container\"] == \"db \\\"x\\\"\\n\\ufffd\\\\\", n[pg[\"target\"]]\n"
		 "assert n[pg[\"target\"]][\"requests_in\"] == 10\n"
		 "assert n[pg[\"source\"]][\"requests_out\"] == 11\n"
		 "tls = [x for x in e if x[\"protocol\"] == \"tls\"][0]\n"
		 "assert n[tls[\"target\"]][\"title\"] == \"[2001:db8::7]:443\", n[tls[\"target\"]]\n"
		 "dns = [x for x in n.values() if x[\"process\"] == \"dnsmasq\"][0]\n"
		 "assert dns[\"kind\"] == \"host\" and dns[\"requests_in\"] == 1, dns\n"
		 "te = d[\"tcp_edges\"]\n"
		 "assert len(te) == 1, te\n"
		 "c = te[0]\n"
		 "assert n[c[\"target\"]][\"title\"] == \"10.0.0.9:6379\", n[c[\"target\"]]\n"
		 "assert n[c[\"source\"]][\"workload_name\"] == \"web\", n[c[\"source\"]]\n"
		 "assert c[\"connects\"] == {\"established\": 2, \"refused\": 3, \"timedout\": 1,"
		 " \"aborted\": 0, \"failed\": 0}, c\n"
		 "assert c[\"connections\"] == 6 and c[\"accepts\"] == 0, c\n"
		 "assert n[c[\"source\"]][\"failed_connects_out\"] == 4, n[c[\"source\"]]\n"
		 "assert n[c[\"target\"]][\"failed_connects_in\"] == 4 and n[c[\"target\"]][\"requests_in\"] == 0\n"
		 "' '%s'", python, path);
	CHECK_INT(run(cmd), 0);
}

static void test_dot(struct topo *t, const char *dot)
{
	char path[256], cmd[2048];
	FILE *f;

	snprintf(path, sizeof(path), "%s/map.dot", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_INT(topo__write_dot(t, f), 0);
	CHECK_INT(fclose(f), 0);
	if (!*dot) {
		printf("dot (Graphviz) not found: the DOT is not drawn\n");
		return;
	}
	snprintf(cmd, sizeof(cmd), "'%s' -Tsvg '%s' -o '%s/map.svg'", dot, path, dir);
	CHECK_INT(run(cmd), 0);
	/* every edge drawn: the SVG has four edge groups (three of requests,
	 * one of failed connects) */
	snprintf(cmd, sizeof(cmd), "test \"$(grep -c 'class=\"edge\"' '%s/map.svg')\" = 4", dir);
	CHECK_INT(run(cmd), 0);
}

static void test_write(struct topo *t)
{
	char path[256], sub[64];
	struct stat st;
	FILE *f;

	/* a full device: the error, not success */
	f = fopen("/dev/full", "w");
	if (f) {
		CHECK_INT(topo__write_json(t, f), -ENOSPC);
		fclose(f);
		f = fopen("/dev/full", "w");
		CHECK_INT(topo__write_dot(t, f), -ENOSPC);
		fclose(f);
	}
	/* FILE.json and FILE.dot, whole, readable by all */
	snprintf(sub, sizeof(sub), "%s/out", dir);
	CHECK_INT(mkdir(sub, 0755), 0);
	snprintf(path, sizeof(path), "%s/map.json", sub);
	CHECK_INT(topo__write_map(t, path), 0);
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0644);
	snprintf(path, sizeof(path), "%s/map.dot", sub);
	CHECK_INT(stat(path, &st), 0);
	CHECK(st.st_size > 0);
	/* again over them: still two files, no temporaries left */
	snprintf(path, sizeof(path), "%s/map.json", sub);
	CHECK_INT(topo__write_map(t, path), 0);
	CHECK_INT(files_in(sub), 2);
	/* another name: ".dot" added */
	snprintf(path, sizeof(path), "%s/topology", sub);
	CHECK_INT(topo__write_map(t, path), 0);
	snprintf(path, sizeof(path), "%s/topology.dot", sub);
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(files_in(sub), 4);
	/* no such directory */
	CHECK_INT(topo__write_map(t, "/nonexistent-topo-dir/map.json"), -ENOENT);
	/* the name is a directory: the rename fails and the temporaries go */
	snprintf(path, sizeof(path), "%s/busy", sub);
	CHECK_INT(mkdir(path, 0755), 0);
	CHECK(topo__write_map(t, path) < 0);
	CHECK_INT(files_in(sub), 5);
}

int main(int argc, char **argv)
{
	struct container_info web = { .id = "aaaaaaaaaaaa" }, db = { .id = "bbbbbbbbbbbb" };
	struct topo *t;

	web.name = "app";
	web.pod_name = "web-6b7f9d8c5d-k2m4x";
	web.pod_namespace = "shop";
	db.name = "db \"x\"\n\xff\\";
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	t = build(&web, &db);
	test_json(t, argc > 1 ? argv[1] : "");
	test_dot(t, argc > 2 ? argv[2] : "");
	test_write(t);
	topo__free(t);
	return t_finish(dir);
}
