/* The kernel's format (fs/proc/task_mmu.c): "start-end perms offset
 * major:minor inode", then spaces and the path for a file mapping. Parsed by
 * hand: sscanf cannot bound the path or tell a missing field from a short one. */
#include <errno.h>
#include <string.h>

#include "procmaps.h"

static int hex_field(const char **p, const char *end, char stop, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	while (s < end && *s != stop) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else
			return -EINVAL;
		if (x >> 60)
			return -EINVAL;
		x = x << 4 | (uint64_t)d;
		s++;
	}
	if (s == *p || s == end)
		return -EINVAL;
	*v = x;
	*p = s + 1;
	return 0;
}

static int dec_field(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	while (s < end && *s >= '0' && *s <= '9') {
		if (x > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		x = x * 10 + (uint64_t)(*s - '0');
		s++;
	}
	if (s == *p || (s < end && *s != ' '))
		return -EINVAL;
	*v = x;
	*p = s;
	return 0;
}

int procmaps__parse_line(const char *line, size_t len, struct procmap *m)
{
	const char *p = line, *end = line + len;
	static const char deleted[] = " (deleted)";
	uint64_t major, minor;
	size_t plen;

	memset(m, 0, sizeof(*m));
	if (hex_field(&p, end, '-', &m->start) || hex_field(&p, end, ' ', &m->end) ||
	    m->end < m->start)
		return -EINVAL;
	if (end - p < 5 || p[4] != ' ')
		return -EINVAL;
	m->exec = p[2] == 'x';
	p += 5;
	if (hex_field(&p, end, ' ', &m->pgoff) || hex_field(&p, end, ':', &major) ||
	    hex_field(&p, end, ' ', &minor) || dec_field(&p, end, &m->inode))
		return -EINVAL;
	m->dev_major = (uint32_t)major;
	m->dev_minor = (uint32_t)minor;
	while (p < end && *p == ' ')
		p++;
	plen = (size_t)(end - p);
	if (plen >= sizeof(deleted) - 1 &&
	    !memcmp(end - (sizeof(deleted) - 1), deleted, sizeof(deleted) - 1)) {
		m->deleted = true;
		plen -= sizeof(deleted) - 1;
	}
	if (plen >= sizeof(m->path))
		return -ENAMETOOLONG;
	memcpy(m->path, p, plen);
	m->path[plen] = 0;
	return 0;
}
