/* Helpers of the fs live tests: find an event by a param value, check the enter
 * event right before an exit, compare byte buffers, a scratch directory. */
#ifndef FS_LIVE_H
#define FS_LIVE_H

#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness.h"

static const struct driver_config capture_self = { .own_tgid = UINT32_MAX };

/* harness__open with capture_self, loading only the syscalls NRS (ended by -1,
 * see harness__only): a test lists every syscall a check of it looks for, found
 * or not found, so that no check passes for want of a program. */
static inline struct harness *live__open(uint32_t ring_pages, const int *nrs)
{
	struct driver_config cfg = capture_self;

	cfg.syscalls = harness__only(nrs);
	return harness__open(ring_pages, &cfg);
}

static inline int64_t live__tid(void)
{
	return syscall(SYS_gettid);
}

/* Param I of E is the NUL-terminated string S (no message on mismatch). */
static inline int live__param_is(const struct hevt *e, uint32_t i, const char *s)
{
	size_t n = strlen(s) + 1;

	return i < e->p.n && e->p.len[i] == n && memcmp(e->p.val[i], s, n) == 0;
}

/* The first event of TYPE at or after *AT whose param I is the string S. */
static inline struct hevt *live__find_str(struct harness *h, uint16_t type, uint32_t i,
					  const char *s, int *at)
{
	struct hevt *e;

	while ((e = harness__find(h, type, at)) && !live__param_is(e, i, s))
		;
	return e;
}

/* The first event of TYPE at or after *AT whose integer param I is V. */
static inline struct hevt *live__find_int(struct harness *h, uint16_t type, uint32_t i,
					  int64_t v, int *at)
{
	struct hevt *e;

	while ((e = harness__find(h, type, at)) && hevt__int(e, i) != v)
		;
	return e;
}

/* The event kept right after E (its exit: the same thread made nothing between),
 * or NULL unless it has TYPE. */
static inline struct hevt *live__next(struct harness *h, const struct hevt *e, uint16_t type)
{
	for (int i = 0; i + 1 < harness__count(h); i++) {
		if (harness__get(h, i) == e) {
			struct hevt *n = harness__get(h, i + 1);

			return n->hdr.type == type ? n : NULL;
		}
	}
	return NULL;
}

/* The event kept right before E (its enter), or NULL unless it has TYPE. */
static inline struct hevt *live__prev(struct harness *h, const struct hevt *e, uint16_t type)
{
	for (int i = 1; i < harness__count(h); i++) {
		if (harness__get(h, i) == e) {
			struct hevt *p = harness__get(h, i - 1);

			return p->hdr.type == type ? p : NULL;
		}
	}
	return NULL;
}

/* Param I of E holds exactly the LEN bytes at BUF. */
static inline int live__buf_is(const struct hevt *e, uint32_t i, const void *buf, size_t len)
{
	if (i >= e->p.n || e->p.len[i] != len) {
		fprintf(stderr, "  param %u: want %zu bytes, got %u\n", i, len,
			i < e->p.n ? e->p.len[i] : 0);
		return 0;
	}
	return memcmp(e->p.val[i], buf, len) == 0;
}

#define EXPECT_PARAM_BUF(e, i, b, n) EXPECT(live__buf_is(e, i, b, n))

/* A fresh directory under /tmp for one test; its path is written to DIR. */
static inline void live__tmpdir(char *dir, size_t size, const char *name)
{
	snprintf(dir, size, "/tmp/%s_XXXXXX", name);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(1);
	}
}

static inline int live__rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

/* Removes the scratch directory and everything left in it. */
static inline void live__rmtree(const char *dir)
{
	if (nftw(dir, live__rm_one, 16, FTW_DEPTH | FTW_PHYS))
		fprintf(stderr, "could not remove %s\n", dir);
}

#endif
