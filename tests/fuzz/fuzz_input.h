/* Harness helper: the input as the whole content of a file, for parsers that
 * read files rather than buffers. */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

/* Replaces the content of FD with the SIZE bytes at DATA. 0 or -1. */
static inline int fuzz_input__write(int fd, const uint8_t *data, size_t size)
{
	size_t off = 0;

	if (ftruncate(fd, 0) < 0)
		return -1;
	while (off < size) {
		ssize_t n = pwrite(fd, data + off, size - off, (off_t)off);

		if (n <= 0)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

#endif
