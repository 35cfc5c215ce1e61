/* The tables a capture file fills resist keys chosen to collide: tids and fds
 * that all fell in one bucket of the old unseeded hash (key * 0x9E37... >> 32)
 * are added in a time bounded by that of as many sequential ones. Users and
 * groups listed with descending ids are added as fast as ascending ones, and
 * the first entry of an id still names it. */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "inspect.h"
#include "t_check.h"

#define N_KEYS 50000
/* The old hash's multiplier; its inverse modulo 2^64 turns any product back
 * into the key that gives it. */
#define OLD_MUL 0x9E3779B97F4A7C15ULL
/* Colliding adds may take this many times the sequential ones (measured: about
 * 1x now, over 100x with the old hash). */
#define MAX_RATIO 20.0
/* Below this a sequential run is too short to compare with. */
#define FLOOR_S 0.005

/* The thread's CPU time: a ratio of two runs must not take in the waits
 * for a CPU other processes made on a loaded machine. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t inverse(uint64_t a)
{
	uint64_t x = a;	/* right to 3 bits for odd a; each step doubles them */

	for (int i = 0; i < 5; i++)
		x *= 2 - a * x;
	return x;
}

static int64_t keys[N_KEYS];

/* Keys that the old hash put in bucket 0 of any table: their products with
 * OLD_MUL are below 2^32. Positive ones only, as tids and fds are. */
static void colliding_keys(void)
{
	uint64_t inv = inverse(OLD_MUL);
	size_t n = 0;

	for (uint64_t i = 1; n < N_KEYS; i++) {
		uint64_t k = i * inv;

		if ((int64_t)k > 0)
			keys[n++] = (int64_t)k;
	}
}

static struct inspector *new_inspector(void)
{
	struct inspector_opts io = { .no_proc_scan = true, .no_proc_lookup = true,
				     .max_threads = 4 * N_KEYS };

	return inspector__new(&io);
}

/* Seconds to add N_KEYS threads (one process each), keys colliding or 1..N. */
static double add_threads(bool collide)
{
	struct inspector *in = new_inspector();
	double t0 = now_s();
	int ok = 0;

	for (size_t i = 0; i < N_KEYS; i++) {
		int64_t tid = collide ? keys[i] : (int64_t)i + 1;

		ok += inspector__add_thread(in, tid, tid) != NULL;
	}
	t0 = now_s() - t0;
	CHECK_INT(ok, N_KEYS);
	inspector__free(in);
	return t0;
}

/* Seconds to add N_KEYS fds to one process, colliding or 0..N-1. */
static double add_fds(bool collide)
{
	struct inspector *in = new_inspector();
	struct thread_info *ti = inspector__add_thread(in, 1, 1);
	double t0 = now_s();
	int ok = 0;

	for (size_t i = 0; i < N_KEYS; i++)
		ok += inspector__add_fd(in, ti, collide ? keys[i] : (int64_t)i) != NULL;
	t0 = now_s() - t0;
	CHECK_INT(ok, N_KEYS);
	if (collide)
		CHECK(fd_table__find(ti->fds, keys[7]) != NULL);
	else
		CHECK(fd_table__find(ti->fds, 7) != NULL);
	inspector__free(in);
	return t0;
}

/* Seconds to add N_KEYS users (and as many groups), ids descending or
 * ascending, each id twice: the first name must win. */
static double add_users(bool descending)
{
	char name[32];
	double t0;
	int ok = 0;

	users__file_begin();
	t0 = now_s();
	for (uint32_t i = 0; i < N_KEYS; i++) {
		uint32_t id = descending ? N_KEYS - i : i + 1;

		for (int g = 0; g < 2; g++) {
			struct users_entry e = { .group = g, .id = id, .gid = id, .name = name,
						 .home = "/home", .shell = "/bin/sh" };

			snprintf(name, sizeof(name), "%c%u", g ? 'g' : 'u', id);
			ok += users__file_add(&e, false) == 0;
		}
	}
	for (uint32_t i = 0; i < N_KEYS; i += N_KEYS / 10) {
		struct users_entry e = { .id = i + 1, .gid = 1, .name = "second",
					 .home = "", .shell = "" };

		users__file_add(&e, false);
	}
	t0 = now_s() - t0;
	CHECK_INT(ok, 2 * N_KEYS);
	CHECK_STR(users__name(1), "u1");
	CHECK_STR(users__name(N_KEYS), "u50000");
	CHECK_STR(groups__name(12345), "g12345");
	CHECK(users__name(N_KEYS + 1) == NULL);
	users__file_reset();
	return t0;
}

static double floor_s(double t)
{
	return t > FLOOR_S ? t : FLOOR_S;
}

static void compare(const char *what, double seq, double col)
{
	printf("%s: %d sequential %.3f s, colliding %.3f s\n", what, N_KEYS, seq, col);
	CHECK(col < MAX_RATIO * floor_s(seq));
}

int main(void)
{
	double seq, col;

	colliding_keys();
	/* warm the allocator so the first run is not the slow one */
	add_threads(false);
	seq = add_threads(false);
	col = add_threads(true);
	compare("threads", seq, col);
	seq = add_fds(false);
	col = add_fds(true);
	compare("fds", seq, col);
	seq = add_users(false);
	col = add_users(true);
	compare("users and groups", seq, col);
	return t_report();
}
