/* Filter parser and compiler: text -> tree with pre-parsed values.
 *
 *   expr    := and-expr { "or" and-expr }
 *   and-expr:= not-expr { "and" not-expr }
 *   not-expr:= "not" not-expr | "(" expr ")" | check
 *   check   := field "exists" | field OP value | field LISTOP "(" value {"," value} ")"
 *
 * Scanning depends on context (a value may hold '=' or '.'), so this is a
 * recursive descent over the text rather than a separate token stream. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "filter_int.h"

#define MAX_DEPTH 200

struct parser {
	const char *s;
	size_t pos;
	struct filter_error *err;
	int depth;
	int rc;		/* first error */
};

static int perr(struct parser *p, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(struct parser *p, size_t pos, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	if (p->rc)
		return p->rc;
	p->rc = -EINVAL;
	if (!p->err)
		return p->rc;
	p->err->column = (int)pos + 1;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
	n = strlen(p->err->msg);
	snprintf(p->err->msg + n, sizeof(p->err->msg) - n, " at column %zu", pos + 1);
	return p->rc;
}

static int pnomem(struct parser *p)
{
	if (!p->rc) {
		p->rc = -ENOMEM;
		if (p->err) {
			p->err->column = 0;
			snprintf(p->err->msg, sizeof(p->err->msg), "out of memory");
		}
	}
	return p->rc;
}

/* Records R, an error that a check below the parser has described in ERR. */
static int pfail(struct parser *p, int r)
{
	if (r && !p->rc)
		p->rc = r;
	return r;
}

static void skip_ws(struct parser *p)
{
	while (isspace((unsigned char)p->s[p->pos]))
		p->pos++;
}

static bool is_word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.';
}

/* Consumes keyword KW if it stands at the current position as a whole word. */
static bool keyword(struct parser *p, const char *kw)
{
	size_t n = strlen(kw);

	skip_ws(p);
	if (strncmp(p->s + p->pos, kw, n) != 0 || is_word_char(p->s[p->pos + n]))
		return false;
	p->pos += n;
	return true;
}

/* Like keyword() but does not consume. */
static bool peek_keyword(struct parser *p, const char *kw)
{
	size_t save = p->pos;
	bool r = keyword(p, kw);

	p->pos = save;
	return r;
}

const char *const fop_names[] = {
	[OP_EQ] = "=", [OP_NE] = "!=", [OP_LT] = "<", [OP_LE] = "<=", [OP_GT] = ">",
	[OP_GE] = ">=", [OP_CONTAINS] = "contains", [OP_ICONTAINS] = "icontains",
	[OP_STARTSWITH] = "startswith", [OP_ENDSWITH] = "endswith", [OP_GLOB] = "glob",
	[OP_IN] = "in", [OP_INTERSECTS] = "intersects", [OP_PMATCH] = "pmatch",
	[OP_EXISTS] = "exists",
};

static int parse_op(struct parser *p)
{
	static const struct { const char *text; uint8_t op; } symbols[] = {
		{ "==", OP_EQ }, { "!=", OP_NE }, { "<=", OP_LE }, { ">=", OP_GE },
		{ "=", OP_EQ }, { "<", OP_LT }, { ">", OP_GT },
	};

	skip_ws(p);
	for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
		size_t n = strlen(symbols[i].text);

		if (strncmp(p->s + p->pos, symbols[i].text, n) == 0) {
			p->pos += n;
			return symbols[i].op;
		}
	}
	for (int op = OP_CONTAINS; op <= OP_EXISTS; op++)
		if (keyword(p, fop_names[op]))
			return op;
	return perr(p, p->pos, "expected an operator (=, !=, <, <=, >, >=, contains, icontains, "
		    "startswith, endswith, glob, in, intersects, pmatch or exists)");
}

