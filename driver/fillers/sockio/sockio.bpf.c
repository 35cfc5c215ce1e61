/* SOCK_RECV_X, SOCK_SEND_X: one event for a socket syscall (request mode,
 * settings.sock_compact), in place of its enter and exit pair: res, the
 * socket, the syscall's number and its first bytes. sys_exit_eo tail-calls
 * these for the calls sockio__data names, with a result > 0, on a TCP
 * socket; the socket tracepoints' programs (dispatch.bpf.c) for a read,
 * readv, write or writev on a socket of a wanted family, whatever it
 * returned. */
#include "../fs/fs.bpf.h"
#include "sockio.bpf.h"

static __always_inline int sockio__fill(void *ctx, __u16 type, __u32 nparams)
{
	struct filler f;
	long fd, id;
	__u32 snap, off0;
	int how;

	if (filler__begin(&f, ctx, type, nparams))
		return 0;
	/* from a socket's tracepoint, inside the call: its result is here */
	if (f.s->sock_ret_owner == f.me) {
		f.ret = f.s->sock_ret;
		f.s->sock_ret_owner = 0;
	}
	fd = (int)filler__arg(&f, 0);
	/* the syscall's number: orig_ax ends the register block filler__arg read */
	id = (long)f.regblock[8];
	how = sockio__data(id, filler__arg(&f, 4));
	filler__s64(&f, f.ret);
	filler__s64(&f, fd);
	filler__u16(&f, (__u16)id);
	snap = h2__snaplen(&f, fd);
	off0 = f.s->off;
	/* only what the call moved: a write's bytes past res were not sent */
	if (how == SOCKIO_BUF)
		filler__buf_user(&f, (const void *)filler__arg(&f, 1), f.ret > 0 ? f.ret : 0, snap);
	else if (how == SOCKIO_IOV)
		filler__iov_user(&f, (const struct iovec *)filler__arg(&f, 1), filler__arg(&f, 2),
				 f.ret > 0 ? f.ret : 0, snap);
	else
		filler__empty(&f);
	h2__note(&f, fd, off0);
	return filler__submit(&f);
}

FILLER_EXIT(sock_recv_x)
{
	return sockio__fill(ctx, PPME_SOCK_RECV_X, PPME_SOCK_RECV_X_NPARAMS);
}

FILLER_EXIT(sock_send_x)
{
	return sockio__fill(ctx, PPME_SOCK_SEND_X, PPME_SOCK_SEND_X_NPARAMS);
}
