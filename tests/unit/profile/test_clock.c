/* CPU_SLICES batches decoded (slices.h) and summed per thread (clock.h):
 * good batches, each way a batch can be malformed, a gap, a thread's exit,
 * and the table's bound. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "clock.h"
#include "slices.h"
#include "t_check.h"

static size_t put_slice(uint8_t *b, uint64_t start, uint64_t dur, uint64_t obj, uint32_t waker,
			uint16_t nr, uint8_t kind, uint8_t flags)
{
	memcpy(b, &start, 8);
	memcpy(b + 8, &dur, 8);
	memcpy(b + 16, &obj, 8);
	memcpy(b + 24, &waker, 4);
	memcpy(b + 28, &nr, 2);
	b[30] = kind;
	b[31] = flags;
	return PROF_SLICE_WIRE;
}

static int decode(struct prof_batch *b, uint64_t to, uint64_t tid, uint64_t from,
		  const uint8_t *s, size_t len)
{
	return prof_batch__decode(b, to, (const uint8_t *)&tid, 8, (const uint8_t *)&from, 8, s,
				  len);
}

static void test_decode(void)
{
	uint8_t s[PROF_SLICE_WIRE * (PROF_SLICES_MAX + 1)];
	struct prof_batch b;
	size_t n = 0;
	uint64_t tid = 42, from = 1000;

	n += put_slice(s + n, 1100, 50, 0, 0, PROF_SLICE_NR_NONE, PROF_SLICE_RUNQ,
		       PROF_SLICE_F_PREEMPTED);
	n += put_slice(s + n, 1200, 300, 0x7fff0000, 43, 202, PROF_SLICE_LOCK, 0);
	CHECK_INT(decode(&b, 2000, tid, from, s, n), 0);
	CHECK_INT(b.n, 2);
	CHECK_INT(b.tid, 42);
	CHECK_INT(b.from, 1000);
	CHECK_INT(b.to, 2000);
	CHECK_INT(b.s[1].waker, 43);
	CHECK_INT(b.s[1].nr, 202);
	CHECK_INT(b.s[1].obj, 0x7fff0000);
	CHECK_INT(b.s[0].flags, PROF_SLICE_F_PREEMPTED);
	CHECK_STR(prof_slice__kind_name(b.s[1].kind), "lock");
	/* a batch of none: following begins */
	CHECK_INT(decode(&b, 1000, tid, 1000, NULL, 0), 0);
	CHECK_INT(b.n, 0);
	/* malformed: sizes, kinds, order, span */
	CHECK_INT(prof_batch__decode(&b, 2000, (const uint8_t *)&tid, 4, (const uint8_t *)&from,
				     8, s, n), -EINVAL);
	CHECK_INT(decode(&b, 2000, tid, from, s, n - 1), -EINVAL);
	CHECK_INT(decode(&b, 900, tid, from, s, 0), -EINVAL);		/* from after to */
	CHECK_INT(decode(&b, 1400, tid, from, s, n), -EINVAL);		/* ends after to */
	CHECK_INT(decode(&b, 2000, tid, 1150, s, n), -EINVAL);		/* starts before from */
	s[30 + PROF_SLICE_WIRE] = PROF_SLICE__KINDS;
	CHECK_INT(decode(&b, 2000, tid, from, s, n), -EINVAL);		/* unknown kind */
	s[30 + PROF_SLICE_WIRE] = PROF_SLICE_LOCK;
	put_slice(s + PROF_SLICE_WIRE, 1120, 10, 0, 0, 0, PROF_SLICE_FILE, 0);
	CHECK_INT(decode(&b, 2000, tid, from, s, n), -EINVAL);		/* overlaps */
	put_slice(s + PROF_SLICE_WIRE, ~0ull - 5, 10, 0, 0, 0, PROF_SLICE_FILE, 0);
	CHECK_INT(decode(&b, 2000, tid, from, s, n), -EINVAL);		/* wraps */
	n = 0;
	for (unsigned i = 0; i <= PROF_SLICES_MAX; i++)
		n += put_slice(s + n, 1000 + i * 10, 5, 0, 0, 0, PROF_SLICE_NET, 0);
	CHECK_INT(decode(&b, 2000, tid, from, s, n - PROF_SLICE_WIRE), 0);
	CHECK_INT(b.n, PROF_SLICES_MAX);
	CHECK_INT(decode(&b, 2000, tid, from, s, n), -EINVAL);		/* one too many */
}

