/* Chained int64-keyed hash map (see hmap.h). */
#include <errno.h>
#include <stdlib.h>

#include "hmap.h"

static inline uint32_t hmap__slot(const struct hmap *m, int64_t key)
{
	return (uint32_t)(hash__mix64((uint64_t)key, m->seed) >> 32) & (m->nb - 1);
}

int hmap__init(struct hmap *m, uint32_t nb)
{
	uint32_t n = 1;

	while (n < nb && n < (1U << 30))
		n <<= 1;
	m->b = calloc(n, sizeof(*m->b));
	if (!m->b)
		return -ENOMEM;
	m->nb = n;
	m->n = 0;
	m->seed = hash__seed();
	return 0;
}

void hmap__fini(struct hmap *m)
{
	free(m->b);
	m->b = NULL;
	m->nb = 0;
	m->n = 0;
}

struct hnode *hmap__find(const struct hmap *m, int64_t key)
{
	struct hnode *n;

	for (n = m->b[hmap__slot(m, key)]; n; n = n->next)
		if (n->key == key)
			return n;
	return NULL;
}

static void hmap__grow(struct hmap *m)
{
	struct hmap bigger;
	struct hnode *n, *nx;
	uint32_t i;

	if (m->nb >= (1U << 30) || hmap__init(&bigger, m->nb * 2) < 0)
		return;
	hmap__for_each(m, i, n, nx) {
		uint32_t s = hmap__slot(&bigger, n->key);

		n->next = bigger.b[s];
		bigger.b[s] = n;
	}
	bigger.n = m->n;
	free(m->b);
	*m = bigger;
}

void hmap__insert(struct hmap *m, struct hnode *n)
{
	uint32_t s;

	if (m->n >= m->nb)
		hmap__grow(m);
	s = hmap__slot(m, n->key);
	n->next = m->b[s];
	m->b[s] = n;
	m->n++;
}

struct hnode *hmap__remove(struct hmap *m, int64_t key)
{
	struct hnode **pp, *n;

	for (pp = &m->b[hmap__slot(m, key)]; (n = *pp); pp = &n->next) {
		if (n->key == key) {
			*pp = n->next;
			n->next = NULL;
			m->n--;
			return n;
		}
	}
	return NULL;
}
