/* Request mode's compact socket I/O (settings.sock_compact): which syscalls
 * the sys_exit dispatcher hands to the SOCK_RECV_X / SOCK_SEND_X fillers
 * instead of their own enter and exit pair, and how each finds its bytes. */
#ifndef SOCKIO_BPF_H
#define SOCKIO_BPF_H

#include "../../fd.bpf.h"

/* x86_64 syscall numbers (arch/x86/entry/syscalls/syscall_64.tbl) */
enum {
	SOCKIO_NR_READ = 0,
	SOCKIO_NR_WRITE = 1,
	SOCKIO_NR_READV = 19,
	SOCKIO_NR_WRITEV = 20,
	SOCKIO_NR_SENDFILE = 40,
	SOCKIO_NR_SENDTO = 44,
	SOCKIO_NR_RECVFROM = 45,
	SOCKIO_NR_RECVMMSG = 299,
	SOCKIO_NR_SENDMMSG = 307,
};

#define SOCKIO_MMSG_MAX DRIVER_MMSG_MAX
/* where the programs that send them are: each event's first part */
#define SOCKIO_MMSG_SEND_PART (PPME_SOCK_SEND_X * FILLER_PARTS + 1)
#define SOCKIO_MMSG_RECV_PART (PPME_SOCK_RECV_X * FILLER_PARTS + 1)

enum sockio_data {
	SOCKIO_NONE = 0,	/* not a compact call */
	SOCKIO_BUF,		/* the bytes at the second argument */
	SOCKIO_IOV,		/* iovecs at the second argument, their count the third */
	SOCKIO_NODATA,		/* sendfile: the bytes came from a file, none sent */
	SOCKIO_MMSG,		/* recvmmsg, sendmmsg: an event per message (sockio_mmsg.bpf.c) */
};

/* How syscall ID's bytes are found, or SOCKIO_NONE for a call that keeps its
 * own events. All take the socket as the first argument. A sendto or
 * recvfrom that names an address (ADDR, its fifth argument) keeps its pair:
 * the pair's tuple can name a socket the fd table knows no peer of.
 * recvmmsg's and sendmmsg's pairs carry nothing in sysdig's layout (no fd,
 * no bytes), so their messages are sent as compact events whatever the
 * socket's protocol: glibc's resolver and dig send their UDP queries with
 * sendmmsg, BIND reads its queries with recvmmsg and answers with sendmmsg. */
static __always_inline int sockio__data(long id, unsigned long addr)
{
	switch (id) {
	case SOCKIO_NR_SENDTO:
	case SOCKIO_NR_RECVFROM:
		return addr ? SOCKIO_NONE : SOCKIO_BUF;
	case SOCKIO_NR_READ:
	case SOCKIO_NR_WRITE:
		return SOCKIO_BUF;
	case SOCKIO_NR_READV:
	case SOCKIO_NR_WRITEV:
		return SOCKIO_IOV;
	case SOCKIO_NR_SENDFILE:
		return SOCKIO_NODATA;
	case SOCKIO_NR_RECVMMSG:
	case SOCKIO_NR_SENDMMSG:
		return SOCKIO_MMSG;
	}
	return SOCKIO_NONE;
}

/* The event that stands for compact call ID: a send or a receive. */
static __always_inline __u32 sockio__event(long id)
{
	return id == SOCKIO_NR_WRITE || id == SOCKIO_NR_WRITEV || id == SOCKIO_NR_SENDTO ||
	       id == SOCKIO_NR_SENDFILE || id == SOCKIO_NR_SENDMMSG ? PPME_SOCK_SEND_X :
								       PPME_SOCK_RECV_X;
}

#define SOCKIO_SOCK_STREAM 1
#define SOCKIO_IPPROTO_TCP 6

/* The socket behind FD of the current task when it is a TCP socket, else
 * NULL: UDP keeps its own events, whose peer addresses the fd table
 * follows. */
static __always_inline struct sock *sockio__tcp(long fd)
{
	struct sock *sk = fd__sock(fd);

	if (!sk)
		return NULL;
	if (FD_BTF_WALK())
		return sk->sk_type == SOCKIO_SOCK_STREAM && sk->sk_protocol == SOCKIO_IPPROTO_TCP ?
			       sk : NULL;
	return BPF_CORE_READ(sk, sk_type) == SOCKIO_SOCK_STREAM &&
	       BPF_CORE_READ(sk, sk_protocol) == SOCKIO_IPPROTO_TCP ? sk : NULL;
}

/* The TCP state the compact events carry: the segments SK has retransmitted
 * so far and its smoothed round-trip time (us); 0 for another socket. Read
 * at each call so that a request's record can say what its connection went
 * through while it ran (userspace takes the difference). */
static __always_inline void sockio__tcp_state(const struct sock *sk, __u32 *retrans, __u32 *srtt)
{
	const struct tcp_sock *tp = (const struct tcp_sock *)sk;

	*retrans = *srtt = 0;
	if (!sk || BPF_CORE_READ(sk, sk_protocol) != SOCKIO_IPPROTO_TCP)
		return;
	*retrans = BPF_CORE_READ(tp, total_retrans);
	*srtt = BPF_CORE_READ(tp, srtt_us) >> 3;
}

/* Set by the loader (driver_load_info.sock_tp_sendfile): sendfile is taken
 * at sock_send_length too, not at its syscall's exit. Read-only. */
const volatile __u8 sockio_tp_sendfile __weak = 0;

/* Compact calls taken at the socket's own tracepoints, not their syscall's
 * (settings.sock_tps): the read-like and write-like calls any fd may make,
 * so that a pipe's or a file's runs no program, and sendfile where the
 * kernel sends its pages by sock_sendmsg (a file-to-file sendfile runs none
 * then), one event per batch. SEND: the send side's tracepoint. The other
 * socket-only calls stay on their syscalls' tracepoints. */
static __always_inline int sockio__on_sock_tp(long id, int send)
{
	if (send)
		return id == SOCKIO_NR_WRITE || id == SOCKIO_NR_WRITEV ||
		       (id == SOCKIO_NR_SENDFILE && sockio_tp_sendfile);
	return id == SOCKIO_NR_READ || id == SOCKIO_NR_READV;
}

#endif
