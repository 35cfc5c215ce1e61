/* The agent's messages to the user. */
#include <stdarg.h>
#include <stdio.h>

#include "say.h"

void agent__say(const char *fmt, ...)
{
	va_list ap;

	/* held across the three writes: another thread's line never cuts in */
	flockfile(stderr);
	fputs("agent: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	funlockfile(stderr);
}
