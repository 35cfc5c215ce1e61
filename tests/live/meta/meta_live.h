/* Helpers of the meta live tests: run one call between two drains, find an exit
 * event with its enter (or an enter with its exit) and check both headers. */
#ifndef META_LIVE_H
#define META_LIVE_H

#include <errno.h>
#include <fcntl.h>

#include "../fs/fs_live.h"

/* The test's scratch directory, a file in it and the name of no file there. */
static char dir[64], file[128], missing[128];

/* errno of the last META_CALL (the drains may change errno). */
static int meta_errno;

/* Runs CALL (a syscall() expression) with only its own events kept: R gets its
 * result, meta_errno its errno. */
#define META_CALL(h, r, call)                      \
	do {                                       \
		harness__drain(h, -1);             \
		errno = 0;                         \
		(r) = (call);                      \
		meta_errno = errno;                \
		harness__drain(h, live__tid());    \
	} while (0)

/* Creates the file PATH (mode 0600) holding the LEN bytes at DATA. */
static inline void meta__create(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	EXPECT(fd >= 0 && write(fd, data, len) == (ssize_t)len);
	close(fd);
}

/* Makes a fresh scratch directory named after the test (NAME), with FILE in it
 * holding the LEN bytes at DATA. */
static inline void meta__scratch(const char *name, const void *data, size_t len)
{
	live__tmpdir(dir, sizeof(dir), name);
	snprintf(file, sizeof(file), "%s/f", dir);
	snprintf(missing, sizeof(missing), "%s/missing", dir);
	meta__create(file, data, len);
}

/* X (found or NULL) and the enter event kept right before it: both headers are
 * this thread's and complete. Returns X when both are there, else NULL. */
static inline struct hevt *meta__with_enter(struct harness *h, struct hevt *x, struct hevt **e)
{
	int64_t tid = live__tid();

	*e = NULL;
	EXPECT(x != NULL);
	if (!x)
		return NULL;
	hevt__expect_header(x, x->hdr.type, tid);
	*e = live__prev(h, x, x->hdr.type - 1);
	EXPECT(*e != NULL);
	if (!*e)
		return NULL;
	hevt__expect_header(*e, x->hdr.type - 1, tid);
	return x;
}

/* The first exit event of XTYPE whose string param I is S, and its enter. */
static inline struct hevt *meta__exit_str(struct harness *h, uint16_t xtype, uint32_t i,
					  const char *s, struct hevt **e)
{
	int at = 0;

	return meta__with_enter(h, live__find_str(h, xtype, i, s, &at), e);
}

/* The first exit event of XTYPE, and its enter. */
static inline struct hevt *meta__exit(struct harness *h, uint16_t xtype, struct hevt **e)
{
	int at = 0;

	return meta__with_enter(h, harness__find(h, xtype, &at), e);
}

#endif
