/* The tables' memory at the default caps: userspace/topology/README.md
 * (Bounds) and README.md promise "about 8 MB at most" for the request
 * tables, and about 2.4 MB more for the TCP edges' (TCP health). Every cap
 * is filled with distinct values and passed at least twice over, every (protocol,
 * class) a record can take is sent to the overflow series and edge, and the
 * heap the topology holds is read from malloc (mallinfo2: bytes in use,
 * mmapped ones included). Past the caps a batch of new values must not grow
 * it at all. */
#include <malloc.h>

#include "t_check.h"
#include "topo_int.h"
#include "topo_rec.h"

/* The line this test holds the request tables to: "about 8 MB"; and the
 * TCP edges' table beside them: "about 2.4 MB". */
#define TOPO_MEM_BOUND 8500000
#define TOPO_MEM_TCP_BOUND 2500000

/* Containers serving some of the entities (their pod names make the
 * entities' names long, as real ones are). */
#define N_CT 700

static struct container_info cts[N_CT];
static char ct_pod[N_CT][48];

/* Bytes malloc says are in use, 0 when it says nothing (valgrind replaces
 * malloc, and its mallinfo2 knows nothing of glibc's arenas). A chunk freed
 * into the thread cache still reads as in use, so nothing is freed between
 * two readings that are compared. */
static size_t heap__used(void)
{
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd;
}

/* The client's record of a request from host process "c<CLI>" to the remote
 * server 10.NET.<SRV>:80. */
static struct req_record rec__to(int cli, int net, int srv, const char *path, int status)
{
	char ip[32], comm[16];
	struct req_record r;

	snprintf(ip, sizeof(ip), "10.%d.%d.%d", net, (srv >> 8) & 255, srv & 255);
	r = rec__http("192.168.0.1", ip, 80, REQ_SIDE_CLIENT, path, status, 1000);
	snprintf(comm, sizeof(comm), "c%d", cli);
	rec__local(&r.client, comm, NULL);
	return r;
}

/* Variant V of a record's outcome: between them every response class of
 * every protocol (topo_class__of). */
#define N_VARIANTS 26

static void rec__variant(struct req_record *r, uint8_t proto, int v)
{
	r->proto = proto;
	r->status = -1;
	r->timed_out = v == 1;
	r->aborted = v == 2;
	r->error = v == 3;
	r->resp_bytes = v == 2 ? 0 : 1000;
	if (v >= 4 && v < 9)
		r->status = (v - 3) * 100;		/* 1xx .. 5xx */
	else if (v >= 9)
		r->status = v - 9;			/* rcodes 0 .. 16 */
}

/* How many (protocol, class) keys the variants reach: the overflow series
 * and edges a full table can come to hold. */
static unsigned overflow_keys(void)
{
	bool seen[REQ_PROTO_MAX][TOPO_CLASS_MAX] = { { false } };
	struct req_record r = rec__to(0, 0, 0, "/", 200);
	unsigned n = 0;

	for (uint8_t p = 0; p < REQ_PROTO_MAX; p++)
		for (int v = 0; v < N_VARIANTS; v++) {
			rec__variant(&r, p, v);
			uint8_t c = topo_class__of(&r);

			n += !seen[p][c];
			seen[p][c] = true;
		}
	return n;
}

static int add(struct topo *t, struct req_record r)
{
	return topo__add(t, &r);
}

/* Fills T past every cap; the number of records that failed to count. */
static int fill(struct topo *t)
{
	char path[32], comm[16];
	int bad = 0;

	/* request contents and series: 200 servers x 200 paths, twice each
	 * cap (100 per entity and protocol, 10000 in all) */
	for (int s = 0; s < 200; s++)
		for (int p = 0; p < 200; p++) {
			snprintf(path, sizeof(path), "/p%d", p);
			bad += add(t, rec__to(0, 1, s, path, 200)) != 0;
		}
	/* edges: 100 clients x 100 servers, twice the 5000 */
	for (int c = 0; c < 100; c++)
		for (int s = 0; s < 100; s++)
			bad += add(t, rec__to(c, 1, s, "/p0", 200)) != 0;
	/* entities: 2100 new servers, a third each a remote address, a host
	 * process and a container (the server's own records) */
	for (int i = 0; i < 2100; i++) {
		struct req_record r = rec__to(0, 2, i, "/", 200);

		if (i % 3) {
			r.side = REQ_SIDE_SERVER;
			r.client.local = false;
			snprintf(comm, sizeof(comm), "s%d", i);
			rec__local(&r.server, comm, i % 3 == 2 ? &cts[i / 3] : NULL);
		}
		bad += add(t, r) != 0;
	}
	/* every (protocol, class) once more past the caps */
	for (uint8_t p = 0; p < REQ_PROTO_MAX; p++)
		for (int v = 0; v < N_VARIANTS; v++) {
			struct req_record r = rec__to(0, 3, v, "/x", 200);

			rec__variant(&r, p, v);
			bad += add(t, r) != 0;
		}
	return bad;
}

