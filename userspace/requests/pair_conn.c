/* The pairing's connection table: found by (pid, fd) for every socket I/O and
 * by tuple when a record names the other side's process on this host.
 * Connections are allocated once and recycled through a free list, so a busy
 * host's stream of short connections allocates nothing once warm; the table
 * holds at most max_conns. Buckets are chosen with the process's seeded hash:
 * pids, fds and ports are the traced programs' to pick. */
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "pair_int.h"

static uint32_t key_bucket(const struct pairer *p, int64_t pid, int64_t fd)
{
	uint64_t h = hash__mix64(((uint64_t)pid << 32) ^ (uint64_t)fd, p->seed);

	return (uint32_t)(h >> 32) & (p->nbuckets - 1);
}

static uint32_t tuple_bucket(const struct pairer *p, const uint8_t *cip, uint16_t cport,
			     const uint8_t *sip, uint16_t sport)
{
	uint64_t a, b, c, d;

	memcpy(&a, cip, 8);
	memcpy(&b, cip + 8, 8);
	memcpy(&c, sip, 8);
	memcpy(&d, sip + 8, 8);
	a = hash__mix64(a ^ (b * 31) ^ ((uint64_t)cport << 48), p->seed);
	a = hash__mix64(a ^ c ^ (d * 31) ^ ((uint64_t)sport << 32), p->seed);
	return (uint32_t)(a >> 32) & (p->nbuckets - 1);
}

struct pair_conn *pair_conn__find(struct pairer *p, int64_t pid, int64_t fd)
{
	struct pair_conn *c = p->by_key[key_bucket(p, pid, fd)];

	while (c && (c->pid != pid || c->fd != fd))
		c = c->next_key;
	return c;
}

struct pair_conn *pair_conn__add(struct pairer *p, int64_t pid, int64_t fd)
{
	struct pair_conn *c = p->free;
	uint32_t b;

	if (c) {
		p->free = c->next_free;
	} else {
		if (p->nalloc >= p->o.max_conns) {
			p->c.n_conns_full++;
			return NULL;
		}
		c = malloc(sizeof(*c));
		if (!c) {
			p->c.n_conns_full++;
			return NULL;
		}
		p->all[p->nalloc++] = c;
	}
	/* the queue's entries are set when used */
	memset(c, 0, offsetof(struct pair_conn, q));
	c->used = true;
	c->pid = pid;
	c->fd = fd;
	c->id = ++p->next_id;
	b = key_bucket(p, pid, fd);
	c->next_key = p->by_key[b];
	p->by_key[b] = c;
	p->c.n_conns++;
	return c;
}

static void unlink_tuple(struct pairer *p, struct pair_conn *c)
{
	struct pair_conn **pp;

	if (!c->in_tuple)
		return;
	pp = &p->by_tuple[tuple_bucket(p, c->cip, c->cport, c->sip, c->sport)];
	while (*pp && *pp != c)
		pp = &(*pp)->next_tuple;
	if (*pp)
		*pp = c->next_tuple;
	c->in_tuple = false;
}

void pair_conn__remove(struct pairer *p, struct pair_conn *c)
{
	struct pair_conn **pp = &p->by_key[key_bucket(p, c->pid, c->fd)];

	while (*pp && *pp != c)
		pp = &(*pp)->next_key;
	if (*pp)
		*pp = c->next_key;
	unlink_tuple(p, c);
	c->used = false;
	c->next_free = p->free;
	p->free = c;
	p->c.n_conns--;
}

void pair_conn__index_tuple(struct pairer *p, struct pair_conn *c)
{
	uint32_t b;

	unlink_tuple(p, c);
	b = tuple_bucket(p, c->cip, c->cport, c->sip, c->sport);
	c->next_tuple = p->by_tuple[b];
	p->by_tuple[b] = c;
	c->in_tuple = true;
}

struct pair_conn *pair_conn__by_tuple(struct pairer *p, const uint8_t *cip, uint16_t cport,
				      const uint8_t *sip, uint16_t sport, uint8_t l4proto,
				      uint8_t side, const struct pair_conn *self)
{
	struct pair_conn *c = p->by_tuple[tuple_bucket(p, cip, cport, sip, sport)];

	static const uint8_t any[16];

	for (; c; c = c->next_tuple)
		if (c != self && c->side == side && c->l4proto == l4proto &&
		    c->cport == cport && c->sport == sport && !memcmp(c->cip, cip, 16) &&
		    !memcmp(c->sip, sip, 16))
			return c;
	/* an unconnected UDP server socket is indexed for any client */
	if (side == REQ_SIDE_SERVER && cport)
		return pair_conn__by_tuple(p, any, 0, sip, sport, l4proto, side, self);
	return NULL;
}
