/* The agent's messages to the user. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "say.h"

void agent__say(const char *fmt, ...)
{
	int saved = errno;	/* callers return -errno after saying why */
	va_list ap;

	/* held across the three writes: another thread's line never cuts in */
	flockfile(stderr);
	fputs("agent: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	funlockfile(stderr);
	errno = saved;
}
