/* The cgroup v2 hierarchy as the kernel filter needs it: every cgroup's id and
 * the container its path names. Walked with fts(3), off the per-event path (at
 * start and about once a second while containers may come and go). */
#include <errno.h>
#include <fts.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "container.h"

#define CGROUP2_MAGIC 0x63677270
#define CGROUP1_MAGIC 0x27e0eb

/* Where cgroup2 is mounted: the unified layout, or the hybrid one's. */
static int cgroup2__mount(const char *host_root, char *out, size_t size)
{
	static const char *const where[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	struct statfs sf;

	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		if ((size_t)snprintf(out, size, "%s%s", host_root, where[i]) >= size)
			return -ENAMETOOLONG;
		if (!statfs(out, &sf) && sf.f_type == CGROUP2_MAGIC)
			return 0;
	}
	return -ENOENT;
}

/* Every directory under MNT with its id and container.id. */
static int cgroup__walk(char *mnt, int (*fn)(uint64_t cgid, const char *container_id, void *arg),
			void *arg)
{
	char id[CONTAINER_ID_MAX + 1];
	char *paths[] = { mnt, NULL };
	struct container_ident ident;
	size_t base = strlen(mnt);
	FTSENT *e;
	FTS *fts;
	int n = 0, r;

	fts = fts_open(paths, FTS_PHYSICAL | FTS_NOCHDIR | FTS_XDEV, NULL);
	if (!fts)
		return -errno;
	for (errno = 0; (e = fts_read(fts)); errno = 0) {
		const char *path;

		if (e->fts_info != FTS_D)
			continue;
		/* the path as /proc/PID/cgroup shows it: "/" for the root */
		path = e->fts_pathlen > base ? e->fts_path + base : "/";
		if (cgroup__container(path, strlen(path), &ident))
			container_ident__short_id(&ident, id);
		else
			strcpy(id, "host");
		n++;
		if ((r = fn((uint64_t)e->fts_statp->st_ino, id, arg))) {
			fts_close(fts);
			return r;
		}
	}
	r = errno;
	fts_close(fts);
	return r && r != ENOENT ? -r : n;
}

int cgroup2__scan(const char *host_root,
		  int (*fn)(uint64_t cgid, const char *container_id, void *arg), void *arg)
{
	char mnt[PATH_MAX];
	int r;

	if ((r = cgroup2__mount(host_root ? host_root : "", mnt, sizeof(mnt))))
		return r;
	return cgroup__walk(mnt, fn, arg);
}

int cgroup1__scan_cpuset(const char *host_root,
			 int (*fn)(uint64_t cgid, const char *container_id, void *arg), void *arg)
{
	char mnt[PATH_MAX];
	struct statfs sf;

	if ((size_t)snprintf(mnt, sizeof(mnt), "%s/sys/fs/cgroup/cpuset", host_root ? host_root : "") >=
	    sizeof(mnt))
		return -ENAMETOOLONG;
	if (statfs(mnt, &sf) || sf.f_type != CGROUP1_MAGIC)
		return -ENOENT;
	return cgroup__walk(mnt, fn, arg);
}
