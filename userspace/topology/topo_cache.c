/* The entity of a record's end without naming it each time: a name is about
 * 900 bytes to build, hash and compare, and a busy connection ends the same
 * two ends per record. A small direct-mapped cache keyed by what the name is
 * made of (a container's entry, a host process's name, a remote address)
 * holds the entity found for it; entities live as long as the tables. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "container.h"
#include "hash.h"
#include "req_record.h"
#include "topo_int.h"

struct topo_cache_slot {
	struct topo_end_key k;
	struct topo_entity *ent;	/* NULL: empty */
};

/* The key: only what topo_name__from_end reads for this kind of end. A
 * container's names change only with a lookup of its runtime files, which
 * counts an attempt; its entry's address may be reused by another container
 * once the first is gone, so a hit checks the id too (topo_cache__entity). */
static void key__of(struct topo_end_key *k, const struct req_end *e, uint8_t family, bool server)
{
	memset(k, 0, sizeof(*k));
	k->family = family;
	if (!e->local) {
		k->kind = TOPO_KIND_REMOTE;
		k->port = server ? e->port : 0;
		memcpy(k->ip, e->ip, sizeof(k->ip));
	} else if (!e->container) {
		k->kind = TOPO_KIND_HOST;
		memcpy(k->comm, e->comm, sizeof(k->comm));
		k->comm[sizeof(k->comm) - 1] = '\0';
	} else {
		k->kind = TOPO_KIND_CONTAINER;
		k->ct = e->container;
		k->ct_attempts = e->container->attempts;
		k->ct_lookup = e->container->lookup;
	}
}

/* One multiply over the fields the key's kind uses (the key is built from
 * byte stores just before: reading it back whole would stall). */
static uint32_t key__slot(const struct topo_end_key *k, uint64_t seed)
{
	uint64_t a = 0, b = 0, x = (uint64_t)k->kind << 56 | (uint64_t)k->family << 48 | k->port;

	if (k->ct) {
		a = (uintptr_t)k->ct;
		b = (uint64_t)k->ct_attempts << 8 | k->ct_lookup;
	} else if (k->kind == TOPO_KIND_HOST) {
		memcpy(&a, k->comm, 8);
		memcpy(&b, k->comm + 8, 8);
	} else {
		memcpy(&a, k->ip, 8);
		memcpy(&b, k->ip + 8, 8);
	}
	return (uint32_t)(hash__mix64(a ^ (b * 31) ^ x, seed) >> 32) & (TOPO_CACHE_SLOTS - 1);
}

int topo_cache__entity(struct topo *t, const struct req_end *e, uint8_t family, bool server,
		       struct topo_entity **out)
{
	struct topo_end_key k;
	struct topo_cache_slot *s;
	struct topo_name n;
	int err;

	key__of(&k, e, family, server);
	s = &t->cache[key__slot(&k, t->seed)];
	if (s->ent && !memcmp(&s->k, &k, sizeof(k)) &&
	    (!k.ct || !strcmp(s->ent->name.container_id, e->container->id))) {
		*out = s->ent;
		return 0;
	}
	topo_name__from_end(&n, e, family, server);
	err = topo_entity__get(t, &n, out);
	if (err)
		return err;
	s->k = k;
	s->ent = *out;
	return 0;
}

int topo_cache__init(struct topo *t)
{
	t->cache = calloc(TOPO_CACHE_SLOTS, sizeof(*t->cache));
	return t->cache ? 0 : -ENOMEM;
}
