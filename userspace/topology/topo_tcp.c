/* TCP health per edge: the records of connections that ended
 * (tcp/tcp_record.h) counted on (client entity, server entity), in a table
 * of their own under the edge cap, its buckets allocated up front as the
 * request tables' are. The ends are named through the same cache, so a
 * process is the same entity here as in the request metrics. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "ppm_wire.h"
#include "tcp_record.h"
#include "topo_int.h"

const uint64_t topo_tcp_connect_bound_ns[TOPO_TCP_CONNECT_NBOUNDS] = {
	100000, 250000, 500000, 1000000, 2500000, 5000000, 10000000, 25000000,
	50000000, 100000000, 250000000, 500000000, 1000000000, 2500000000ULL,
	5000000000ULL, 10000000000ULL,
};

const char *const topo_tcp_connect_le[TOPO_TCP_CONNECT_NBOUNDS + 1] = {
	"0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025",
	"0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf",
};

const uint32_t topo_tcp_rtt_bound_us[TOPO_TCP_RTT_NBOUNDS] = {
	50, 100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000,
	500000, 1000000,
};

const char *const topo_tcp_rtt_le[TOPO_TCP_RTT_NBOUNDS + 1] = {
	"0.00005", "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01",
	"0.025", "0.05", "0.1", "0.25", "0.5", "1", "+Inf",
};

const char *const topo_tcp_connect_name[TOPO_TCP_CONNECT__COUNT] = {
	[TOPO_TCP_ESTABLISHED] = "established", [TOPO_TCP_REFUSED] = "refused",
	[TOPO_TCP_TIMEDOUT] = "timedout", [TOPO_TCP_ABORTED] = "aborted",
	[TOPO_TCP_FAILED] = "failed",
};

static uint64_t tcp_key__hash(uint32_t src, uint32_t dst, uint64_t seed)
{
	return hash__mix64(hash__mix64(src, seed) ^ dst, seed);
}

static struct topo_tcp_edge *tcp_edge__find(const struct topo *t, uint64_t h,
					    const struct topo_entity *src,
					    const struct topo_entity *dst)
{
	struct topo_node *p;
	struct topo_tcp_edge *e;

	for (p = t->tcp_edges.bucket[h & t->tcp_edges.mask]; p; p = p->hnext) {
		e = (struct topo_tcp_edge *)p;
		if (p->hash == h && e->src == src && e->dst == dst)
			return e;
	}
	return NULL;
}

/* The edge (SRC, DST), made if new; past the cap the other -> other edge. */
static int tcp_edge__get(struct topo *t, const struct topo_entity *src,
			 const struct topo_entity *dst, struct topo_tcp_edge **out)
{
	uint64_t h = tcp_key__hash(src->id, dst->id, t->seed);
	struct topo_tcp_edge *e = tcp_edge__find(t, h, src, dst);

	if (!e && t->tcp_edges.n - t->tcp_over >= t->lim.max_edges) {
		t->c.n_capped_tcp_edge++;
		src = dst = t->other;
		h = tcp_key__hash(src->id, dst->id, t->seed);
		e = tcp_edge__find(t, h, src, dst);
		if (!e)
			t->tcp_over = 1;
	}
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e)
			return -ENOMEM;
		e->src = src;
		e->dst = dst;
		topo_table__insert(&t->tcp_edges, &e->node, h);
	}
	*out = e;
	return 0;
}

/* The connect's outcome label: the outcome says whether it was established
 * (r->established says the same, from the same event). */
static unsigned connect__kind(uint8_t outcome)
{
	/* REFUSED .. FAILED follow RESET in both lists */
	return outcome <= TCP_OUTCOME_RESET ? TOPO_TCP_ESTABLISHED : outcome - TCP_OUTCOME_RESET;
}

/* A loopback address (127/8, ::1, ::ffff:127/104): the end is on this host,
 * and its process's own record of the connection comes too. */
static bool ip__loopback(uint8_t family, const uint8_t *ip)
{
	static const uint8_t v6lo[16] = { [15] = 1 };
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (family == PPM_AF_INET)
		return ip[0] == 127;
	return !memcmp(ip, v6lo, 16) || (!memcmp(ip, mapped, 12) && ip[12] == 127);
}

static void tcp_stats__add(struct topo_tcp_stats *s, const struct tcp_record *r)
{
	bool client = r->side == REQ_SIDE_CLIENT;
	unsigned i, k = connect__kind(r->outcome);

	if (client) {
		s->connects[k]++;
		if (k == TOPO_TCP_ESTABLISHED) {
			for (i = 0; i < TOPO_TCP_CONNECT_NBOUNDS &&
				    r->connect_ns > topo_tcp_connect_bound_ns[i]; i++)
				;
			s->connect_bucket[i]++;
			s->connect_ns += r->connect_ns;
		}
	} else {
		s->accepts++;
	}
	/* a connection between two processes of this host has a record from
	 * each end: the client's counts it */
	if (client || !(r->client.local || ip__loopback(r->family, r->client.ip))) {
		s->conns[r->outcome]++;
		s->bytes_sent += client ? r->bytes_sent : r->bytes_received;
		s->bytes_received += client ? r->bytes_received : r->bytes_sent;
	}
	/* each end's own: the segments it sent again, its resets, its RTT */
	s->retransmits += r->retransmits;
	s->resets_sent += r->resets_sent;
	s->resets_received += r->resets_received;
	if (r->srtt_us) {
		for (i = 0; i < TOPO_TCP_RTT_NBOUNDS && r->srtt_us > topo_tcp_rtt_bound_us[i]; i++)
			;
		s->rtt_bucket[i]++;
		s->rtt_us += r->srtt_us;
		s->rtt_count++;
		s->srtt_us = r->srtt_us;
	}
}

int topo__add_tcp(struct topo *t, const struct tcp_record *r)
{
	struct topo_entity *cli, *srv;
	struct topo_tcp_edge *e;
	int err;

	t->c.n_tcp_records++;
	if (r->outcome >= TCP_OUTCOME__COUNT ||
	    (r->side != REQ_SIDE_CLIENT && r->side != REQ_SIDE_SERVER)) {
		t->c.n_tcp_invalid++;
		return -EINVAL;
	}
	err = topo_cache__entity(t, &r->server, r->family, true, &srv);
	if (!err)
		err = topo_cache__entity(t, &r->client, r->family, false, &cli);
	if (!err)
		err = tcp_edge__get(t, cli, srv, &e);
	if (err) {
		t->c.n_nomem++;
		return err;
	}
	tcp_stats__add(&e->s, r);
	return 0;
}
