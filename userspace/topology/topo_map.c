/* The service map: entities as nodes, requests between them as edges (the
 * edge table's response classes folded together) and, as edges of their
 * own, TCP health's edges where connects failed (a refused or unanswered
 * connect has no request to show), as JSON and as Graphviz DOT, written
 * whole or not at all.
 *
 * Only those: a connection that was made is drawn by its requests, and its
 * two ends' TCP records each name the other end by its address, so drawing
 * them would add an address node beside each local process it reached. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "req_record.h"
#include "tcp_record.h"
#include "topo_int.h"
#include "utf8.h"

/* One map edge: the edge table's entries of one (client, server, protocol). */
struct map_edge {
	const struct topo_entity *src, *dst;
	uint8_t proto;
	struct topo_stats s;
};

struct map {
	uint64_t *in, *out;		/* per entity id: requests served, sent */
	uint64_t *cin, *cout;		/* per entity id: failed connects to, from */
	struct map_edge *edges;
	size_t n_edges;
	const struct topo_tcp_edge **tcp;	/* with failed connects, by ids */
	size_t n_tcp;
};

static int edge_cmp(const void *a, const void *b)
{
	const struct topo_edge *x = *(const struct topo_edge *const *)a;
	const struct topo_edge *y = *(const struct topo_edge *const *)b;

	if (x->src->id != y->src->id)
		return x->src->id < y->src->id ? -1 : 1;
	if (x->dst->id != y->dst->id)
		return x->dst->id < y->dst->id ? -1 : 1;
	return (int)x->proto - (int)y->proto;
}

static int tcp_edge_cmp(const void *a, const void *b)
{
	const struct topo_tcp_edge *x = *(const struct topo_tcp_edge *const *)a;
	const struct topo_tcp_edge *y = *(const struct topo_tcp_edge *const *)b;

	if (x->src->id != y->src->id)
		return x->src->id < y->src->id ? -1 : 1;
	return x->dst->id < y->dst->id ? -1 : x->dst->id > y->dst->id;
}

static void map__free(struct map *m)
{
	free(m->in);
	free(m->out);
	free(m->cin);
	free(m->cout);
	free(m->edges);
	free(m->tcp);
}

/* The connections an edge counted (once each, whatever their outcome). */
static uint64_t tcp__conns(const struct topo_tcp_stats *s)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < TCP_OUTCOME__COUNT; i++)
		n += s->conns[i];
	return n;
}

/* The connects that failed: refused, timed out, aborted, failed. */
static uint64_t tcp__failed(const struct topo_tcp_stats *s)
{
	uint64_t n = 0;

	for (unsigned i = TOPO_TCP_ESTABLISHED + 1; i < TOPO_TCP_CONNECT__COUNT; i++)
		n += s->connects[i];
	return n;
}

/* The TCP edges with failed connects, sorted, and each entity's. */
static int map__build_tcp(const struct topo *t, struct map *m)
{
	m->cin = calloc(t->entities.n, sizeof(*m->cin));
	m->cout = calloc(t->entities.n, sizeof(*m->cout));
	m->tcp = calloc(t->tcp_edges.n + 1, sizeof(*m->tcp));
	if (!m->cin || !m->cout || !m->tcp)
		return -ENOMEM;
	topo_foreach(const struct topo_tcp_edge, e, &t->tcp_edges) {
		uint64_t n = tcp__failed(&e->s);

		if (!n)
			continue;
		m->tcp[m->n_tcp++] = e;
		m->cin[e->dst->id] += n;
		m->cout[e->src->id] += n;
	}
	qsort(m->tcp, m->n_tcp, sizeof(*m->tcp), tcp_edge_cmp);
	return 0;
}

/* An entity is drawn when a request or a failed connect has it. */
static bool map__has(const struct map *m, uint32_t id)
{
	return m->in[id] || m->out[id] || m->cin[id] || m->cout[id];
}

