/* SOCK_RECV_X, SOCK_SEND_X: one event for a socket syscall (request mode,
 * settings.sock_compact), in place of its enter and exit pair: res, the
 * socket, the syscall's number, its first bytes and its TCP state.
 * sys_exit_eo tail-calls these for the calls sockio__data names, with a
 * result > 0, on a TCP socket. (The socket tracepoints' programs build the same event
 * themselves: sockio_fill.bpf.h.) */
#include "sockio_fill.bpf.h"

FILLER_EXIT(sock_recv_x)
{
	return sockio__fill(ctx, PPME_SOCK_RECV_X, PPME_SOCK_RECV_X_NPARAMS, 0, 0, NULL);
}

FILLER_EXIT(sock_send_x)
{
	return sockio__fill(ctx, PPME_SOCK_SEND_X, PPME_SOCK_SEND_X_NPARAMS, 0, 0, NULL);
}
