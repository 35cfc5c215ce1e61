/* The -p format compiler: the input as a format string. */
#include <stdlib.h>
#include <string.h>

#include "format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct filter_error err;
	struct format *f;
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	f = format__compile(s, &err);
	format__free(f);
	free(s);
	return 0;
}