/* A batch of N records all new: new servers, clients, contents, classes. */
static int more(struct topo *t, int n)
{
	char path[32];
	int bad = 0;

	for (int i = 0; i < n; i++) {
		struct req_record r;

		snprintf(path, sizeof(path), "/q%d", i);
		r = rec__to(1000 + i % 500, 4, i, path, 200);
		rec__variant(&r, (uint8_t)(i % REQ_PROTO_MAX), i % N_VARIANTS);
		bad += add(t, r) != 0;
	}
	return bad;
}

/* TCP records of connections from host process "c<CLI>" to 10.NET.<SRV>:80,
 * N of them, CLI and SRV running through 100 x 100: at NET 1 every end is an
 * entity fill() made, so the edges are new and the cap is what stops them. */
static int tcp_fill(struct topo *t, int net, int n)
{
	char ip[32];
	int bad = 0;

	for (int i = 0; i < n; i++) {
		int cli = (i / 100) % 100, srv = i % 100;
		struct tcp_record r;

		snprintf(ip, sizeof(ip), "10.%d.%d.%d", net, (srv >> 8) & 255, srv & 255);
		r = rec__tcp("192.168.0.1", ip, 80, REQ_SIDE_CLIENT, (uint8_t)(i % 6));
		snprintf(r.client.comm, sizeof(r.client.comm), "c%d", cli + (i / 10000) * 100);
		r.srtt_us = (uint32_t)i;
		bad += topo__add_tcp(t, &r) != 0;
	}
	return bad;
}

/* The bytes malloc takes for an object of SIZE, overhead included. */
static size_t chunk_of(size_t size)
{
	size_t before = heap__used(), n;
	/* volatile: a calloc whose result is only freed may be left out */
	void *volatile p = calloc(1, size);

	n = heap__used() - before;
	free(p);
	return n;
}

