/* Request mode's TLS probes, the dispatcher's half: a socket syscall made
 * inside a TLS library call (tls.bpf.c) carries that call's ciphertext. Its
 * socket is what the call's plaintext event names, and the syscall itself
 * stays in the kernel: the plaintext goes instead. */
#ifndef TLS_BPF_H
#define TLS_BPF_H

#include "counters.bpf.h"
#include "fd.bpf.h"
#include "fd_marks.bpf.h"

/* The sockets of Go TLS connections (tls_go.bpf.c marks one at a call's
 * entry, a close unmarks it): a Go program's socket I/O is made by whichever
 * thread runs the goroutine then, so it is known by its fd, not by a thread
 * inside a call. The value is the socket's struct file: a mark holds only
 * while the fd still names that file, so a number the process reused
 * without a close this driver saw (the process exited, or exec'd, and its
 * pid or fd came back; dup2 over it; close_range) is plain again. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, GO_FDS_MAX);
	__type(key, struct h2_fd_key);
	__type(value, __u64);
} go_fds __weak SEC(".maps");

/* go_fds' count (fd_marks.bpf.h): 0 when no Go TLS program is probed, or
 * none talks now */
__u32 go_marks __weak;

/* 1 when FD of PID_TGID's process is a Go TLS connection's socket: its
 * syscall is ciphertext, counted in n_tls_cipher and not sent. */
static __always_inline int go__cipher(__u64 pid_tgid, __s32 fd)
{
	struct h2_fd_key k = { .tgid = pid_tgid >> 32, .fd = fd };
	__u64 *file;

	if (!go_marks || !(file = bpf_map_lookup_elem(&go_fds, &k)))
		return 0;
	if (*file != (__u64)fd__file(fd)) {
		/* another file under the number now: stale */
		fdm__del(&go_fds, &go_marks, k.tgid, fd);
		return 0;
	}
	COUNT(n_tls_cipher);
	return 1;
}

/* FD of process TGID, a Go TLS connection's socket, marked with its file. */
static __always_inline void go__mark(__u32 tgid, __s32 fd)
{
	struct h2_fd_key k = { .tgid = tgid, .fd = fd };
	__u64 file = (__u64)fd__file(fd), *v;

	if (!file)
		return;
	v = bpf_map_lookup_elem(&go_fds, &k);
	if (v)
		*v = file;	/* the same, or the number's new socket */
	else if (!bpf_map_update_elem(&go_fds, &k, &file, BPF_NOEXIST))
		__sync_fetch_and_add(&go_marks, 1);
}

/* FD of process TGID is closed: a later socket with its number is not a Go
 * TLS connection's until a call says so. */
static __always_inline void go__forget(__u32 tgid, long fd)
{
	fdm__del(&go_fds, &go_marks, tgid, fd);
}

/* 1 when thread PID_TGID is inside a TLS library call, or FD is a Go TLS
 * connection's socket (go__cipher). In a library call, FD is then its socket (for
 * the call and, in tls_fds, for its session) and the syscall is not sent,
 * counted in n_tls_cipher. Only socket I/O syscalls that passed every
 * filter come here, so a call's fd is one the run wants. */
static __always_inline int tls__nested(__u64 pid_tgid, __s32 fd)
{
	struct tls_sess_key k = { 0 };
	struct tls_call *c;
	__s32 *known;

	c = bpf_map_lookup_elem(&tls_calls, &pid_tgid);
	if (!c)
		return go__cipher(pid_tgid, fd);
	c->fd = fd;
	k.sess = c->sess;
	k.tgid = pid_tgid >> 32;
	known = bpf_map_lookup_elem(&tls_fds, &k);
	if (!known || *known != fd)
		bpf_map_update_elem(&tls_fds, &k, &fd, BPF_ANY);
	COUNT(n_tls_cipher);
	return 1;
}

#endif
