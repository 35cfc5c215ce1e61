/* The pairing's connection table: found by (pid, fd) for every socket I/O and
 * by tuple when a record names the other side's process on this host.
 * Connections are allocated once and recycled through a free list, so a busy
 * host's stream of short connections allocates nothing once warm; the table
 * holds at most max_conns. Buckets are chosen with the process's seeded hash:
 * pids, fds and ports are the traced programs' to pick. */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "container.h"
#include "hash.h"
#include "pair_int.h"

#ifndef IPPROTO_TCP
#define IPPROTO_TCP 6
#endif

void pair_key__of(struct pair_key *k, const struct req_io *io)
{
	memset(k, 0, sizeof(*k));
	k->pid = io->pid;
	k->fd = io->fd;
	if (io->l4proto == IPPROTO_TCP && io->sport && io->dport) {
		k->fd = -1;
		memcpy(k->sip, io->sip, 16);
		memcpy(k->dip, io->dip, 16);
		k->sport = io->sport;
		k->dport = io->dport;
		k->accepted = io->accepted;
	}
}

static uint32_t key_bucket(const struct pairer *p, const struct pair_key *k)
{
	uint64_t a, b, c, d, h;

	memcpy(&a, k->sip, 8);
	memcpy(&b, k->sip + 8, 8);
	memcpy(&c, k->dip, 8);
	memcpy(&d, k->dip + 8, 8);
	h = hash__mix64(((uint64_t)k->pid << 32) ^ (uint64_t)k->fd, p->seed);
	h = hash__mix64(h ^ a ^ (b * 31) ^ ((uint64_t)k->sport << 48), p->seed);
	h = hash__mix64(h ^ c ^ (d * 31) ^ ((uint64_t)k->dport << 32), p->seed);
	return (uint32_t)(h >> 32) & (p->nbuckets - 1);
}

static bool key__eq(const struct pair_key *a, const struct pair_key *b)
{
	return a->pid == b->pid && a->fd == b->fd && a->sport == b->sport &&
	       a->dport == b->dport && a->accepted == b->accepted &&
	       !memcmp(a->sip, b->sip, 16) && !memcmp(a->dip, b->dip, 16);
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

struct pair_conn *pair_conn__find(struct pairer *p, const struct pair_key *k)
{
	struct pair_conn *c = p->by_key[key_bucket(p, k)];

	while (c && !key__eq(&c->key, k))
		c = c->next_key;
	return c;
}

uint32_t pair_pid__slot(const struct pairer *p, int64_t pid)
{
	return (uint32_t)hash__mix64((uint64_t)pid, p->seed) & (PAIR_PID_SLOTS - 1);
}

struct pair_conn *pair_conn__add(struct pairer *p, const struct pair_key *k)
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
	pair_q__init(c);
	c->used = true;
	c->key = *k;
	c->pid = k->pid;
	c->id = ++p->next_id;
	p->pid_conns[pair_pid__slot(p, c->pid)]++;
	b = key_bucket(p, k);
	c->next_key = p->by_key[b];
	p->by_key[b] = c;
	p->c.n_conns++;
	return c;
}

void pair_conn__unlink_tuple(struct pairer *p, struct pair_conn *c)
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

void pair_conn__quiet_end(const struct pair_conn *c, struct pair_quiet_end *e)
{
	e->family = c->family;
	memcpy(e->lip, c->cip, 16);
	memcpy(e->rip, c->sip, 16);
	e->lport = c->cport;
	e->rport = c->sport;
}

void pair_conn__remove(struct pairer *p, struct pair_conn *c)
{
	struct pair_conn **pp = &p->by_key[key_bucket(p, &c->key)];
	struct pair_quiet_end e;

	if (c->quiet_handed && p->quiet) {
		pair_conn__quiet_end(c, &e);
		p->quiet(p->quiet_ctx, &e, false);
	}

	while (*pp && *pp != c)
		pp = &(*pp)->next_key;
	if (*pp)
		*pp = c->next_key;
	pair_conn__unlink_tuple(p, c);
	p->pid_conns[pair_pid__slot(p, c->pid)]--;
	container_info__put(c->ct);
	container_info__put(c->peer_ct);
	c->ct = c->peer_ct = NULL;
	pair_h2__free(c->h2);
	c->h2 = NULL;
	pair_stmt__free(c);
	pair_q__shrink(c, true);
	c->used = false;
	c->next_free = p->free;
	p->free = c;
	p->c.n_conns--;
}

void pair_conn__index_tuple(struct pairer *p, struct pair_conn *c)
{
	uint32_t b;

	pair_conn__unlink_tuple(p, c);
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
	/* a UDP client bound to no address of its own (0.0.0.0, ::), by its
	 * port: the server saw the address the kernel sent from */
	if (side == REQ_SIDE_CLIENT && l4proto == IPPROTO_UDP && memcmp(cip, any, 16))
		return pair_conn__by_tuple(p, any, cport, sip, sport, l4proto, side, self);
	return NULL;
}

struct pair_conn *pair_conn__peer(struct pairer *p, struct pair_conn *c)
{
	struct pair_conn *peer = c->peer_conn;
	uint8_t other = c->side == REQ_SIDE_SERVER ? REQ_SIDE_CLIENT : REQ_SIDE_SERVER;

	if (peer && peer->used && peer->id == c->peer_conn_id)
		return peer;
	peer = pair_conn__by_tuple(p, c->cip, c->cport, c->sip, c->sport, c->l4proto, other, c);
	c->peer_conn = peer;
	c->peer_conn_id = peer ? peer->id : 0;
	return peer;
}