static void test_clock(void)
{
	struct prof_clock *c = prof_clock__new();
	struct prof_clock_read r;
	struct prof_clock_counters cc;
	struct prof_batch b = { .tid = 7, .from = 100, .to = 100 };
	bool full = false;

	CHECK(c != NULL);
	if (!c)
		return;
	CHECK(!prof_clock__read(c, 7, &r));
	prof_clock__batch(c, &b);		/* following begins at 100 */
	CHECK(prof_clock__read(c, 7, &r));
	CHECK_INT(r.since, 100);
	CHECK_INT(r.gen, 1);
	b.from = 100;
	b.to = 500;
	b.n = 2;
	b.s[0] = (struct prof_slice_rec){ .start = 150, .dur = 40, .kind = PROF_SLICE_SLEEP };
	b.s[1] = (struct prof_slice_rec){ .start = 300, .dur = 60, .kind = PROF_SLICE_RUNQ };
	prof_clock__batch(c, &b);
	CHECK(prof_clock__read(c, 7, &r));
	CHECK_INT(r.t[PROF_SLICE_SLEEP], 40);
	CHECK_INT(r.t[PROF_SLICE_RUNQ], 60);
	CHECK_INT(r.gen, 1);
	/* the next batch does not begin at 500: one was lost */
	b.from = 800;
	b.to = 900;
	b.n = 1;
	b.s[0] = (struct prof_slice_rec){ .start = 810, .dur = 5, .kind = PROF_SLICE_SLEEP };
	prof_clock__batch(c, &b);
	CHECK(prof_clock__read(c, 7, &r));
	CHECK_INT(r.gen, 2);
	CHECK_INT(r.t[PROF_SLICE_SLEEP], 45);
	prof_clock__counters(c, &cc);
	CHECK_INT(cc.n_gaps, 1);
	CHECK_INT(cc.n_threads, 1);
	/* its exit: gone; the tid used again starts over */
	prof_clock__forget(c, 7);
	CHECK(!prof_clock__read(c, 7, &r));
	/* the bound: 3/4 of the slots, then counted */
	for (uint64_t t = 1; t <= PROF_CLOCK_SLOTS; t++) {
		struct prof_batch h = { .tid = t * 7919, .from = 1, .to = 1 };

		prof_clock__batch(c, &h);
	}
	prof_clock__counters(c, &cc);
	CHECK_INT(cc.n_threads, PROF_CLOCK_SLOTS / 4 * 3);
	CHECK_INT(cc.n_full, PROF_CLOCK_SLOTS - PROF_CLOCK_SLOTS / 4 * 3);
	/* every kept one is still found after half are forgotten (deletion
	 * keeps the probe chains whole) */
	for (uint64_t t = 1; t <= PROF_CLOCK_SLOTS / 4 * 3; t += 2)
		prof_clock__forget(c, t * 7919);
	for (uint64_t t = 2; t <= PROF_CLOCK_SLOTS / 4 * 3; t += 2)
		if (!prof_clock__read(c, t * 7919, &r))
			full = true;
	CHECK(!full);
	prof_clock__free(c);
}

struct seen {
	int n;
	struct prof_clock_thread t;
};

static int each_one(void *ctx, const struct prof_clock_thread *t)
{
	struct seen *s = ctx;

	s->n++;
	s->t = *t;
	return 0;
}

/* What --profile alone reads: a slice whose use is unknown (a switch not
 * seen) counts as lost time and a gap, never as its kind; names, an end, time
 * added at the end, and the walk. */
