/* Checks for the capture unit tests: count, report, and a last line
 * "N passed, M failed". */
#ifndef CAPTURE_CHECK_H
#define CAPTURE_CHECK_H

#include <stdio.h>

static int checks_passed, checks_failed;

#define CHECK(cond) do { \
	if (cond) { \
		checks_passed++; \
	} else { \
		checks_failed++; \
		fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
	} \
} while (0)

#define CHECK_EQ(a, b) do { \
	long long _a = (long long)(a), _b = (long long)(b); \
	if (_a == _b) { \
		checks_passed++; \
	} else { \
		checks_failed++; \
		fprintf(stderr, "%s:%d: CHECK_EQ(%s, %s) failed: %lld != %lld\n", \
			__FILE__, __LINE__, #a, #b, _a, _b); \
	} \
} while (0)

static inline int checks_report(void)
{
	printf("%d passed, %d failed\n", checks_passed, checks_failed);
	return checks_failed ? 1 : 0;
}

#endif
