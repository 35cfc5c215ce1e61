/* PostgreSQL walked message by message: which messages make one request and
 * which response message ends it. The extended protocol lets a client send
 * many statements before one Sync (libpq's pipeline mode, pgJDBC's and
 * psycopg's batches), and the server answers each Execute as it runs it, so
 * a burst in one direction holds many requests.
 *
 * A request is a group of messages: Parse, Bind, Describe and Close gather
 * until an Execute closes the group; Sync and Flush join the newest group;
 * Query and FunctionCall stand alone; COPY's data joins the COPY's Query.
 * Its response ends (as the server answers; protocol.html, "Extended
 * Query"):
 * - a group holding a Sync, a Query or a FunctionCall: at ReadyForQuery;
 * - an Execute's group without one: at CommandComplete, EmptyQueryResponse
 *   or PortalSuspended; at an ErrorResponse the server skips every message
 *   up to the next Sync, so the failed group's response runs to the Sync's
 *   ReadyForQuery and the groups the server skipped have none;
 * - a login (the startup message, a password or SASL message): at an
 *   authentication request the client must answer, at ReadyForQuery or an
 *   error;
 * - SSLRequest and GSSENCRequest: at their one-byte answer.
 *
 * A prepared statement run by Bind alone (pgx, pgJDBC past its threshold,
 * psycopg's executemany, pgbench -M prepared) names no SQL: its Parse did,
 * earlier on the connection. The statements parsed on a connection are
 * kept by name (pair_stmt.c), so such a Bind's request gets its text. */
#include <string.h>

#include "pair_int.h"

/* pair_req.pg */
enum {
	PG_OPEN = 1,	/* a Bind, Describe, Close or Execute joins it */
	PG_EXEC = 2,	/* it holds an Execute */
	PG_SYNCED = 4,	/* its response ends at ReadyForQuery */
	PG_LOGIN = 8,
	PG_ONE_BYTE = 16,	/* SSLRequest, GSSENCRequest */
	PG_FAILED = 32,		/* an error made the server skip to the Sync */
};

bool pair_pg__joins(struct pair_req *q, uint8_t type)
{
	if (!q || q->proto != REQ_PROTO_PGSQL || q->resp_done)
		return false;
	switch (type) {
	case 'B':
	case 'D':
	case 'C':
		return q->pg & PG_OPEN;
	case 'E':
		if (!(q->pg & PG_OPEN))
			return false;
		q->pg = (q->pg & ~PG_OPEN) | PG_EXEC;
		return true;
	case 'S':
		/* (a group that failed before its Sync was sent: the Sync is
		 * its own, nothing between to skip) */
		if ((q->pg & (PG_LOGIN | PG_ONE_BYTE)) ||
		    (q->pg & (PG_SYNCED | PG_FAILED)) == PG_SYNCED)
			return false;
		q->pg = (q->pg & ~(PG_OPEN | PG_FAILED)) | PG_SYNCED;
		return true;
	case 'H':
	case 'd':
	case 'c':
	case 'f':
		return true;
	}
	return false;
}

bool pair_pg__starts(uint8_t last, uint8_t type)
{
	bool after_open = last == 'P' || last == 'B' || last == 'D' || last == 'C';

	switch (type) {
	case 'B':
	case 'D':
	case 'C':
	case 'E':
		return !after_open;
	case 'S':
	case 'H':
	case 'd':
	case 'c':
	case 'f':
		return false;
	}
	return true;
}

void pair_pg__begin(struct pair_req *q, uint8_t type)
{
	switch (type) {
	case 'P':
	case 'B':
	case 'D':
	case 'C':
		q->pg = PG_OPEN;
		break;
	case 'E':
		q->pg = PG_EXEC;
		break;
	case 'Q':
	case 'F':
	case 'S':
		q->pg = PG_SYNCED;
		break;
	case 'p':
		q->pg = PG_LOGIN;
		break;
	case 0:
		/* untyped: the startup message, SSLRequest, GSSENCRequest,
		 * CancelRequest (which has no answer) */
		if (q->method_len == 7 && !memcmp(q->method, "STARTUP", 7))
			q->pg = PG_LOGIN;
		else if (q->method_len == 6 && !memcmp(q->method, "CANCEL", 6))
			q->pg = 0;
		else
			q->pg = PG_ONE_BYTE;
		break;
	default:
		q->pg = 0;
	}
}

bool pair_pg__one_byte(const struct pair_req *q)
{
	return q->proto == REQ_PROTO_PGSQL && (q->pg & PG_ONE_BYTE) && !q->has_resp;
}

enum pair_pg_end pair_pg__resp(struct pair_req *q, const uint8_t *b, size_t avail,
			       const struct req_head *h)
{
	uint8_t type = b[0];

	if (q->pg & PG_LOGIN) {
		/* AuthenticationOk (0) and SASLFinal (12) are followed by more;
		 * any other authentication request waits for the client */
		if (type == 'R' && avail >= 9) {
			uint32_t code = (uint32_t)b[5] << 24 | (uint32_t)b[6] << 16 |
					(uint32_t)b[7] << 8 | b[8];

			return code != 0 && code != 12 ? PG_END : PG_MORE;
		}
		return type == 'Z' || h->error ? PG_END : PG_MORE;
	}
	if (type == 'Z')
		/* a group without a Sync gets no ReadyForQuery: the Sync's is
		 * a later group's */
		return (q->pg & (PG_EXEC | PG_OPEN)) && !(q->pg & PG_SYNCED) ? PG_NOT_MINE
									: PG_END;
	if (q->pg & PG_SYNCED)
		return PG_MORE;
	if (h->error && (q->pg & (PG_EXEC | PG_OPEN))) {
		/* the server now skips to the Sync: this group's response runs
		 * to its ReadyForQuery, the groups up to it get none */
		q->pg |= PG_SYNCED | PG_FAILED;
		return PG_MORE;
	}
	if ((q->pg & PG_EXEC) && (type == 'C' || type == 'I' || type == 's'))
		return PG_END;
	return PG_MORE;
}

bool pair_pg__failed(const struct pair_req *q)
{
	return q->proto == REQ_PROTO_PGSQL && (q->pg & PG_FAILED);
}

bool pair_pg__synced(const struct pair_req *q)
{
	return q->pg & PG_SYNCED && !(q->pg & PG_FAILED);
}

void pair_pg__statement(struct pair_conn *c, struct pair_req *q, const struct req_head *h,
			uint8_t type)
{
	if (type == 'P')
		pair_stmt__keep(c, h->stmt, h->target);
	else if (type == 'B' && q && !q->target_len)
		pair_stmt__name(c, q, h->stmt);
}
