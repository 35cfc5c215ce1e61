/* The tables: entities, request contents, entity series and edges, each a
 * chained hash table under the process's random seed (the keys are whatever
 * peers send: paths, names) with buckets sized to its cap up front, so after
 * warm-up counting a request is a few lookups and no allocation. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "req_record.h"
#include "topo_int.h"

/* The largest cap accepted: the bucket arrays stay within 2^24 pointers. */
#define TOPO_CAP_MAX (1u << 22)

/* Overflow series and edges, keyed by (protocol, class) alone. */
#define TOPO_OVERFLOW_KEYS (REQ_PROTO_MAX * TOPO_CLASS_MAX)

int topo_table__init(struct topo_table *t, uint32_t cap)
{
	uint32_t n = 16;

	while (n < cap)
		n <<= 1;
	t->bucket = calloc(n, sizeof(*t->bucket));
	if (!t->bucket)
		return -ENOMEM;
	t->mask = n - 1;
	t->n = 0;
	t->head = NULL;
	t->tail = &t->head;
	return 0;
}

void topo_table__insert(struct topo_table *t, struct topo_node *n, uint64_t h)
{
	struct topo_node **b = &t->bucket[h & t->mask];

	n->hash = h;
	n->hnext = *b;
	*b = n;
	n->next = NULL;
	*t->tail = n;
	t->tail = &n->next;
	t->n++;
}

void topo_table__free(struct topo_table *t)
{
	struct topo_node *n = t->head, *next;

	for (; n; n = next) {
		next = n->next;
		free(n);
	}
	free(t->bucket);
	t->bucket = NULL;
}

static uint64_t name__hash(const struct topo_name *n, uint64_t seed)
{
	const char *const f[] = { n->ns, n->wl_kind, n->wl_name, n->pod, n->container,
				  n->container_id, n->process, n->ip };
	uint64_t h = hash__mix64((uint64_t)n->kind << 16 | n->port, seed);

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		h = hash__mix64(h ^ hash__str(f[i], seed), seed);
	return h;
}

