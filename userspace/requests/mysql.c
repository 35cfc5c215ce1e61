/* MySQL client/server protocol (the 4.1 protocol MySQL 5.x-8.x and MariaDB
 * speak): packets of a 3-byte little-endian length and a sequence id. A
 * connection opens with the server's greeting, the client's login and the
 * server's OK or ERR (an auth switch may come between); then commands. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mysql.h"

#define MYSQL_HDR 4
/* OK and ERR packets are short (an ERR message is at most 512 bytes); a
 * bound keeps a DNS response (flags 0x81..: 8 MiB) from reading as an OK. */
#define MYSQL_MAX_REPLY 0xffffu
/* A greeting: protocol 10, a version of up to 60 bytes, a scramble, flags
 * and an auth plugin's name: about 100 bytes. */
#define MYSQL_MAX_GREETING 1024u
/* A login: flags, max packet size, character set, 23 bytes of filler, then
 * the user, auth data, database, plugin and attributes. */
#define MYSQL_LOGIN_FIXED 32u

/* The capability flags (CLIENT_*) the handshake's parsing reads. */
#define CAP_LONG_PASSWORD 0x1u	/* MariaDB's clients clear it: their flags then
				 * fill the filler's last 4 bytes */
#define CAP_CONNECT_WITH_DB 0x8u
#define CAP_PROTOCOL_41 0x200u
#define CAP_SSL 0x800u
#define CAP_SECURE_CONNECTION 0x8000u
#define CAP_AUTH_LENENC 0x200000u	/* PLUGIN_AUTH_LENENC_CLIENT_DATA */

/* What follows the command byte: nothing, text (to the end), a name ended
 * by a NUL (then more), a 4-byte statement or thread id, anything. */
enum arg { ARG_NONE, ARG_TEXT, ARG_NAME, ARG_STMT, ARG_ANY };

/* A command: its byte, name, what follows it and the payload sizes it may
 * have (max 0: any). Exact sizes keep other protocols' bytes out. */
struct mysql_cmd {
	uint8_t cmd;
	const char *name;
	enum arg arg;
	uint32_t min, max;
};

static const struct mysql_cmd cmds[] = {
	{ 0x01, "QUIT", ARG_NONE, 1, 1 },
	{ 0x02, "INIT_DB", ARG_TEXT, 2, 0 },
	{ 0x03, "QUERY", ARG_TEXT, 2, 0 },
	{ 0x04, "FIELD_LIST", ARG_NAME, 2, 0 },
	{ 0x09, "STATISTICS", ARG_NONE, 1, 1 },
	{ 0x0c, "PROCESS_KILL", ARG_STMT, 5, 5 },
	{ 0x0d, "DEBUG", ARG_NONE, 1, 1 },
	{ 0x0e, "PING", ARG_NONE, 1, 1 },
	{ 0x11, "CHANGE_USER", ARG_ANY, 2, 0 },
	{ 0x16, "STMT_PREPARE", ARG_TEXT, 2, 0 },
	{ 0x17, "STMT_EXECUTE", ARG_STMT, 10, 0 },
	{ 0x18, "STMT_SEND_LONG_DATA", ARG_STMT, 7, 0 },
	{ 0x19, "STMT_CLOSE", ARG_STMT, 5, 5 },
	{ 0x1a, "STMT_RESET", ARG_STMT, 5, 5 },
	{ 0x1b, "SET_OPTION", ARG_NONE, 3, 3 },
	{ 0x1c, "STMT_FETCH", ARG_STMT, 9, 9 },
	/* MariaDB's: many rows of parameters at once (libmariadb's array
	 * binding, Connector/J's batches) */
	{ 0xfa, "STMT_BULK_EXECUTE", ARG_STMT, 7, 0 },
	{ 0x1f, "RESET_CONNECTION", ARG_NONE, 1, 1 },
};

static uint32_t le16(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const uint8_t *p)
{
	return le16(p) | le16(p + 2) << 16;
}

/* The text of N of its LEN bytes into TARGET, cut, unprintable bytes as
 * '?'. A NUL ends a NAME. In SQL text a NUL can only be the last byte: the C
 * string's end, which mysqlslap and mariadb-slap send with their generated
 * statements and the server's parser takes as the end; anywhere else it
 * refuses (the server reads a syntax error there). */
