/* MySQL in the pairing, beyond its bursts (pair.c pairs a command and its
 * answer as what one side sends until the other answers):
 * - prepared statements: the commands that name a statement by its id
 *   (STMT_EXECUTE, BULK_EXECUTE, FETCH, RESET, SEND_LONG_DATA, CLOSE) get the
 *   SQL of the STMT_PREPARE whose OK gave the id (pair_stmt.c keeps them;
 *   a close lets one go); the id 0xffffffff is the statement prepared last,
 *   as MariaDB's direct execute (libmariadb's mariadb_stmt_execute_direct)
 *   names it in the same write as its prepare;
 * - a command the server never answers (STMT_CLOSE, STMT_SEND_LONG_DATA) and
 *   a STMT_PREPARE end at their length, so a command sent after them before
 *   any answer is a request of its own;
 * - a STMT_PREPARE's answer is walked packet by packet: its OK says how many
 *   parameter and column definitions follow (each list ended by an EOF
 *   unless the client asked for none, CLIENT_DEPRECATE_EOF), so the answer
 *   to a command sent with it begins after them;
 * - LOAD DATA LOCAL: once the server asks for the file (LOCAL_INFILE), the
 *   client's bytes are the statement's and the OK or ERR after the file its
 *   result. */
#include <string.h>

#include "pair_int.h"

/* req_head.stmt of the id 0xffffffff: the statement prepared last */
#define MY_LAST (0xffffffffull + 1)
#define MY_HDR 4

static bool my__is(const struct pair_req *q, const char *method, uint16_t len)
{
	return q->method_len == len && !memcmp(q->method, method, len);
}

bool pair_my__ends_at_length(const struct req_head *h)
{
	return h->no_resp || !strcmp(h->method, "STMT_PREPARE");
}

void pair_my__request(struct pair_conn *c, struct pair_req *q, const struct req_head *h)
{
	if (my__is(q, "STMT_PREPARE", 12)) {
		pair_stmt__keep_last(c, q->target);
		return;
	}
	if (!h->stmt)
		return;
	if (h->stmt == MY_LAST)
		pair_stmt__name_last(c, q);
	else
		pair_stmt__name(c, q, h->stmt);
	if (h->no_resp && my__is(q, "STMT_CLOSE", 10))
		pair_stmt__forget(c, h->stmt);
}

bool pair_my__answer(struct pair_conn *c, struct pair_req *q, const struct req_head *h,
		     const uint8_t *b, size_t avail)
{
	uint32_t cols, params;

	if (q->has_resp) {
		if (c->my_infile) {
			/* the answer after the file */
			c->my_infile = false;
			q->status = h->status;
			q->error = h->error;
			q->code_len = (uint16_t)req_str__copy(q->code, sizeof(q->code), h->code);
		}
		return false;
	}
	c->my_infile = !strcmp(h->method, "LOCAL_INFILE");
	if (!my__is(q, "STMT_PREPARE", 12) || strcmp(h->method, "OK") || !h->stmt)
		return false;
	pair_stmt__keep(c, h->stmt, q->target);
	/* the OK: 0x00, the id, the columns (2 bytes), the parameters (2) */
	if (avail < MY_HDR + 9)
		return false;
	cols = b[MY_HDR + 5] | (uint32_t)b[MY_HDR + 6] << 8;
	params = b[MY_HDR + 7] | (uint32_t)b[MY_HDR + 8] << 8;
	c->my_defs = cols + params;
	c->my_eofs = (uint8_t)((cols > 0) + (params > 0));
	return true;
}

bool pair_my__walking(const struct pair_conn *c)
{
	return c->my_defs || c->my_eofs;
}

enum pair_my_pkt pair_my__next(struct pair_conn *c, const uint8_t *b, size_t avail,
			       uint64_t *need)
{
	uint32_t plen;

	if (!avail) {
		/* past the captured bytes: the walk is lost, the burst rules */
		c->my_defs = c->my_eofs = 0;
		return MY_LOST;
	}
	if (avail < MY_HDR + 1)
		return MY_CUT;
	plen = b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16;
	/* an EOF (0xfe, shorter than 9 bytes) ends a list of definitions (a
	 * definition begins with its catalog's length, 3 for "def") */
	if (b[MY_HDR] == 0xfe && plen < 9 && c->my_eofs) {
		c->my_eofs--;
	} else if (c->my_defs) {
		c->my_defs--;
	} else {
		/* not this answer's: the next command's (no EOFs asked) */
		c->my_eofs = 0;
		return MY_DONE;
	}
	*need = MY_HDR + (uint64_t)plen;
	return MY_PKT;
}
