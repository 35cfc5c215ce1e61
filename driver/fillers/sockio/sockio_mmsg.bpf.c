/* recvmmsg and sendmmsg on request mode's compact path: each message the
 * call moved goes as the SOCK_RECV_X or SOCK_SEND_X event a recvmsg or
 * sendmsg of it alone would give (res: the message's length, the kernel's
 * msg_len; fd; the syscall's number; its first bytes, through its iovecs;
 * the TCP state; the tuple where it names an address), in the order moved.
 * sysdig's RECVMMSG and SENDMMSG pairs carry none of this. glibc's resolver
 * sends a lookup's A and AAAA queries in one sendmmsg on a connected UDP
 * socket (dig too); BIND reads its queries with recvmmsg and answers each
 * with a sendmmsg naming the client.
 *
 * A message that names an address (msg_name: the sender, which recvmmsg
 * wrote back; the peer sendmmsg was given) carries the tuple recvmsg's exit
 * or sendmsg's enter would, so that userspace follows an unconnected
 * socket's peers message by message.
 *
 * Each sent message's time is when it was sent, where the socket's send
 * tracepoint noted it (mmsg_times.bpf.h), else the exit's; a received
 * message's is the exit's.
 *
 * One message a run: the program tail-calls itself for the next, as its
 * iovec walk is a bpf_loop of its own. sys_exit_eo found the socket
 * (scratch.sock) and set mmsg_i to 0. The messages past SOCKIO_MMSG_MAX and
 * those left when a task that preempted this one took the CPU's frame are
 * counted in n_mmsg_unsent. */
#include "mmsg_times.bpf.h"
#include "sockio_fill.bpf.h"
#include "../procnet/pn_net.bpf.h"

static __always_inline void mmsg__unsent(__u64 n)
{
	struct driver_counters *c = counters__get();

	if (c)
		c->n_mmsg_unsent += n;
}

/* The message's ends where it names an address (UADDR, LEN bytes): the
 * sender first, as recvmsg's and sendmsg's tuples; else empty (a connected
 * socket's peer is the fd's). */
static __always_inline void mmsg__tuple(struct filler *f, struct sock *sk, const void *uaddr,
					long len, bool recv)
{
	struct net_addr ua;

	if (!uaddr || len <= 0) {
		filler__empty(f);
		return;
	}
	net__read_uaddr(uaddr, len, &ua);
	net__tuple(f, sk, &ua, recv);
}

/* Message s->mmsg_i of the current recvmmsg (RECV) or sendmmsg, then on to
 * the next through PART. */
static __always_inline int mmsg__run(void *ctx, bool recv, __u32 part)
{
	__u16 type = recv ? PPME_SOCK_RECV_X : PPME_SOCK_SEND_X;
	struct scratch *s = scratch__get();
	__u64 me = bpf_get_current_pid_tgid(), ts;
	const struct sock *sk;
	struct mmsghdr m;
	struct filler f;
	__u32 i, retrans, srtt;
	long fd, sent;

	/* a task that took this CPU's frame in between: the rest is its */
	if (!s || s->sock_owner != me) {
		DROP(n_drops_bug, type);
		return 0;
	}
	sk = (const struct sock *)s->sock;
	i = s->mmsg_i;
	if (filler__begin(&f, ctx, type, SOCKIO_NPARAMS))
		return 0;
	sent = f.ret;
	fd = (int)filler__arg(&f, 0);
	if (i >= SOCKIO_MMSG_MAX || i >= sent)
		goto done;
	if (bpf_probe_read_user(&m, sizeof(m),
				(const struct mmsghdr *)filler__arg(&f, 1) + i)) {
		/* the kernel just read it: gone since (another thread's munmap) */
		DROP(n_drops_pf, type);
	} else {
		filler__s64(&f, m.msg_len);
		filler__s64(&f, fd);
		filler__u16(&f, recv ? SOCKIO_NR_RECVMMSG : SOCKIO_NR_SENDMMSG);
		h2__iov_user(&f, fd, (const struct iovec *)m.msg_hdr.msg_iov,
			     m.msg_hdr.msg_iovlen, m.msg_len);
		sockio__tcp_state(sk, &retrans, &srtt);
		filler__u32(&f, retrans);
		filler__u32(&f, srtt);
		mmsg__tuple(&f, (struct sock *)sk, m.msg_hdr.msg_name, m.msg_hdr.msg_namelen, recv);
		/* the time it was sent, where noted: the frame's stamp */
		if (!recv && (ts = mmsg_times__of(i))) {
			s->stamp = ts;
			s->stamp_owner = me;
		}
		filler__submit(&f);
	}
	i++;
	/* preempted, and another task's socket call took the frame: the
	 * rest cannot go on */
	if (s->sock_owner != me) {
		if (i < sent && i < SOCKIO_MMSG_MAX)
			mmsg__unsent((sent < SOCKIO_MMSG_MAX ? sent : SOCKIO_MMSG_MAX) - i);
		goto done;
	}
	s->mmsg_i = i;
	if (i < SOCKIO_MMSG_MAX && i < sent) {
		bpf_tail_call(ctx, &filler_parts, part);
		/* the chain's tail calls ran out: the rest are not sent */
		mmsg__unsent(sent - i);
		goto out;
	}
done:
	if (sent > SOCKIO_MMSG_MAX)
		mmsg__unsent(sent - SOCKIO_MMSG_MAX);
out:
	if (s->sock_owner == me)
		s->sock_owner = 0;
	return 0;
}

FILLER_EXIT(sock_send_x_part1)
{
	return mmsg__run(ctx, false, SOCKIO_MMSG_SEND_PART);
}

FILLER_EXIT(sock_recv_x_part1)
{
	return mmsg__run(ctx, true, SOCKIO_MMSG_RECV_PART);
}