static int map__build(const struct topo *t, struct map *m)
{
	const struct topo_edge **v = calloc(t->edges.n + 1, sizeof(*v));
	size_t n = 0;

	memset(m, 0, sizeof(*m));
	m->in = calloc(t->entities.n, sizeof(*m->in));
	m->out = calloc(t->entities.n, sizeof(*m->out));
	m->edges = calloc(t->edges.n + 1, sizeof(*m->edges));
	if (!v || !m->in || !m->out || !m->edges || map__build_tcp(t, m)) {
		free(v);
		map__free(m);
		return -ENOMEM;
	}
	topo_foreach(const struct topo_edge, e, &t->edges)
		v[n++] = e;
	qsort(v, n, sizeof(*v), edge_cmp);
	for (size_t i = 0; i < n; i++) {
		struct map_edge *me = m->n_edges ? &m->edges[m->n_edges - 1] : NULL;

		if (!me || me->src != v[i]->src || me->dst != v[i]->dst || me->proto != v[i]->proto) {
			me = &m->edges[m->n_edges++];
			me->src = v[i]->src;
			me->dst = v[i]->dst;
			me->proto = v[i]->proto;
		}
		topo_stats__merge(&me->s, &v[i]->s);
		m->in[v[i]->dst->id] += v[i]->s.count;
		m->out[v[i]->src->id] += v[i]->s.count;
	}
	free(v);
	return 0;
}

/* S quoted for JSON (DOT false) or for a DOT string: quotes and backslashes
 * escaped, control bytes as \u00XX (JSON) or a space (DOT), bytes that are
 * not UTF-8 as U+FFFD, which both readers require. */
static void put_escaped(FILE *f, const char *s, bool dot)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t n;

	while (*p) {
		if (*p == '"' || *p == '\\') {
			fputc('\\', f);
			fputc(*p++, f);
		} else if (*p < 0x20 || *p == 0x7f) {
			if (dot)
				fputc(' ', f);
			else
				fprintf(f, "\\u%04x", *p);
			p++;
		} else if (*p < 0x80) {
			fputc(*p++, f);
		} else if ((n = utf8__seq(p, strnlen((const char *)p, 4)))) {
			fwrite(p, 1, n, f);
			p += n;
		} else {
			fputs("\xef\xbf\xbd", f);
			p++;
		}
	}
}

static void put_quoted(FILE *f, const char *s, bool dot)
{
	fputc('"', f);
	put_escaped(f, s, dot);
	fputc('"', f);
}

static const char *kind_name(uint8_t kind)
{
	switch (kind) {
	case TOPO_KIND_CONTAINER: return "container";
	case TOPO_KIND_HOST: return "host";
	case TOPO_KIND_REMOTE: return "remote";
	default: return "other";
	}
}

/* A node's title: namespace/pod, the container, process (host), ip[:port]. */
static void node_title(const struct topo_name *n, char *out, size_t len)
{
	const char *v6 = strchr(n->ip, ':') ? "[" : "";

	switch (n->kind) {
	case TOPO_KIND_CONTAINER:
		if (n->pod[0])
			snprintf(out, len, "%s/%s", n->ns, n->pod);
		else
			snprintf(out, len, "%s", n->container[0] ? n->container : n->container_id);
		break;
	case TOPO_KIND_HOST:
		snprintf(out, len, "%s (host)", n->process);
		break;
	case TOPO_KIND_REMOTE:
		if (n->port)
			snprintf(out, len, "%s%s%s:%u", v6, n->ip, *v6 ? "]" : "", n->port);
		else
			snprintf(out, len, "%s", n->ip);
		break;
	default:
		snprintf(out, len, "other");
	}
}

static int stream_result(FILE *f)
{
	int e = fflush(f) ? errno : 0;

	if (!e && ferror(f))
		e = EIO;
	return e ? -e : 0;
}

static double mean_ms(const struct topo_stats *s)
{
	return s->count ? (double)s->dur_ns / (double)s->count / 1e6 : 0;
}

static void json_field(FILE *f, const char *key, const char *value)
{
	fprintf(f, ",\"%s\":", key);
	put_quoted(f, value, false);
}

/* A TCP edge: its connections, connects by outcome, accepts, the loss and
 * reset counts, the bytes (its made connections'), the last srtt and the
 * mean RTT. */