int topo_entity__get(struct topo *t, const struct topo_name *n, struct topo_entity **out)
{
	uint64_t h = name__hash(n, t->seed);
	struct topo_node *p;
	struct topo_entity *e;

	for (p = t->entities.bucket[h & t->entities.mask]; p; p = p->hnext) {
		e = (struct topo_entity *)p;
		if (p->hash == h && memcmp(&e->name, n, sizeof(*n)) == 0) {
			*out = e;
			return 0;
		}
	}
	/* the other entity is not counted against the cap */
	if (t->entities.n - 1 >= t->lim.max_entities) {
		t->c.n_capped_entity++;
		*out = t->other;
		return 0;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->id = t->entities.n;
	e->name = *n;
	topo_table__insert(&t->entities, &e->node, h);
	*out = e;
	return 0;
}

/* ENT's content TEXT for PROTO; NULL ("other") past the caps. */
static int content__get(struct topo *t, struct topo_entity *ent, uint8_t proto,
			const char *text, struct topo_content **out)
{
	uint64_t h = hash__mix64(hash__str(text, t->seed) ^ ((uint64_t)ent->id << 8 | proto),
				 t->seed);
	struct topo_node *p;
	struct topo_content *c;

	for (p = t->contents.bucket[h & t->contents.mask]; p; p = p->hnext) {
		c = (struct topo_content *)p;
		if (p->hash == h && c->ent == ent && c->proto == proto &&
		    strcmp(c->text, text) == 0) {
			*out = c;
			return 0;
		}
	}
	if (ent->n_contents[proto] >= t->lim.max_contents ||
	    t->contents.n >= t->lim.max_series) {
		t->c.n_capped_content++;
		*out = NULL;
		return 0;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->ent = ent;
	c->proto = proto;
	c->len = (uint16_t)strlen(text);
	memcpy(c->text, text, c->len + 1u);
	ent->n_contents[proto]++;
	topo_table__insert(&t->contents, &c->node, h);
	*out = c;
	return 0;
}

static struct topo_series *series__find(struct topo *t, uint64_t h,
					const struct topo_entity *ent,
					const struct topo_content *content, uint8_t proto,
					uint8_t cls)
{
	struct topo_node *p;
	struct topo_series *s;

	for (p = t->series.bucket[h & t->series.mask]; p; p = p->hnext) {
		s = (struct topo_series *)p;
		if (p->hash == h && s->ent == ent && s->content == content &&
		    s->proto == proto && s->cls == cls)
			return s;
	}
	return NULL;
}

static uint64_t key__hash(uint64_t a, uint64_t b, uint8_t proto, uint8_t cls, uint64_t seed)
{
	return hash__mix64(hash__mix64(a, seed) ^ b ^ ((uint64_t)proto << 56 | (uint64_t)cls << 48),
			   seed);
}

static int series__get(struct topo *t, struct topo_entity *ent, struct topo_content *content,
		       uint8_t proto, uint8_t cls, struct topo_series **out)
{
	uint64_t h = key__hash(ent->id, (uintptr_t)content, proto, cls, t->seed);
	struct topo_series *s = series__find(t, h, ent, content, proto, cls);

	if (!s && t->series.n - t->series_over >= t->lim.max_series) {
		t->c.n_capped_series++;
		ent = t->other;
		content = NULL;
		h = key__hash(ent->id, 0, proto, cls, t->seed);
		s = series__find(t, h, ent, content, proto, cls);
		if (!s)
			t->series_over++;
	}
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
		s->ent = ent;
		s->content = content;
		s->proto = proto;
		s->cls = cls;
		topo_table__insert(&t->series, &s->node, h);
	}
	*out = s;
	return 0;
}

static struct topo_edge *edge__find(struct topo *t, uint64_t h, const struct topo_entity *src,
				    const struct topo_entity *dst, uint8_t proto, uint8_t cls)
{
	struct topo_node *p;
	struct topo_edge *e;

	for (p = t->edges.bucket[h & t->edges.mask]; p; p = p->hnext) {
		e = (struct topo_edge *)p;
		if (p->hash == h && e->src == src && e->dst == dst && e->proto == proto &&
		    e->cls == cls)
			return e;
	}
	return NULL;
}

static int edge__get(struct topo *t, struct topo_entity *src, struct topo_entity *dst,
		     uint8_t proto, uint8_t cls, struct topo_edge **out)
{
	uint64_t h = key__hash(src->id, dst->id, proto, cls, t->seed);
	struct topo_edge *e = edge__find(t, h, src, dst, proto, cls);

	if (!e && t->edges.n - t->edges_over >= t->lim.max_edges) {
		t->c.n_capped_edge++;
		src = dst = t->other;
		h = key__hash(src->id, dst->id, proto, cls, t->seed);
		e = edge__find(t, h, src, dst, proto, cls);
		if (!e)
			t->edges_over++;
	}
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e)
			return -ENOMEM;
		e->src = src;
		e->dst = dst;
		e->proto = proto;
		e->cls = cls;
		topo_table__insert(&t->edges, &e->node, h);
	}
	*out = e;
	return 0;
}

/* The lookups above, their last result tried first. Only what the table
 * holds under the key is kept, never an overflow stand-in, so every capped
 * record is still counted by the lookup it takes. */
static int content__last(struct topo *t, struct topo_entity *ent, uint8_t proto,
			 const char *text, size_t n, struct topo_content **out)
{
	struct topo_content *c = ent->last_content[proto];
	int err;

	if (c && c->len == n && !memcmp(c->text, text, n)) {
		*out = c;
		return 0;
	}
	err = content__get(t, ent, proto, text, out);
	if (!err && *out)
		ent->last_content[proto] = *out;
	return err;
}

static int series__last(struct topo *t, struct topo_entity *ent, struct topo_content *content,
			uint8_t proto, uint8_t cls, struct topo_series **out)
{
	int err;

	if (content && content->last_series && content->last_series->cls == cls) {
		*out = content->last_series;
		return 0;
	}
	err = series__get(t, ent, content, proto, cls, out);
	if (!err && content && (*out)->content == content)
		content->last_series = *out;
	return err;
}

static int edge__last(struct topo *t, struct topo_entity *src, struct topo_entity *dst,
		      uint8_t proto, uint8_t cls, struct topo_edge **out)
{
	struct topo_edge *e = src->last_edge;
	int err;

	if (e && e->dst == dst && e->proto == proto && e->cls == cls) {
		*out = e;
		return 0;
	}
	err = edge__get(t, src, dst, proto, cls, out);
	if (!err && (*out)->src == src && (*out)->dst == dst)
		src->last_edge = *out;
	return err;
}

/* req_record.h's rule: each request once, from the server's side when this
 * host saw it; from the client's only when the server is elsewhere. */
static bool record__counts(const struct req_record *r)
{
	if (r->side == REQ_SIDE_SERVER)
		return true;
	return r->side == REQ_SIDE_CLIENT && !r->both_sides && !r->server.local;
}

