/* PostgreSQL frontend/backend protocol 3.0 (PostgreSQL 7.4 to 17): typed
 * messages (type byte, big-endian length that counts itself), and the
 * untyped first message of a connection (startup, SSL/GSS request, cancel). */
#include <errno.h>
#include <string.h>

#include "pgsql.h"

#define PG_MAX_LEN 0x40000000u		/* 1 GiB: the server's own limit */
#define PG_MAX_STARTUP 10000u		/* MAX_STARTUP_PACKET_LENGTH */
#define PG_PROTO_3 196608u		/* 3.0 */

enum body { B_NONE, B_QUERY, B_PARSE, B_BIND, B_EXECUTE, B_WHICH, B_FIELDS, B_TAG, B_READY,
	    B_AUTH, B_NAME };

/* A message type for one direction: its name, length range (max 0: up to
 * 1 GiB) and what its body holds. */
struct pg_msg {
	char type;
	bool request;
	char name[REQ_METHOD_MAX];	/* whole, so a copy is of a fixed size */
	uint32_t min, max;
	enum body body;
	bool later;	/* seen only after others (COPY's): never a start */
};

static const struct pg_msg msgs[] = {
	{ 'Q', true, "QUERY", 5, 0, B_QUERY, false },
	{ 'P', true, "PARSE", 8, 0, B_PARSE, false },
	{ 'B', true, "BIND", 12, 0, B_BIND, false },
	{ 'E', true, "EXECUTE", 9, 0, B_EXECUTE, false },
	{ 'D', true, "DESCRIBE", 6, 0, B_WHICH, false },
	{ 'C', true, "CLOSE", 6, 0, B_WHICH, false },
	{ 'S', true, "SYNC", 4, 4, B_NONE, false },
	{ 'H', true, "FLUSH", 4, 4, B_NONE, false },
	{ 'X', true, "TERMINATE", 4, 4, B_NONE, false },
	/* PasswordMessage, SASLInitialResponse, SASLResponse, GSSResponse: the
	 * answer to an authentication request (PG_MAX_AUTH_TOKEN_LENGTH at
	 * most); secrets, so no target */
	{ 'p', true, "AUTH", 4, 65535, B_NONE, false },
	{ 'E', false, "ERROR", 5, 0, B_FIELDS, false },
	{ 'N', false, "NOTICE", 5, 0, B_FIELDS, false },
	{ 'C', false, "COMMAND_COMPLETE", 6, 0, B_TAG, false },
	{ 'T', false, "ROW_DESCRIPTION", 6, 0, B_NONE, false },
	{ 'D', false, "DATA_ROW", 6, 0, B_NONE, false },
	{ 'Z', false, "READY_FOR_QUERY", 5, 5, B_READY, false },
	{ '1', false, "PARSE_COMPLETE", 4, 4, B_NONE, false },
	{ '2', false, "BIND_COMPLETE", 4, 4, B_NONE, false },
	{ '3', false, "CLOSE_COMPLETE", 4, 4, B_NONE, false },
	{ 'n', false, "NO_DATA", 4, 4, B_NONE, false },
	{ 'I', false, "EMPTY_QUERY", 4, 4, B_NONE, false },
	{ 's', false, "PORTAL_SUSPENDED", 4, 4, B_NONE, false },
	{ 't', false, "PARAMETER_DESCRIPTION", 6, 0, B_NONE, false },
	{ 'R', false, "AUTHENTICATION", 8, 0, B_AUTH, false },
	{ 'S', false, "PARAMETER_STATUS", 6, 0, B_NAME, false },
	{ 'K', false, "BACKEND_KEY_DATA", 12, 264, B_NONE, false },
	{ 'A', false, "NOTIFICATION", 10, 0, B_NONE, false },
	/* COPY's data and the function call interface */
	{ 'F', true, "FUNCTION_CALL", 14, 0, B_NONE, true },
	{ 'd', true, "COPY_DATA", 4, 0, B_NONE, true },
	{ 'c', true, "COPY_DONE", 4, 4, B_NONE, true },
	{ 'f', true, "COPY_FAIL", 5, 0, B_NONE, true },
	{ 'G', false, "COPY_IN_RESPONSE", 7, 0, B_NONE, true },
	{ 'H', false, "COPY_OUT_RESPONSE", 7, 0, B_NONE, true },
	{ 'W', false, "COPY_BOTH_RESPONSE", 7, 0, B_NONE, true },
	{ 'd', false, "COPY_DATA", 4, 0, B_NONE, true },
	{ 'c', false, "COPY_DONE", 4, 4, B_NONE, true },
	{ 'V', false, "FUNCTION_CALL_RESPONSE", 8, 0, B_NONE, true },
	{ 'v', false, "NEGOTIATE_VERSION", 12, 0, B_NONE, true },
};

