/* The tables as Prometheus text: per server entity (agent_request_*) and per
 * edge (agent_edge_*), with label names modelled on Kindling's so its
 * dashboards map over (README.md has the mapping). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prom.h"
#include "topo_int.h"

/* The labels of one sample: up to 18 pairs and the NULL end. */
struct labels {
	const char *v[40];
	unsigned n;
	char port[8];
};

static void labels__add(struct labels *l, const char *name, const char *value)
{
	l->v[l->n++] = name;
	l->v[l->n++] = value;
	l->v[l->n] = NULL;
}

/* The entity's labels, each name behind PREFIX ("" or "src_" / "dst_"). */
static void labels__entity(struct labels *l, const struct topo_name *n, const char *const *names,
			   bool with_port, bool with_id)
{
	labels__add(l, names[0], n->ns);
	labels__add(l, names[1], n->wl_kind);
	labels__add(l, names[2], n->wl_name);
	labels__add(l, names[3], n->pod);
	labels__add(l, names[4], n->container);
	if (with_id)
		labels__add(l, names[5], n->container_id);
	labels__add(l, names[6], n->process);
	labels__add(l, names[7], n->ip);
	if (with_port) {
		if (n->port)
			snprintf(l->port, sizeof(l->port), "%u", n->port);
		else
			l->port[0] = '\0';
		labels__add(l, names[8], l->port);
	}
}

static const char *const ent_names[] = { "namespace", "workload_kind", "workload_name", "pod",
					 "container", "container_id", "process", "ip", "port" };
static const char *const src_names[] = { "src_namespace", "src_workload_kind",
					 "src_workload_name", "src_pod", "src_container",
					 "src_container_id", "src_process", "src_ip", "src_port" };
static const char *const dst_names[] = { "dst_namespace", "dst_workload_kind",
					 "dst_workload_name", "dst_pod", "dst_container",
					 "dst_container_id", "dst_process", "dst_ip", "dst_port" };

static void labels__series(struct labels *l, const struct topo_series *s)
{
	l->n = 0;
	labels__entity(l, &s->ent->name, ent_names, true, true);
	labels__add(l, "protocol", req_proto__name(s->proto));
	labels__add(l, "request_content", s->content ? s->content->text : "other");
	labels__add(l, "response_content", topo_class__name(s->cls));
}

/* A TCP edge: the request edges' labels but protocol and response class. */
static void labels__tcp_edge(struct labels *l, const struct topo_tcp_edge *e)
{
	l->n = 0;
	labels__entity(l, &e->src->name, src_names, false, false);
	labels__entity(l, &e->dst->name, dst_names, true, false);
}

static void labels__edge(struct labels *l, const struct topo_edge *e)
{
	l->n = 0;
	labels__entity(l, &e->src->name, src_names, false, false);
	labels__entity(l, &e->dst->name, dst_names, true, false);
	labels__add(l, "protocol", req_proto__name(e->proto));
	labels__add(l, "response_content", topo_class__name(e->cls));
}

/* Which number of a series' stats a family shows. */
enum field { F_COUNT, F_ERRORS, F_TIMEOUTS, F_REQ_BYTES, F_RESP_BYTES };

static uint64_t stats__field(const struct topo_stats *s, enum field f)
{
	switch (f) {
	case F_COUNT: return s->count;
	case F_ERRORS: return s->errors;
	case F_TIMEOUTS: return s->timeouts;
	case F_REQ_BYTES: return s->req_bytes;
	default: return s->resp_bytes;
	}
}

/* NAME_bucket, NAME_sum, NAME_count under L (le added at the end): the
 * per-bucket counts BUCKET (the last +Inf) under the labels LE, N of them. */