int topo__add(struct topo *t, const struct req_record *r)
{
	struct topo_entity *cli, *srv;
	struct topo_content *content;
	struct topo_series *s;
	struct topo_edge *e;
	char cut[REQ_TARGET_MAX];
	const char *text;
	size_t n;
	uint8_t proto = r->proto < REQ_PROTO_MAX ? r->proto : REQ_PROTO_NONE;
	uint8_t cls = topo_class__of(r);
	int err;

	t->c.n_records++;
	if (!record__counts(r))
		return 0;
	/* the record's strings are bounded here, whatever the pairing wrote
	 * (copied only when too long: this runs per record) */
	text = topo__content(r);
	n = strnlen(text, sizeof(cut) - 1);
	if (text[n]) {
		memcpy(cut, text, n);
		cut[n] = '\0';
		text = cut;
	}
	/* every node first, then the counts: a failure counts nothing */
	err = topo_cache__entity(t, &r->server, r->family, true, &srv);
	if (!err)
		err = topo_cache__entity(t, &r->client, r->family, false, &cli);
	if (!err)
		err = content__last(t, srv, proto, text, n, &content);
	if (!err)
		err = series__last(t, srv, content, proto, cls, &s);
	if (!err)
		err = edge__last(t, cli, srv, proto, cls, &e);
	if (err) {
		t->c.n_nomem++;
		return err;
	}
	topo_stats__add(&s->s, r);
	topo_stats__add(&e->s, r);
	t->c.n_counted++;
	if (t->profile && r->has_cpu) {
		if (!s->cpu && !(s->cpu = calloc(1, sizeof(*s->cpu)))) {
			t->c.n_nomem++;
			return -ENOMEM;
		}
		s->cpu->profiled++;
		s->cpu->oncpu_ns += r->oncpu;
		for (unsigned k = 0; k < REQ_CPU__KINDS; k++)
			s->cpu->cpu_ns[k] += r->cpu[k];
	}
	return 0;
}

struct topo *topo__new(const struct topo_limits *lim)
{
	struct topo *t = calloc(1, sizeof(*t));
	struct topo_name other;
	uint64_t over = TOPO_OVERFLOW_KEYS;

	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	if (lim)
		t->lim = *lim;
	t->lim.max_entities = t->lim.max_entities ? t->lim.max_entities : TOPO_DEFAULT_ENTITIES;
	t->lim.max_edges = t->lim.max_edges ? t->lim.max_edges : TOPO_DEFAULT_EDGES;
	t->lim.max_contents = t->lim.max_contents ? t->lim.max_contents : TOPO_DEFAULT_CONTENTS;
	t->lim.max_series = t->lim.max_series ? t->lim.max_series : TOPO_DEFAULT_SERIES;
	if (t->lim.max_entities > TOPO_CAP_MAX || t->lim.max_edges > TOPO_CAP_MAX ||
	    t->lim.max_contents > TOPO_CAP_MAX || t->lim.max_series > TOPO_CAP_MAX) {
		free(t);
		errno = EINVAL;
		return NULL;
	}
	t->seed = hash__seed();
	t->other = calloc(1, sizeof(*t->other));
	if (!t->other || topo_cache__init(t) ||
	    topo_table__init(&t->entities, t->lim.max_entities + 1) ||
	    topo_table__init(&t->contents, t->lim.max_series) ||
	    topo_table__init(&t->series, (uint32_t)(t->lim.max_series + over)) ||
	    topo_table__init(&t->edges, (uint32_t)(t->lim.max_edges + over)) ||
	    topo_table__init(&t->tcp_edges, t->lim.max_edges + 1)) {
		free(t->other);
		t->other = NULL;
		topo__free(t);
		errno = ENOMEM;
		return NULL;
	}
	topo_name__other(&other);
	t->other->name = other;
	topo_table__insert(&t->entities, &t->other->node, name__hash(&other, t->seed));
	return t;
}

void topo__free(struct topo *t)
{
	if (!t)
		return;
	topo_table__free(&t->entities);
	topo_table__free(&t->contents);
	topo_foreach(struct topo_series, s, &t->series)
		free(s->cpu);
	topo_table__free(&t->series);
	topo_table__free(&t->edges);
	topo_table__free(&t->tcp_edges);
	free(t->cache);
	free(t);
}

void topo__counters(const struct topo *t, struct topo_counters *c)
{
	*c = t->c;
	c->n_entities = t->entities.n;
	c->n_contents = t->contents.n;
	c->n_series = t->series.n;
	c->n_edges = t->edges.n;
	c->n_tcp_edges = t->tcp_edges.n;
}
