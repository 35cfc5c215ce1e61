/* Test helper: write (mode "w") or append ("a") TEXT to ROOT/REL, counting a
 * failure with t_check.h's counters. */
#ifndef UNIT_T_WRITE_H
#define UNIT_T_WRITE_H

#include <stdio.h>

#include "t_check.h"

static inline void t_write(const char *root, const char *rel, const char *text,
			   const char *mode)
{
	char p[4200];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, mode);
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

#endif