#define N_MSGS (sizeof(msgs) / sizeof(msgs[0]))

/* msgs' index + 1 by direction (1: request) and type byte, 0: none: filled
 * once at load, so each message costs a lookup, not a scan of the table (a
 * batch is many messages). */
static uint8_t by_type[2][128];

__attribute__((constructor)) static void by_type__fill(void)
{
	_Static_assert(N_MSGS < 255, "msgs fits an index byte");
	for (size_t i = 0; i < N_MSGS; i++)
		by_type[msgs[i].request][(uint8_t)msgs[i].type] = (uint8_t)(i + 1);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static bool is_letter(uint8_t c)
{
	return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

/* The offset of the NUL ending the string at OFF of a body of BLEN bytes, N
 * of them in BUF. -EAGAIN: not in BUF yet; -ENOMSG: not in the body. */
static long cstr_end(const uint8_t *b, size_t n, size_t blen, size_t off)
{
	const uint8_t *z = off < n ? memchr(b + off, 0, n - off) : NULL;

	if (z)
		return z - b;
	return n < blen ? -EAGAIN : -ENOMSG;
}

/* N bytes of text into DST (SIZE bytes), cut: tab, CR and LF as a space,
 * other control bytes and bytes outside ASCII as '?'. */
static void copy_text(char *dst, size_t size, const uint8_t *t, size_t n)
{
	size_t i;

	if (n >= size)
		n = size - 1;
	for (i = 0; i < n; i++) {
		uint8_t c = t[i];

		if (c == '\t' || c == '\r' || c == '\n')
			c = ' ';
		dst[i] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
	}
	dst[n] = '\0';
}

/* The SQL text at OFF into the target; LAST: it is the body's last string,
 * so its NUL must end the body. */
static int sql_text(const uint8_t *b, size_t n, size_t blen, size_t off, bool last,
		    struct req_head *out)
{
	long e = cstr_end(b, n, blen, off);

	if (e == -ENOMSG || (e >= 0 && last && (size_t)e != blen - 1))
		return -ENOMSG;
	/* SQL never starts with a control byte. */
	if (off < n && b[off] && b[off] < 0x20 && !strchr("\t\r\n", b[off]))
		return -ENOMSG;
	copy_text(out->target, sizeof(out->target), b + off, (e >= 0 ? (size_t)e : n) - off);
	return 0;
}

/* ErrorResponse and NoticeResponse: fields of a letter and a string, then a
 * NUL. code: the 'C' field (SQLSTATE); target: the 'M' field (message). */
static int fields(const uint8_t *b, size_t n, size_t blen, struct req_head *out)
{
	size_t off = 0, i;
	long e;

	while (off < n) {
		uint8_t t = b[off];

		if (!t)
			return off == blen - 1 ? 0 : -ENOMSG;
		if (!is_letter(t))
			return -ENOMSG;
		e = cstr_end(b, n, blen, off + 1);
		if (e == -ENOMSG)
			return -ENOMSG;
		if (t == 'M')
			copy_text(out->target, sizeof(out->target), b + off + 1,
				  (e >= 0 ? (size_t)e : n) - off - 1);
		if (e < 0)
			return 0;
		if (t == 'C') {
			if (e - off - 1 != 5)
				return -ENOMSG;
			for (i = off + 1; i < (size_t)e; i++)
				if (!((b[i] >= '0' && b[i] <= '9') || (b[i] >= 'A' && b[i] <= 'Z')))
					return -ENOMSG;
			memcpy(out->code, b + off + 1, 5);
			out->code[5] = '\0';
		}
		off = (size_t)e + 1;
	}
	return n < blen ? 0 : -ENOMSG;
}

/* CommandComplete: "SELECT 5", "INSERT 0 1", "CREATE TABLE": the first word
 * as the method, the tag as the target. */
static int tag(const uint8_t *b, size_t n, size_t blen, struct req_head *out)
{
	long e = cstr_end(b, n, blen, 0);
	size_t end = e >= 0 ? (size_t)e : n, i, w;

	if (e == -ENOMSG || (e >= 0 && (size_t)e != blen - 1) || (n && !(b[0] >= 'A' && b[0] <= 'Z')))
		return -ENOMSG;
	for (i = 0; i < end; i++)
		if (!((b[i] >= 'A' && b[i] <= 'Z') || (b[i] >= '0' && b[i] <= '9') || b[i] == ' ' ||
		      b[i] == '_'))
			return -ENOMSG;
	/* A cut first word could be a wrong method: wait for all of it. */
	for (w = 0; w < end && b[w] != ' '; w++)
		;
	if (w == end && e < 0)
		return -EAGAIN;
	if (w >= sizeof(out->method))
		w = sizeof(out->method) - 1;
	memcpy(out->method, b, w);
	out->method[w] = '\0';
	copy_text(out->target, sizeof(out->target), b, end);
	return 0;
}

static int body(const struct pg_msg *m, const uint8_t *b, size_t n, size_t blen,
		struct req_head *out)
{
	long e;

	switch (m->body) {
	case B_QUERY:
		return sql_text(b, n, blen, 0, true, out);
	case B_PARSE:
		/* Statement name, query, parameter type count and types. */
		e = cstr_end(b, n, blen, 0);
		if (e == -ENOMSG)
			return -ENOMSG;
		if (e < 0)
			return 0;
		if ((size_t)e + 4 > blen)
			return -ENOMSG;
		out->stmt = req_name__hash(b, (size_t)e);
		return sql_text(b, n, blen, (size_t)e + 1, false, out);
	case B_BIND: {
		/* Portal name, then the statement's. */
		long s;

		e = cstr_end(b, n, blen, 0);
		if (e == -ENOMSG)
			return -ENOMSG;
		if (e < 0)
			return 0;
		s = cstr_end(b, n, blen, (size_t)e + 1);
		if (s == -ENOMSG || (s >= 0 && (size_t)s + 7 > blen))
			return -ENOMSG;
		if (s >= 0)
			out->stmt = req_name__hash(b + e + 1, (size_t)(s - e - 1));
		return 0;
	}
	case B_EXECUTE:
		/* Portal name and row limit. */
		e = cstr_end(b, n, blen, 0);
		if (e == -ENOMSG || (e >= 0 && (size_t)e + 5 != blen))
			return -ENOMSG;
		return 0;
	case B_WHICH:
		return n && b[0] != 'S' && b[0] != 'P' ? -ENOMSG : 0;
	case B_FIELDS:
		return fields(b, n, blen, out);
	case B_TAG:
		return tag(b, n, blen, out);
	case B_READY:
		return n && !strchr("ITE", b[0]) ? -ENOMSG : 0;
	case B_AUTH:
		/* AuthenticationOk, KerberosV5, CleartextPassword, MD5Password,
		 * GSS, GSSContinue, SSPI, SASL, SASLContinue, SASLFinal. */
		if (n < 4)
			return n < blen ? -EAGAIN : -ENOMSG;
		return be32(b) <= 12 && be32(b) != 1 && be32(b) != 4 ? 0 : -ENOMSG;
	case B_NAME:
		return n && !is_letter(b[0]) ? -ENOMSG : 0;
	default:
		return 0;
	}
}

/* A startup parameter's value: at OFF, LEN bytes of it in BUF, WHOLE when
 * its NUL is there too. */
struct pg_param {
	size_t off, len;
	bool seen, whole;
};

/* The startup's target: USER@DATABASE, or USER when it names no database
 * (as MySQL's handshake is shown), as far as the bytes go: the database only
 * once the user's name is whole (or the message ended naming no user), so a
 * cut message's target is the start of the whole one's. */
static void startup_who(const uint8_t *buf, const struct pg_param *user,
			const struct pg_param *db, bool ended, struct req_head *out)
{
	char *t = out->target;
	size_t size = sizeof(out->target), n = 0;

	if (user->seen) {
		copy_text(t, size, buf + user->off, user->len);
		n = user->len < size - 1 ? user->len : size - 1;
	}
	if (db->seen && (user->whole || (ended && !user->seen)) && n + 1 < size) {
		t[n++] = '@';
		copy_text(t + n, size - n, buf + db->off, db->len);
	}
}

/* The messages with no type byte, which open a connection: LENGTH and CODE. */
static int untyped(const uint8_t *buf, size_t len, struct req_head *out)
{
	static const struct { uint32_t code; const char *name; uint32_t min, max; } kinds[] = {
		{ PG_PROTO_3, "STARTUP", 9, PG_MAX_STARTUP },
		{ 80877103, "SSLREQUEST", 8, 8 },
		{ 80877104, "GSSENCREQUEST", 8, 8 },
		{ 80877102, "CANCEL", 16, 268 },
	};
	struct pg_param user = { 0 }, db = { 0 }, *par;
	bool ended = false;
	uint8_t code[4];
	uint32_t mlen;
	size_t i, k, have, vis, off;
	long e, v;

	/* Until all 8 bytes are in, they must be a prefix of one of the kinds
	 * (length below 64 KiB). */
	if (len >= 2 && buf[1])
		return -ENOMSG;
	have = len < 8 ? (len > 4 ? len - 4 : 0) : 4;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		for (i = 0; i < 4; i++)
			code[i] = (uint8_t)(kinds[k].code >> (24 - 8 * i));
		if (!memcmp(buf + 4, code, have))
			break;
	}
	if (k == sizeof(kinds) / sizeof(kinds[0]))
		return -ENOMSG;
	if (len < 8)
		return -EAGAIN;
	mlen = be32(buf);
	if (mlen < kinds[k].min || mlen > kinds[k].max)
		return -ENOMSG;
	strcpy(out->method, kinds[k].name);
	out->total_len = mlen;
	if (kinds[k].code != PG_PROTO_3)
		return 0;
	/* Parameters: name and value strings, then a NUL. */
	vis = len < mlen ? len : mlen;
	for (off = 8; off < vis; off = (size_t)v + 1) {
		if (!buf[off]) {
			if (off != mlen - 1)
				return -ENOMSG;
			ended = true;
			goto done;
		}
		if (!is_letter(buf[off]) && buf[off] != '_')
			return -ENOMSG;
		e = cstr_end(buf, vis, mlen, off);
		if (e == -ENOMSG)
			return -ENOMSG;
		if (e < 0)
			goto done;
		v = cstr_end(buf, vis, mlen, (size_t)e + 1);
		if (v == -ENOMSG)
			return -ENOMSG;
		par = !strcmp((const char *)buf + off, "user") ? &user
		      : !strcmp((const char *)buf + off, "database") ? &db : NULL;
		if (par) {
			par->seen = true;
			par->whole = v >= 0;
			par->off = (size_t)e + 1;
			par->len = (v >= 0 ? (size_t)v : vis) - par->off;
		}
		if (v < 0)
			goto done;
	}
	if (vis >= mlen)
		return -ENOMSG;
done:
	startup_who(buf, &user, &db, ended, out);
	return 0;
}

static int parse(const uint8_t *buf, size_t len, bool request, bool later, struct req_head *out)
{
	const struct pg_msg *m = NULL;
	uint32_t mlen;
	size_t i, n;
	int err;

	req_head__clear(out);
	if (!len)
		return -EAGAIN;
	if (request && !buf[0]) {
		err = untyped(buf, len, out);
		if (err) {
			req_head__clear(out);
			return err;
		}
		out->len_known = true;
		goto done;
	}
	i = buf[0] < 128 ? by_type[request][buf[0]] : 0;
	if (i && (later || !msgs[i - 1].later))
		m = &msgs[i - 1];
	/* The length's first byte: 1 GiB at most. */
	if (!m || (len >= 2 && buf[1] > 0x40))
		return -ENOMSG;
	if (len < 5)
		return -EAGAIN;
	mlen = be32(buf + 1);
	if (mlen < m->min || mlen > (m->max ? m->max : PG_MAX_LEN))
		return -ENOMSG;
	_Static_assert(sizeof(m->name) == sizeof(out->method), "a method's size");
	memcpy(out->method, m->name, sizeof(m->name));
	n = len - 5 < mlen - 4 ? len - 5 : mlen - 4;
	err = body(m, buf + 5, n, mlen - 4, out);
	if (err) {
		req_head__clear(out);
		return err;
	}
	if (m->body == B_FIELDS && m->type == 'E')
		out->error = true;
	out->total_len = 1 + (uint64_t)mlen;
	out->len_known = true;
done:
	out->proto = REQ_PROTO_PGSQL;
	out->request = request;
	return 0;
}

int pgsql__parse(const uint8_t *buf, size_t len, bool request, struct req_head *out)
{
	return parse(buf, len, request, false, out);
}

int pgsql__parse_walk(const uint8_t *buf, size_t len, bool request, struct req_head *out)
{
	return parse(buf, len, request, true, out);
}
