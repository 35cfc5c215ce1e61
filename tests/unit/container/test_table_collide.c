/* The container table against ids chosen to share a bucket: a capture file
 * names its containers, so it can pick ids. Under the table's old hash (FNV-1a
 * over 32 bits, low 12 bits for 4096 buckets) the low 12 bits of the state
 * evolve alone, so three chosen hex digits send any prefix to bucket 0; the
 * seeded hash must keep such ids as fast to add as random ones. */
#include <stdint.h>
#include <time.h>

#include "../common/t_check.h"
#include "container.h"

#define N 40000
#define BOUND 5	/* colliding may cost this many times the random ids, at most */

static uint32_t old_low12(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h & 4095;
}

static uint64_t rnd_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* 9 random hex digits, then 3 searched so the old hash's bucket is 0 (or
 * random ones when !COLLIDE). Returns false when no suffix fits the prefix. */
static bool make_id(char id[13], bool collide)
{
	static const char hex[] = "0123456789abcdef";
	uint64_t r = rnd();

	for (int i = 0; i < 9; i++)
		id[i] = hex[(r >> (4 * i)) & 15];
	for (unsigned s = 0; s < 4096; s++) {
		id[9] = hex[s & 15];
		id[10] = hex[(s >> 4) & 15];
		id[11] = hex[s >> 8];
		id[12] = '\0';
		if (!collide)
			id[9] = hex[(r >> 40) & 15], id[10] = hex[(r >> 44) & 15], id[11] = hex[(r >> 48) & 15];
		if (!collide || old_low12(id) == 0)
			return true;
	}
	return false;
}

/* The thread's CPU time: a ratio of two runs must not take in the waits
 * for a CPU other processes made on a loaded machine. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Adds N ids; the seconds it took, or -1 when some add failed. */
static double fill(char (*ids)[13])
{
	struct container_table_opts o = { .no_lookup = true };
	struct container_table *t = container_table__new(&o);
	struct container_counters c;
	double t0 = now(), dt;
	int bad = 0;

	if (!t)
		return -1;
	for (int i = 0; i < N; i++) {
		struct container_ident ident = { .type = CT_DOCKER };

		snprintf(ident.id, sizeof(ident.id), "%s", ids[i]);
		if (!container_table__get(t, &ident, 0))
			bad++;
	}
	dt = now() - t0;
	container_table__counters(t, &c);
	CHECK_INT(c.n_containers, N);
	container_table__free(t);
	return bad ? -1 : dt;
}

int main(void)
{
	static char coll[N][13], plain[N][13];
	int made = 0, tries = 0, bucket0 = 0;
	double tc, tp;

	while (made < N && tries++ < 4 * N)
		if (make_id(coll[made], true))
			made++;
	CHECK_INT(made, N);
	for (int i = 0; i < N; i++) {
		make_id(plain[i], false);
		bucket0 += old_low12(coll[i]) == 0;
	}
	CHECK_INT(bucket0, N);
	tp = fill(plain);
	tc = fill(coll);
	CHECK(tp >= 0 && tc >= 0);
	printf("%d ids: random %.4f s, chosen to collide %.4f s\n", N, tp, tc);
	CHECK(tc <= BOUND * (tp > 0.002 ? tp : 0.002));
	return t_report();
}
