/* Check macros shared by the capture-file tests: count, and name what failed. */
#ifndef CAPFILE_CHECK_H
#define CAPFILE_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int passed, failed;

#define CHECK(cond) do { \
	if (cond) { \
		passed++; \
	} else { \
		failed++; \
		fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
	} \
} while (0)

#define CHECK_EQ(a, b) do { \
	long long _a = (long long)(a), _b = (long long)(b); \
	if (_a == _b) { \
		passed++; \
	} else { \
		failed++; \
		fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, \
			#a, #b, _a, _b); \
	} \
} while (0)

/* Removes the test's scratch directory DIR, then prints the counts; the exit
 * status for main. */
static inline int checks__finish(const char *dir)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		failed++;
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

#endif