static int text_target(const uint8_t *t, size_t n, size_t len, bool name, struct req_head *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint8_t c = t[i];

		if (!c) {
			if (!name && i + 1 != len)
				return -ENOMSG;
			break;
		}
		if (i + 1 >= sizeof(out->target))
			continue;
		if (c == '\t' || c == '\r' || c == '\n')
			c = ' ';
		out->target[i] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
	}
	out->target[i < sizeof(out->target) ? i : sizeof(out->target) - 1] = '\0';
	return 0;
}

/* P: the payload, N of its PLEN bytes in BUF. */
static int parse_request(const uint8_t *p, size_t n, uint32_t plen, struct req_head *out)
{
	const struct mysql_cmd *c = NULL;
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (cmds[i].cmd == p[0])
			c = &cmds[i];
	if (!c || plen < c->min || (c->max && plen > c->max))
		return -ENOMSG;
	strcpy(out->method, c->name);
	switch (c->arg) {
	case ARG_TEXT:
	case ARG_NAME:
		/* The first byte of SQL or a name is never a control byte. */
		if (n >= 2 && p[1] < 0x20 && p[1] != '\t' && p[1] != '\r' && p[1] != '\n')
			return -ENOMSG;
		return text_target(p + 1, n - 1, plen - 1, c->arg == ARG_NAME, out);
	case ARG_STMT:
		if (n < 5)
			return -EAGAIN;
		snprintf(out->target, sizeof(out->target), "%u", le32(p + 1));
		/* COM_STMT_EXECUTE: flags (cursor type), iteration count always 1. */
		if (c->cmd == 0x17) {
			if (n < 10)
				return -EAGAIN;
			if (p[5] & ~0x0fu || le32(p + 6) != 1)
				return -ENOMSG;
		}
		/* COM_STMT_BULK_EXECUTE: flags, of which MariaDB knows two
		 * (send types, 128; send unit results, 64) */
		if (c->cmd == 0xfa) {
			if (n < 7)
				return -EAGAIN;
			if (le16(p + 5) & ~0xc0u)
				return -ENOMSG;
		}
		if (c->cmd != 0x0c)
			out->stmt = (uint64_t)le32(p + 1) + 1;
		/* the server answers neither */
		out->no_resp = c->cmd == 0x18 || c->cmd == 0x19;
		return 0;
	default:
		return 0;
	}
}

/* The size of the length-encoded integer starting with C; 0: none. */
static uint32_t lenenc_size(uint8_t c)
{
	if (c < 0xfb)
		return 1;
	if (c == 0xfc)
		return 3;
	if (c == 0xfd)
		return 4;
	if (c == 0xfe)
		return 9;
	return 0;
}

static int parse_response(const uint8_t *p, size_t n, uint32_t plen, struct req_head *out)
{
	size_t i;

	switch (p[0]) {
	case 0x00:
		/* OK: header, affected rows, insert id, status, warnings. */
		if (plen < 7 || plen > MYSQL_MAX_REPLY)
			return -ENOMSG;
		strcpy(out->method, "OK");
		/* COM_STMT_PREPARE's OK: the statement id, the column and
		 * parameter counts, a 0, the warnings (an OK of 12 bytes to
		 * another command reads so too: the pairing asks only of a
		 * STMT_PREPARE's answer) */
		if (plen == 12 && n >= 10 && !p[9])
			out->stmt = (uint64_t)le32(p + 1) + 1;
		return 0;
	case 0xff:
		/* ERR: header, error number, then "#" and the SQL state (4.1). */
		if (plen < 4 || plen > MYSQL_MAX_REPLY)
			return -ENOMSG;
		if (n < (plen < 9 ? plen : 9))
			return -EAGAIN;
		if (le16(p + 1) < 1000)
			return -ENOMSG;
		if (le16(p + 1) == 0xffff) {
			/* MariaDB's progress report (to a client that asked for
			 * them: the mariadb client does): a count of 1, the
			 * stage, the stages, 3 bytes of progress, what it does
			 * (a length-encoded string); the answer follows */
			if (plen < 9 || p[3] != 1)
				return -ENOMSG;
			strcpy(out->method, "PROGRESS");
			return 0;
		}
		if (p[3] == '#') {
			if (plen < 9)
				return -ENOMSG;
			for (i = 4; i < 9; i++)
				if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'A' && p[i] <= 'Z')))
					return -ENOMSG;
			memcpy(out->code, p + 4, 5);
			out->code[5] = '\0';
		} else if (p[3] < 0x20 || p[3] >= 0x7f) {
			return -ENOMSG;
		}
		strcpy(out->method, "ERR");
		out->status = (int32_t)le16(p + 1);
		out->error = true;
		return 0;
	case 0xfe:
		if (plen >= 9)
			return -ENOMSG;
		strcpy(out->method, "EOF");
		return 0;
	case 0xfb:
		/* LOAD DATA LOCAL's request for the client's file: its name
		 * (a column count is never 0xfb, NULL's byte in a row) */
		if (plen < 2 || plen > MYSQL_MAX_REPLY)
			return -ENOMSG;
		for (i = 1; i < n; i++)
			if (p[i] < 0x20 || p[i] >= 0x7f)
				return -ENOMSG;
		strcpy(out->method, "LOCAL_INFILE");
		return 0;
	default:
		/* The column count packet holds that integer, then with
		 * MariaDB's CACHE_METADATA and MySQL 8's OPTIONAL_RESULTSET_METADATA
		 * one byte saying whether column definitions follow (0 or 1). The
		 * greeting (0x0a, protocol 10) is longer and so refused. */
		if (!lenenc_size(p[0]) || plen < lenenc_size(p[0]) || plen > lenenc_size(p[0]) + 1)
			return -ENOMSG;
		if (plen > lenenc_size(p[0]) && n == plen && p[plen - 1] > 1)
			return -ENOMSG;
		strcpy(out->method, "RESULTSET");
		return 0;
	}
}

