/* The tables behind topo.h, shared by the files that fill them (topo_stats.c)
 * and render them (topo_prom.c, topo_map.c). */
#ifndef TOPOLOGY_TOPO_INT_H
#define TOPOLOGY_TOPO_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "req_head.h"
#include "req_record.h"
#include "tcp_record.h"
#include "topo.h"
#include "topo_entity.h"

/* Duration histogram: upper bounds in ns (the last bucket is +Inf) and the
 * same in seconds as the le label spells them. */
#define TOPO_NBOUNDS 14
#define TOPO_NBUCKETS (TOPO_NBOUNDS + 1)
extern const uint64_t topo_bound_ns[TOPO_NBOUNDS];
extern const char *const topo_bound_le[TOPO_NBUCKETS];

/* Response classes: a fixed list, so series per entity stay bounded. */
enum topo_class {
	TOPO_CLASS_NONE = 0,	/* bytes only, or no status */
	TOPO_CLASS_TIMEOUT,
	TOPO_CLASS_ABORTED,
	TOPO_CLASS_1XX, TOPO_CLASS_2XX, TOPO_CLASS_3XX, TOPO_CLASS_4XX, TOPO_CLASS_5XX,
	TOPO_CLASS_OK, TOPO_CLASS_ERROR,
	TOPO_CLASS_RCODE,	/* DNS rcodes 0..15 follow */
	TOPO_CLASS_RCODE_OTHER = TOPO_CLASS_RCODE + 16,
	TOPO_CLASS_GRPC,	/* gRPC status codes 0..16 follow, by their names */
	TOPO_CLASS_GRPC_OTHER = TOPO_CLASS_GRPC + 17,
	TOPO_CLASS_MAX
};

struct req_record;
struct req_end;

uint8_t topo_class__of(const struct req_record *r);
const char *topo_class__name(uint8_t cls);
/* Kindling's request_content: HTTP path, DNS name, Redis or SQL command. */
const char *topo__content(const struct req_record *r);

struct topo_stats {
	uint64_t count, errors, timeouts;
	uint64_t req_bytes, resp_bytes;
	uint64_t dur_ns;			/* sum */
	uint64_t bucket[TOPO_NBUCKETS];		/* per bucket, not cumulative */
};

/* --profile: a series' requests with a CPU breakdown, and its sums (ns) */
struct topo_cpu {
	uint64_t profiled, oncpu_ns;
	uint64_t cpu_ns[REQ_CPU__KINDS];
};

void topo_stats__add(struct topo_stats *s, const struct req_record *r);
void topo_stats__merge(struct topo_stats *into, const struct topo_stats *s);
/* The Q quantile (0..1) in ns, interpolated in its bucket as Prometheus'
 * histogram_quantile does; the +Inf bucket answers the last finite bound. */
double topo_stats__quantile_ns(const struct topo_stats *s, double q);

/* Every table entry starts with this: hash chain, insertion order. */
struct topo_node {
	struct topo_node *hnext, *next;
	uint64_t hash;
};

struct topo_table {
	struct topo_node **bucket;
	uint32_t mask;
	uint32_t n;
	struct topo_node *head, **tail;
};

/* topo_stats.c: a table with buckets for CAP entries (a power of two at or
 * above it, at least 16), never rehashed; 0 or -ENOMEM. Free frees the
 * entries too (each one malloc'd block). */
int topo_table__init(struct topo_table *t, uint32_t cap);
void topo_table__insert(struct topo_table *t, struct topo_node *n, uint64_t h);
void topo_table__free(struct topo_table *t);

struct topo_content;
struct topo_series;
struct topo_edge;

struct topo_entity {
	struct topo_node node;
	uint32_t id;				/* insertion order, from 0 */
	uint32_t n_contents[REQ_PROTO_MAX];
	/* the last lookups' results, tried first (topo__add): a busy server
	 * repeats its contents, a client its edge */
	struct topo_content *last_content[REQ_PROTO_MAX];
	struct topo_edge *last_edge;
	struct topo_name name;
};

struct topo_content {
	struct topo_node node;
	const struct topo_entity *ent;
	uint8_t proto;
	uint16_t len;				/* strlen(text) */
	struct topo_series *last_series;	/* its last series, tried first */
	char text[REQ_TARGET_MAX];
};

