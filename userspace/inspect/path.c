/* Making the paths of open/chdir/exec absolute and normal, as sysdig shows them. */
#include <errno.h>
#include <string.h>

#include "inspect_int.h"

/* Appends the components of P to OUT (which holds LEN bytes, starting with '/'),
 * applying "." and "..". Returns the new length or -ENAMETOOLONG. */
static int path__append(char *out, size_t n, size_t len, const char *p)
{
	while (*p) {
		const char *c = p;
		size_t clen;

		while (*p && *p != '/')
			p++;
		clen = (size_t)(p - c);
		while (*p == '/')
			p++;
		if (clen == 0 || (clen == 1 && c[0] == '.'))
			continue;
		if (clen == 2 && c[0] == '.' && c[1] == '.') {
			/* Up one level; never above the root. */
			while (len > 1 && out[len - 1] != '/')
				len--;
			if (len > 1)
				len--;
			out[len] = '\0';
			continue;
		}
		if (len + (len > 1) + clen + 1 > n)
			return -ENAMETOOLONG;
		if (len > 1)
			out[len++] = '/';
		memcpy(out + len, c, clen);
		len += clen;
		out[len] = '\0';
	}
	return (int)len;
}

int path__resolve(const char *base, const char *path, char *out, size_t n)
{
	int len;

	if (n < 2)
		return -ENAMETOOLONG;
	out[0] = '/';
	out[1] = '\0';
	if (path[0] != '/' && base) {
		len = path__append(out, n, 1, base);
		if (len < 0)
			return len;
	} else {
		len = 1;
	}
	return path__append(out, n, (size_t)len, path);
}
