/* Sets of marked fds, by process and fd (an LRU hash of struct h2_fd_key),
 * each with a count of marks put less those taken out: while it is 0 (the
 * common case: no such connection now) a test costs no lookup. The LRU's
 * own evictions are not taken off: a count errs high, never low. Used for
 * HTTP/2 connections (h2.bpf.h); Go TLS sockets (tls.bpf.h) keep their own
 * values and take fdm__del. */
#ifndef FD_MARKS_BPF_H
#define FD_MARKS_BPF_H

#include "maps.bpf.h"

/* FD of process TGID marked in MAP; COUNT counts it if it was not. */
static __always_inline void fdm__add(void *map, __u32 *count, __u32 tgid, long fd)
{
	struct h2_fd_key k = { .tgid = tgid, .fd = (__s32)fd };
	__u8 one = 1;

	if (!bpf_map_update_elem(map, &k, &one, BPF_NOEXIST))
		__sync_fetch_and_add(count, 1);
}

static __always_inline int fdm__has(void *map, __u32 *count, __u32 tgid, long fd)
{
	struct h2_fd_key k = { .tgid = tgid, .fd = (__s32)fd };

	return *count && bpf_map_lookup_elem(map, &k);
}

static __always_inline void fdm__del(void *map, __u32 *count, __u32 tgid, long fd)
{
	struct h2_fd_key k = { .tgid = tgid, .fd = (__s32)fd };

	if (*count && !bpf_map_delete_elem(map, &k))
		__sync_fetch_and_sub(count, 1);
}

#endif
