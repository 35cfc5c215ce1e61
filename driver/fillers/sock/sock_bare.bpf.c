/* Socket calls whose events have no params in sysdig 0.29.3's table: getsockname,
 * getpeername, sendmmsg, recvmmsg (both directions) and the enter events of
 * setsockopt and getsockopt. The header still says which call it was. */
#include "sock.bpf.h"

FILLER_BARE(FILLER, socket_getsockname_e, SOCKET_GETSOCKNAME_E)
FILLER_BARE(FILLER_EXIT, socket_getsockname_x, SOCKET_GETSOCKNAME_X)
FILLER_BARE(FILLER, socket_getpeername_e, SOCKET_GETPEERNAME_E)
FILLER_BARE(FILLER_EXIT, socket_getpeername_x, SOCKET_GETPEERNAME_X)
FILLER_BARE(FILLER, socket_sendmmsg_e, SOCKET_SENDMMSG_E)
FILLER_BARE(FILLER_EXIT, socket_sendmmsg_x, SOCKET_SENDMMSG_X)
FILLER_BARE(FILLER, socket_recvmmsg_e, SOCKET_RECVMMSG_E)
FILLER_BARE(FILLER_EXIT, socket_recvmmsg_x, SOCKET_RECVMMSG_X)
FILLER_BARE(FILLER, socket_setsockopt_e, SOCKET_SETSOCKOPT_E)
FILLER_BARE(FILLER, socket_getsockopt_e, SOCKET_GETSOCKOPT_E)
