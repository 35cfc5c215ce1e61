/* Per-process fd tables: fds by number, shared by threads (refcounted). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "inspect_int.h"
#include "schema.h"

/* sysdig's fd.typechar / fd.type, by enum fd_type ('o' and "<NA>" are what sysdig
 * prints for an fd of unknown type; bpf and memfd come from newer libs). */
const char fd_type_chars[] = "ofd46upeslitnbmo";
const char *const fd_type_names[] = {
	[FDT_UNKNOWN] = "<NA>",
	[FDT_FILE] = "file",
	[FDT_DIRECTORY] = "directory",
	[FDT_IPV4_SOCK] = "ipv4",
	[FDT_IPV6_SOCK] = "ipv6",
	[FDT_UNIX_SOCK] = "unix",
	[FDT_PIPE] = "pipe",
	[FDT_EVENT] = "event",
	[FDT_SIGNALFD] = "signalfd",
	[FDT_EVENTPOLL] = "eventpoll",
	[FDT_INOTIFY] = "inotify",
	[FDT_TIMERFD] = "timerfd",
	[FDT_NETLINK] = "netlink",
	[FDT_BPF] = "bpf",
	[FDT_MEMFD] = "memfd",
	[FDT_OTHER_SOCK] = "<NA>",
};

_Static_assert(sizeof(fd_type_chars) == FDT_OTHER_SOCK + 2, "one char per fd type");

struct fd_table *fd_table__new(void)
{
	struct fd_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (hmap__init(&t->map, 16) < 0) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	t->refs = 1;
	return t;
}

struct fd_table *fd_table__ref(struct fd_table *t)
{
	if (t)
		t->refs++;
	return t;
}

void fd_info__free(struct fd_info *fi)
{
	if (!fi)
		return;
	free(fi->name);
	free(container_of(fi, struct fd_entry, fi));
}

void fd_table__unref(struct fd_table *t)
{
	struct hnode *n, *nx;
	uint32_t i;

	if (!t || --t->refs > 0)
		return;
	for (uint32_t i = 0; i < t->naside; i++)
		fd_info__free(t->aside[i]);
	hmap__for_each(&t->map, i, n, nx)
		fd_info__free(&container_of(n, struct fd_entry, node)->fi);
	hmap__fini(&t->map);
	free(t);
}

struct fd_info *fd_table__find(struct fd_table *t, int64_t fd)
{
	struct hnode *n;

	if (!t)
		return NULL;
	n = hmap__find(&t->map, fd);
	return n ? &container_of(n, struct fd_entry, node)->fi : NULL;
}

size_t fd_table__count(const struct fd_table *t)
{
	return t ? t->map.n : 0;
}

int fd_table__for_each(struct fd_table *t, int (*fn)(struct fd_info *fi, void *ctx),
		       void *ctx)
{
	struct hnode *n, *nx;
	uint32_t i;
	int rc;

	if (!t)
		return 0;
	hmap__for_each(&t->map, i, n, nx) {
		if ((rc = fn(&container_of(n, struct fd_entry, node)->fi, ctx)))
			return rc;
	}
	return 0;
}

/* FD's entry FI, detached, waits for the exit of the close under way (a
 * close whose exit never came, lost, leaves its entry here). */
static void fd_table__set_aside(struct fd_table *t, struct fd_info *fi)
{
	hmap__remove(&t->map, fi->fd);
	if (t->naside == FD_ASIDE_MAX) {
		fd_info__free(t->aside[0]);
		memmove(t->aside, t->aside + 1, sizeof(t->aside) - sizeof(t->aside[0]));
		t->naside--;
	}
	t->aside[t->naside++] = fi;
}

struct fd_info *fd_table__add(struct fd_table *t, int64_t fd, int64_t tid)
{
	struct fd_info *fi = fd_table__find(t, fd);
	struct fd_entry *e;

	/* Another thread's close of the number is under way: TID's call got
	 * the number that close freed, before the close returned. */
	if (fi && tid && fi->closer && fi->closer != tid) {
		fd_table__set_aside(t, fi);
		fi = NULL;
	}
	if (fi) {
		/* We missed its close: start over. */
		free(fi->name);
		memset(fi, 0, sizeof(*fi));
		fi->fd = fd;
		return fi;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->node.key = fd;
	e->fi.fd = fd;
	hmap__insert(&t->map, &e->node);
	return &e->fi;
}

struct fd_info *fd_table__detach(struct fd_table *t, int64_t fd)
{
	struct hnode *n = t ? hmap__remove(&t->map, fd) : NULL;