/* The greeting (protocol 10): the server's version to its NUL, a thread id,
 * 8 bytes of scramble, a 0, the low capability flags (PROTOCOL_41: the
 * protocol this parser reads); what follows varies with them. Target: the
 * version. */
static int parse_greeting(const uint8_t *p, size_t n, uint32_t plen, struct req_head *out)
{
	size_t last, v, k;

	if (p[0] != 0x0a || plen < 18 || plen > MYSQL_MAX_GREETING)
		return -ENOMSG;
	/* A version starts with its major number. */
	if (n >= 2 && !(p[1] >= '1' && p[1] <= '9'))
		return -ENOMSG;
	/* its NUL leaves room for the 15 bytes up to the flags */
	last = plen - 16;
	for (v = 1; v < n && v <= last && p[v]; v++)
		if (p[v] < 0x20 || p[v] >= 0x7f)
			return -ENOMSG;
	if (v > last)
		return -ENOMSG;
	k = v - 1 < sizeof(out->target) - 1 ? v - 1 : sizeof(out->target) - 1;
	memcpy(out->target, p + 1, k);
	out->target[k] = '\0';
	if ((v + 13 < n && p[v + 13]) || (v + 15 < n && !(p[v + 15] & CAP_PROTOCOL_41 >> 8)))
		return -ENOMSG;
	strcpy(out->method, "GREETING");
	return 0;
}

/* A NUL-terminated name at *OFF of the PLEN bytes of P (N in BUF) appended
 * to TARGET at *T, unprintable bytes as '?'; *OFF past its NUL. -ENOMSG:
 * no NUL in the packet, or a control byte; -EAGAIN: its end is not in BUF. */
static int login_name(const uint8_t *p, size_t n, uint32_t plen, size_t *off, size_t *t,
		      struct req_head *out)
{
	size_t i;

	for (i = *off; i < n && i < plen && p[i]; i++) {
		if (p[i] < 0x20)
			return -ENOMSG;
		if (*t + 1 < sizeof(out->target))
			out->target[(*t)++] = p[i] >= 0x7f ? '?' : (char)p[i];
	}
	out->target[*t] = '\0';
	if (i >= plen)
		return -ENOMSG;
	if (i >= n)
		return -EAGAIN;
	*off = i + 1;
	return 0;
}

/* The client's login (HandshakeResponse41, sequence 1, or 2 after an SSL
 * request): flags with
 * PROTOCOL_41, max packet size, character set, 23 zero bytes (MariaDB's
 * flags in the last 4 when LONG_PASSWORD is clear), the user, the auth data
 * (length-encoded, one length byte, or to a NUL, as the flags say), the
 * database with CONNECT_WITH_DB. Target "USER@DATABASE", or "USER" when it
 * names none. Just the fixed part with CLIENT_SSL: the SSL request, TLS
 * follows. */
