/* The open fds of a process from /proc/PID/fd (link targets) and
 * /proc/PID/fdinfo (open flags, for O_CLOEXEC on exec). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "inspect_int.h"
#include "procfs_int.h"

/* Anonymous inodes by the name the kernel gives them. */
static const struct {
	const char *name;
	enum fd_type type;
} anon_types[] = {
	{ "[eventfd]", FDT_EVENT },
	{ "[eventpoll]", FDT_EVENTPOLL },
	{ "[signalfd]", FDT_SIGNALFD },
	{ "[timerfd]", FDT_TIMERFD },
	{ "inotify", FDT_INOTIFY },
	{ "bpf-map", FDT_BPF },
	{ "bpf-prog", FDT_BPF },
	{ "bpf_link", FDT_BPF },
	{ "bpf-link", FDT_BPF },
	{ "[perf_event]", FDT_UNKNOWN },
};

static uint64_t link_inode(const char *target, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(target, prefix, n) != 0)
		return 0;
	return strtoull(target + n, NULL, 10);
}

static void classify(struct procfs *p, int64_t pid, const char *fdpath, const char *target,
		     struct fd_info *fi)
{
	struct stat sb;
	uint64_t ino;

	if (target[0] == '/') {
		if (strncmp(target, "/memfd:", 7) == 0) {
			fi->type = FDT_MEMFD;
		} else if (stat(fdpath, &sb) == 0) {
			fi->type = S_ISDIR(sb.st_mode) ? FDT_DIRECTORY : FDT_FILE;
			fi->ino = sb.st_ino;
			/* the kernel's dev_t encoding, as the driver's dev params */
			fi->dev = (major(sb.st_dev) << 20) | minor(sb.st_dev);
		} else {
			fi->type = FDT_FILE;
		}
		fd_info__set_name(fi, target, strlen(target));
		return;
	}
	if ((ino = link_inode(target, "socket:["))) {
		if (procfs__lookup_socket(p, pid, ino, fi) < 0)
			fi->type = FDT_OTHER_SOCK;
		fi->ino = ino;
		return;
	}
	fd_info__set_name(fi, target, strlen(target));
	if ((ino = link_inode(target, "pipe:["))) {
		fi->type = FDT_PIPE;
		fi->ino = ino;
		return;
	}
	if (strncmp(target, "anon_inode:", 11) == 0) {
		for (size_t i = 0; i < sizeof(anon_types) / sizeof(anon_types[0]); i++)
			if (strcmp(target + 11, anon_types[i].name) == 0)
				fi->type = anon_types[i].type;
		/* A typed one has no name, as sysdig's scan and its events give
		 * (eventfd(2) and friends); others keep their link text, bpf ones
		 * too: sysdig's scan lists them as unsupported fds named by it
		 * (see capfile/state.c). */
		if (fi->type != FDT_UNKNOWN && fi->type != FDT_BPF) {
			free(fi->name);
			fi->name = NULL;
		}
		return;
	}
	fi->type = FDT_UNKNOWN;
}

static void read_flags(const char *root, int64_t pid, int64_t fd, struct fd_info *fi)
{
	char path[PROCFS_PATH_MAX], buf[512];
	const char *f;

	procfs__path(path, sizeof(path), "%s/proc/%" PRId64 "/fdinfo/%" PRId64, root, pid, fd);
	if (procfs__read_file(path, buf, sizeof(buf)) <= 0)
		return;
	f = strstr(buf, "flags:");
	if (f)
		fi->open_flags = fd_flags__from_linux((uint32_t)strtoul(f + 6, NULL, 8));
	/* a pidfd names its process (as this /proc sees it), for pidfd_getfd */
	if (fi->name && strcmp(fi->name, "anon_inode:[pidfd]") == 0 && (f = strstr(buf, "\nPid:")))
		fi->pidfd_pid = strtoll(f + 5, NULL, 10);
}

int procfs__read_fds(struct procfs *p, int64_t pid, struct fd_table *t, uint64_t *n_bad)
{
	char dir[PROCFS_PATH_MAX], fdpath[PROCFS_PATH_MAX], target[PROCFS_PATH_MAX];
	struct dirent *de;
	DIR *d;

	procfs__path(dir, sizeof(dir), "%s/proc/%" PRId64 "/fd", p->root, pid);
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct fd_info *fi;
		char *end;
		long long fd;
		ssize_t n;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		fd = strtoll(de->d_name, &end, 10);
		if (*end)
			continue;
		procfs__path(fdpath, sizeof(fdpath), "%s/%s", dir, de->d_name);
		n = procfs__readlink(fdpath, target, sizeof(target));
		if (n <= 0) {
			(*n_bad)++;
			continue;
		}
		fi = fd_table__add(t, fd, 0);
		if (!fi) {
			closedir(d);
			return -ENOMEM;
		}
		classify(p, pid, fdpath, target, fi);
		read_flags(p->root, pid, fd, fi);
	}
	closedir(d);
	return 0;
}
