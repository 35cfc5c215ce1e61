/* A chained hash map keyed by int64, with the nodes embedded in the caller's
 * structs (container_of). Used for threads by tid, fds by number and sockets by
 * inode. Inserting never fails: when the bucket array cannot grow, chains get
 * longer. Keys come from capture files too (untrusted): the hash is keyed with a
 * random seed, so keys chosen to share a bucket cannot be picked in advance. */
#ifndef INSPECT_HMAP_H
#define INSPECT_HMAP_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

struct hnode {
	struct hnode *next;
	int64_t key;
};

struct hmap {
	struct hnode **b;
	uint32_t nb;		/* a power of two */
	size_t n;
	uint64_t seed;		/* hash__seed() */
};

/* NB: initial number of buckets, rounded up to a power of two. */
int hmap__init(struct hmap *m, uint32_t nb);
/* Frees the bucket array only; the nodes belong to the caller. */
void hmap__fini(struct hmap *m);
struct hnode *hmap__find(const struct hmap *m, int64_t key);
/* N->key must not be in the map yet. */
void hmap__insert(struct hmap *m, struct hnode *n);
/* Unlinks and returns the node of KEY, or NULL. */
struct hnode *hmap__remove(struct hmap *m, int64_t key);

/* Visits every node; the body may remove the current node (its next pointer is
 * read before the body runs). */
#define hmap__for_each(m, i, n, nx) \
	for ((i) = 0; (i) < (m)->nb; (i)++) \
		for ((n) = (m)->b[i]; (n) && ((nx) = (n)->next, 1); (n) = (nx))

#endif
