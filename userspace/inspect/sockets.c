/* SOCKTUPLE / SOCKADDR params (FORMATS.md section 1) into socket fd state and
 * names formatted as sysdig prints them: "1.2.3.4:5->6.7.8.9:10",
 * "2001:db8::4:54405->2001:db8::3:1234", unix "0->ffff94dc817b9400 /path". */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
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

int sock__from_tuple(struct fd_info *fi, const uint8_t *v, uint16_t len)
{
	if (len < 1)
		return -EINVAL;
	switch (v[0]) {
	case PPM_AF_INET:
		if (len < 13)
			return -EINVAL;
		memset(fi->sip, 0, sizeof(fi->sip));
		memset(fi->dip, 0, sizeof(fi->dip));
		memcpy(fi->sip, v + 1, 4);
		fi->sport = schema__u16(v + 5);
		memcpy(fi->dip, v + 7, 4);
		fi->dport = schema__u16(v + 11);
		sock__set_family(fi, PPM_AF_INET);
		return sock__set_tuple_name(fi);
	case PPM_AF_INET6:
		if (len < 37)
			return -EINVAL;
		fi->sport = schema__u16(v + 17);
		fi->dport = schema__u16(v + 35);
		/* IPv4 traffic on an IPv6 socket: sysdig shows it as IPv4. */
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
		return sock__set_tuple_name(fi);
	case PPM_AF_UNIX: {
		char name[128 + 40];
		size_t plen;
		int n;

		if (len < 17)
			return -EINVAL;
		plen = bounded_strlen(v + 17, len - 17u);
		if (plen > 128)
			plen = 128;
		n = snprintf(name, sizeof(name), "%" PRIx64 "->%" PRIx64 " %.*s",
			     schema__u64(v + 1), schema__u64(v + 9), (int)plen,
			     (const char *)v + 17);
		sock__set_family(fi, PPM_AF_UNIX);
		return fd_info__set_name(fi, name, (size_t)n);
	}
	default:
		return -EINVAL;
	}
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
