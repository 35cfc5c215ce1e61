/* The fds an event opens, shared by the fd parsers (parse_fd.c, parse_fdnew.c,
 * parse_msg.c), which sit above it: a new entry made the event's fd, and an
 * opened path resolved against its dirfd or the cwd. */
#include <limits.h>
#include <stdio.h>

#include "inspect_int.h"

struct fd_info *parse__new_fd(struct ievt *ev, int64_t fd, enum fd_type type)
{
	struct fd_info *fi;

	if (fd < 0 || !ev->thread || !ev->thread->fds)
		return NULL;
	/* (a file another thread's close ends waits aside for that close's
	 * exit: parse_fd.c, fd__close) */
	fi = fd_table__add(ev->thread->fds, fd, ev->tid);
	if (!fi)
		return NULL;
	fi->type = type;
	fi->born = ev->ts;
	ev->fdnum = fd;
	ev->fd = fi;
	return fi;
}

/* open/openat/openat2/creat: the path made absolute against the dirfd or cwd. */
void parse__open_path(struct inspector *in, struct ievt *ev, int64_t fd, int64_t dirfd,
		      const char *name, uint32_t flags, uint32_t dev)
{
	struct thread_info *ti = ev->thread;
	const char *base = ti->cwd ? ti->cwd : "/";
	char path[PATH_MAX];
	struct fd_info *fi;
	int len;

	if (name[0] != '/' && dirfd != PPM_AT_FDCWD) {
		struct fd_info *d = fd_table__find(ti->fds, dirfd);

		base = d && d->name && d->name[0] == '/' ? d->name : NULL;
	}
	if (base || name[0] == '/')
		len = path__resolve(base, name, path, sizeof(path));
	else	/* relative to a dirfd we do not know: keep what we have */
		len = snprintf(path, sizeof(path), "%s", name);
	if (fd < 0) {
		/* nothing opened, but the event still names the file (fd -1) */
		fi = &in->scratch_fd;
		in->scratch_used = true;
		fi->fd = -1;
		fi->type = (flags & PPM_FILE_FLAGS_O_DIRECTORY) ? FDT_DIRECTORY : FDT_FILE;
		ev->fd = fi;
	} else {
		fi = parse__new_fd(ev, fd, (flags & PPM_FILE_FLAGS_O_DIRECTORY) ? FDT_DIRECTORY :
			     FDT_FILE);
	}
	if (!fi || len < 0)
		return;
	fi->open_flags = flags;
	fi->dev = dev;
	fd_info__set_name(fi, path, (size_t)len);
}

/* FD_NAME (profiling's): the kernel's name of a file the thread waited on.
 * It names the fd only where the table has no name for it (its open was kept
 * in the kernel, or not seen): a name from the open or /proc stays. */
void parse__fd_name(struct ievt *ev, const struct evt_params *x)
{
	int64_t fd = evp__int(x, 1, -1);
	char name[PATH_MAX];
	struct fd_info *fi;
	size_t len;

	if (fd < 0 || !ev->thread || !ev->thread->fds)
		return;
	len = evp__str(x, 2, name, sizeof(name));
	if (!len || name[0] != '/')
		return;
	fi = fd_table__find(ev->thread->fds, fd);
	if (fi && fi->name)
		return;
	if (!fi && !(fi = parse__new_fd(ev, fd, FDT_FILE)))
		return;
	fd_info__set_name(fi, name, len);
}
