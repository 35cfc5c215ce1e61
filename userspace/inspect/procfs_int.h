/* Internals of the /proc readers (procfs*.c). */
#ifndef INSPECT_PROCFS_INT_H
#define INSPECT_PROCFS_INT_H

#include <stdint.h>
#include <sys/types.h>

#define PROCFS_PATH_MAX 4096
#define PROCFS_ARGS_MAX 16384
#define PROCFS_ROOT_MAX 1024

/* Socket tables of one network namespace, cached by the namespace's inode. */
struct netns_socks {
	struct netns_socks *next;
	uint64_t netns;
	struct sock_tables *st;
};

struct procfs {
	char *root;
	long hz;
	uint64_t btime;
	char *controllers;	/* cgroup v2 controller names, NUL-separated */
	size_t controllers_len;
	struct netns_socks *socks;
	uint64_t socks_loaded_ns;	/* CLOCK_MONOTONIC of the first load */
};

/* snprintf for paths under the root (whose length procfs__new bounds, so
 * nothing is cut in practice). Returns 0 or -ENAMETOOLONG. */
int procfs__path(char *out, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Reads up to SIZE-1 bytes and NUL-terminates. Returns the length or -errno. */
ssize_t procfs__read_file(const char *path, char *buf, size_t size);
ssize_t procfs__readlink(const char *path, char *buf, size_t size);
void procfs__load_controllers(struct procfs *p);
void procfs__drop_sockets(struct procfs *p);

#endif