	return n ? &container_of(n, struct fd_entry, node)->fi : NULL;
}

struct fd_info *fd_table__take_aside(struct fd_table *t, int64_t fd, int64_t closer)
{
	for (uint32_t i = 0; t && i < t->naside; i++) {
		struct fd_info *fi = t->aside[i];

		if (fi->fd != fd || fi->closer != closer)
			continue;
		memmove(t->aside + i, t->aside + i + 1, (t->naside - i - 1) * sizeof(t->aside[0]));
		t->naside--;
		return fi;
	}
	return NULL;
}

int fd_info__set_name(struct fd_info *fi, const char *name, size_t len)
{
	char *s = malloc(len + 1);

	if (!s)
		return -ENOMEM;
	memcpy(s, name, len);
	s[len] = '\0';
	free(fi->name);
	fi->name = s;
	return 0;
}

int fd_info__copy(struct fd_info *dst, const struct fd_info *src)
{
	int64_t fd = dst->fd;
	char *name = NULL;

	if (src->name && !(name = strdup(src->name)))
		return -ENOMEM;
	free(dst->name);
	*dst = *src;
	dst->fd = fd;
	dst->name = name;
	return 0;
}

struct fd_table *fd_table__clone(const struct fd_table *t)
{
	struct fd_table *c = fd_table__new();
	struct hnode *n, *nx;
	uint32_t i;

	if (!c || !t)
		return c;
	hmap__for_each(&t->map, i, n, nx) {
		const struct fd_info *src = &container_of(n, struct fd_entry, node)->fi;
		struct fd_info *dst = fd_table__add(c, src->fd, 0);

		if (!dst || fd_info__copy(dst, src) < 0) {
			fd_table__unref(c);
			errno = ENOMEM;
			return NULL;
		}
		/* a close under way is the parent's thread's, in its table */
		dst->closer = 0;
	}
	return c;
}

size_t fd_table__close_cloexec(struct fd_table *t)
{
	struct hnode *n, *nx;
	size_t closed = 0;
	uint32_t i;

	hmap__for_each(&t->map, i, n, nx) {
		struct fd_info *fi = &container_of(n, struct fd_entry, node)->fi;

		if (fi->open_flags & PPM_FILE_FLAGS_O_CLOEXEC) {
			hmap__remove(&t->map, fi->fd);
			fd_info__free(fi);
			closed++;
		}
	}
	return closed;
}

size_t fd_table__close_range(struct fd_table *t, int64_t first, int64_t last, bool cloexec)
{
	struct hnode *n, *nx;
	size_t done = 0;
	uint32_t i;

	hmap__for_each(&t->map, i, n, nx) {
		struct fd_info *fi = &container_of(n, struct fd_entry, node)->fi;

		if (fi->fd < first || fi->fd > last)
			continue;
		if (cloexec) {
			fi->open_flags |= PPM_FILE_FLAGS_O_CLOEXEC;
		} else {
			hmap__remove(&t->map, fi->fd);
			fd_info__free(fi);
		}
		done++;
	}
	return done;
}

uint32_t fd_flags__from_linux(uint32_t o)
{
	uint32_t f = 0;

	switch (o & LINUX_O_ACCMODE) {
	case 0: f |= PPM_FILE_FLAGS_O_RDONLY; break;
	case LINUX_O_WRONLY: f |= PPM_FILE_FLAGS_O_WRONLY; break;
	case LINUX_O_RDWR: f |= PPM_FILE_FLAGS_O_RDWR; break;
	}
	if (o & LINUX_O_CREAT)
		f |= PPM_FILE_FLAGS_O_CREAT;
	if (o & LINUX_O_EXCL)
		f |= PPM_FILE_FLAGS_O_EXCL;
	if (o & LINUX_O_TRUNC)
		f |= PPM_FILE_FLAGS_O_TRUNC;
	if (o & LINUX_O_APPEND)
		f |= PPM_FILE_FLAGS_O_APPEND;
	if (o & LINUX_O_NONBLOCK)
		f |= PPM_FILE_FLAGS_O_NONBLOCK;
	/* O_SYNC includes the O_DSYNC bit. */
	if ((o & LINUX_O_SYNC) == LINUX_O_SYNC)
		f |= PPM_FILE_FLAGS_O_SYNC;
	else if (o & LINUX_O_DSYNC)
		f |= PPM_FILE_FLAGS_O_DSYNC;
	if (o & LINUX_O_DIRECT)
		f |= PPM_FILE_FLAGS_O_DIRECT;
	if ((o & LINUX_O_TMPFILE) == LINUX_O_TMPFILE)
		f |= PPM_FILE_FLAGS_O_TMPFILE;
	else if (o & LINUX_O_DIRECTORY)
		f |= PPM_FILE_FLAGS_O_DIRECTORY;
	if (o & LINUX_O_LARGEFILE)
		f |= PPM_FILE_FLAGS_O_LARGEFILE;
	if (o & LINUX_O_CLOEXEC)
		f |= PPM_FILE_FLAGS_O_CLOEXEC;
	return f;
}
