/* Server requests in flight per thread: the thread that read a request
 * serves it until its response ends, so a client request that thread begins
 * meanwhile was made for it (a downstream call: nginx to its upstream, a
 * service to Redis). Kept only where it is one: a thread with more than one
 * in flight (an event loop juggling connections) gives no parent, counted,
 * rather than a guess. An open-addressed table of PAIR_THREADS slots, filled
 * to 3/4 at most; a thread with none in flight leaves it. */
#include "hash.h"
#include "pair_int.h"

/* Seeded as the connection table's buckets are (pair_conn.c). */
static uint32_t thread__slot(const struct pairer *p, int64_t tid)
{
	return (uint32_t)(hash__mix64((uint64_t)tid, p->seed) >> 32) & (PAIR_THREADS - 1);
}

static struct pair_thread *thread__find(struct pairer *p, int64_t tid)
{
	for (uint32_t i = thread__slot(p, tid);; i = (i + 1) & (PAIR_THREADS - 1)) {
		struct pair_thread *t = &p->threads[i];

		if (!t->n || t->tid == tid)
			return t;
	}
}

bool pair_thread__hold(struct pairer *p, int64_t tid, uint64_t id)
{
	struct pair_thread *t = thread__find(p, tid);

	if (!t->n) {
		if (p->n_threads >= PAIR_THREADS / 4 * 3) {
			p->c.n_threads_full++;
			return false;
		}
		p->n_threads++;
		t->tid = tid;
		for (unsigned i = 0; i < PAIR_THREAD_IDS; i++)
			t->ids[i] = 0;
	}
	t->n++;
	for (unsigned i = 0; i < PAIR_THREAD_IDS; i++)
		if (!t->ids[i]) {
			t->ids[i] = id;
			break;
		}
	return true;
}

/* Backward-shift deletion: the entries after the freed slot whose home is
 * not between it and them move back, so every probe still finds its own. */
static void thread__remove(struct pairer *p, struct pair_thread *t)
{
	uint32_t hole = (uint32_t)(t - p->threads), i = hole;

	p->n_threads--;
	t->n = 0;
	for (;;) {
		struct pair_thread *e;
		uint32_t home;

		i = (i + 1) & (PAIR_THREADS - 1);
		e = &p->threads[i];
		if (!e->n)
			return;
		home = thread__slot(p, e->tid);
		/* E may move to HOLE when HOLE lies on its probe path: home..i */
		if (((i - home) & (PAIR_THREADS - 1)) >= ((i - hole) & (PAIR_THREADS - 1))) {
			p->threads[hole] = *e;
			e->n = 0;
			hole = i;
		}
	}
}

void pair_thread__release(struct pairer *p, int64_t tid, uint64_t id)
{
	struct pair_thread *t = thread__find(p, tid);

	if (!t->n)
		return;
	for (unsigned i = 0; i < PAIR_THREAD_IDS; i++)
		if (t->ids[i] == id) {
			t->ids[i] = 0;
			break;
		}
	if (!--t->n)
		thread__remove(p, t);
}

uint64_t pair_thread__parent(struct pairer *p, int64_t tid)
{
	struct pair_thread *t = thread__find(p, tid);
	uint64_t id = 0;

	if (!t->n)
		return 0;
	if (t->n == 1)
		for (unsigned i = 0; i < PAIR_THREAD_IDS; i++)
			if (t->ids[i])
				id = t->ids[i];
	/* several in flight, or the one left was past PAIR_THREAD_IDS: unknown */
	if (!id)
		p->c.n_parent_unknown++;
	return id;
}
