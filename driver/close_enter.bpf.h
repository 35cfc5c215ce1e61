/* Exit-only capture: the time a close began. The kernel frees the fd number
 * at the start of close(), before the call returns: another thread's call
 * can get the number and return first. Its exit event then comes before the
 * exit of the close that freed the number, and a close stamped at its exit
 * would seem to close the new file. Stamped at its enter, close's enter
 * event comes before (userspace's order window), and a file made after it
 * is known not to be the one closed (userspace/inspect, fd__close). One
 * small program on close's own enter tracepoint keeps the time per thread;
 * the exit dispatcher stamps close's enter event with it. */
#ifndef CLOSE_ENTER_BPF_H
#define CLOSE_ENTER_BPF_H

#include "maps.bpf.h"

struct close_began {
	__u64 ts;	/* epoch ns, as frames; 0: taken */
	__s64 fd;
	__u8 not_sock;	/* the fd was no socket at the enter (file_fds.bpf.h) */
};

/* Per thread: freed with it, no key to hash. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct close_began);
} close_began __weak SEC(".maps");

/* The time the current thread's close of FD began, taken (a second exit of
 * no enter gets none), or 0 when not known: the program was attached while
 * that close ran. NOT_AFTER: the exit's own stamp, which it cannot pass. */
static __always_inline __u64 close_began__take(long fd, __u64 not_after)
{
	struct close_began *c =
		bpf_task_storage_get(&close_began, bpf_get_current_task_btf(), 0, 0);
	__u64 ts;

	if (!c)
		return 0;
	ts = c->ts;
	c->ts = 0;
	return ts && c->fd == fd && ts <= not_after ? ts : 0;
}

#endif