static int histogram(struct prom_buf *b, const char *name, struct labels *l,
		     const uint64_t *bucket, const char *const *le, unsigned n_buckets,
		     double sum, uint64_t count)
{
	char bname[96], sname[96], cname[96];
	unsigned n = l->n;
	uint64_t cum = 0;
	int err = 0;

	snprintf(bname, sizeof(bname), "%s_bucket", name);
	snprintf(sname, sizeof(sname), "%s_sum", name);
	snprintf(cname, sizeof(cname), "%s_count", name);
	for (unsigned i = 0; i < n_buckets && !err; i++) {
		cum += bucket[i];
		l->n = n;
		labels__add(l, "le", le[i]);
		err = prom__sample_u64(b, bname, l->v, cum);
	}
	l->n = n;
	l->v[n] = NULL;
	if (!err)
		err = prom__sample_double(b, sname, l->v, sum);
	if (!err)
		err = prom__sample_u64(b, cname, l->v, count);
	return err;
}

/* One family over every entity series (EDGE false) or edge (EDGE true);
 * DIRECTION adds that label; HIST: the duration histogram instead of F. */
struct family {
	const char *name, *help;
	bool edge, hist;
	enum field f;
	const char *direction;
};

static int family__samples(const struct topo *t, struct prom_buf *b, const struct family *fm)
{
	struct labels l;
	const struct topo_stats *st;
	int err = 0;

	for (const struct topo_node *p = fm->edge ? t->edges.head : t->series.head; p && !err;
	     p = p->next) {
		if (fm->edge) {
			labels__edge(&l, (const struct topo_edge *)p);
			st = &((const struct topo_edge *)p)->s;
		} else {
			labels__series(&l, (const struct topo_series *)p);
			st = &((const struct topo_series *)p)->s;
		}
		if (fm->direction)
			labels__add(&l, "direction", fm->direction);
		err = fm->hist ? histogram(b, fm->name, &l, st->bucket, topo_bound_le,
					   TOPO_NBUCKETS, (double)st->dur_ns / 1e9, st->count) :
			prom__sample_u64(b, fm->name, l.v, stats__field(st, fm->f));
	}
	return err;
}

static const struct family families[] = {
	{ "agent_request_total", "Requests served, per server entity, protocol, request "
	  "content and response class.", false, false, F_COUNT, NULL },
	{ "agent_request_errors_total", "Requests whose response said they failed.",
	  false, false, F_ERRORS, NULL },
	{ "agent_request_timeouts_total", "Requests with no whole response within the bound.",
	  false, false, F_TIMEOUTS, NULL },
	{ "agent_request_bytes_total", "Bytes of requests and of their responses.",
	  false, false, F_REQ_BYTES, "request" },
	{ NULL, NULL, false, false, F_RESP_BYTES, "response" },
	{ "agent_request_duration_seconds", "From the request's first byte to the "
	  "response's last.", false, true, F_COUNT, NULL },
	{ "agent_edge_request_total", "Requests per client entity, server entity, "
	  "protocol and response class.", true, false, F_COUNT, NULL },
	{ "agent_edge_errors_total", "Requests on the edge whose response said they failed.",
	  true, false, F_ERRORS, NULL },
	{ "agent_edge_request_bytes_total", "Bytes of requests and of their responses on "
	  "the edge.", true, false, F_REQ_BYTES, "request" },
	{ NULL, NULL, true, false, F_RESP_BYTES, "response" },
	{ "agent_edge_request_duration_seconds", "From the request's first byte to the "
	  "response's last, per edge.", true, true, F_COUNT, NULL },
};

void topo__set_profile(struct topo *t, bool on)
{
	t->profile = on;
}

/* The reasons of agent_request_offcpu_seconds_total, by enum req_cpu. */
static const char *const offcpu_reasons[REQ_CPU__KINDS] = {
	[REQ_CPU_FILE] = "file", [REQ_CPU_NET] = "net", [REQ_CPU_LOCK] = "lock",
	[REQ_CPU_POLL] = "poll", [REQ_CPU_SLEEP] = "sleep", [REQ_CPU_OTHER] = "other",
};

/* Profiling's families over the entity series (server records carry the
 * breakdowns; edges are not split). */
