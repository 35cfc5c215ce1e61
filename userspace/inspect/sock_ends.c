/* How an IP socket's ends follow connect and the messages it carries, by
 * sysdig 0.29.3's rules, so that a replay reads as sysdig -r prints it:
 * - a connect's enter already gives the socket the peer it asks for (its name
 *   stays until the exit);
 * - a tuple the socket has already (either way round) changes nothing; any
 *   other gives the socket its source end, and its peer only where it has
 *   none (a zero address or port): a connect to AF_UNSPEC keeps the last peer
 *   with the local end the kernel left, and a message to another address
 *   leaves a known peer as it is;
 * - a new socket's first message picks its role as sysdig guesses it, and a
 *   server's sends and a client's receives are turned client -> server.
 * One case is left out: a socket bound to a port (a UDP server) takes its
 * first message's ends as client -> server (msg_server), where sysdig reads
 * bytes of the bound port as the peer's address ("127.0.0.1:4444->180.20.3.0:5300"). */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "inspect_int.h"

static bool sock__is_ip(const struct fd_info *fi)
{
	return fi->type == FDT_IPV4_SOCK || fi->type == FDT_IPV6_SOCK;
}

/* Bound to a port, nothing since: the address is (dip, dport). */
static bool sock__is_bound(const struct fd_info *fi)
{
	return sock__is_ip(fi) && fi->is_server && !fi->msg_server && !fi->sport &&
	       ip__is_zero(fi->sip);
}

static void ends__swap(struct fd_info *fi)
{
	uint8_t ip[16];
	uint16_t port = fi->sport;

	memcpy(ip, fi->sip, sizeof(ip));
	memcpy(fi->sip, fi->dip, sizeof(ip));
	memcpy(fi->dip, ip, sizeof(ip));
	fi->sport = fi->dport;
	fi->dport = port;
}

static bool ends__equal(const uint8_t *sip, uint16_t sport, const uint8_t *dip, uint16_t dport,
			const struct fd_info *t)
{
	return sport == t->sport && dport == t->dport && memcmp(sip, t->sip, 16) == 0 &&
	       memcmp(dip, t->dip, 16) == 0;
}

/* The other family's ends mean nothing in this one. */
static void ends__family(struct fd_info *fi, const struct fd_info *t)
{
	if (fi->family != t->family) {
		memset(fi->sip, 0, sizeof(fi->sip));
		memset(fi->dip, 0, sizeof(fi->dip));
		fi->sport = fi->dport = 0;
	}
	fi->family = t->family;
	fi->type = t->type;
}

/* Tuple T onto FI as sysdig keeps a socket: whether anything changed. */
static bool ends__update(struct fd_info *fi, const struct fd_info *t)
{
	bool changed;

	if (fi->family == t->family &&
	    (ends__equal(fi->sip, fi->sport, fi->dip, fi->dport, t) ||
	     ends__equal(fi->dip, fi->dport, fi->sip, fi->sport, t)))
		return false;
	ends__family(fi, t);
	changed = fi->sport != t->sport || memcmp(fi->sip, t->sip, 16) != 0;
	memcpy(fi->sip, t->sip, sizeof(fi->sip));
	fi->sport = t->sport;
	if (ip__is_zero(fi->dip) && !ip__is_zero(t->dip)) {
		memcpy(fi->dip, t->dip, sizeof(fi->dip));
		changed = true;
	}
	if (!fi->dport && t->dport) {
		fi->dport = t->dport;
		changed = true;
	}
	return changed;
}

void sock__connect_enter(struct fd_info *fi, const uint8_t *v, uint16_t len)
{
	struct fd_info a = { 0 };

	if (len >= 1 && v[0] == PPM_AF_UNIX) {
		/* the path it asks for, until the exit's tuple */
		fd_info__set_name(fi, (const char *)v + 1, strnlen((const char *)v + 1, len - 1u));
		return;
	}
	if (sock__decode_addr(&a, v, len) < 0)
		return;
	/* a socket bound to a port keeps that address as its source end (sysdig
	 * stores a bound address where a connected socket's source goes) */
	if (sock__is_bound(fi)) {
		memcpy(fi->sip, fi->dip, sizeof(fi->sip));
		fi->sport = 0;
	}
	ends__family(fi, &a);
	memcpy(fi->dip, a.dip, sizeof(fi->dip));
	fi->dport = a.dport;
}

