/* A chained hash map keyed by int64, with the nodes embedded in the caller's
 * structs (container_of). Used for threads by tid, fds by number and sockets by
 * inode. Inserting never fails: when the bucket array cannot grow, chains get
 * longer. Keys come from capture files too (untrusted): the hash is keyed with a
 * random seed, so keys chosen to share a bucket cannot be picked in advance. */
#ifndef INSPECT_HMAP_H
#define INSPECT_HMAP_H

#include <stddef.h>
#include <stdint.h>

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
	uint64_t seed;		/* hmap__seed() */
};

/* The process's random hash key, drawn once (getrandom, else clock and
 * addresses when that fails). */
uint64_t hmap__seed(void);

/* KEY mixed with SEED: every bit of the result depends on every bit of both
 * (splitmix64's finalizer), cheap enough for the per-event lookups. */
static inline uint64_t hmap__hash(uint64_t key, uint64_t seed)
{
	uint64_t x = key ^ seed;

	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

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