static int profile__prom(const struct topo *t, struct prom_buf *b)
{
	struct labels l;
	int err;

	err = prom__family(b, "agent_request_profiled_total", "counter",
			   "Requests with a CPU breakdown (--profile), whose times the "
			   "families below sum.");
	topo_foreach(const struct topo_series, s, &t->series) {
		labels__series(&l, s);
		if (!err)
			err = prom__sample_u64(b, "agent_request_profiled_total", l.v, (s->cpu ? s->cpu->profiled : 0));
	}
	if (!err)
		err = prom__family(b, "agent_request_oncpu_seconds_total", "counter",
				   "The serving thread's time on a CPU within requests.");
	topo_foreach(const struct topo_series, s, &t->series) {
		labels__series(&l, s);
		if (!err)
			err = prom__sample_double(b, "agent_request_oncpu_seconds_total", l.v,
						  (double)(s->cpu ? s->cpu->oncpu_ns : 0) / 1e9);
	}
	if (!err)
		err = prom__family(b, "agent_request_runq_seconds_total", "counter",
				   "The serving thread's time waiting for a CPU within requests.");
	topo_foreach(const struct topo_series, s, &t->series) {
		labels__series(&l, s);
		if (!err)
			err = prom__sample_double(b, "agent_request_runq_seconds_total", l.v,
						  (double)(s->cpu ? s->cpu->cpu_ns[REQ_CPU_RUNQ] : 0) / 1e9);
	}
	if (!err)
		err = prom__family(b, "agent_request_offcpu_seconds_total", "counter",
				   "The serving thread's time blocked within requests, by the "
				   "reason (the system call it waited in).");
	topo_foreach(const struct topo_series, s, &t->series) {
		for (unsigned k = REQ_CPU_FILE; k < REQ_CPU__KINDS && !err; k++) {
			labels__series(&l, s);
			labels__add(&l, "reason", offcpu_reasons[k]);
			err = prom__sample_double(b, "agent_request_offcpu_seconds_total", l.v,
						  (double)(s->cpu ? s->cpu->cpu_ns[k] : 0) / 1e9);
		}
	}
	return err;
}

int topo__prom(const struct topo *t, struct prom_buf *b)
{
	static const char capped[] = "agent_request_series_capped_total";
	const char *name = NULL;
	int err = 0;

	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]) && !err; i++) {
		struct family fm = families[i];

		/* a NULL name goes on with the family before it */
		if (fm.name)
			name = fm.name;
		fm.name = name;
		if (families[i].name)
			err = fm.hist ? prom__family(b, fm.name, "histogram", fm.help) :
				prom__family(b, fm.name, "counter", fm.help);
		if (!err)
			err = family__samples(t, b, &fm);
	}
	if (!err)
		err = prom__family(b, capped, "counter", "Requests counted under \"other\" as "
				   "a cap on distinct values was reached.");
	const struct { const char *kind; uint64_t v; } caps[] = {
		{ "entity", t->c.n_capped_entity }, { "request_content", t->c.n_capped_content },
		{ "series", t->c.n_capped_series }, { "edge", t->c.n_capped_edge },
		{ "tcp_edge", t->c.n_capped_tcp_edge },
	};
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]) && !err; i++) {
		const char *l[] = { "kind", caps[i].kind, NULL };

		err = prom__sample_u64(b, capped, l, caps[i].v);
	}
	if (!err && t->profile)
		err = profile__prom(t, b);
	if (!err && t->tcp_edges.n)
		err = topo_tcp__prom(t, b);
	return err;
}

/* The TCP edges' families. Which numbers a family shows of an edge, each
 * sample with an extra label NAME=VALUE, or a histogram. */
enum tcp_field {
	T_CONNECT, T_CONNECT_DUR, T_ACCEPT, T_CONNS, T_RETRANS, T_RESETS, T_BYTES, T_SRTT, T_RTT
};

static const char *const tcp_directions[] = { "sent", "received" };

static const char *connect__name(unsigned k)
{
	return topo_tcp_connect_name[k];
}

/* One sample per outcome under L, from the outcome's first count on:
 * COUNT[0..N), NAME_OF names each. */
static int outcome_samples(struct prom_buf *b, const char *name, struct labels *l,
			   const uint64_t *count, const char *(*name_of)(unsigned), unsigned n)
{
	unsigned base = l->n;
	int err = 0;

	for (unsigned k = 0; k < n && !err; k++) {
		if (!count[k])
			continue;
		l->n = base;
		labels__add(l, "outcome", name_of(k));
		err = prom__sample_u64(b, name, l->v, count[k]);
	}
	return err;
}

