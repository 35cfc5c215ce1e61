/* SOCKTUPLE / SOCKADDR params (docs/formats.md, "Socket addresses") into socket fd state and
 * names formatted as sysdig prints them: "1.2.3.4:5->6.7.8.9:10",
 * "2001:db8::4:54405->2001:db8::3:1234", unix "0->ffff94dc817b9400 /path". */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inspect_int.h"
#include "schema.h"

static const uint8_t v4mapped_prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

static bool is_v4mapped(const uint8_t *ip6)
{
	return memcmp(ip6, v4mapped_prefix, sizeof(v4mapped_prefix)) == 0;
}

int sock__format_addr(uint8_t family, const uint8_t *ip, uint16_t port, char *out, size_t n)
{
	char a[INET6_ADDRSTRLEN];

	if (!inet_ntop(family == PPM_AF_INET6 ? AF_INET6 : AF_INET, ip, a, sizeof(a)))
		return -EINVAL;
	return snprintf(out, n, "%s:%u", a, port) < (int)n ? 0 : -ENAMETOOLONG;
}

int sock__set_tuple_name(struct fd_info *fi)
{
	char s[INET6_ADDRSTRLEN + 8], d[INET6_ADDRSTRLEN + 8], name[2 * sizeof(s) + 2];
	int len;

	if (sock__format_addr(fi->family, fi->sip, fi->sport, s, sizeof(s)) < 0 ||
	    sock__format_addr(fi->family, fi->dip, fi->dport, d, sizeof(d)) < 0)
		return -EINVAL;
	len = snprintf(name, sizeof(name), "%s->%s", s, d);
	return fd_info__set_name(fi, name, (size_t)len);
}

static void sock__set_family(struct fd_info *fi, uint8_t family)
{
	fi->family = family;
	if (family == PPM_AF_INET)
		fi->type = FDT_IPV4_SOCK;
	else if (family == PPM_AF_INET6)
		fi->type = FDT_IPV6_SOCK;
	else if (family == PPM_AF_UNIX)
		fi->type = FDT_UNIX_SOCK;
}

static size_t bounded_strlen(const uint8_t *s, size_t max)
{
	const uint8_t *z = memchr(s, '\0', max);

	return z ? (size_t)(z - s) : max;
}

/* The ends of an IPv4 or IPv6 tuple into FI (family, type, addresses, ports;
 * not the name). IPv4 traffic on an IPv6 socket is shown as IPv4, as sysdig
 * does. Returns 0, or -EINVAL for a short tuple or another family. */
static int tuple__decode_ip(struct fd_info *fi, const uint8_t *v, uint16_t len)
{
	if (len >= 13 && v[0] == PPM_AF_INET) {
		memset(fi->sip, 0, sizeof(fi->sip));
		memset(fi->dip, 0, sizeof(fi->dip));
		memcpy(fi->sip, v + 1, 4);
		fi->sport = schema__u16(v + 5);
		memcpy(fi->dip, v + 7, 4);
		fi->dport = schema__u16(v + 11);
		sock__set_family(fi, PPM_AF_INET);
		return 0;
	}
	if (len < 37 || v[0] != PPM_AF_INET6)
		return -EINVAL;
	fi->sport = schema__u16(v + 17);
	fi->dport = schema__u16(v + 35);
	if (is_v4mapped(v + 1) && is_v4mapped(v + 19)) {
		memset(fi->sip, 0, sizeof(fi->sip));
		memset(fi->dip, 0, sizeof(fi->dip));
		memcpy(fi->sip, v + 1 + 12, 4);
		memcpy(fi->dip, v + 19 + 12, 4);
		sock__set_family(fi, PPM_AF_INET);
	} else {
		memcpy(fi->sip, v + 1, 16);
		memcpy(fi->dip, v + 19, 16);
		sock__set_family(fi, PPM_AF_INET6);
	}
	return 0;
}

static int tuple__unix(struct fd_info *fi, const uint8_t *v, uint16_t len)
{
	char name[128 + 40];
	size_t plen;
	int n;

	if (len < 17)
		return -EINVAL;
	plen = bounded_strlen(v + 17, len - 17u);
	if (plen > 128)
		plen = 128;
	n = snprintf(name, sizeof(name), "%" PRIx64 "->%" PRIx64 " %.*s", schema__u64(v + 1),
		     schema__u64(v + 9), (int)plen, (const char *)v + 17);
	sock__set_family(fi, PPM_AF_UNIX);
	return fd_info__set_name(fi, name, (size_t)n);
}

