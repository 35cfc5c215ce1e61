/* Seeded hashing for tables whose keys come from untrusted input (capture
 * files, containers' cgroup paths): with a random key per process, nobody can
 * pick in advance keys that share a bucket. */
#ifndef COMMON_HASH_H
#define COMMON_HASH_H

#include <stdint.h>

/* The process's random hash key, drawn once (getrandom, else clock and
 * addresses when that fails); never 0. */
uint64_t hash__seed(void);

/* KEY mixed with SEED: every bit of the result depends on every bit of both
 * (splitmix64's finalizer), cheap enough for per-event lookups. */
static inline uint64_t hash__mix64(uint64_t key, uint64_t seed)
{
	uint64_t x = key ^ seed;

	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

/* A NUL-terminated string under SEED: FNV-1a over 64 bits started from the
 * seed, then the mix above, so bucket bits depend on the whole state. */
static inline uint64_t hash__str(const char *s, uint64_t seed)
{
	uint64_t h = 0xCBF29CE484222325ULL ^ seed;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001B3ULL;
	return hash__mix64(h, seed);
}

#endif
