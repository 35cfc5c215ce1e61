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

/* What names one end of a record: the fields its kind uses (key__of),
 * the rest zero. */
struct topo_end_key {
	const struct container_info *ct;	/* a local end in a container */
	uint8_t kind, family;			/* enum topo_kind, PPM_AF_* */
	uint8_t ct_attempts, ct_lookup;		/* CT's lookups so far, their result */
	uint16_t port;				/* a remote server's */
	uint8_t ip[16];				/* a remote end's */
	char comm[16];				/* a local process on the host */
};

struct topo_cache_slot {
	struct topo_end_key k;
	struct topo_entity *ent;	/* NULL: empty */
};

/* The key: only what topo_name__from_end reads for this kind of end. A
 * container's names change only with a lookup of its runtime files, which
 * counts an attempt; its entry's address may be reused by another container
 * once the first is gone, so a hit checks the id too. */
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
		memcpy(k->comm, e->comm, sizeof(k->comm) - 1);
	} else {
		k->kind = TOPO_KIND_CONTAINER;
		k->ct = e->container;
		k->ct_attempts = e->container->attempts;
		k->ct_lookup = e->container->lookup;
	}
}

/* Whether slot S holds E's key. Per record, so it reads E's fields rather
 * than a key built from byte stores just before (reading those back whole
 * stalls the CPU). */
static bool slot__holds(const struct topo_cache_slot *s, const struct req_end *e,
			uint8_t family, bool server)
{
	const struct topo_end_key *k = &s->k;

	if (!s->ent || k->family != family)
		return false;
	if (!e->local)
		return k->kind == TOPO_KIND_REMOTE && k->port == (server ? e->port : 0) &&
		       !memcmp(k->ip, e->ip, sizeof(k->ip));
	if (!e->container)
		return k->kind == TOPO_KIND_HOST && !memcmp(k->comm, e->comm, sizeof(k->comm) - 1);
	return k->ct == e->container && k->ct_attempts == e->container->attempts &&
	       k->ct_lookup == e->container->lookup &&
	       !strcmp(s->ent->name.container_id, e->container->id);
}

/* E's slot: one multiply over the words its key is made of. */
static uint32_t end__slot(const struct req_end *e, uint8_t family, bool server, uint64_t seed)
{
	uint64_t a, b, x = (uint64_t)family << 48;

	if (!e->local) {
		memcpy(&a, e->ip, 8);
		memcpy(&b, e->ip + 8, 8);
		x |= server ? e->port : 0;
	} else if (!e->container) {
		memcpy(&a, e->comm, 8);
		memcpy(&b, e->comm + 7, 8);	/* to byte 14: the key's last */
	} else {
		a = (uintptr_t)e->container;
		b = (uint64_t)e->container->attempts << 8 | e->container->lookup;
	}
	return (uint32_t)(hash__mix64(a ^ (b * 31) ^ x, seed) >> 32) & (TOPO_CACHE_SLOTS - 1);
}

int topo_cache__entity(struct topo *t, const struct req_end *e, uint8_t family, bool server,
		       struct topo_entity **out)
{
	struct topo_cache_slot *s = &t->cache[end__slot(e, family, server, t->seed)];
	struct topo_name n;
	int err;

	if (slot__holds(s, e, family, server)) {
		*out = s->ent;
		return 0;
	}
	topo_name__from_end(&n, e, family, server);
	err = topo_entity__get(t, &n, out);
	if (err)
		return err;
	key__of(&s->k, e, family, server);
	s->ent = *out;
	return 0;
}

int topo_cache__init(struct topo *t)
{
	t->cache = calloc(TOPO_CACHE_SLOTS, sizeof(*t->cache));
	return t->cache ? 0 : -ENOMEM;
}
