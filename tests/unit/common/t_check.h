/* The unit tests' checks: each one counts, a failed one prints file:line and
 * what it checked (the values too), and the test ends with t_report() or
 * t_finish(), whose last line is "N passed, M failed". Checks built on these
 * for one test (MATCH in the filter tests) stay in that test. */
#ifndef UNIT_T_CHECK_H
#define UNIT_T_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_passed, t_failed;

#define CHECK(cond) do { if (cond) t_passed++; else { t_failed++; \
	fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); } } while (0)
#define CHECK_NULL(p) CHECK((p) == NULL)
#define CHECK_STR(a, b) do { const char *_a = (a), *_b = (b); \
	if (_a && _b && strcmp(_a, _b) == 0) t_passed++; else { t_failed++; \
	fprintf(stderr, "%s:%d: %s is \"%s\", want \"%s\"\n", __FILE__, __LINE__, #a, \
		_a ? _a : "(null)", _b ? _b : "(null)"); } } while (0)
#define CHECK_INT(a, b) do { long long _a = (long long)(a), _b = (long long)(b); \
	if (_a == _b) t_passed++; else { t_failed++; \
	fprintf(stderr, "%s:%d: %s is %lld, want %lld\n", __FILE__, __LINE__, #a, _a, _b); } } while (0)
/* As CHECK_INT, for two computed values: names both expressions. */
#define CHECK_EQ(a, b) do { long long _a = (long long)(a), _b = (long long)(b); \
	if (_a == _b) t_passed++; else { t_failed++; \
	fprintf(stderr, "%s:%d: CHECK_EQ(%s, %s) failed: %lld != %lld\n", __FILE__, __LINE__, \
		#a, #b, _a, _b); } } while (0)

/* The counts; the exit status for main. */
static inline int t_report(void)
{
	printf("%d passed, %d failed\n", t_passed, t_failed);
	return t_failed ? 1 : 0;
}

/* Removes the test's scratch directory DIR (one failure if that fails), then
 * t_report(). */
static inline int t_finish(const char *dir)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		t_failed++;
	return t_report();
}

#endif
