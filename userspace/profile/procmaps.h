/* Lines of /proc/PID/maps: the executable file mappings a user stack's
 * addresses fall in. */
#ifndef PROFILE_PROCMAPS_H
#define PROFILE_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROCMAP_PATH_MAX 512

struct procmap {
	uint64_t start, end, pgoff, inode;
	uint32_t dev_major, dev_minor;
	bool exec;
	bool deleted;			/* " (deleted)": the path no longer names it */
	char path[PROCMAP_PATH_MAX];	/* "" for an anonymous mapping */
};

/* One line (without its newline): 0, or -EINVAL when it is not a maps line.
 * A path longer than the buffer is -ENAMETOOLONG. */
int procmaps__parse_line(const char *line, size_t len, struct procmap *m);

#endif
