/* TLS records (RFC 5246 6.2, RFC 8446 5.1) and the ClientHello's server_name
 * extension (RFC 6066 3). */
#include <errno.h>
#include <string.h>

#include "tls.h"

#define TLS_HDR 5
#define TLS_MAX_RECORD (16384 + 2048)

enum { CT_CCS = 20, CT_ALERT, CT_HANDSHAKE, CT_APP_DATA };

static uint32_t be16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

/* 0: the N bytes at P can start a record header; -ENOMSG: not. */
static int header_ok(const uint8_t *p, size_t n)
{
	if (n >= 1 && (p[0] < CT_CCS || p[0] > CT_APP_DATA))
		return -ENOMSG;
	if (n >= 2 && p[1] != 3)
		return -ENOMSG;
	if (n >= 3 && p[2] > 4)
		return -ENOMSG;
	if (n >= 4 && p[3] > TLS_MAX_RECORD >> 8)
		return -ENOMSG;
	if (n >= 5 && be16(p + 3) > TLS_MAX_RECORD)
		return -ENOMSG;
	return 0;
}

/* The server name from a ClientHello body H of N bytes (those in BUF, within
 * its handshake length): every length checked against N. */
static void client_hello_sni(const uint8_t *h, size_t n, struct req_head *out)
{
	size_t off = 2 + 32, end, i;

	/* Session id, cipher suites, compression methods. */
	if (off + 1 > n)
		return;
	off += 1 + h[off];
	if (off + 2 > n)
		return;
	off += 2 + be16(h + off);
	if (off + 1 > n)
		return;
	off += 1 + h[off];
	if (off + 2 > n)
		return;
	end = off + 2 + be16(h + off);
	if (end > n)
		end = n;
	for (off += 2; off + 4 <= end; off += 4 + be16(h + off + 2)) {
		size_t elen = be16(h + off + 2), nlen;
		const uint8_t *e = h + off + 4;

		if (be16(h + off) != 0)
			continue;
		/* server_name_list: length, then type 0 (host_name), length, name. */
		if (off + 4 + elen > end || elen < 5 || e[2] != 0)
			return;
		nlen = be16(e + 3);
		if (5 + nlen > elen || nlen == 0 || nlen >= sizeof(out->target))
			return;
		for (i = 0; i < nlen; i++)
			if (e[5 + i] <= 0x20 || e[5 + i] >= 0x7f)
				return;
		memcpy(out->target, e + 5, nlen);
		out->target[nlen] = '\0';
		return;
	}
}

int tls__parse(const uint8_t *buf, size_t len, bool request, struct req_head *out)
{
	uint32_t rlen, hlen;
	size_t n;

	req_head__clear(out);
	if (header_ok(buf, len))
		return -ENOMSG;
	if (len < TLS_HDR)
		return -EAGAIN;
	rlen = be16(buf + 3);
	if (rlen == 0 && buf[0] != CT_APP_DATA)
		return -ENOMSG;
	/* The next record, when its start is here, must be a record too. */
	if (len > TLS_HDR + rlen &&
	    header_ok(buf + TLS_HDR + rlen, len - TLS_HDR - rlen))
		return -ENOMSG;
	n = len - TLS_HDR < rlen ? len - TLS_HDR : rlen;
	switch (buf[0]) {
	case CT_CCS:
		if (rlen != 1 || (n && buf[5] != 1))
			return -ENOMSG;
		strcpy(out->method, "CHANGE_CIPHER_SPEC");
		break;
	case CT_ALERT:
		if (rlen < 2)
			return -ENOMSG;
		strcpy(out->method, "ALERT");
		break;
	case CT_APP_DATA:
		strcpy(out->method, "APPLICATION_DATA");
		break;
	default:
		if (n < 1)
			return -EAGAIN;
		/* A hello is never encrypted: its length fits its record. */
		if (buf[5] == 1 || buf[5] == 2) {
			if ((buf[5] == 1) != request)
				return -ENOMSG;
			/* Type, length, version 3.0-3.4 (TLS 1.3 says 3.3). */
			if (n < 6)
				return -EAGAIN;
			hlen = (uint32_t)buf[6] << 16 | be16(buf + 7);
			if (hlen < 38 || buf[9] != 3 || buf[10] > 4)
				return -ENOMSG;
			if (buf[5] == 1) {
				strcpy(out->method, "CLIENT_HELLO");
				client_hello_sni(buf + 9, n - 4 < hlen ? n - 4 : hlen, out);
			} else {
				strcpy(out->method, "SERVER_HELLO");
			}
		} else {
			strcpy(out->method, "HANDSHAKE");
		}
	}
	out->proto = REQ_PROTO_TLS;
	out->request = request;
	out->total_len = TLS_HDR + (uint64_t)rlen;
	out->len_known = true;
	return 0;
}
