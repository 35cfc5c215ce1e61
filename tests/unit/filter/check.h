/* Minimal checks for the filter/format unit tests: count, report, keep going. */
#ifndef FILTER_TEST_CHECK_H
#define FILTER_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

static int n_pass, n_fail;

#define CHECK(cond) do { \
	if (cond) { n_pass++; } else { n_fail++; \
		fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); } \
} while (0)

#define CHECK_STR(got, want) do { \
	const char *g_ = (got), *w_ = (want); \
	if (g_ && w_ && strcmp(g_, w_) == 0) { n_pass++; } else { n_fail++; \
		fprintf(stderr, "%s:%d: FAILED: %s\n  got:  [%s]\n  want: [%s]\n", \
			__FILE__, __LINE__, #got, g_ ? g_ : "(null)", w_ ? w_ : "(null)"); } \
} while (0)

#define CHECK_INT(got, want) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	if (g_ == w_) { n_pass++; } else { n_fail++; \
		fprintf(stderr, "%s:%d: FAILED: %s = %lld, want %lld\n", \
			__FILE__, __LINE__, #got, g_, w_); } \
} while (0)

static inline int check__summary(void)
{
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}

#endif