/* Reads one value (quoted or bare) into a new string. IN_LIST: ',' ends it. */
static char *parse_value(struct parser *p, bool in_list, size_t *len, size_t *col)
{
	size_t start, n = 0;
	char q, *out;

	skip_ws(p);
	start = p->pos;
	*col = start;
	q = p->s[start];
	if (q == '"' || q == '\'') {
		/* unescaped length never exceeds the quoted text */
		size_t end = start + 1;

		while (p->s[end] && p->s[end] != q)
			end += (p->s[end] == '\\' && p->s[end + 1]) ? 2 : 1;
		if (!p->s[end]) {
			perr(p, start, "unterminated string starting");
			return NULL;
		}
		out = malloc(end - start);
		if (!out) {
			pnomem(p);
			return NULL;
		}
		for (size_t i = start + 1; i < end; i++) {
			char c = p->s[i];

			if (c == '\\') {
				c = p->s[++i];
				c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
			}
			out[n++] = c;
		}
		out[n] = '\0';
		p->pos = end + 1;
		*len = n;
		return out;
	}
	while (p->s[p->pos] && !isspace((unsigned char)p->s[p->pos]) &&
	       p->s[p->pos] != '(' && p->s[p->pos] != ')' &&
	       !(in_list && p->s[p->pos] == ','))
		p->pos++;
	if (p->pos == start) {
		perr(p, start, "expected a value");
		return NULL;
	}
	*len = p->pos - start;
	out = strndup(p->s + start, *len);
	if (!out)
		pnomem(p);
	return out;
}

static bool is_generic(unsigned code)
{
	return code == PPME_GENERIC_E || code == PPME_GENERIC_X;
}

/* A syscall whose name is no event's but whose events have a name of their
 * own (the kernel's dup2 and dup3 send dup's, pread64 pread's): that name
 * is what evt.type takes. NULL when NAME (syscall NR's) is none such. */
static const char *syscall__event_name(unsigned nr, const char *name)
{
	const struct syscall_route *r = &schema_syscall_routes[nr];

	if (!name || r->enter_event == PPME_GENERIC_E || r->enter_event >= PPM_EVENT_MAX)
		return NULL;
	return schema_events[r->enter_event].name;
}

/* Closest event or syscall names to an unknown evt.type value; a syscall
 * named exactly is pointed to its events' name instead. Syscalls with events
 * of their own are not offered: evt.type takes their events' names. */
static void suggest_type(const char *v, char *msg, size_t size)
{
	size_t vl = strlen(v), off = strlen(msg);
	const char *best = NULL;
	unsigned bestd = 3;

	for (unsigned nr = 0; nr < SYSCALL_TABLE_SIZE; nr++) {
		const char *name = schema_syscall_names[nr];
		const char *ev = syscall__event_name(nr, name);

		if (ev && !strcmp(name, v)) {
			snprintf(msg + off, off < size ? size - off : 0,
				 "; the %s syscall's events are named %s", name, ev);
			return;
		}
	}
	for (unsigned t = 0; t < PPM_EVENT_MAX + SYSCALL_TABLE_SIZE; t++) {
		const char *name = t < PPM_EVENT_MAX ? schema_events[t].name
						     : schema_syscall_names[t - PPM_EVENT_MAX];
		size_t nl, i, j;
		unsigned row[64], diag, tmp;

		if (!name || (nl = strlen(name)) >= 63 || vl >= 63 ||
		    (t >= PPM_EVENT_MAX && syscall__event_name(t - PPM_EVENT_MAX, name)))
			continue;
		for (j = 0; j <= nl; j++)
			row[j] = (unsigned)j;
		for (i = 1; i <= vl; i++) {
			diag = row[0];
			row[0] = (unsigned)i;
			for (j = 1; j <= nl; j++) {
				unsigned b = diag + (v[i - 1] != name[j - 1]);

				if (row[j] + 1 < b)
					b = row[j] + 1;
				if (row[j - 1] + 1 < b)
					b = row[j - 1] + 1;
				tmp = row[j];
				row[j] = b;
				diag = tmp;
			}
		}
		if (row[nl] < bestd) {
			bestd = row[nl];
			best = name;
		}
	}
	if (best)
		snprintf(msg + off, off < size ? size - off : 0, "; did you mean %s?", best);
}

static bool type__name_match(uint8_t op, bool eqlike, const char *name, const struct fconst *c)
{
	return eqlike ? strcmp(name, c->s) == 0 : str__op(op, name, strlen(name), c);
}

