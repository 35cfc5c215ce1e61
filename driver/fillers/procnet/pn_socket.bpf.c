/* socket, bind, connect, listen, accept, accept4, shutdown. */
#include "pn_net.bpf.h"

/* Exit events that carry only res. */
static __always_inline int socket__res(void *ctx, __u16 type, __u32 nparams)
{
	struct filler f;

	if (filler__begin(&f, ctx, type, nparams))
		return 0;
	filler__s64(&f, f.ret);
	return filler__submit(&f);
}

/* Enter events that carry only the fd. */
static __always_inline int socket__fd(void *ctx, __u16 type, __u32 nparams)
{
	struct filler f;

	if (filler__begin(&f, ctx, type, nparams))
		return 0;
	filler__s64(&f, (int)filler__arg(&f, 0));
	return filler__submit(&f);
}

FILLER(socket_socket_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SOCKET_SOCKET_E))
		return 0;
	filler__u32(&f, net__ppm_family(filler__arg(&f, 0)));
	filler__u32(&f, filler__arg(&f, 1));	/* type: native, flags included */
	filler__u32(&f, filler__arg(&f, 2));
	return filler__submit(&f);
}

FILLER_EXIT(socket_socket_x)
{
	return socket__res(ctx, PPME_SOCKET_SOCKET_X, PPME_SOCKET_SOCKET_X_NPARAMS);
}

FILLER(socket_bind_e)
{
	return socket__fd(ctx, PPME_SOCKET_BIND_E, PPME_SOCKET_BIND_E_NPARAMS);
}

/* res, addr: the address asked for, from user memory. */
FILLER_EXIT(socket_bind_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SOCKET_BIND_X))
		return 0;
	filler__s64(&f, f.ret);
	net__sockaddr_user(&f, (void *)filler__arg(&f, 1), (int)filler__arg(&f, 2));
	return filler__submit(&f);
}

FILLER(socket_connect_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SOCKET_CONNECT_E))
		return 0;
	filler__s64(&f, (int)filler__arg(&f, 0));
	net__sockaddr_user(&f, (void *)filler__arg(&f, 1), (int)filler__arg(&f, 2));
	return filler__submit(&f);
}

/* res, tuple: the local end from the socket, the remote end as the caller named
 * it (a failed or in-progress connect has no peer yet). */
FILLER_EXIT(socket_connect_x)
{
	struct net_addr ua;
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SOCKET_CONNECT_X))
		return 0;
	filler__s64(&f, f.ret);
	net__read_uaddr((void *)filler__arg(&f, 1), (int)filler__arg(&f, 2), &ua);
	net__tuple(&f, net__sock((int)filler__arg(&f, 0)), &ua, false);
	return filler__submit(&f);
}

FILLER(socket_listen_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SOCKET_LISTEN_E))
		return 0;
	filler__s64(&f, (int)filler__arg(&f, 0));
	filler__u32(&f, filler__arg(&f, 1));
	return filler__submit(&f);
}

FILLER_EXIT(socket_listen_x)
{
	return socket__res(ctx, PPME_SOCKET_LISTEN_X, PPME_SOCKET_LISTEN_X_NPARAMS);
}

/* fd, tuple (peer -> local of the new socket), queuepct, queuelen, queuemax (the
 * listening socket's accept queue after this accept). */
static __always_inline int accept__exit(void *ctx, __u16 type, __u32 nparams)
{
	__u32 len = 0, max = 0;
	struct filler f;
	struct sock *lsk;

	if (filler__begin(&f, ctx, type, nparams))
		return 0;
	filler__s64(&f, f.ret);
	if (f.ret >= 0)
		net__tuple(&f, net__sock(f.ret), NULL, true);
	else
		filler__empty(&f);
	lsk = net__sock((int)filler__arg(&f, 0));
	if (lsk) {
		len = BPF_CORE_READ(lsk, sk_ack_backlog);
		max = BPF_CORE_READ(lsk, sk_max_ack_backlog);
	}
	filler__u8(&f, max ? (__u64)len * 100 / max : 0);
	filler__u32(&f, len);
	filler__u32(&f, max);
	return filler__submit(&f);
}

FILLER_EXIT(socket_accept_5_x)
{
	return accept__exit(ctx, PPME_SOCKET_ACCEPT_5_X, PPME_SOCKET_ACCEPT_5_X_NPARAMS);
}

/* flags: the native SOCK_* flags (an INT32 param, not a flagset). */
FILLER(socket_accept4_5_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SOCKET_ACCEPT4_5_E))
		return 0;
	filler__u32(&f, (int)filler__arg(&f, 3));
	return filler__submit(&f);
}

FILLER_EXIT(socket_accept4_5_x)
{
	return accept__exit(ctx, PPME_SOCKET_ACCEPT4_5_X, PPME_SOCKET_ACCEPT4_5_X_NPARAMS);
}

/* how: SHUT_RD/WR/RDWR have the same values in sysdig's shutdown_how. */
FILLER(socket_shutdown_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SOCKET_SHUTDOWN_E))
		return 0;
	filler__s64(&f, (int)filler__arg(&f, 0));
	filler__u8(&f, filler__arg(&f, 1));
	return filler__submit(&f);
}

FILLER_EXIT(socket_shutdown_x)
{
	return socket__res(ctx, PPME_SOCKET_SHUTDOWN_X, PPME_SOCKET_SHUTDOWN_X_NPARAMS);
}
