/* Helpers of the wait live tests: find a call's enter and exit events. */
#ifndef WAIT_LIVE_H
#define WAIT_LIVE_H

#include <errno.h>

#include "schema_flags.h"
#include "../fs/fs_live.h"

/* The enter event of TYPE whose integer param I is V, checked with its exit (the
 * next event of this thread); *X gets the exit. NULL (and *X NULL) if missing. */
static inline struct hevt *wait__pair(struct harness *h, uint16_t type, uint32_t i, int64_t v,
				      struct hevt **x)
{
	int64_t tid = live__tid();
	struct hevt *e;
	int at = 0;

	*x = NULL;
	e = live__find_int(h, type, i, v, &at);
	EXPECT(e != NULL);
	if (!e)
		return NULL;
	hevt__expect_header(e, type, tid);
	*x = live__next(h, e, type + 1);
	EXPECT(*x != NULL);
	if (!*x)
		return NULL;
	hevt__expect_header(*x, type + 1, tid);
	return e;
}

/* The last exit event of TYPE (an event without params to find it by) and its
 * enter, checked. */
static inline struct hevt *wait__last_pair(struct harness *h, uint16_t type, struct hevt **x)
{
	int64_t tid = live__tid();
	struct hevt *e, *n;
	int at = 0;

	*x = NULL;
	while ((n = harness__find(h, type + 1, &at)))
		*x = n;
	EXPECT(*x != NULL);
	if (!*x)
		return NULL;
	hevt__expect_header(*x, type + 1, tid);
	e = live__prev(h, *x, type);
	EXPECT(e != NULL);
	if (e)
		hevt__expect_header(e, type, tid);
	return e;
}

/* Syscall result as the kernel returned it: -errno on failure. */
static inline long wait__res(long r)
{
	return r == -1 ? -errno : r;
}

/* Syscall NR with arguments A..F (unused ones are ignored by the kernel) between
 * two drains: the harness then holds this thread's events of the call alone.
 * Returns the kernel's result (-errno on failure). */
static inline long wait__call(struct harness *h, long nr, unsigned long a, unsigned long b,
			      unsigned long c, unsigned long d, unsigned long e, unsigned long f)
{
	long r;

	harness__drain(h, -1);
	r = wait__res(syscall(nr, a, b, c, d, e, f));
	harness__drain(h, live__tid());
	return r;
}

#endif
