/* The process's hash key (hash.h). */
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "hash.h"

uint64_t hash__seed(void)
{
	static uint64_t seed;
	uint64_t s = __atomic_load_n(&seed, __ATOMIC_RELAXED);
	struct timespec ts;

	if (s)
		return s;
	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != (ssize_t)sizeof(s)) {
		/* no entropy yet (early boot): still unknown to a file's author */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		s = hash__mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32),
				(uint64_t)(uintptr_t)&seed ^ (uint64_t)getpid());
	}
	s |= 1;		/* 0 means not drawn yet */
	/* two threads drawing at once: one seed wins, and each table keeps its own */
	__atomic_store_n(&seed, s, __ATOMIC_RELAXED);
	return s;
}
