/* Counting: each request once (both sides seen: from the server's), the
 * response classes, the caps with their overflow counted, and the histogram's
 * buckets and sums to the nanosecond. */
#include "t_check.h"
#include "topo_int.h"
#include "topo_rec.h"

/* The entity series of SERVER's port and CONTENT (NULL: "other"). */
static const struct topo_series *series_of(const struct topo *t, uint16_t port,
					   const char *content)
{
	topo_foreach(const struct topo_series, s, &t->series) {
		if (s->ent->name.port != port)
			continue;
		if (content ? s->content && strcmp(s->content->text, content) == 0 : !s->content)
			return s;
	}
	return NULL;
}

static void test_once(void)
{
	struct topo *t = topo__new(NULL);
	struct topo_counters c;
	struct req_record srv = rec__http("127.0.0.1", "127.0.0.1", 80, REQ_SIDE_SERVER, "/a", 200,
					  1000);
	struct req_record cli = srv;

	/* one request, both ends on this host: two records, one count */
	rec__local(&srv.client, "curl", NULL);
	rec__local(&srv.server, "nginx", NULL);
	srv.both_sides = true;
	cli = srv;
	cli.side = REQ_SIDE_CLIENT;
	CHECK_INT(topo__add(t, &cli), 0);
	CHECK_INT(topo__add(t, &srv), 0);
	topo__counters(t, &c);
	CHECK_INT(c.n_records, 2);
	CHECK_INT(c.n_counted, 1);
	CHECK_INT(c.n_series, 1);
	CHECK_INT(c.n_edges, 1);
	/* entities: the other one (always there), nginx and curl */
	CHECK_INT(c.n_entities, 3);
	const struct topo_edge *e = (const struct topo_edge *)t->edges.head;
	CHECK(e && e->s.count == 1);
	CHECK_STR(e->src->name.process, "curl");
	CHECK_STR(e->dst->name.process, "nginx");
	CHECK_INT(e->dst->name.port, 0);

	/* a client's record whose server is local but unseen: not counted */
	cli.both_sides = false;
	CHECK_INT(topo__add(t, &cli), 0);
	/* a client's record to a remote server: counted, the server by address */
	cli = rec__http("10.0.0.1", "93.184.216.34", 443, REQ_SIDE_CLIENT, "/x", 301, 5);
	rec__local(&cli.client, "curl", NULL);
	CHECK_INT(topo__add(t, &cli), 0);
	/* a side that is neither: not counted */
	cli.side = 0;
	CHECK_INT(topo__add(t, &cli), 0);
	topo__counters(t, &c);
	CHECK_INT(c.n_records, 5);
	CHECK_INT(c.n_counted, 2);
	const struct topo_series *s = series_of(t, 443, "/x");
	CHECK(s && s->s.count == 1 && s->cls == TOPO_CLASS_3XX);
	CHECK(s && s->ent->name.kind == TOPO_KIND_REMOTE);
	CHECK_STR(s ? s->ent->name.ip : "", "93.184.216.34");
	topo__free(t);
}

static void test_classes(void)
{
	struct req_record r = rec__http("10.0.0.1", "10.0.0.2", 80, REQ_SIDE_SERVER, "/", 404, 1);

	CHECK_STR(topo_class__name(topo_class__of(&r)), "4xx");
	r.status = 503;
	CHECK_STR(topo_class__name(topo_class__of(&r)), "5xx");
	r.status = -1;
	CHECK_STR(topo_class__name(topo_class__of(&r)), "");
	r.aborted = true;
	CHECK_STR(topo_class__name(topo_class__of(&r)), "aborted");
	r.timed_out = true;
	CHECK_STR(topo_class__name(topo_class__of(&r)), "timeout");
	r.timed_out = r.aborted = false;
	r.proto = REQ_PROTO_DNS;
	r.status = 3;
	CHECK_STR(topo_class__name(topo_class__of(&r)), "NXDOMAIN");
	r.status = 0;
	CHECK_STR(topo_class__name(topo_class__of(&r)), "NOERROR");
	r.status = 2;
	CHECK_STR(topo_class__name(topo_class__of(&r)), "SERVFAIL");
	r.status = 23;
	CHECK_STR(topo_class__name(topo_class__of(&r)), "other");
	r.proto = REQ_PROTO_REDIS;
	CHECK_STR(topo_class__name(topo_class__of(&r)), "ok");
	r.error = true;
	CHECK_STR(topo_class__name(topo_class__of(&r)), "error");
	r.proto = REQ_PROTO_MYSQL;
	CHECK_STR(topo_class__name(topo_class__of(&r)), "error");
	r.proto = REQ_PROTO_TLS;
	CHECK_STR(topo_class__name(topo_class__of(&r)), "");
	CHECK_STR(topo__content(&r), "");
	r.proto = REQ_PROTO_PGSQL;
	CHECK_STR(topo__content(&r), "GET");
	r.proto = REQ_PROTO_DNS;
	CHECK_STR(topo__content(&r), "/");
	/* HTTP/2 as HTTP; gRPC by its own status, whatever HTTP said */
	r.error = false;
	r.proto = REQ_PROTO_HTTP2;
	r.status = 404;
	CHECK_STR(topo_class__name(topo_class__of(&r)), "4xx");
	CHECK_STR(topo__content(&r), "/");
	r.proto = REQ_PROTO_GRPC;
	r.status = 0;
	CHECK_STR(topo_class__name(topo_class__of(&r)), "OK");
	r.status = 5;
	CHECK_STR(topo_class__name(topo_class__of(&r)), "NOT_FOUND");
	r.status = 16;
	CHECK_STR(topo_class__name(topo_class__of(&r)), "UNAUTHENTICATED");
	r.status = 17;
	CHECK_STR(topo_class__name(topo_class__of(&r)), "other");
	r.status = -1;
	CHECK_STR(topo_class__name(topo_class__of(&r)), "");
	r.aborted = true;
	CHECK_STR(topo_class__name(topo_class__of(&r)), "aborted");
	CHECK_STR(topo__content(&r), "/");
}

