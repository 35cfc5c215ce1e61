/* fds of the calls sysdig 0.29.3 did not parse (the agent's own events, codes
 * 336 and up, and userfaultfd). Each new fd gets the type, name and open flags
 * the /proc scan (procfs_fd.c) would give the same fd, so that an fd reads the
 * same whether it was seen created or found at start: memfds are files named
 * "/memfd:NAME (deleted)"; pidfd and io_uring fds, which sysdig 0.29.3 has no
 * type for, are of unknown type named by their anon inode.
 *
 * userfaultfd is a sysdig event whose fd sysdig never tracked: it stays out of
 * the table, so that its later uses print as sysdig prints them ("fd=5"). */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "inspect_int.h"

#define PIDFD_NAME "anon_inode:[pidfd]"
#define IO_URING_NAME "anon_inode:[io_uring]"

/* The kernel's flags of these fds as fdinfo shows them. */
#define ANON_RDWR_CLOEXEC (PPM_FILE_FLAGS_O_RDWR | PPM_FILE_FLAGS_O_CLOEXEC)

static struct fd_info *fd__anon(struct ievt *ev, int64_t fd, const char *name, uint32_t flags)
{
	struct fd_info *fi = parse__new_fd(ev, fd, FDT_UNKNOWN);

	if (!fi)
		return NULL;
	fi->open_flags = flags;
	fd_info__set_name(fi, name, strlen(name));
	return fi;
}

/* An fd we leave unknown: an entry of an fd we missed the close of goes. */
static void fd__forget(struct inspector *in, struct ievt *ev, int64_t fd)
{
	struct fd_info *stale = fd >= 0 ? fd_table__detach(ev->thread->fds, fd) : NULL;

	if (stale)
		inspector__defer_fd(in, stale);
}

static void fd__memfd(struct ievt *ev, const struct evt_params *x)
{
	char name[NAME_MAX + 1], path[sizeof(name) + 32];
	struct fd_info *fi = parse__new_fd(ev, evp__int(x, 0, -1), FDT_MEMFD);
	int len;

	if (!fi)
		return;
	evp__str(x, 1, name, sizeof(name));
	/* a memfd is an unlinked file of an internal mount */
	len = snprintf(path, sizeof(path), "/memfd:%s (deleted)", name);
	fd_info__set_name(fi, path, (size_t)len);
	fi->open_flags = PPM_FILE_FLAGS_O_RDWR | PPM_FILE_FLAGS_O_LARGEFILE;
	if (evp__int(x, 2, 0) & PPM_MEMFD_CREATE_FLAGS_MFD_CLOEXEC)
		fi->open_flags |= PPM_FILE_FLAGS_O_CLOEXEC;
}

static void fd__pidfd_open(struct inspector *in, struct ievt *ev, const struct evt_params *x)
{
	uint32_t flags = ANON_RDWR_CLOEXEC |
		((uint32_t)evp__int(x, 2, 0) & PPM_FILE_FLAGS_O_NONBLOCK);
	struct fd_info *fi = fd__anon(ev, evp__int(x, 0, -1), PIDFD_NAME, flags);
	int64_t pid;

	if (fi && (pid = thread__host_pid(in->threads, ev->thread, evp__int(x, 1, -1))) > 0)
		fi->pidfd_pid = pid;
}

/* pidfd_getfd: a copy of the target process's fd, with O_CLOEXEC. An fd of a
 * process or pidfd we do not know is of unknown type. */