static void json__tcp_edge(FILE *f, const struct topo_tcp_edge *e, bool first)
{
	const struct topo_tcp_stats *s = &e->s;

	fprintf(f, "%s\n{\"source\":%u,\"target\":%u,\"connections\":%lu,\"connects\":{",
		first ? "" : ",", e->src->id, e->dst->id, (unsigned long)tcp__conns(s));
	for (unsigned k = 0; k < TOPO_TCP_CONNECT__COUNT; k++)
		fprintf(f, "%s\"%s\":%lu", k ? "," : "", topo_tcp_connect_name[k],
			(unsigned long)s->connects[k]);
	fprintf(f, "},\"accepts\":%lu,\"retransmits\":%lu,\"resets_sent\":%lu,"
		"\"resets_received\":%lu,\"bytes_sent\":%lu,\"bytes_received\":%lu,"
		"\"srtt_ms\":%.3f,\"mean_rtt_ms\":%.3f}",
		(unsigned long)s->accepts, (unsigned long)s->retransmits,
		(unsigned long)s->resets_sent, (unsigned long)s->resets_received,
		(unsigned long)s->bytes_sent, (unsigned long)s->bytes_received, s->srtt_us / 1e3,
		s->rtt_count ? (double)s->rtt_us / (double)s->rtt_count / 1e3 : 0);
}

int topo__write_json(const struct topo *t, FILE *f)
{
	char title[600];
	struct map m;
	bool first = true;
	int err = map__build(t, &m);

	if (err)
		return err;
	fputs("{\"nodes\":[", f);
	topo_foreach(const struct topo_entity, e, &t->entities) {
		const struct topo_name *n = &e->name;

		if (!map__has(&m, e->id))
			continue;
		node_title(n, title, sizeof(title));
		fprintf(f, "%s\n{\"id\":%u", first ? "" : ",", e->id);
		first = false;
		json_field(f, "kind", kind_name(n->kind));
		json_field(f, "title", title);
		json_field(f, "namespace", n->ns);
		json_field(f, "workload_kind", n->wl_kind);
		json_field(f, "workload_name", n->wl_name);
		json_field(f, "pod", n->pod);
		json_field(f, "container", n->container);
		json_field(f, "container_id", n->container_id);
		json_field(f, "process", n->process);
		json_field(f, "ip", n->ip);
		fprintf(f, ",\"port\":%u,\"requests_in\":%lu,\"requests_out\":%lu,"
			"\"failed_connects_in\":%lu,\"failed_connects_out\":%lu}", n->port,
			(unsigned long)m.in[e->id], (unsigned long)m.out[e->id],
			(unsigned long)m.cin[e->id], (unsigned long)m.cout[e->id]);
	}
	fputs("],\n\"edges\":[", f);
	for (size_t i = 0; i < m.n_edges; i++) {
		const struct map_edge *me = &m.edges[i];

		fprintf(f, "%s\n{\"source\":%u,\"target\":%u", i ? "," : "", me->src->id,
			me->dst->id);
		json_field(f, "protocol", req_proto__name(me->proto));
		fprintf(f, ",\"requests\":%lu,\"errors\":%lu,\"timeouts\":%lu,"
			"\"mean_ms\":%.3f,\"p99_ms\":%.3f,\"request_bytes\":%lu,"
			"\"response_bytes\":%lu}",
			(unsigned long)me->s.count, (unsigned long)me->s.errors,
			(unsigned long)me->s.timeouts, mean_ms(&me->s),
			topo_stats__quantile_ns(&me->s, 0.99) / 1e6,
			(unsigned long)me->s.req_bytes, (unsigned long)me->s.resp_bytes);
	}
	fputs("],\n\"tcp_edges\":[", f);
	for (size_t i = 0; i < m.n_tcp; i++)
		json__tcp_edge(f, m.tcp[i], i == 0);
	fputs("]}\n", f);
	map__free(&m);
	return stream_result(f);
}

