/* Prepared statements' text, per connection. A statement prepared once is
 * run many times by a message that names it and no SQL: PostgreSQL's Bind
 * names its Parse's statement, MySQL's COM_STMT_EXECUTE (and FETCH, RESET,
 * SEND_LONG_DATA, CLOSE) the id the server gave its COM_STMT_PREPARE. The
 * last STMT_MAX statements a connection prepared are kept by name (a hash
 * or an id, req_head.stmt), the least recently used replaced, so those
 * requests get their statement's text; and the one prepared last, which
 * MariaDB's direct execute names by the id 0xffffffff. The table is on the heap only for
 * connections that prepare, and freed with them. */
#include <stdlib.h>
#include <string.h>

#include "pair_int.h"

#define STMT_MAX 32
struct pair_stmts {
	uint32_t clock;
	struct {
		uint64_t name;		/* 0: free */
		uint32_t used;
		uint16_t len;
		char text[REQ_TARGET_MAX];
	} e[STMT_MAX + 1];		/* the last: the one prepared last */
};

static struct pair_stmts *stmts__get(struct pair_conn *c)
{
	/* (no memory: its runs then name no text, as before it) */
	if (!c->stmts)
		c->stmts = calloc(1, sizeof(*c->stmts));
	return c->stmts;
}

/* Entry I of T holds TEXT. */
static void entry__set(struct pair_stmts *t, uint32_t i, const char *text)
{
	t->e[i].len = (uint16_t)req_str__copy(t->e[i].text, sizeof(t->e[i].text), text);
}

/* Q's target is entry I's text. */
static void entry__give(struct pair_stmts *t, uint32_t i, struct pair_req *q)
{
	memcpy(q->target, t->e[i].text, t->e[i].len + 1u);
	q->target_len = t->e[i].len;
}

void pair_stmt__keep_last(struct pair_conn *c, const char *text)
{
	struct pair_stmts *t = stmts__get(c);

	if (t)
		entry__set(t, STMT_MAX, text);
}

void pair_stmt__name_last(struct pair_conn *c, struct pair_req *q)
{
	struct pair_stmts *t = c->stmts;

	if (t && t->e[STMT_MAX].len)
		entry__give(t, STMT_MAX, q);
}

void pair_stmt__keep(struct pair_conn *c, uint64_t name, const char *text)
{
	struct pair_stmts *t;
	uint32_t i, old = 0;

	if (!name || !text[0] || !(t = stmts__get(c)))
		return;
	for (i = 0; i < STMT_MAX; i++) {
		if (t->e[i].name == name)
			break;
		if (t->e[i].used < t->e[old].used)
			old = i;
	}
	if (i == STMT_MAX)
		i = old;
	t->e[i].name = name;
	t->e[i].used = ++t->clock;
	entry__set(t, i, text);
}

bool pair_stmt__name(struct pair_conn *c, struct pair_req *q, uint64_t name)
{
	struct pair_stmts *t = c->stmts;
	uint32_t i;

	if (!t || !name)
		return false;
	for (i = 0; i < STMT_MAX; i++)
		if (t->e[i].name == name) {
			t->e[i].used = ++t->clock;
			entry__give(t, i, q);
			return true;
		}
	return false;
}

void pair_stmt__forget(struct pair_conn *c, uint64_t name)
{
	struct pair_stmts *t = c->stmts;
	uint32_t i;

	if (!t || !name)
		return;
	for (i = 0; i < STMT_MAX; i++)
		if (t->e[i].name == name) {
			t->e[i].name = 0;
			t->e[i].used = 0;
		}
}

void pair_stmt__free(struct pair_conn *c)
{
	free(c->stmts);
	c->stmts = NULL;
}