static void fd__pidfd_getfd(struct inspector *in, struct ievt *ev, const struct evt_params *x)
{
	/* (the new fd is never the source: that one is open, the new one was not) */
	struct fd_info *pidfd = fd_table__find(ev->thread->fds, evp__int(x, 1, -1));
	struct thread_info *target = NULL;
	struct fd_info *src = NULL, *fi;

	if (pidfd && pidfd->pidfd_pid > 0)
		target = thread_table__find(in->threads, pidfd->pidfd_pid);
	if (target && target->fds)
		src = fd_table__find(target->fds, evp__int(x, 2, -1));
	fi = parse__new_fd(ev, evp__int(x, 0, -1), FDT_UNKNOWN);
	if (!fi)
		return;
	if (src)
		fd_info__copy(fi, src);
	fi->open_flags |= PPM_FILE_FLAGS_O_CLOEXEC;
}

/* open_tree: an O_PATH fd of the path, or with OPEN_TREE_CLONE of a detached
 * copy of its mount tree, which /proc names "/" (its own root). Typed as a
 * directory, as mount trees nearly always are. */
static void fd__open_tree(struct inspector *in, struct ievt *ev, const struct evt_params *x)
{
	uint32_t flags = (uint32_t)evp__int(x, 3, 0);
	uint32_t oflags = PPM_FILE_FLAGS_O_RDONLY |
		(flags & PPM_AT_FLAGS_OPEN_TREE_CLOEXEC ? PPM_FILE_FLAGS_O_CLOEXEC : 0);
	char name[PATH_MAX];
	int64_t fd = evp__int(x, 0, -1);

	evp__str(x, 2, name, sizeof(name));
	if (fd >= 0 && (flags & PPM_AT_FLAGS_OPEN_TREE_CLONE))
		parse__open_path(in, ev, fd, PPM_AT_FDCWD, "/", oflags, 0);
	else
		parse__open_path(in, ev, fd, evp__int(x, 1, PPM_AT_FDCWD), name, oflags, 0);
	if (ev->fd)
		ev->fd->type = FDT_DIRECTORY;
}

/* close_range: on success the fds in [first, last] are closed, or with
 * CLOSE_RANGE_CLOEXEC marked close-on-exec. CLOSE_RANGE_UNSHARE first gives
 * the caller its own copy of a shared table. */
static void fd__close_range(struct ievt *ev, const struct evt_params *x)
{
	struct thread_info *ti = ev->thread;
	int64_t first = evp__int(x, 1, -1), last = evp__int(x, 2, -1);
	uint32_t flags = (uint32_t)evp__int(x, 3, 0);

	if (evp__int(x, 0, -1) != 0 || first < 0 || last < first)
		return;
	if ((flags & PPM_CLOSE_RANGE_FLAGS_CLOSE_RANGE_UNSHARE) && ti->fds->refs > 1) {
		struct fd_table *own = fd_table__clone(ti->fds);

		if (!own)
			return;
		fd_table__unref(ti->fds);
		ti->fds = own;
	}
	fd_table__close_range(ti->fds, first, last,
			      flags & PPM_CLOSE_RANGE_FLAGS_CLOSE_RANGE_CLOEXEC);
}

bool parse__fdnew_exit(struct inspector *in, struct ievt *ev, const struct evt_params *x)
{
	switch (ev->type) {
	case PPME_SYSCALL_MEMFD_CREATE_X:
		fd__memfd(ev, x);
		break;
	case PPME_SYSCALL_PIDFD_OPEN_X:
		fd__pidfd_open(in, ev, x);
		break;
	case PPME_SYSCALL_PIDFD_GETFD_X:
		fd__pidfd_getfd(in, ev, x);
		break;
	case PPME_SYSCALL_IO_URING_SETUP_X:
		fd__anon(ev, evp__int(x, 0, -1), IO_URING_NAME, ANON_RDWR_CLOEXEC);
		break;
	case PPME_SYSCALL_USERFAULTFD_X:
		fd__forget(in, ev, evp__int(x, 0, -1));
		break;
	case PPME_SYSCALL_OPEN_TREE_X:
		fd__open_tree(in, ev, x);
		break;
	case PPME_SYSCALL_CLOSE_RANGE_X:
		fd__close_range(ev, x);
		break;
	default:
		return false;
	}
	return true;
}
