/* The tables behind topo.h, shared by the files that fill them (topo_stats.c)
 * and render them (topo_prom.c, topo_map.c). */
#ifndef TOPOLOGY_TOPO_INT_H
#define TOPOLOGY_TOPO_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "req_head.h"
#include "req_record.h"
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

#define TOPO_CACHE_SLOTS 256	/* a power of two */

struct topo_cache_slot;

struct topo {
	struct topo_limits lim;
	struct topo_cache_slot *cache;		/* TOPO_CACHE_SLOTS */
	uint64_t seed;
	struct topo_table entities, contents, series, edges;
	struct topo_entity *other;		/* made up front: never fails */
	uint32_t series_over, edges_over;	/* overflow entries, past the caps */
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

#define topo_foreach(type, var, table) \
	for (type *var = (type *)(table)->head; var; var = (type *)var->node.next)

#endif
