/* Checks for unit tests that print each failure and end with a line
 * "N passed, M failed": CHECK, CHECK_STR, CHECK_INT and t_report(). */
#ifndef UNIT_T_CHECK_H
#define UNIT_T_CHECK_H

#include <stdio.h>
#include <string.h>

static int t_passed, t_failed;

#define CHECK(cond) do { if (cond) t_passed++; else { t_failed++; \
	fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); } } while (0)
#define CHECK_STR(a, b) do { const char *_a = (a), *_b = (b); \
	if (_a && _b && strcmp(_a, _b) == 0) t_passed++; else { t_failed++; \
	fprintf(stderr, "%s:%d: %s is \"%s\", want \"%s\"\n", __FILE__, __LINE__, #a, \
		_a ? _a : "(null)", _b ? _b : "(null)"); } } while (0)
#define CHECK_INT(a, b) do { long long _a = (long long)(a), _b = (long long)(b); \
	if (_a == _b) t_passed++; else { t_failed++; \
	fprintf(stderr, "%s:%d: %s is %lld, want %lld\n", __FILE__, __LINE__, #a, _a, _b); } } while (0)

static inline int t_report(void)
{
	printf("%d passed, %d failed\n", t_passed, t_failed);
	return t_failed ? 1 : 0;
}

#endif