static void test_account(void)
{
	struct prof_clock *c = prof_clock__new();
	struct prof_batch b = { .tid = 9, .from = 100, .to = 1000, .n = 2 };
	struct prof_clock_read r;
	struct seen s = { 0 };

	CHECK(c != NULL);
	if (!c)
		return;
	b.s[0] = (struct prof_slice_rec){ .start = 200, .dur = 100, .kind = PROF_SLICE_LOCK };
	b.s[1] = (struct prof_slice_rec){ .start = 400, .dur = 300, .kind = PROF_SLICE_OTHER,
					  .flags = PROF_SLICE_F_UNSEEN };
	prof_clock__batch(c, &b);
	CHECK(prof_clock__read(c, 9, &r));
	CHECK_INT(r.t[PROF_SLICE_LOCK], 100);
	CHECK_INT(r.t[PROF_SLICE_OTHER], 0);
	CHECK_INT(r.gen, 2);		/* a reader across it must not trust the sum */
	prof_clock__name(c, 9, 8, "worker", "abc");
	prof_clock__name(c, 10, 8, "nobody", "");	/* no clock: nothing */
	prof_clock__add(c, 9, PROF_SLICE_SLEEP, 50);
	prof_clock__add(c, 9, PROF_SLICE__KINDS, 50);	/* no such kind: ignored */
	prof_clock__end(c, 9, 1200);
	prof_clock__end(c, 9, 1300);			/* the first end stands */
	CHECK_INT(prof_clock__each(c, each_one, &s), 0);
	CHECK_INT(s.n, 1);
	CHECK_INT(s.t.tid, 9);
	CHECK_INT(s.t.pid, 8);
	CHECK_STR(s.t.comm, "worker");
	CHECK_STR(s.t.group, "abc");
	CHECK_INT(s.t.lost, 300);
	CHECK_INT(s.t.gaps, 1);
	CHECK_INT(s.t.end, 1200);
	CHECK_INT(s.t.r.t[PROF_SLICE_SLEEP], 50);
	/* a lost batch's time is lost too */
	b.from = 1500;
	b.to = 1600;
	b.n = 0;
	prof_clock__batch(c, &b);
	s.n = 0;
	prof_clock__each(c, each_one, &s);
	CHECK_INT(s.t.lost, 300 + 500);
	CHECK_INT(s.t.gaps, 2);
	prof_clock__free(c);
}

/* Request mode's roles (prof_clock__role): a thread that begins a client's
 * request before serving any is let go, reads nothing, passes over the
 * batches built before the driver let it go, and begins anew at the batch of
 * none that says the driver follows it again, once it served; a thread that
 * served is never let go. */
static void test_roles(void)
{
	struct prof_clock *c = prof_clock__new();
	struct prof_clock_read r;
	struct prof_clock_counters cc;
	struct prof_batch b = { .tid = 9, .from = 100, .to = 100 };

	CHECK(c != NULL);
	if (!c)
		return;
	CHECK_INT(prof_clock__role(c, 9, false), 0);	/* no clock: nothing to let go */
	prof_clock__batch(c, &b);
	CHECK_INT(prof_clock__role(c, 9, false), PROF_CLOCK_LET_GO);
	CHECK(!prof_clock__read(c, 9, &r));
	CHECK_INT(prof_clock__role(c, 9, false), 0);	/* once */
	/* a batch built before the driver let it go: passed over */
	b.from = 100;
	b.to = 300;
	b.n = 1;
	b.s[0] = (struct prof_slice_rec){ .start = 150, .dur = 40, .kind = PROF_SLICE_NET };
	prof_clock__batch(c, &b);
	CHECK(!prof_clock__read(c, 9, &r));
	/* it serves: followed again, from the driver's batch of none */
	CHECK_INT(prof_clock__role(c, 9, true), PROF_CLOCK_AGAIN);
	CHECK(!prof_clock__read(c, 9, &r));
	b = (struct prof_batch){ .tid = 9, .from = 1000, .to = 1000 };
	prof_clock__batch(c, &b);
	CHECK(prof_clock__read(c, 9, &r));
	CHECK_INT(r.since, 1000);
	CHECK_INT(r.gen, 2);
	CHECK_INT(r.t[PROF_SLICE_NET], 0);
	b = (struct prof_batch){ .tid = 9, .from = 1000, .to = 2000, .n = 1 };
	b.s[0] = (struct prof_slice_rec){ .start = 1100, .dur = 30, .kind = PROF_SLICE_NET };
	prof_clock__batch(c, &b);
	CHECK(prof_clock__read(c, 9, &r));
	CHECK_INT(r.t[PROF_SLICE_NET], 30);
	/* it served: its client requests leave it followed */
	CHECK_INT(prof_clock__role(c, 9, false), 0);
	CHECK_INT(prof_clock__role(c, 9, true), 0);
	CHECK(prof_clock__read(c, 9, &r));
	/* a thread that serves first is never let go */
	b = (struct prof_batch){ .tid = 11, .from = 5, .to = 5 };
	prof_clock__batch(c, &b);
	CHECK_INT(prof_clock__role(c, 11, true), 0);
	CHECK_INT(prof_clock__role(c, 11, false), 0);
	CHECK(prof_clock__read(c, 11, &r));
	prof_clock__counters(c, &cc);
	CHECK_INT(cc.n_let_go, 1);
	CHECK_INT(cc.n_again, 1);
	CHECK_INT(cc.n_gaps, 0);
	prof_clock__free(c);
}

int main(void)
{
	test_decode();
	test_clock();
	test_account();
	test_roles();
	return t_report();
}