int main(void)
{
	unsigned keys = overflow_keys();
	size_t base, empty, full, full_tcp, after;
	struct topo_counters c, c2;
	struct topo *t;

	for (int i = 0; i < N_CT; i++) {
		snprintf(cts[i].id, sizeof(cts[i].id), "%012x", 0xc0ffee00u + (unsigned)i);
		snprintf(ct_pod[i], sizeof(ct_pod[i]), "web%d-7d4b9c8f6b-x2x9z", i);
		cts[i].pod_name = ct_pod[i];
		cts[i].pod_namespace = "shop";
		cts[i].lookup = CL_FOUND;
	}

	/* malloc's first allocation also makes its per-thread cache (656
	 * bytes with glibc 2.36): made here, it is not counted as the
	 * topology's. Nothing is printed before the last reading either:
	 * stdout's buffer is heap. */
	void *volatile warm = malloc(1);
	base = heap__used();
	t = topo__new(NULL);
	CHECK(t != NULL);
	if (!t) {
		free(warm);
		return t_report();
	}
	empty = heap__used() - base;
	CHECK_INT(fill(t), 0);
	full = heap__used() - base;
	/* every TCP edge: twice the 5000 */
	CHECK_INT(tcp_fill(t, 1, 10000), 0);
	full_tcp = heap__used() - base;
	topo__counters(t, &c);
	CHECK_INT(more(t, 20000), 0);
	/* past the caps: clients and servers new, or entities now "other" */
	CHECK_INT(tcp_fill(t, 5, 20000), 0);
	after = heap__used() - base;
	topo__counters(t, &c2);

	/* the caps were reached, or this measured nothing */
	CHECK(c.n_capped_entity > 0);
	CHECK(c.n_capped_content > 0);
	CHECK(c.n_capped_series > 0);
	CHECK(c.n_capped_edge > 0);
	CHECK_INT(c.n_entities, TOPO_DEFAULT_ENTITIES + 1);	/* and the other */
	CHECK_INT(c.n_contents, TOPO_DEFAULT_SERIES);
	CHECK_INT(c.n_series - t->series_over, TOPO_DEFAULT_SERIES);
	CHECK_INT(c.n_edges - t->edges_over, TOPO_DEFAULT_EDGES);
	CHECK_INT(t->series_over, keys);
	CHECK_INT(t->edges_over, keys);
	CHECK_INT(c.n_tcp_edges, TOPO_DEFAULT_EDGES + 1);	/* and other -> other */
	CHECK_INT(c.n_capped_tcp_edge, 10000 - TOPO_DEFAULT_EDGES);
	/* the batch was counted, into what was there */
	CHECK_INT(c2.n_counted, c.n_counted + 20000);
	CHECK_INT(c2.n_entities, c.n_entities);
	CHECK_INT(c2.n_contents, c.n_contents);
	CHECK_INT(c2.n_series, c.n_series);
	CHECK_INT(c2.n_edges, c.n_edges);
	CHECK_INT(c2.n_tcp_edges, c.n_tcp_edges);
	/* half the batch from a known client to a new server (now "other"):
	 * capped; half from "other" to "other", which is that edge's own */
	CHECK_INT(c2.n_capped_tcp_edge, c.n_capped_tcp_edge + 10000);

	if (!base && !full) {
		printf("mallinfo2 reports nothing (valgrind?): memory not measured\n");
		topo__free(t);
		free(warm);
		return t_report();
	}

	/* what each kind takes: count x chunk, the rest (buckets, the cache,
	 * the other entity, struct topo) from the empty tables */
	size_t ce = chunk_of(sizeof(struct topo_entity));
	size_t cc = chunk_of(sizeof(struct topo_content));
	size_t cs = chunk_of(sizeof(struct topo_series));
	size_t cd = chunk_of(sizeof(struct topo_edge));
	size_t ct = chunk_of(sizeof(struct topo_tcp_edge));
	size_t tcp = c.n_tcp_edges * ct;
	size_t ents = (c.n_entities - 1) * ce, conts = c.n_contents * cc;
	size_t sers = c.n_series * cs, edges = c.n_edges * cd;
	/* all 9 x 45 overflow keys held, though records reach only KEYS */
	size_t worst = empty + TOPO_DEFAULT_ENTITIES * ce + TOPO_DEFAULT_SERIES * cc +
		       (TOPO_DEFAULT_SERIES + REQ_PROTO_MAX * TOPO_CLASS_MAX) * cs +
		       (TOPO_DEFAULT_EDGES + REQ_PROTO_MAX * TOPO_CLASS_MAX) * cd;
	/* the README's formula, its sizes and the buckets at the default caps */
	size_t readme = TOPO_DEFAULT_ENTITIES * 920 + TOPO_DEFAULT_SERIES * 312 +
			(TOPO_DEFAULT_SERIES + 189) * 232 + (TOPO_DEFAULT_EDGES + 189) * 232 +
			8 * (1024 + 16384 + 16384 + 8192);

	CHECK(full <= TOPO_MEM_BOUND);
	CHECK(worst <= TOPO_MEM_BOUND);
	CHECK(tcp <= TOPO_MEM_TCP_BOUND);
	/* every byte is accounted for by the kinds above */
	CHECK_EQ(full, empty + ents + conts + sers + edges);
	CHECK_EQ(full_tcp, full + tcp);
	/* past the caps nothing more is allocated */
	CHECK_EQ(after, full_tcp);

	printf("chunks: entity %zu, content %zu, series %zu, edge %zu, TCP edge %zu bytes\n", ce,
	       cc, cs, cd, ct);
	printf("empty tables (buckets, cache, other entity): %zu bytes\n", empty);
	printf("full: %zu bytes: entities %zu (%llu), contents %zu (%llu), series %zu (%llu), "
	       "edges %zu (%llu)\n", full, ents, (unsigned long long)c.n_entities - 1, conts,
	       (unsigned long long)c.n_contents, sers, (unsigned long long)c.n_series, edges,
	       (unsigned long long)c.n_edges);
	printf("overflow keys reached: %u of %d; worst case with all: %zu bytes\n", keys,
	       REQ_PROTO_MAX * TOPO_CLASS_MAX, worst);
	printf("TCP edges: %zu bytes (%llu); all: %zu bytes\n", tcp,
	       (unsigned long long)c.n_tcp_edges, full_tcp);
	printf("README formula: %zu bytes; 20000 more requests and 20000 TCP records: %+zd "
	       "bytes\n", readme, (ssize_t)(after - full_tcp));
	topo__free(t);
	free(warm);
	return t_report();
}
