/* The file helpers of the /proc readers: bounded paths and whole small files
 * (below procfs.c, procfs_fd.c and procfs_net.c, which all read through them). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "procfs_int.h"

int procfs__path(char *out, size_t n, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(out, n, fmt, ap);
	va_end(ap);
	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

ssize_t procfs__read_file(const char *path, char *buf, size_t size)
{
	size_t off = 0;
	int fd;

	if (size == 0)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (off < size - 1) {
		ssize_t r = read(fd, buf + off, size - 1 - off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			close(fd);
			return r;
		}
		if (r == 0)
			break;
		off += (size_t)r;
	}
	close(fd);
	buf[off] = '\0';
	return (ssize_t)off;
}

ssize_t procfs__readlink(const char *path, char *buf, size_t size)
{
	ssize_t n = readlink(path, buf, size - 1);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}