/* evt.type comparisons become sets of codes: the name test runs here, once. */
static int compile_evt_type(struct parser *p, struct fnode *n)
{
	uint8_t op = n->op == OP_NE ? OP_EQ : n->op;
	bool eqlike = op == OP_EQ || op == OP_IN || op == OP_INTERSECTS;

	n->type_codes = calloc(1, PPM_EVENT_MAX);
	n->type_nr = calloc(1, SYSCALL_TABLE_SIZE);
	if (!n->type_codes || !n->type_nr)
		return pnomem(p);
	for (uint32_t v = 0; v < n->nvals; v++) {
		const struct fconst *c = &n->vals[v];
		bool any = false;

		for (unsigned t = 0; t < PPM_EVENT_MAX; t++) {
			const char *name = schema_events[t].name;

			if (!name)
				continue;
			/* "syscall" names no event a user sees: known, matches nothing */
			if (is_generic(t)) {
				any |= eqlike && strcmp(name, c->s) == 0;
				continue;
			}
			if (eqlike ? strcmp(name, c->s) == 0 : str__op(op, name, strlen(name), c))
				n->type_codes[t] = 1, any = true;
		}
		/* syscalls with the generic event: by the kernel's name, or by
		 * sysdig's where it differs (sigreturn for rt_sigreturn) */
		for (unsigned nr = 0; nr < SYSCALL_TABLE_SIZE; nr++) {
			const struct syscall_route *r = &schema_syscall_routes[nr];
			const char *name = schema_syscall_names[nr];
			const char *sc = r->ppm_sc ? schema__ppm_sc_name(r->ppm_sc) : NULL;

			if (!name || r->enter_event != PPME_GENERIC_E)
				continue;
			if (type__name_match(op, eqlike, name, c) ||
			    (sc && strcmp(sc, name) && type__name_match(op, eqlike, sc, c)))
				n->type_nr[nr] = 1, any = true;
		}
		if (!any && eqlike) {
			perr(p, c->column, "unknown event type '%s'", c->s);
			if (p->err)
				suggest_type(c->s, p->err->msg, sizeof(p->err->msg));
			return p->rc;
		}
	}
	return 0;
}

static struct fnode *node__new(struct parser *p, uint8_t kind, size_t col)
{
	struct fnode *n = calloc(1, sizeof(*n));

	if (!n) {
		pnomem(p);
		return NULL;
	}
	n->kind = kind;
	n->column = (uint32_t)col;
	n->ref.index = -1;
	return n;
}

static int node__add_val(struct parser *p, struct fnode *n, char *s, size_t len, size_t col)
{
	struct fconst *v = realloc(n->vals, (n->nvals + 1) * sizeof(*v));

	if (!v) {
		free(s);
		return pnomem(p);
	}
	n->vals = v;
	v = &n->vals[n->nvals++];
	memset(v, 0, sizeof(*v));
	v->s = s;
	v->len = (uint32_t)len;
	v->column = (uint32_t)col;
	return pfail(p, fconst__prepare(v, n, p->err));
}

static struct fnode *parse_check(struct parser *p)
{
	size_t start = p->pos, col, len;
	struct fnode *n;
	int op;
	char *s;

	n = node__new(p, FN_CMP, start);
	if (!n)
		return NULL;
	if (field_ref__parse(p->s + start, (int)start + 1, 0, &n->ref, p->err)) {
		p->rc = -EINVAL;
		goto fail;
	}
	p->pos += n->ref.text_len;
	col = (skip_ws(p), p->pos);
	op = parse_op(p);
	if (op < 0)
		goto fail;
	n->op = (uint8_t)op;
	if (pfail(p, fnode__check_op(n, col, p->err)))
		goto fail;
	if (op == OP_EXISTS)
		return n;
	if (op == OP_IN || op == OP_INTERSECTS || op == OP_PMATCH) {
		skip_ws(p);
		if (p->s[p->pos] != '(') {
			perr(p, p->pos, "expected '(' after '%s'", fop_names[op]);
			goto fail;
		}
		p->pos++;
		do {
			s = parse_value(p, true, &len, &col);
			if (!s || node__add_val(p, n, s, len, col))
				goto fail;
			skip_ws(p);
		} while (p->s[p->pos] == ',' && ++p->pos);
		if (p->s[p->pos] != ')') {
			perr(p, p->pos, "expected ',' or ')'");
			goto fail;
		}
		p->pos++;
	} else {
		s = parse_value(p, false, &len, &col);
		if (!s || node__add_val(p, n, s, len, col))
			goto fail;
	}
	if (n->ref.info->id == F_EVT_TYPE && compile_evt_type(p, n))
		goto fail;
	return n;
fail:
	fnode__free(n);
	return NULL;
}

static struct fnode *parse_or(struct parser *p);

static struct fnode *parse_not(struct parser *p)
{
	struct fnode *n, *kid;
	size_t col;