int sock__connect_exit(struct fd_info *fi, const uint8_t *v, uint16_t len)
{
	struct fd_info t = { 0 };
	int err;

	if (len >= 1 && v[0] == PPM_AF_UNIX) {
		err = sock__tuple_unix(fi, v, len);
	} else if ((err = sock__decode_tuple(&t, v, len)) == 0) {
		/* a UDP server (IPv4: sysdig looks at IPv4 sockets only) that
		 * connects names its peer first */
		if (ends__update(fi, &t) && fi->is_server && fi->type == FDT_IPV4_SOCK &&
		    fi->l4proto == IPPROTO_UDP)
			ends__swap(fi);
		err = sock__set_tuple_name(fi);
	}
	fi->no_role = false;	/* a client unless it was a server */
	fi->msg_server = false;
	return err;
}

int sock__name_from_tuple(struct fd_info *fi, const uint8_t *v, uint16_t len)
{
	struct fd_info t = { 0 };
	int err = sock__from_tuple(&t, v, len);

	if (err == 0) {
		free(fi->name);
		fi->name = t.name;
	}
	return err;
}

static int fd__v4_remote_port(struct fd_info *fi, void *port)
{
	return fi->type == FDT_IPV4_SOCK && fi->dport == *(uint16_t *)port;
}

static int fd__v4_client_port(struct fd_info *fi, void *port)
{
	return fi->type == FDT_IPV4_SOCK && !sock__is_bound(fi) && fi->sport == *(uint16_t *)port;
}

/* sysdig's guess of a new socket's role from its first message: whether the
 * process has a socket bound to the remote port and none using the local
 * port as a client's (a server, then), else a client, else (both) a receiver
 * serves and a sender is a client. It looks at IPv4 sockets only, and reads an
 * IPv6 socket's ports from bytes 10-11 and 8-9 of its source address; an IPv4
 * socket finds itself both times, so the direction decides. */
static bool role__guess(const struct fd_info *fi, bool inbound, struct fd_table *fds)
{
	uint16_t remote, local;

	if (fi->type != FDT_IPV6_SOCK)
		return inbound;
	remote = (uint16_t)(fi->sip[10] | fi->sip[11] << 8);
	local = (uint16_t)(fi->sip[8] | fi->sip[9] << 8);
	if (!fd_table__for_each(fds, fd__v4_remote_port, &remote))
		return false;
	if (!fd_table__for_each(fds, fd__v4_client_port, &local))
		return true;
	return inbound;
}

/* A UDP server's message: its ends client -> server from the tuple. */
static int msg__server(struct fd_info *fi, struct fd_info *t, bool inbound)
{
	/* the driver's order is local -> remote when sending */
	if (!inbound)
		ends__swap(t);
	fi->msg_server = true;
	if (!fi->l4proto)
		fi->l4proto = IPPROTO_UDP;
	if (fi->name && t->type == fi->type &&
	    ends__equal(fi->sip, fi->sport, fi->dip, fi->dport, t))
		return 0;
	fi->family = t->family;
	fi->type = t->type;
	memcpy(fi->sip, t->sip, sizeof(t->sip));
	memcpy(fi->dip, t->dip, sizeof(t->dip));
	fi->sport = t->sport;
	fi->dport = t->dport;
	return sock__set_tuple_name(fi);
}

/* The message's own ends onto FI's mlip/mrip (the driver's order: the
 * sender first), each where it has a port. */
static void msg__ends(struct fd_info *fi, const struct fd_info *t, bool inbound)
{
	const uint8_t *lip = inbound ? t->dip : t->sip, *rip = inbound ? t->sip : t->dip;
	uint16_t lport = inbound ? t->dport : t->sport, rport = inbound ? t->sport : t->dport;

	if (fi->family != t->family)
		fi->mlport = fi->mrport = 0;
	if (lport) {
		memcpy(fi->mlip, lip, sizeof(fi->mlip));
		fi->mlport = lport;
	}
	if (rport) {
		memcpy(fi->mrip, rip, sizeof(fi->mrip));
		fi->mrport = rport;
	}
}

int sock__from_msg(struct fd_info *fi, const uint8_t *v, uint16_t len, bool inbound,
		   struct fd_table *fds)
{
	struct fd_info t = { 0 };

	if (len >= 1 && v[0] == PPM_AF_UNIX)
		return sock__tuple_unix(fi, v, len);
	if (sock__decode_tuple(&t, v, len) < 0)
		return -EINVAL;
	msg__ends(fi, &t, inbound);
	if (sock__is_bound(fi) || fi->msg_server)
		return msg__server(fi, &t, inbound);
	if (!ends__update(fi, &t))
		return 0;
	/* a protocol still unknown is UDP: TCP would not change its ends */
	if (!fi->l4proto)
		fi->l4proto = IPPROTO_UDP;
	if (fi->no_role) {
		fi->is_server = role__guess(fi, inbound, fds);
		fi->no_role = false;
	}
	/* client -> server: a client's receive and a server's send are turned */
	if (inbound != fi->is_server)
		ends__swap(fi);
	return sock__set_tuple_name(fi);
}