int topo__write_dot(const struct topo *t, FILE *f)
{
	char title[600];
	struct map m;
	int err = map__build(t, &m);

	if (err)
		return err;
	fputs("digraph service_map {\n\trankdir=LR;\n\tnode [shape=box];\n", f);
	topo_foreach(const struct topo_entity, e, &t->entities) {
		const struct topo_name *n = &e->name;

		if (!map__has(&m, e->id))
			continue;
		node_title(n, title, sizeof(title));
		/* lines escaped one by one, joined by DOT's own \n */
		fprintf(f, "\tn%u [label=\"", e->id);
		put_escaped(f, title, true);
		if (n->wl_kind[0]) {
			fprintf(f, "\\n%s ", n->wl_kind);
			put_escaped(f, n->wl_name, true);
		}
		fprintf(f, "\\nin %lu, out %lu\"];\n", (unsigned long)m.in[e->id],
			(unsigned long)m.out[e->id]);
	}
	for (size_t i = 0; i < m.n_edges; i++) {
		const struct map_edge *me = &m.edges[i];

		fprintf(f, "\tn%u -> n%u [label=\"%s\\n%lu req, %lu err\\n"
			"mean %.3f ms, p99 %.3f ms\\n%lu B sent, %lu B back\"];\n",
			me->src->id, me->dst->id, req_proto__name(me->proto),
			(unsigned long)me->s.count, (unsigned long)me->s.errors, mean_ms(&me->s),
			topo_stats__quantile_ns(&me->s, 0.99) / 1e6,
			(unsigned long)me->s.req_bytes, (unsigned long)me->s.resp_bytes);
	}
	/* failed connects: dashed, red */
	for (size_t i = 0; i < m.n_tcp; i++) {
		const struct topo_tcp_stats *s = &m.tcp[i]->s;

		fprintf(f, "\tn%u -> n%u [style=dashed,color=red,label=\"tcp: %lu connects "
			"failed\\n%lu refused, %lu timed out\\n%lu made\"];\n",
			m.tcp[i]->src->id, m.tcp[i]->dst->id, (unsigned long)tcp__failed(s),
			(unsigned long)s->connects[TOPO_TCP_REFUSED],
			(unsigned long)s->connects[TOPO_TCP_TIMEDOUT],
			(unsigned long)s->connects[TOPO_TCP_ESTABLISHED]);
	}
	fputs("}\n", f);
	map__free(&m);
	return stream_result(f);
}

/* PATH's DOT twin: a ".json" suffix replaced by ".dot", else ".dot" added. */
static char *dot_path(const char *path)
{
	size_t n = strlen(path);
	char *p = malloc(n + 5);

	if (!p)
		return NULL;
	if (n > 5 && strcmp(path + n - 5, ".json") == 0)
		n -= 5;
	memcpy(p, path, n);
	memcpy(p + n, ".dot", 5);
	return p;
}

/* Writes a temporary file beside PATH with FN, synced; its name in *TMP. */
static int write_tmp(const struct topo *t, const char *path,
		     int (*fn)(const struct topo *, FILE *), char **tmp)
{
	size_t n = strlen(path);
	FILE *f;
	int fd, err;

	*tmp = malloc(n + 8);
	if (!*tmp)
		return -ENOMEM;
	memcpy(*tmp, path, n);
	memcpy(*tmp + n, ".XXXXXX", 8);
	fd = mkstemp(*tmp);
	if (fd < 0) {
		err = -errno;
		free(*tmp);
		*tmp = NULL;
		return err;
	}
	/* mkstemp makes it 0600; a map is for anyone on the host to read */
	if (fchmod(fd, 0644)) {
		err = -errno;
		close(fd);
		return err;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		return err;
	}
	err = fn(t, f);
	/* a full disk may only show at the sync or the close */
	if (!err && fsync(fd))
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

int topo__write_map(const struct topo *t, const char *path)
{
	char *dot = dot_path(path), *tj = NULL, *td = NULL;
	int err = dot ? 0 : -ENOMEM;

	if (!err)
		err = write_tmp(t, path, topo__write_json, &tj);
	if (!err)
		err = write_tmp(t, dot, topo__write_dot, &td);
	if (!err && rename(tj, path))
		err = -errno;
	else if (!err)
		tj[0] = '\0';
	if (!err && rename(td, dot))
		err = -errno;
	else if (!err)
		td[0] = '\0';
	if (tj && tj[0])
		unlink(tj);
	if (td && td[0])
		unlink(td);
	free(tj);
	free(td);
	free(dot);
	return err;
}
