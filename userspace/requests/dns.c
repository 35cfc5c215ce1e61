/* DNS messages (RFC 1035 4.1): a 12-byte header, then the question. Names
 * are labels of 1-63 bytes, 255 bytes in all; compression pointers are
 * followed only backwards, a bounded number of times (in the question, the
 * first name, a pointer can only loop, but one is followed as any other). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dns.h"

#define HDR_LEN 12
#define HOPS_MAX 16	/* compression pointers followed in one name */
#define RR_MIN 11	/* bytes of the smallest resource record */

static const struct {
	uint16_t type;
	const char *name;
} types[] = {
	{ 1, "A" }, { 2, "NS" }, { 5, "CNAME" }, { 6, "SOA" }, { 12, "PTR" },
	{ 13, "HINFO" }, { 15, "MX" }, { 16, "TXT" }, { 28, "AAAA" }, { 33, "SRV" },
	{ 35, "NAPTR" }, { 43, "DS" }, { 46, "RRSIG" }, { 47, "NSEC" }, { 48, "DNSKEY" },
	{ 52, "TLSA" }, { 64, "SVCB" }, { 65, "HTTPS" }, { 99, "SPF" }, { 251, "IXFR" },
	{ 252, "AXFR" }, { 255, "ANY" }, { 257, "CAA" },
};

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Appends C to the name (dig's escapes for the rest, unless RAW), while it fits. */
static void name_put(struct req_head *out, size_t *n, uint8_t c, bool raw)
{
	char esc[5];
	size_t k = 1;

	if (raw || (c > 0x20 && c < 0x7f && c != '.' && c != '\\'))
		esc[0] = (char)c;
	else
		k = (size_t)snprintf(esc, sizeof(esc), "\\%03u", c);
	if (*n + k >= sizeof(out->target))
		return;
	memcpy(out->target + *n, esc, k);
	*n += k;
	out->target[*n] = '\0';
}

/* The question's name at offset 12 into OUT->target: *AT the offset after it
 * (where the name ends in place, before any pointer). */
static int parse_name(const uint8_t *buf, size_t len, struct req_head *out, size_t *at)
{
	size_t p = HDR_LEN, n = 0, wire = 0, end = 0;
	int hops = 0;

	for (;;) {
		uint8_t l;

		if (p >= len)
			return -EAGAIN;
		l = buf[p];
		if ((l & 0xc0) == 0xc0) {
			size_t to;

			if (p + 1 >= len)
				return -EAGAIN;
			to = (size_t)(get16(buf + p) & 0x3fff);
			/* only backwards, and a bounded number of times: a loop ends */
			if (++hops > HOPS_MAX || to < HDR_LEN || to >= p)
				return -ENOMSG;
			if (!end)
				end = p + 2;
			p = to;
			continue;
		}
		if (l & 0xc0)
			return -ENOMSG;
		wire += 1 + l;
		if (wire > 255)
			return -ENOMSG;
		if (l == 0)
			break;
		if (p + 1 + l > len)
			return -EAGAIN;
		if (n)
			name_put(out, &n, '.', true);
		for (size_t i = 0; i < l; i++)
			name_put(out, &n, buf[p + 1 + i], false);
		p += 1 + l;
	}
	if (!n)
		strcpy(out->target, ".");
	*at = end ? end : p + 1;
	return 0;
}

static int parse(const uint8_t *buf, size_t len, bool request, struct req_head *out)
{
	/* a short header is checked as far as it goes: the rest as a valid one */
	uint8_t hdr[HDR_LEN] = { 0, 0, request ? 0 : 0x80, 0, 0, 1 };
	uint16_t qd, an, ns, ar, type, class;
	uint8_t f1, f2, rcode;
	size_t at;
	int r;

	memcpy(hdr, buf, len < HDR_LEN ? len : HDR_LEN);
	f1 = hdr[2];
	f2 = hdr[3];
	rcode = f2 & 0x0f;
	qd = get16(hdr + 4);
	an = get16(hdr + 6);
	ns = get16(hdr + 8);
	ar = get16(hdr + 10);
	/* QR as REQUEST says, opcode QUERY, Z clear, rcodes 0-10 (RFC 6895) */
	if (!(f1 & 0x80) != request || (f1 & 0x78) || (f2 & 0x40) || rcode > 10 || qd != 1)
		return -ENOMSG;
	/* a query: no AA, TC, RA, rcode, answers or authority; OPT and TSIG at most */
	if (request && ((f1 & 0x06) || (f2 & 0x80) || rcode || an || ns || ar > 2))
		return -ENOMSG;
	if (((size_t)an + ns + ar) * RR_MIN > 65535 - HDR_LEN)
		return -ENOMSG;
	if (len < HDR_LEN)
		return -EAGAIN;
	r = parse_name(buf, len, out, &at);
	if (r)
		return r;
	if (len - at < 4)
		return -EAGAIN;
	type = get16(buf + at);
	class = get16(buf + at + 2) & 0x7fff;	/* mDNS's unicast-response bit */
	if (!type || (class != 1 && class != 3 && class != 4 && class != 254 && class != 255))
		return -ENOMSG;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].type == type)
			snprintf(out->method, sizeof(out->method), "%s", types[i].name);
	if (!out->method[0])
		snprintf(out->method, sizeof(out->method), "TYPE%u", type);
	out->id = get16(buf);
	if (!request) {
		out->status = rcode;
		out->error = rcode != 0;
	}
	return 0;
}

int dns__parse(const uint8_t *buf, size_t len, bool request, struct req_head *out)
{
	int r;

	req_head__clear(out);
	r = parse(buf, len, request, out);
	if (r) {
		req_head__clear(out);
		return r;
	}
	out->proto = REQ_PROTO_DNS;
	out->request = request;
	out->total_len = len;
	out->len_known = true;
	return 0;
}

int dns__parse_tcp(const uint8_t *buf, size_t len, bool request, struct req_head *out)
{
	size_t n;
	int r;

	req_head__clear(out);
	if (len < 2)
		return -EAGAIN;
	n = get16(buf);
	if (n < HDR_LEN)
		return -ENOMSG;
	r = parse(buf + 2, len - 2 < n ? len - 2 : n, request, out);
	/* the whole message is here, and its question is not in it */
	if (r == -EAGAIN && len - 2 >= n)
		r = -ENOMSG;
	if (r) {
		req_head__clear(out);
		return r;
	}
	out->proto = REQ_PROTO_DNS;
	out->request = request;
	out->total_len = 2 + n;
	out->len_known = true;
	return 0;
}
