/* The output URL parser (-o/--output values, also from a config file). */
#include <stdlib.h>
#include <string.h>

#include "url.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct output_url u = { 0 };
	char err[256], *s = malloc(size + 1);

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	output_url__parse(&u, s, err, sizeof(err));
	output_url__fini(&u);
	free(s);
	return 0;
}