	if (++p->depth > MAX_DEPTH) {
		perr(p, p->pos, "filter nested too deeply");
		return NULL;
	}
	skip_ws(p);
	col = p->pos;
	if (keyword(p, "not")) {
		kid = parse_not(p);
		if (!kid)
			return NULL;
		n = node__new(p, FN_NOT, col);
		if (!n || !(n->kids = malloc(sizeof(*n->kids)))) {
			fnode__free(n);
			fnode__free(kid);
			pnomem(p);
			return NULL;
		}
		n->kids[0] = kid;
		n->nkids = 1;
	} else if (p->s[p->pos] == '(') {
		p->pos++;
		n = parse_or(p);
		if (!n)
			return NULL;
		skip_ws(p);
		if (p->s[p->pos] != ')') {
			perr(p, p->pos, "expected ')' (to close the '(' of column %zu)", col + 1);
			fnode__free(n);
			return NULL;
		}
		p->pos++;
	} else if (is_word_char(p->s[p->pos]) && !peek_keyword(p, "and") && !peek_keyword(p, "or")) {
		n = parse_check(p);
	} else {
		perr(p, col, "expected a field name, 'not' or '('");
		return NULL;
	}
	p->depth--;
	return n;
}

/* Evaluation order inside and/or: evt.type tests first, they cost a lookup. */
static void kids__order(struct fnode *n)
{
	uint32_t w = 0;

	for (uint32_t i = 0; i < n->nkids; i++) {
		if (n->kids[i]->type_codes && n->kids[i]->op != OP_EXISTS) {
			struct fnode *k = n->kids[i];

			memmove(n->kids + w + 1, n->kids + w, (i - w) * sizeof(*n->kids));
			n->kids[w++] = k;
		}
	}
}

static struct fnode *parse_list(struct parser *p, uint8_t kind)
{
	const char *kw = kind == FN_OR ? "or" : "and";
	struct fnode *kid, *n, **kids;
	size_t col;

	skip_ws(p);
	col = p->pos;
	kid = kind == FN_OR ? parse_list(p, FN_AND) : parse_not(p);
	if (!kid)
		return NULL;
	if (!keyword(p, kw))
		return kid;
	n = node__new(p, kind, col);
	if (!n) {
		fnode__free(kid);
		return NULL;
	}
	for (;;) {
		kids = realloc(n->kids, (n->nkids + 1) * sizeof(*kids));
		if (!kids) {
			fnode__free(kid);
			pnomem(p);
			goto fail;
		}
		n->kids = kids;
		n->kids[n->nkids++] = kid;
		/* the first operator was consumed above */
		if (n->nkids > 1 && !keyword(p, kw))
			break;
		kid = kind == FN_OR ? parse_list(p, FN_AND) : parse_not(p);
		if (!kid)
			goto fail;
	}
	kids__order(n);
	return n;
fail:
	fnode__free(n);
	return NULL;
}

static struct fnode *parse_or(struct parser *p)
{
	return parse_list(p, FN_OR);
}

void fnode__free(struct fnode *n)
{
	if (!n)
		return;
	for (uint32_t i = 0; i < n->nkids; i++)
		fnode__free(n->kids[i]);
	free(n->kids);
	for (uint32_t i = 0; i < n->nvals; i++) {
		free(n->vals[i].s);
		free(n->vals[i].lower);
	}
	free(n->vals);
	free(n->type_codes);
	free(n->type_nr);
	field_ref__fini(&n->ref);
	free(n);
}

struct filter *filter__compile(const char *expr, struct filter_error *err)
{
	struct parser p = { .s = expr ? expr : "", .err = err };
	struct filter *f;

	if (err) {
		err->column = 0;
		err->msg[0] = '\0';
	}
	skip_ws(&p);
	if (!p.s[p.pos]) {
		perr(&p, p.pos, "empty filter: expected a field name, 'not' or '('");
		errno = EINVAL;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		pnomem(&p);
		errno = ENOMEM;
		return NULL;
	}
	f->root = parse_or(&p);
	if (f->root) {
		skip_ws(&p);
		if (p.s[p.pos] == ')')
			perr(&p, p.pos, "unexpected ')'");
		else if (p.s[p.pos])
			perr(&p, p.pos, "expected 'and', 'or' or the end of the filter");
	}
	if (p.rc) {
		filter__free(f);
		errno = p.rc == -ENOMEM ? ENOMEM : EINVAL;
		return NULL;
	}
	return f;
}

void filter__free(struct filter *f)
{
	if (!f)
		return;
	fnode__free(f->root);
	free(f);
}