static void test_caps(void)
{
	struct topo_limits lim = { .max_entities = 4, .max_edges = 3, .max_contents = 2,
				   .max_series = 6 };
	struct topo *t = topo__new(&lim);
	struct topo_counters c;
	char path[32], ip[32];

	/* server 80: five paths, two kept, three to "other" */
	for (int i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "/p%d", i);
		struct req_record r = rec__http("10.0.0.1", "10.0.0.2", 80, REQ_SIDE_CLIENT, path,
						200, 1);
		CHECK_INT(topo__add(t, &r), 0);
		CHECK_INT(topo__add(t, &r), 0);
	}
	topo__counters(t, &c);
	CHECK_INT(c.n_contents, 2);
	CHECK_INT(c.n_capped_content, 6);
	CHECK(series_of(t, 80, "/p0") && series_of(t, 80, "/p0")->s.count == 2);
	CHECK(series_of(t, 80, "/p2") == NULL);
	CHECK(series_of(t, 80, NULL) && series_of(t, 80, NULL)->s.count == 6);
	CHECK_INT(c.n_series, 3);
	CHECK_INT(c.n_edges, 1);

	/* remote servers on ports 1..6 called from one local client: the
	 * client, :80 and two more entities fit, the rest are "other"; two more
	 * edges fit, the rest go to the other edge */
	for (int i = 1; i <= 6; i++) {
		snprintf(ip, sizeof(ip), "10.0.1.%d", i);
		struct req_record r = rec__http("10.0.0.1", ip, (uint16_t)i, REQ_SIDE_CLIENT, "/",
						200, 1);
		CHECK_INT(topo__add(t, &r), 0);
	}
	topo__counters(t, &c);
	CHECK_INT(c.n_entities, 5);		/* four and the other */
	CHECK_INT(c.n_capped_entity, 4);
	CHECK_INT(c.n_capped_edge, 4);		/* two new edges fit, then other */
	/* three series more (ports 1, 2 and the other entity): six, at the cap */
	CHECK_INT(c.n_capped_series, 0);
	CHECK_INT(c.n_series, 6);
	CHECK_INT(c.n_counted, 16);
	/* every count is somewhere: series and edges each sum to the requests */
	uint64_t sum = 0, esum = 0;
	topo_foreach(const struct topo_series, s, &t->series)
		sum += s->s.count;
	topo_foreach(const struct topo_edge, e, &t->edges)
		esum += e->s.count;
	CHECK_INT(sum, 16);
	CHECK_INT(esum, 16);
	/* past the series cap: a new series twice, into one overflow series */
	for (int i = 0; i < 2; i++) {
		struct req_record r = rec__http("10.0.0.1", "10.0.1.1", 1, REQ_SIDE_CLIENT, "/",
						500, 1);
		CHECK_INT(topo__add(t, &r), 0);
	}
	topo__counters(t, &c);
	CHECK_INT(c.n_series, 7);
	CHECK_INT(c.n_capped_series, 2);
	const struct topo_series *o = (const struct topo_series *)t->series.head;
	while (o && o->node.next)
		o = (const struct topo_series *)o->node.next;
	CHECK(o && o->ent == t->other && !o->content && o->s.count == 2);
	topo__free(t);

	lim.max_series = (1u << 22) + 1;
	errno = 0;
	CHECK_NULL(topo__new(&lim));
	CHECK_INT(errno, EINVAL);
}

