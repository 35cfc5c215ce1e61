/* Helpers of the fdio and sock live tests: the one enter/exit pair a call made. */
#ifndef FDIO_LIVE_H
#define FDIO_LIVE_H

#include "../fs/fs_live.h"

/* The only enter event of TYPE this thread sent since the last drain and the exit
 * right after it, both headers checked. Returns 0 when both were found. */
static inline int live__pair(struct harness *h, uint16_t type, struct hevt **e, struct hevt **x)
{
	int64_t tid = live__tid();
	int at = 0;

	*x = NULL;
	*e = harness__find(h, type, &at);
	EXPECT(*e != NULL);
	if (!*e)
		return -1;
	hevt__expect_header(*e, type, tid);
	EXPECT(harness__find(h, type, &at) == NULL);
	*x = live__next(h, *e, type + 1);
	EXPECT(*x != NULL);
	if (!*x)
		return -1;
	hevt__expect_header(*x, type + 1, tid);
	return 0;
}

/* Runs CALL between two drains: the events kept are this thread's during it. R
 * gets the raw syscall result (-errno on failure). */
#define LIVE_CALL(h, r, call)                                  \
	do {                                                   \
		harness__drain(h, -1);                         \
		r = (call);                                    \
		if (r < 0)                                     \
			r = -errno;                            \
		harness__drain(h, live__tid());                \
	} while (0)

#endif
