/* sendmmsg on request mode's compact path: each message the call sent goes
 * as the SOCK_SEND_X event a send of it alone would give (res: the message's
 * length, the kernel's msg_len; fd; the syscall's number; its first bytes,
 * through its iovecs; the TCP state), in the order sent. sysdig's SENDMMSG
 * pair carries none of this, and glibc's resolver sends a lookup's A and
 * AAAA queries in one sendmmsg on a connected UDP socket (dig too).
 *
 * Each event's time is when its message was sent, where the socket's send
 * tracepoint noted it (mmsg_times.bpf.h), else the exit's.
 *
 * One message a run: the program tail-calls itself for the next, as its
 * iovec walk is a bpf_loop of its own. sys_exit_eo found the socket
 * (scratch.sock) and set mmsg_i to 0. A message that names an address is
 * not sent: the event carries no address, and the fd table's peer may not
 * be that message's. Those, the messages past SOCKIO_MMSG_MAX and those left
 * when a task that preempted this one took the CPU's frame are counted in
 * n_mmsg_unsent. */
#include "mmsg_times.bpf.h"
#include "sockio_fill.bpf.h"

static __always_inline void mmsg__unsent(__u64 n)
{
	struct driver_counters *c = counters__get();

	if (c)
		c->n_mmsg_unsent += n;
}

FILLER_EXIT(sock_send_x_part1)
{
	struct scratch *s = scratch__get();
	__u64 me = bpf_get_current_pid_tgid(), ts;
	const struct sock *sk;
	struct mmsghdr m;
	struct filler f;
	__u32 i, retrans, srtt;
	long fd, sent;

	/* a task that took this CPU's frame in between: the rest is its */
	if (!s || s->sock_owner != me) {
		DROP(n_drops_bug, PPME_SOCK_SEND_X);
		return 0;
	}
	sk = (const struct sock *)s->sock;
	i = s->mmsg_i;
	if (filler__begin(&f, ctx, PPME_SOCK_SEND_X, SOCKIO_NPARAMS))
		return 0;
	sent = f.ret;
	fd = (int)filler__arg(&f, 0);
	if (i >= SOCKIO_MMSG_MAX || i >= sent)
		goto done;
	if (bpf_probe_read_user(&m, sizeof(m),
				(const struct mmsghdr *)filler__arg(&f, 1) + i)) {
		/* the kernel just read it: gone since (another thread's munmap) */
		DROP(n_drops_pf, PPME_SOCK_SEND_X);
	} else if (m.msg_hdr.msg_name) {
		mmsg__unsent(1);
	} else {
		filler__s64(&f, m.msg_len);
		filler__s64(&f, fd);
		filler__u16(&f, SOCKIO_NR_SENDMMSG);
		h2__iov_user(&f, fd, (const struct iovec *)m.msg_hdr.msg_iov,
			     m.msg_hdr.msg_iovlen, m.msg_len);
		sockio__tcp_state(sk, &retrans, &srtt);
		filler__u32(&f, retrans);
		filler__u32(&f, srtt);
		/* the time it was sent, where noted: the frame's stamp */
		if ((ts = mmsg_times__of(i))) {
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
		bpf_tail_call(ctx, &filler_parts, SOCKIO_MMSG_PART);
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
