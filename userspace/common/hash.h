/* Seeded hashing for tables whose keys come from untrusted input (capture
 * files, containers' cgroup paths): with a random key per process, nobody can
 * pick in advance keys that share a bucket. */
#ifndef COMMON_HASH_H
#define COMMON_HASH_H

#include <stdint.h>

/* The process's random hash key, drawn once (getrandom, else clock and
 * addresses when that fails); never 0. */
uint64_t hash__seed(void);

/* KEY mixed with SEED: the 128-bit product of the keyed value and an odd
 * constant, its halves folded, so every bit of the result's upper half depends
 * on every bit of the key and the seed; one multiply, cheap enough for the
 * per-event lookups. */
static inline uint64_t hash__mix64(uint64_t key, uint64_t seed)
{
	unsigned __int128 p = (unsigned __int128)(key ^ seed) * 0x9E3779B97F4A7C15ULL;

	return (uint64_t)(p >> 64) ^ (uint64_t)p;
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
