/* Helpers of the cred live tests: find one call (its enter event and the exit
 * right after it) and check integer and DYN params. */
#ifndef CRED_LIVE_H
#define CRED_LIVE_H

#include <errno.h>
#include <stdint.h>
#include <sys/wait.h>

#include "../fs/fs_live.h"

/* The next enter event of TYPE at or after *AT (updated) and the exit right
 * after it, both headers checked for thread TID. 0 if either is missing. */
static inline int cred__call(struct harness *h, uint16_t type, int64_t tid, int *at,
			     struct hevt **e, struct hevt **x)
{
	*e = harness__find(h, type, at);
	*x = *e ? live__next(h, *e, type + 1) : NULL;
	EXPECT(*e != NULL && *x != NULL);
	if (!*e || !*x) {
		fprintf(stderr, "  no %s enter+exit pair of tid %lld\n", schema_events[type].name,
			(long long)tid);
		return 0;
	}
	hevt__expect_header(*e, type, tid);
	hevt__expect_header(*x, type + 1, tid);
	return 1;
}

/* Params FIRST.. of E are the N integers WANT (LINE: the caller's, for messages). */
static inline void cred__ints(const struct hevt *e, uint32_t first, const int64_t *want,
			      uint32_t n, int line)
{
	for (uint32_t i = 0; i < n; i++) {
		int64_t got = hevt__int(e, first + i);

		harness_checks++;
		if (got != want[i]) {
			harness_failures++;
			fprintf(stderr, "line %d: %s param %u: want %lld, got %lld\n", line,
				schema_events[e->hdr.type].name, first + i, (long long)want[i],
				(long long)got);
		}
	}
}

/* Every param of E from FIRST on is one of the integers listed. */
#define EXPECT_INTS_FROM(e, first, ...)                                                  \
	cred__ints(e, first, (const int64_t[]){ __VA_ARGS__ },                           \
		   sizeof((const int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t), __LINE__)
#define EXPECT_INTS(e, ...) EXPECT_INTS_FROM(e, 0, __VA_ARGS__)

/* Param I of E is a DYN param: type index IDX, then V in LEN bytes. */
static inline int cred__dyn_is(const struct hevt *e, uint32_t i, uint8_t idx, uint64_t v,
			       uint32_t len)
{
	uint8_t want[9] = { idx };

	memcpy(want + 1, &v, len);
	if (i >= e->p.n || e->p.len[i] != 1 + len || memcmp(e->p.val[i], want, 1 + len)) {
		fprintf(stderr, "  param %u: want dyn idx %u value %llu (%u bytes)\n", i, idx,
			(unsigned long long)v, len);
		return 0;
	}
	return 1;
}

#define EXPECT_PARAM_DYN(e, i, idx, v, len) EXPECT(cred__dyn_is(e, i, idx, v, len))

/* Runs FN in a forked child (raw syscalls: changing ids there leaves the test
 * alone) and returns its tid once it has exited with status 0. */
static inline pid_t cred__in_child(void (*fn)(void *), void *arg)
{
	int status;
	pid_t child = fork();

	if (child == 0) {
		fn(arg);
		_exit(0);
	}
	EXPECT(waitpid(child, &status, 0) == child && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0);
	return child;
}

#endif