int sock__from_tuple(struct fd_info *fi, const uint8_t *v, uint16_t len)
{
	if (len >= 1 && v[0] == PPM_AF_UNIX)
		return tuple__unix(fi, v, len);
	if (tuple__decode_ip(fi, v, len) < 0)
		return -EINVAL;
	return sock__set_tuple_name(fi);
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

int sock__from_msg_tuple(struct fd_info *fi, const uint8_t *v, uint16_t len, bool inbound)
{
	struct fd_info t = { 0 };

	if (len >= 1 && v[0] == PPM_AF_UNIX)
		return tuple__unix(fi, v, len);
	if (tuple__decode_ip(&t, v, len) < 0)
		return -EINVAL;
	/* A socket with no role yet (no name, not bound) takes the one its first
	 * message suggests: a sender is a client, a receiver a server. */
	if (!fi->name && !fi->is_server)
		fi->is_server = inbound;
	/* the driver's order is local -> remote when sending, remote -> local
	 * when receiving; ours is client -> server */
	if (inbound != fi->is_server)
		ends__swap(&t);
	if (!fi->l4proto)
		fi->l4proto = IPPROTO_UDP;
	if (fi->name && t.type == fi->type && t.sport == fi->sport && t.dport == fi->dport &&
	    memcmp(t.sip, fi->sip, sizeof(t.sip)) == 0 && memcmp(t.dip, fi->dip, sizeof(t.dip)) == 0)
		return 0;
	fi->family = t.family;
	fi->type = t.type;
	memcpy(fi->sip, t.sip, sizeof(t.sip));
	memcpy(fi->dip, t.dip, sizeof(t.dip));
	fi->sport = t.sport;
	fi->dport = t.dport;
	return sock__set_tuple_name(fi);
}

int sock__after_connect(struct fd_info *fi)
{
	static const uint8_t none[16];
	char name[INET6_ADDRSTRLEN + 8];

	if ((fi->type != FDT_IPV4_SOCK && fi->type != FDT_IPV6_SOCK) || fi->dport ||
	    memcmp(fi->dip, none, sizeof(none)) != 0)
		return 0;
	/* still bound (an explicit bind keeps its port): the bound state */
	if (fi->sport) {
		memcpy(fi->dip, fi->sip, sizeof(fi->dip));
		fi->dport = fi->sport;
		memset(fi->sip, 0, sizeof(fi->sip));
		fi->sport = 0;
		fi->is_server = true;
		if (sock__format_addr(fi->family, fi->dip, fi->dport, name, sizeof(name)) < 0)
			return -EINVAL;
		return fd_info__set_name(fi, name, strlen(name)) < 0 ? -ENOMEM : 1;
	}
	/* as a new socket */
	memset(fi->sip, 0, sizeof(fi->sip));
	memset(fi->dip, 0, sizeof(fi->dip));
	fi->dport = 0;
	fi->is_server = false;
	free(fi->name);
	fi->name = NULL;
	return 1;
}

int sock__from_addr(struct fd_info *fi, const uint8_t *v, uint16_t len)
{
	char name[INET6_ADDRSTRLEN + 8];

	if (len < 1)
		return -EINVAL;
	memset(fi->sip, 0, sizeof(fi->sip));
	fi->sport = 0;
	fi->is_server = true;
	switch (v[0]) {
	case PPM_AF_INET:
		if (len < 7)
			return -EINVAL;
		memset(fi->dip, 0, sizeof(fi->dip));
		memcpy(fi->dip, v + 1, 4);
		fi->dport = schema__u16(v + 5);
		sock__set_family(fi, PPM_AF_INET);
		break;
	case PPM_AF_INET6:
		if (len < 19)
			return -EINVAL;
		fi->dport = schema__u16(v + 17);
		if (is_v4mapped(v + 1)) {
			memset(fi->dip, 0, sizeof(fi->dip));
			memcpy(fi->dip, v + 1 + 12, 4);
			sock__set_family(fi, PPM_AF_INET);
		} else {
			memcpy(fi->dip, v + 1, 16);
			sock__set_family(fi, PPM_AF_INET6);
		}
		break;
	case PPM_AF_UNIX:
		sock__set_family(fi, PPM_AF_UNIX);
		return fd_info__set_name(fi, (const char *)v + 1, bounded_strlen(v + 1, len - 1u));
	default:
		return -EINVAL;
	}
	if (sock__format_addr(fi->family, fi->dip, fi->dport, name, sizeof(name)) < 0)
		return -EINVAL;
	return fd_info__set_name(fi, name, strlen(name));
}
