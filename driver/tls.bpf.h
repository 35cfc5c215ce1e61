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
 * pid or fd came back; dup2 over it; close_range) is plain again. The
 * sockets of library sessions over memory BIOs (tls__claim) are marked here
 * too: their caller moves the ciphertext outside the calls. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, GO_FDS_MAX);
	__type(key, struct h2_fd_key);
	__type(value, __u64);
} go_fds __weak SEC(".maps");

/* go_fds' count (fd_marks.bpf.h): 0 when no such socket is open now */
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

/* Sessions waiting for their socket (driver.h, struct tls_claim), by the
 * thread whose call left them, and their count: while it is 0 a socket
 * syscall costs no lookup. LRU: a thread that never sends again leaves its
 * entry behind, and the count errs high. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TLS_CLAIMS);
	__type(key, __u64);
	__type(value, struct tls_claim);
} tls_claims __weak SEC(".maps");

__u32 tls_waits __weak;

/* A call of SESS on thread ME returned knowing no socket: the session waits
 * for the thread's next send, unless it has its socket already. */
static __always_inline void tls__wait(__u64 me, __u64 sess)
{
	struct tls_sess_key k = { .sess = sess, .tgid = me >> 32 };
	struct tls_claim w = { .sess = sess, .ts = bpf_ktime_get_ns() };

	if (bpf_map_lookup_elem(&tls_fds, &k))
		return;
	if (!bpf_map_update_elem(&tls_claims, &me, &w, BPF_NOEXIST))
		__sync_fetch_and_add(&tls_waits, 1);
	else
		bpf_map_update_elem(&tls_claims, &me, &w, BPF_EXIST);
}

static __always_inline struct tls_claim *tls__waiting(__u64 me)
{
	return tls_waits ? bpf_map_lookup_elem(&tls_claims, &me) : 0;
}

static __always_inline void tls__unwait(__u64 me)
{
	if (!bpf_map_delete_elem(&tls_claims, &me))
		__sync_fetch_and_sub(&tls_waits, 1);
}

/* Thread PID_TGID sends on FD outside any TLS call, its first socket I/O
 * since: a session its last call left waiting (recently) takes FD as its
 * socket, which is marked as a Go TLS socket is (go_fds: its later I/O is
 * ciphertext). This send itself is sent: a handshake's, it carries the
 * ClientHello the pairing reads the server name from. */
static __always_inline void tls__claim(__u64 pid_tgid, __s32 fd)
{
	struct tls_claim *w = tls__waiting(pid_tgid);
	struct tls_sess_key k = { .tgid = pid_tgid >> 32 };

	if (!w)
		return;
	k.sess = w->sess;
	if (bpf_ktime_get_ns() - w->ts < TLS_CLAIM_NS) {
		bpf_map_update_elem(&tls_fds, &k, &fd, BPF_ANY);
		go__mark(k.tgid, fd);
		COUNT(n_tls_claimed);
	}
	tls__unwait(pid_tgid);
}

/* 1 when thread PID_TGID is inside a TLS library call, or FD is a Go TLS
 * connection's socket (go__cipher). In a library call, FD is then its socket (for
 * the call and, in tls_fds, for its session) and the syscall is not sent,
 * counted in n_tls_cipher; a handshake's is sent (the ClientHello). SEND: the
 * syscall sends, which may name a waiting session's socket (tls__claim).
 * Only socket I/O syscalls that passed every filter come here, so a call's
 * fd is one the run wants. */
static __always_inline int tls__nested(__u64 pid_tgid, __s32 fd, int send)
{
	struct tls_sess_key k = { 0 };
	struct tls_call *c;
	__s32 *known;

	c = bpf_map_lookup_elem(&tls_calls, &pid_tgid);
	if (!c && go__cipher(pid_tgid, fd))
		return 1;
	if (!c && send) {
		tls__claim(pid_tgid, fd);
		return 0;
	}
	/* any other socket I/O first ends a session's wait: its call's bytes
	 * go out at once or not from this thread (an event loop's next read
	 * is another connection's; a call's own I/O is that call's) */
	if (tls__waiting(pid_tgid))
		tls__unwait(pid_tgid);
	if (!c)
		return 0;
	c->fd = fd;
	k.sess = c->sess;
	k.tgid = pid_tgid >> 32;
	known = bpf_map_lookup_elem(&tls_fds, &k);
	if (!known || *known != fd)
		bpf_map_update_elem(&tls_fds, &k, &fd, BPF_ANY);
	if (c->hs)
		return 0;
	COUNT(n_tls_cipher);
	return 1;
}

#endif