static int tcp_samples(struct prom_buf *b, const char *name, enum tcp_field f,
		       const struct topo_tcp_edge *e)
{
	const struct topo_tcp_stats *s = &e->s;
	const uint64_t dir_v[2][2] = { { s->resets_sent, s->resets_received },
				       { s->bytes_sent, s->bytes_received } };
	struct labels l;
	unsigned base;
	int err = 0;

	labels__tcp_edge(&l, e);
	base = l.n;
	switch (f) {
	case T_CONNECT:
		return outcome_samples(b, name, &l, s->connects, connect__name,
				       TOPO_TCP_CONNECT__COUNT);
	case T_CONNS:
		return outcome_samples(b, name, &l, s->conns, tcp_outcome__name,
				       TCP_OUTCOME__COUNT);
	case T_RESETS:
	case T_BYTES:
		for (unsigned d = 0; d < 2 && !err; d++) {
			l.n = base;
			labels__add(&l, "direction", tcp_directions[d]);
			err = prom__sample_u64(b, name, l.v, dir_v[f == T_BYTES][d]);
		}
		return err;
	case T_CONNECT_DUR:
		if (!s->connects[TOPO_TCP_ESTABLISHED])
			return 0;
		return histogram(b, name, &l, s->connect_bucket, topo_tcp_connect_le,
				 TOPO_TCP_CONNECT_NBOUNDS + 1, (double)s->connect_ns / 1e9,
				 s->connects[TOPO_TCP_ESTABLISHED]);
	case T_RTT:
		if (!s->rtt_count)
			return 0;
		return histogram(b, name, &l, s->rtt_bucket, topo_tcp_rtt_le,
				 TOPO_TCP_RTT_NBOUNDS + 1, (double)s->rtt_us / 1e6, s->rtt_count);
	case T_SRTT:
		return s->srtt_us ? prom__sample_double(b, name, l.v, (double)s->srtt_us / 1e6) : 0;
	case T_ACCEPT:
		return prom__sample_u64(b, name, l.v, s->accepts);
	case T_RETRANS:
	default:
		return prom__sample_u64(b, name, l.v, s->retransmits);
	}
}

int topo_tcp__prom(const struct topo *t, struct prom_buf *b)
{
	static const struct {
		const char *name, *type, *help;
		enum tcp_field f;
	} fams[] = {
		{ "agent_tcp_connect_total", "counter", "Connects this host's clients made, "
		  "by outcome (established, refused, timedout, aborted, failed).", T_CONNECT },
		{ "agent_tcp_connect_duration_seconds", "histogram", "From the SYN sent to "
		  "established, of established connects.", T_CONNECT_DUR },
		{ "agent_tcp_accept_total", "counter", "Connections this host's servers "
		  "accepted.", T_ACCEPT },
		{ "agent_tcp_connections_total", "counter", "Connections that ended, once "
		  "each, by outcome.", T_CONNS },
		{ "agent_tcp_retransmit_total", "counter", "Segments retransmitted, by both "
		  "ends seen on this host.", T_RETRANS },
		{ "agent_tcp_resets_total", "counter", "Resets sent and received by the ends "
		  "seen on this host.", T_RESETS },
		{ "agent_tcp_bytes_total", "counter", "Bytes client to server (sent) and back "
		  "(received), once per connection.", T_BYTES },
		{ "agent_tcp_srtt_seconds", "gauge", "The smoothed RTT of the edge's last "
		  "connection that measured one, at its close.", T_SRTT },
		{ "agent_tcp_rtt_seconds", "histogram", "The smoothed RTT of each end's "
		  "connection at its close.", T_RTT },
	};
	int err = 0;

	for (size_t i = 0; i < sizeof(fams) / sizeof(fams[0]) && !err; i++) {
		err = prom__family(b, fams[i].name, fams[i].type, fams[i].help);
		topo_foreach(const struct topo_tcp_edge, e, &t->tcp_edges) {
			if (err)
				break;
			err = tcp_samples(b, fams[i].name, fams[i].f, e);
		}
	}
	return err;
}
