/* Request metrics per entity and per edge, and the service map, from the
 * request records of the pairing (requests/req_record.h). One caller thread:
 * the agent adds records on its event loop and renders from the same loop (the
 * metrics server publishes a copy of the text), so nothing here locks. */
#ifndef TOPOLOGY_TOPO_H
#define TOPOLOGY_TOPO_H

#include <stdint.h>
#include <stdio.h>

struct req_record;
struct tcp_record;
struct prom_buf;

/* Caps on what the tables hold; 0 takes the default. Past a cap, new values
 * go to an "other" series and are counted (topo_counters, and the
 * agent_request_series_capped_total metric). */
struct topo_limits {
	uint32_t max_entities;	/* named ends; default 1000 */
	/* (client, server, protocol, response class), and TCP edges (client,
	 * server) in their own table; default 5000 each */
	uint32_t max_edges;
	uint32_t max_contents;	/* request contents per (entity, protocol); default 100 */
	uint32_t max_series;	/* entity series, and contents kept, in all; default 10000 */
};

#define TOPO_DEFAULT_ENTITIES 1000
#define TOPO_DEFAULT_EDGES 5000
#define TOPO_DEFAULT_CONTENTS 100
#define TOPO_DEFAULT_SERIES 10000

struct topo_counters {
	uint64_t n_records;		/* handed to topo__add */
	uint64_t n_counted;		/* counted (the rest: the client-side copy of a
					 * request seen from both sides, or on a local
					 * server whose side was not seen) */
	uint64_t n_entities, n_contents, n_series, n_edges;	/* held now */
	uint64_t n_capped_entity;	/* ends that went to the "other" entity */
	uint64_t n_capped_content;	/* request contents that went to "other" */
	uint64_t n_capped_series;	/* entity series that went to the other series */
	uint64_t n_capped_edge;		/* edges that went to the other edge */
	uint64_t n_nomem;		/* records (request or TCP) not counted: out of memory */
	uint64_t n_tcp_records;		/* handed to topo__add_tcp */
	uint64_t n_tcp_invalid;		/* refused by it: outcome or side out of range */
	uint64_t n_tcp_edges;		/* held now, the other -> other one included */
	uint64_t n_capped_tcp_edge;	/* TCP records that went to the other edge */
};

struct topo;

/* LIM may be NULL (all defaults). NULL with errno ENOMEM or EINVAL. */
struct topo *topo__new(const struct topo_limits *lim);
void topo__free(struct topo *t);	/* NULL accepted */

/* Counts R once under the rule of req_record.h: a request seen from both
 * sides counts from the server's; a client's record counts only when its
 * server is not on this host. Returns 0 (counted or skipped) or -ENOMEM. No
 * allocation unless R opens a new entity, content, series or edge. */
int topo__add(struct topo *t, const struct req_record *r);

/* Counts R, a TCP connection of this host that ended (tcp/tcp_record.h),
 * on the edge (client entity, server entity), the entities named as
 * topo__add names them; README.md ("TCP health") has the counting rules.
 * Returns 0, -EINVAL (outcome or side out of range: nothing counted) or
 * -ENOMEM. No allocation unless R opens a new entity or TCP edge. */
int topo__add_tcp(struct topo *t, const struct tcp_record *r);

void topo__counters(const struct topo *t, struct topo_counters *c);

/* With ON (--profile), topo__prom adds the entity series' CPU breakdowns:
 * agent_request_profiled_total, agent_request_oncpu_seconds_total,
 * agent_request_runq_seconds_total, agent_request_offcpu_seconds_total. */
void topo__set_profile(struct topo *t, bool on);

/* Appends the families agent_request_* and agent_edge_*, and agent_tcp_*
 * once a TCP record was counted (README.md lists them), to B. 0, or -ENOMEM (B then holds part of the text). */
int topo__prom(const struct topo *t, struct prom_buf *b);

/* The service map: nodes (entities) and edges (client -> server per
 * protocol). 0 or a negative errno from the stream (-EIO when it says none). */
int topo__write_json(const struct topo *t, FILE *f);
int topo__write_dot(const struct topo *t, FILE *f);

/* Writes the map as JSON to PATH and as DOT beside it (PATH without a
 * ".json" suffix, plus ".dot"), each through a temporary file renamed over
 * the old one: a failure (full disk, unwritable directory) returns a
 * negative errno and leaves neither file half-written. */
int topo__write_map(const struct topo *t, const char *path);

#endif
