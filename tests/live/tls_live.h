/* What the TLS probes' live tests (test_tls.c, test_tls_go.c) share: their
 * messages' bytes, the uprobes' perf event fds, and which events are socket
 * I/O. After procnet/pn_test.h (the event codes). */
#ifndef LIVE_TLS_LIVE_H
#define LIVE_TLS_LIVE_H

#include <dirent.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

/* LEN bytes of printable text, different for each SEED. */
static inline void msg__fill(char *buf, size_t len, int seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = 'A' + (char)((i * 7 + (size_t)seed * 13) % 58);
}

/* This process's perf event fds: each uprobe link holds one. */
static inline int perf_fds__count(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		char target[64];
		ssize_t len = readlinkat(dirfd(dir), de->d_name, target, sizeof(target) - 1);

		if (len > 0) {
			target[len] = 0;
			n += !strcmp(target, "anon_inode:[perf_event]");
		}
	}
	closedir(dir);
	return n;
}

/* An enter event of the socket I/O calls the tests let through. */
static inline bool sock_io__is(uint16_t type)
{
	switch (type) {
	case PPME_SYSCALL_READ_E:
	case PPME_SYSCALL_WRITE_E:
	case PPME_SOCKET_RECVFROM_E:
	case PPME_SOCKET_SENDTO_E:
	case PPME_SYSCALL_READV_E:
	case PPME_SYSCALL_WRITEV_E:
	case PPME_SOCKET_RECVMSG_E:
	case PPME_SOCKET_SENDMSG_E:
		return true;
	}
	return false;
}

#endif
