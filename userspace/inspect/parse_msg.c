/* Messages with an address: sendto/sendmsg (the tuple is on the enter),
 * recvfrom/recvmsg (on the exit) and request mode's compact events of a
 * recvmmsg's or sendmmsg's message (on the event) name the peer of a socket
 * that connect never named: an unconnected UDP socket gets
 * "0.0.0.0:0->127.0.0.53:53" from its first sendto, as in sysdig. A
 * successful call updates the socket as sysdig does (sock_ends.c) unless it
 * is an IPv4 TCP socket that already has a name; a sendto on an fd we do not
 * know makes it a UDP socket first (its enter already shows it so, as in
 * sysdig). */
#include <errno.h>
#include <netinet/in.h>

#include "inspect_int.h"

/* The tuple param of each event, and where it is. */
#define SENDTO_E_TUPLE 2
#define SENDMSG_E_TUPLE 2
#define RECVFROM_X_TUPLE 2
#define RECVMSG_X_TUPLE 3

static bool sock__is_ip(const struct fd_info *fi)
{
	return fi->type == FDT_IPV4_SOCK || fi->type == FDT_IPV6_SOCK;
}

void parse__sendto_enter(struct ievt *ev, const struct evt_params *x)
{
	int64_t fd = evp__int(x, 0, -1);
	const uint8_t *t;
	struct fd_info *fi;

	if (fd < 0 || !ev->thread || !ev->thread->fds || fd_table__find(ev->thread->fds, fd) ||
	    !evp__has(x, SENDTO_E_TUPLE))
		return;
	t = x->p->val[SENDTO_E_TUPLE];
	if (t[0] != PPM_AF_INET && t[0] != PPM_AF_INET6)
		return;
	fi = parse__new_fd(ev, fd, t[0] == PPM_AF_INET ? FDT_IPV4_SOCK : FDT_IPV6_SOCK);
	if (!fi)
		return;
	fi->family = t[0];
	fi->l4proto = IPPROTO_UDP;
	fi->no_role = true;
}

/* A failed send that says the fd is no socket: the entry its enter guessed
 * (a socket we know nothing of) is wrong. */
static void msg__undo_guess(struct inspector *in, struct ievt *ev, struct fd_info *fi)
{
	if (!sock__is_ip(fi) || fi->name || fi->sport || fi->dport)
		return;
	fi = fd_table__detach(ev->thread->fds, fi->fd);
	if (fi)
		inspector__defer_fd(in, fi);
}

bool parse__msg_exit(struct inspector *in, struct ievt *ev, const struct evt_params *x,
		     const struct evt_params *e)
{
	const struct evt_params *tp = x;
	int64_t res = evp__int(x, 0, -1);
	struct fd_info *fi;
	bool inbound = true;
	uint32_t ti;

	switch (ev->type) {
	case PPME_SOCKET_SENDTO_X: tp = e; ti = SENDTO_E_TUPLE; inbound = false; break;
	case PPME_SOCKET_SENDMSG_X: tp = e; ti = SENDMSG_E_TUPLE; inbound = false; break;
	case PPME_SOCKET_RECVFROM_X: ti = RECVFROM_X_TUPLE; break;
	case PPME_SOCKET_RECVMSG_X: ti = RECVMSG_X_TUPLE; break;
	case PPME_SOCK_RECV_X: ti = SOCK_X_TUPLE; e = x; break;
	case PPME_SOCK_SEND_X: ti = SOCK_X_TUPLE; e = x; inbound = false; break;
	default: return false;
	}
	/* the fd comes from the enter, or the compact event's own (no enter) */
	if (!e || ev->fdnum < 0 || !(fi = fd_table__find(ev->thread->fds, ev->fdnum)))
		return true;
	if (res < 0) {
		if (ev->type == PPME_SOCKET_SENDTO_X && (res == -EBADF || res == -ENOTSOCK))
			msg__undo_guess(in, ev, fi);
		return true;
	}
	/* a connected stream keeps the name its connect or accept gave it (sysdig
	 * tells TCP sockets by their IPv4 fields only) */
	if (!evp__has(tp, ti) || (fi->name && fi->name[0] && fi->type == FDT_IPV4_SOCK &&
				  fi->l4proto == IPPROTO_TCP))
		return true;
	sock__from_msg(fi, tp->p->val[ti], tp->p->len[ti], inbound, ev->thread->fds);
	ev->fd = fi;
	return true;
}
