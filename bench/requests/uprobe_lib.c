/* uprobe_cost.sh: do-nothing functions named as OpenSSL's, so that request
 * mode probes this library as it would libssl; none moves a byte. */
#include <stddef.h>

int SSL_read(void *s, void *buf, int n)
{
	(void)s, (void)buf;
	return n > 0 ? 0 : n;
}

int SSL_write(void *s, const void *buf, int n)
{
	(void)s, (void)buf;
	return n > 0 ? 0 : n;
}

int SSL_read_ex(void *s, void *buf, size_t n, size_t *moved)
{
	(void)s, (void)buf, (void)n;
	*moved = 0;
	return 0;
}

int SSL_write_ex(void *s, const void *buf, size_t n, size_t *moved)
{
	(void)s, (void)buf, (void)n;
	*moved = 0;
	return 0;
}

void SSL_free(void *s)
{
	(void)s;
}