/* Server-side view: (entity, protocol, request content, response class). */
struct topo_series {
	struct topo_node node;
	const struct topo_entity *ent;
	const struct topo_content *content;	/* NULL: "other" */
	uint8_t proto, cls;
	struct topo_stats s;
	/* made at its first request with a breakdown (--profile), so that the
	 * tables' bound without profiling stays as it was */
	struct topo_cpu *cpu;
};

/* (client, server, protocol, response class). */
struct topo_edge {
	struct topo_node node;
	const struct topo_entity *src, *dst;
	uint8_t proto, cls;
	struct topo_stats s;
};

/* TCP health (topo_tcp.c): the connect duration's histogram, finer than the
 * requests' (a connect on a LAN takes about 100 us), and the RTT's, bounds
 * in ns and us, and as the le label spells them. */
#define TOPO_TCP_CONNECT_NBOUNDS 16
#define TOPO_TCP_RTT_NBOUNDS 14
extern const uint64_t topo_tcp_connect_bound_ns[TOPO_TCP_CONNECT_NBOUNDS];
extern const char *const topo_tcp_connect_le[TOPO_TCP_CONNECT_NBOUNDS + 1];
extern const uint32_t topo_tcp_rtt_bound_us[TOPO_TCP_RTT_NBOUNDS];
extern const char *const topo_tcp_rtt_le[TOPO_TCP_RTT_NBOUNDS + 1];

/* A connect's result as agent_tcp_connect_total's outcome label: CLOSED and
 * RESET were established, the others keep their names. */
enum topo_tcp_connect {
	TOPO_TCP_ESTABLISHED = 0,
	TOPO_TCP_REFUSED, TOPO_TCP_TIMEDOUT, TOPO_TCP_ABORTED, TOPO_TCP_FAILED,
	TOPO_TCP_CONNECT__COUNT
};
extern const char *const topo_tcp_connect_name[TOPO_TCP_CONNECT__COUNT];

struct topo_tcp_stats {
	uint64_t connects[TOPO_TCP_CONNECT__COUNT];	/* client records */
	uint64_t accepts;				/* server records */
	uint64_t conns[TCP_OUTCOME__COUNT];		/* once per connection */
	uint64_t retransmits, resets_sent, resets_received;	/* every record */
	/* once per connection, the client's view: client to server, back */
	uint64_t bytes_sent, bytes_received;
	uint64_t connect_ns;				/* sum, established connects */
	uint64_t connect_bucket[TOPO_TCP_CONNECT_NBOUNDS + 1];	/* not cumulative */
	uint64_t rtt_us, rtt_count;			/* records with an srtt */
	uint64_t rtt_bucket[TOPO_TCP_RTT_NBOUNDS + 1];
	uint32_t srtt_us;				/* the last one; 0 none yet */
};

/* (client, server): the TCP connections between two entities. */
struct topo_tcp_edge {
	struct topo_node node;
	const struct topo_entity *src, *dst;
	struct topo_tcp_stats s;
};

#define TOPO_CACHE_SLOTS 256	/* a power of two */

struct topo_cache_slot;

struct topo {
	struct topo_limits lim;
	struct topo_cache_slot *cache;		/* TOPO_CACHE_SLOTS */
	uint64_t seed;
	struct topo_table entities, contents, series, edges;
	struct topo_table tcp_edges;		/* topo_tcp.c */
	struct topo_entity *other;		/* made up front: never fails */
	uint32_t series_over, edges_over;	/* overflow entries, past the caps */
	uint32_t tcp_over;			/* 1 once the other -> other TCP edge is */
	struct topo_counters c;
	bool profile;				/* topo__set_profile */
};

/* topo_stats.c: the entity named N, made if new; past the cap the "other"
 * entity. 0 or -ENOMEM. */
int topo_entity__get(struct topo *t, const struct topo_name *n, struct topo_entity **out);

/* topo_cache.c: the entity of E (an end of a record of FAMILY; SERVER: the
 * server's end) through the cache; 0 or -ENOMEM. */
int topo_cache__entity(struct topo *t, const struct req_end *e, uint8_t family, bool server,
		       struct topo_entity **out);
int topo_cache__init(struct topo *t);	/* 0 or -ENOMEM */

/* topo_prom.c: the agent_tcp_* families (topo_tcp.c's table). */
int topo_tcp__prom(const struct topo *t, struct prom_buf *b);

#define topo_foreach(type, var, table) \
	for (type *var = (type *)(table)->head; var; var = (type *)var->node.next)

#endif