static int parse_login(const uint8_t *p, size_t n, uint32_t plen, struct req_head *out)
{
	size_t zeros = n >= 1 && !(p[0] & CAP_LONG_PASSWORD) ? 28 : MYSQL_LOGIN_FIXED;
	size_t off = MYSQL_LOGIN_FIXED, t = 0, i;
	uint32_t caps;
	int err;

	if (plen < MYSQL_LOGIN_FIXED || plen > MYSQL_MAX_REPLY ||
	    (n >= 2 && !(p[1] & CAP_PROTOCOL_41 >> 8)))
		return -ENOMSG;
	for (i = 9; i < zeros && i < n; i++)
		if (p[i])
			return -ENOMSG;
	if (n < MYSQL_LOGIN_FIXED)
		return -EAGAIN;
	caps = le32(p);
	if (plen == MYSQL_LOGIN_FIXED) {
		if (!(caps & CAP_SSL))
			return -ENOMSG;
		strcpy(out->method, "SSLREQUEST");
		return 0;
	}
	strcpy(out->method, "HANDSHAKE");
	err = login_name(p, n, plen, &off, &t, out);
	if (err || !(caps & CAP_CONNECT_WITH_DB))
		return err == -EAGAIN ? 0 : err;
	/* the auth data, to find the database after it */
	if (off >= n)
		return 0;
	if (caps & (CAP_AUTH_LENENC | CAP_SECURE_CONNECTION)) {
		uint32_t size = caps & CAP_AUTH_LENENC ? lenenc_size(p[off]) : 1;

		/* (a length past 64 KiB: no login) */
		if (!size || size > 3 || off + size > plen)
			return -ENOMSG;
		if (off + size > n)
			return 0;
		off += size + (size == 1 ? p[off] : le16(p + off + 1));
	} else {
		/* up to a NUL */
		while (off < n && p[off])
			off++;
		if (off >= n)
			return off < plen ? 0 : -ENOMSG;
		off++;
	}
	/* the database's NUL is in the packet */
	if (off >= plen)
		return -ENOMSG;
	if (off >= n || !p[off])
		return 0;
	if (t + 1 < sizeof(out->target))
		out->target[t++] = '@';
	err = login_name(p, n, plen, &off, &t, out);
	return err == -EAGAIN ? 0 : err;
}

int mysql__parse(const uint8_t *buf, size_t len, bool request, struct req_head *out)
{
	uint32_t plen;
	size_t n;
	int err;

	req_head__clear(out);
	/* No packet is empty; three bytes cannot say more than 16 MiB - 1
	 * (0xffffff: a longer payload continues in the next packet). */
	if (len >= 3 && (buf[0] | buf[1] | buf[2]) == 0)
		return -ENOMSG;
	/* Commands start a sequence (0), the login answers the greeting (0)
	 * with 1, or with 2 inside TLS after an SSL request (1); the replies
	 * follow (1 and on). */
	if (len >= 4 && request && buf[3] > 2)
		return -ENOMSG;
	if (len <= MYSQL_HDR)
		return -EAGAIN;
	plen = buf[0] | (uint32_t)buf[1] << 8 | (uint32_t)buf[2] << 16;
	n = len - MYSQL_HDR < plen ? len - MYSQL_HDR : plen;
	if (request)
		err = buf[3] ? parse_login(buf + MYSQL_HDR, n, plen, out)
			     : parse_request(buf + MYSQL_HDR, n, plen, out);
	else
		err = buf[3] ? parse_response(buf + MYSQL_HDR, n, plen, out)
			     : parse_greeting(buf + MYSQL_HDR, n, plen, out);
	/* (the SSL request is the sequence's 1, never its 2) */
	if (!err && request && buf[3] == 2 && strcmp(out->method, "HANDSHAKE"))
		err = -ENOMSG;
	if (err) {
		req_head__clear(out);
		return err;
	}
	out->proto = REQ_PROTO_MYSQL;
	out->request = request;
	out->total_len = MYSQL_HDR + (uint64_t)plen;
	out->len_known = true;
	return 0;
}

int mysql__auth_end(const uint8_t *buf, size_t len, struct req_head *out)
{
	size_t off = 0;

	req_head__clear(out);
	while (len - off > MYSQL_HDR) {
		const uint8_t *b = buf + off;

		switch (b[MYSQL_HDR]) {
		case 0x00:
		case 0xff:
			return mysql__parse(b, len - off, false, out);
		case 0x01:	/* more data (caching_sha2_password's, ...) */
		case 0xfe:	/* auth switch request */
			off += MYSQL_HDR + (b[0] | (size_t)b[1] << 8 | (size_t)b[2] << 16);
			if (off > len)
				return -EAGAIN;
			break;
		default:
			return -ENOMSG;
		}
	}
	return -EAGAIN;
}
