/* The SOCK_RECV_X or SOCK_SEND_X event of the current socket call: res, the
 * socket, the syscall's number, its first bytes, the connection's TCP state
 * and an empty tuple. Run by the compact fillers at the call's exit
 * (sockio.bpf.c) and, inline, by the socket tracepoints' programs
 * (dispatch.bpf.c), which give the result (RET, with HAVE_RET): they run
 * inside the call, and give the socket (SK; NULL: the one the dispatcher
 * found, scratch.sock). */
#ifndef SOCKIO_FILL_BPF_H
#define SOCKIO_FILL_BPF_H

#include "../fs/fs.bpf.h"
#include "sockio.bpf.h"

/* Both events have the same params, so one count serves a call of either. */
#define SOCKIO_NPARAMS PPME_SOCK_RECV_X_NPARAMS
_Static_assert(PPME_SOCK_SEND_X_NPARAMS == SOCKIO_NPARAMS, "compact events' params");

static __always_inline int sockio__fill(void *ctx, __u16 type, __u32 nparams, long ret,
					int have_ret, const struct sock *sk)
{
	struct filler f;
	long fd, id;
	__u32 retrans, srtt;
	int how;

	if (filler__begin(&f, ctx, type, nparams))
		return 0;
	/* at a socket's tracepoint, inside the call: the registers do not
	 * hold its result yet */
	if (have_ret)
		f.ret = ret;
	fd = (int)filler__arg(&f, 0);
	/* the syscall's number: orig_ax ends the register block filler__arg read */
	id = (long)f.regblock[8];
	how = sockio__data(id, filler__arg(&f, 4));
	filler__s64(&f, f.ret);
	filler__s64(&f, fd);
	filler__u16(&f, (__u16)id);
	/* only what the call moved: a write's bytes past res were not sent */
	if (how == SOCKIO_BUF)
		h2__buf_user(&f, fd, (const void *)filler__arg(&f, 1), f.ret > 0 ? f.ret : 0);
	else if (how == SOCKIO_IOV)
		h2__iov_user(&f, fd, (const struct iovec *)filler__arg(&f, 1), filler__arg(&f, 2),
			     f.ret > 0 ? f.ret : 0);
	else
		filler__empty(&f);
	/* a task that took this CPU's frame in between left another socket:
	 * then it is found again */
	if (!sk)
		sk = f.s->sock_owner == f.me ? (const struct sock *)f.s->sock : fd__sock_probe(fd);
	f.s->sock_owner = 0;
	sockio__tcp_state(sk, &retrans, &srtt);
	filler__u32(&f, retrans);
	filler__u32(&f, srtt);
	/* the call's peer is the fd's: no tuple */
	filler__empty(&f);
	return filler__submit(&f);
}

#endif
