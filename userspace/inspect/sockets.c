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
static const uint8_t zero_ip[16];

/* An IPv6 address that stands for an IPv4 one: v4-mapped, or all zero, which
 * sysdig takes for 0.0.0.0 too. */
static bool ip6__is_v4(const uint8_t *ip6)
{
	return memcmp(ip6, v4mapped_prefix, sizeof(v4mapped_prefix)) == 0 ||
	       memcmp(ip6, zero_ip, sizeof(zero_ip)) == 0;
}

bool ip__is_zero(const uint8_t ip[16])
{
	return memcmp(ip, zero_ip, sizeof(zero_ip)) == 0;
}

/* V in decimal at P; the end. */
static char *put_dec(char *p, unsigned v)
{
	char t[10];
	int n = 0;

	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = t[--n];
	return p;
}

/* Room put_addr needs: an IPv6 address, ':' and a port */
#define ADDR_MAX (INET6_ADDRSTRLEN + 6)

/* "ADDR:PORT" at P (ADDR_MAX bytes of room, no NUL written); its end, or
 * NULL. By hand, not snprintf: a socket's name is made at every connect and
 * accept, and snprintf took a fifth of the agent's time in a connect storm
 * (bench/tcp/README.md). IPv6 keeps inet_ntop for RFC 5952's form. */
static char *put_addr(char *p, uint8_t family, const uint8_t *ip, uint16_t port)
{
	if (family == PPM_AF_INET6) {
		if (!inet_ntop(AF_INET6, ip, p, INET6_ADDRSTRLEN))
			return NULL;
		p += strlen(p);
	} else {
		for (int i = 0; i < 4; i++) {
			if (i)
				*p++ = '.';
			p = put_dec(p, ip[i]);
		}
	}
	*p++ = ':';
	return put_dec(p, port);
}

int sock__format_addr(uint8_t family, const uint8_t *ip, uint16_t port, char *out, size_t n)
{
	char a[ADDR_MAX], *end = put_addr(a, family, ip, port);

	if (!end)
		return -EINVAL;
	if ((size_t)(end - a) >= n)
		return -ENAMETOOLONG;
	memcpy(out, a, (size_t)(end - a));
	out[end - a] = '\0';
	return 0;
}

int sock__set_tuple_name(struct fd_info *fi)
{
	char name[2 * ADDR_MAX + 2], *p = put_addr(name, fi->family, fi->sip, fi->sport);

	if (!p)
		return -EINVAL;
	*p++ = '-';
	*p++ = '>';
	p = put_addr(p, fi->family, fi->dip, fi->dport);
	if (!p)
		return -EINVAL;
	return fd_info__set_name(fi, name, (size_t)(p - name));
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

/* One end of an address param: N address bytes at V (4: IPv4), the port at P. */
static void end__decode(uint8_t ip[16], uint16_t *port, const uint8_t *v, size_t n,
			const uint8_t *p)
{
	memset(ip, 0, 16);
	memcpy(ip, v, n);
	*port = schema__u16(p);
}

/* The bytes of an IPv6 end as kept: its IPv4 address when it stands for one. */
#define END6(v, v4) ((v4) ? (v) + 12 : (v)), ((v4) ? 4u : 16u)

int sock__decode_tuple(struct fd_info *fi, const uint8_t *v, uint16_t len)
{
	bool v4;

	if (len >= 13 && v[0] == PPM_AF_INET) {
		end__decode(fi->sip, &fi->sport, v + 1, 4, v + 5);
		end__decode(fi->dip, &fi->dport, v + 7, 4, v + 11);
		sock__set_family(fi, PPM_AF_INET);
		return 0;
	}
	if (len < 37 || v[0] != PPM_AF_INET6)
		return -EINVAL;
	/* IPv4 on an IPv6 socket (both ends) is shown as IPv4, as sysdig does */
	v4 = ip6__is_v4(v + 1) && ip6__is_v4(v + 19);
	end__decode(fi->sip, &fi->sport, END6(v + 1, v4), v + 17);
	end__decode(fi->dip, &fi->dport, END6(v + 19, v4), v + 35);
	sock__set_family(fi, v4 ? PPM_AF_INET : PPM_AF_INET6);
	return 0;
}

int sock__decode_addr(struct fd_info *fi, const uint8_t *v, uint16_t len)
{
	bool v4;

	if (len >= 7 && v[0] == PPM_AF_INET) {
		end__decode(fi->dip, &fi->dport, v + 1, 4, v + 5);
		sock__set_family(fi, PPM_AF_INET);
		return 0;
	}
	if (len < 19 || v[0] != PPM_AF_INET6)
		return -EINVAL;
	v4 = ip6__is_v4(v + 1);
	end__decode(fi->dip, &fi->dport, END6(v + 1, v4), v + 17);
	sock__set_family(fi, v4 ? PPM_AF_INET : PPM_AF_INET6);
	return 0;
}

int sock__tuple_unix(struct fd_info *fi, const uint8_t *v, uint16_t len)
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
		return sock__tuple_unix(fi, v, len);
	if (sock__decode_tuple(fi, v, len) < 0)
		return -EINVAL;
	return sock__set_tuple_name(fi);
}

int sock__from_addr(struct fd_info *fi, const uint8_t *v, uint16_t len)
{
	struct fd_info a = { 0 };
	char name[INET6_ADDRSTRLEN + 8];
	int err;

	if (len >= 1 && v[0] == PPM_AF_UNIX) {
		sock__set_family(fi, PPM_AF_UNIX);
		fi->is_server = true;
		return fd_info__set_name(fi, (const char *)v + 1, bounded_strlen(v + 1, len - 1u));
	}
	if (sock__decode_addr(&a, v, len) < 0)
		return -EINVAL;
	/* the name as the param prints (an IPv6 address stays IPv6 there) */
	err = v[0] == PPM_AF_INET6 ? sock__format_addr(PPM_AF_INET6, v + 1, a.dport, name, sizeof(name))
				   : sock__format_addr(PPM_AF_INET, a.dip, a.dport, name, sizeof(name));
	if (err < 0)
		return err;
	/* a port 0 (the kernel picks one later) only names the socket, as in
	 * sysdig: it is no server's */
	if (a.dport) {
		fi->family = a.family;
		fi->type = a.type;
		memset(fi->sip, 0, sizeof(fi->sip));
		fi->sport = 0;
		memcpy(fi->dip, a.dip, sizeof(fi->dip));
		fi->dport = a.dport;
		fi->is_server = true;
		fi->no_role = false;
		fi->msg_server = false;
	}
	return fd_info__set_name(fi, name, strlen(name));
}