static void test_histogram(void)
{
	struct topo *t = topo__new(NULL);
	static const uint64_t dur[] = { 0, 500000, 500001, 1000000, 999999999, 1000000000,
					10000000000ULL, 10000000001ULL, 60000000000ULL };
	static const uint64_t want[TOPO_NBUCKETS] = { 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 1, 2 };
	uint64_t total = 0;

	for (size_t i = 0; i < sizeof(dur) / sizeof(dur[0]); i++) {
		struct req_record r = rec__http("10.0.0.1", "10.0.0.2", 80, REQ_SIDE_SERVER, "/",
						200, dur[i]);
		r.req_bytes = i;
		r.resp_bytes = 1000 * i;
		r.error = i & 1;
		r.timed_out = i == 8;
		total += dur[i];
		CHECK_INT(topo__add(t, &r), 0);
	}
	/* two series: 2xx and the timeout */
	const struct topo_series *s = (const struct topo_series *)t->series.head;
	struct topo_stats all = { 0 };
	topo_foreach(const struct topo_series, x, &t->series)
		topo_stats__merge(&all, &x->s);
	CHECK(s && s->s.count == 8);
	CHECK_INT(all.count, 9);
	CHECK_INT(all.dur_ns, total);
	CHECK_INT(all.req_bytes, 36);
	CHECK_INT(all.resp_bytes, 36000);
	CHECK_INT(all.errors, 4);
	CHECK_INT(all.timeouts, 1);
	for (unsigned i = 0; i < TOPO_NBUCKETS; i++)
		CHECK_INT(all.bucket[i], want[i]);

	/* quantiles as histogram_quantile: within the bucket, linear */
	struct topo_stats q = { .count = 100 };
	q.bucket[0] = 50;	/* <= 0.5 ms */
	q.bucket[1] = 50;	/* <= 1 ms */
	CHECK_INT((int64_t)topo_stats__quantile_ns(&q, 0.5), 500000);
	CHECK_INT((int64_t)topo_stats__quantile_ns(&q, 0.99), 990000);
	q.bucket[1] = 0;
	q.bucket[TOPO_NBOUNDS] = 50;
	CHECK_INT((int64_t)topo_stats__quantile_ns(&q, 0.99), 10000000000LL);
	topo__free(t);
}

/* The entity cache (topo_cache.c): a container whose lookup named it since
 * is a new entity; another container at the same address is not taken for
 * the first; each remote server port is an entity of its own. */
static void test_entity_cache(void)
{
	struct topo *t = topo__new(NULL);
	struct container_info ci = { .id = "0123456789ab", .lookup = CL_PENDING };
	struct req_record r = rec__http("10.0.0.1", "10.0.0.2", 80, REQ_SIDE_SERVER, "/", 200, 10);
	const struct topo_series *s;
	struct topo_counters c;

	rec__local(&r.server, "nginx", &ci);
	CHECK_INT(topo__add(t, &r), 0);
	CHECK_INT(topo__add(t, &r), 0);
	topo__counters(t, &c);
	CHECK_INT(c.n_entities, 3);	/* other, the container, the client's address */
	/* its runtime's file read: now it has a pod */
	ci.pod_name = "web-7d4b9c8f6b-x2x9z";
	ci.pod_namespace = "shop";
	ci.attempts = 1;
	ci.lookup = CL_FOUND;
	CHECK_INT(topo__add(t, &r), 0);
	topo__counters(t, &c);
	CHECK_INT(c.n_entities, 4);
	s = (const struct topo_series *)t->series.head->next;
	CHECK(s && s->s.count == 1);
	CHECK_STR(s ? s->ent->name.pod : "", "web-7d4b9c8f6b-x2x9z");
	/* the same entry's memory, another container (same lookups so far) */
	snprintf(ci.id, sizeof(ci.id), "ba9876543210");
	CHECK_INT(topo__add(t, &r), 0);
	topo__counters(t, &c);
	CHECK_INT(c.n_entities, 5);
	s = (const struct topo_series *)s->node.next;
	CHECK(s && s->s.count == 1);
	CHECK_STR(s ? s->ent->name.container_id : "", "ba9876543210");
	/* a remote server, two ports: two entities; its client on the host */
	r = rec__http("10.0.0.1", "10.0.0.9", 80, REQ_SIDE_CLIENT, "/", 200, 10);
	rec__local(&r.client, "curl", NULL);
	CHECK_INT(topo__add(t, &r), 0);
	r.server.port = 8080;
	CHECK_INT(topo__add(t, &r), 0);
	CHECK_INT(topo__add(t, &r), 0);
	topo__counters(t, &c);
	CHECK_INT(c.n_entities, 8);	/* + curl, 10.0.0.9:80, 10.0.0.9:8080 */
	CHECK_INT(c.n_counted, 7);
	topo__free(t);
}

int main(void)
{
	test_once();
	test_classes();
	test_caps();
	test_histogram();
	test_entity_cache();
	return t_report();
}
