/* Filter evaluation: walks the compiled tree for one event. */
#include <ctype.h>
#include <errno.h>

#include "filter_int.h"

static bool icontains(const char *s, size_t len, const char *lower, size_t nlen)
{
	if (nlen == 0)
		return true;
	for (size_t i = 0; i + nlen <= len; i++) {
		size_t j = 0;

		while (j < nlen && tolower((unsigned char)s[i + j]) == (unsigned char)lower[j])
			j++;
		if (j == nlen)
			return true;
	}
	return false;
}

bool fconst__str_eq(const struct fconst *c, const char *s, size_t len)
{
	return c->len == len && memcmp(c->s, s, len) == 0;
}

/* pmatch: S is C's path or lies under it. */
static bool path__under(const struct fconst *c, const char *s, size_t len)
{
	if (len < c->len || memcmp(s, c->s, c->len) != 0)
		return false;
	return len == c->len || (c->len && c->s[c->len - 1] == '/') || s[c->len] == '/';
}

bool str__op(uint8_t op, const char *s, size_t len, const struct fconst *c)
{
	switch (op) {
	case OP_EQ:
	case OP_IN:
	case OP_INTERSECTS:
		return fconst__str_eq(c, s, len);
	case OP_CONTAINS:
		return c->len == 0 || (len >= c->len && memmem(s, len, c->s, c->len));
	case OP_ICONTAINS:
		return icontains(s, len, c->lower, c->len);
	case OP_STARTSWITH:
		return len >= c->len && memcmp(s, c->s, c->len) == 0;
	case OP_ENDSWITH:
		return len >= c->len && memcmp(s + len - c->len, c->s, c->len) == 0;
	case OP_GLOB:
		return glob__match(c->s, c->len, s, len);
	case OP_PMATCH:
		return path__under(c, s, len);
	default:
		return false;
	}
}

static bool num__op(uint8_t op, __int128 v, const struct fconst *c)
{
	if (!c->has_num)
		return false;
	switch (op) {
	case OP_EQ: case OP_IN: case OP_INTERSECTS: return v == c->num;
	case OP_LT: return v < c->num;
	case OP_LE: return v <= c->num;
	case OP_GT: return v > c->num;
	case OP_GE: return v >= c->num;
	default: return false;
	}
}

/* One value against one constant; OP_NE is handled by the caller as !EQ. */
static bool value__op(uint8_t op, const struct field_value *v, const struct fconst *c)
{
	switch (v->type) {
	case FT_INT64:
		return num__op(op, v->i, c);
	case FT_UINT64:
	case FT_ABSTIME:
	case FT_HEX:
		return num__op(op, v->u, c);
	case FT_BOOL:
		return (op == OP_EQ || op == OP_IN || op == OP_INTERSECTS) && c->has_bool &&
		       v->b == c->b;
	case FT_STRING:
	case FT_BUFFER:
		return str__op(op, v->s.ptr, v->s.len, c);
	case FT_IPADDR:
		if (!(op == OP_EQ || op == OP_IN || op == OP_INTERSECTS) || !c->has_ip ||
		    c->family != v->ip.family)
			return false;
		return memcmp(c->addr, v->ip.addr, v->ip.family == PPM_AF_INET6 ? 16 : 4) == 0;
	default:
		return false;
	}
}

static bool value__any(uint8_t op, const struct field_value *v, const struct fnode *n)
{
	for (uint32_t i = 0; i < n->nvals; i++)
		if (value__op(op, v, &n->vals[i]))
			return true;
	return false;
}

static bool evt_type__match(const struct fnode *n, const struct ievt *ev)
{
	bool hit;

	if (ev->type == PPME_GENERIC_E || ev->type == PPME_GENERIC_X) {
		/* generic events: by their syscall's number (the inspector's) */
		hit = ev->native_nr >= 0 && ev->native_nr < SYSCALL_TABLE_SIZE &&
		      n->type_nr[ev->native_nr];
	} else {
		hit = ev->type < PPM_EVENT_MAX && n->type_codes[ev->type];
	}
	return n->op == OP_NE ? !hit : hit;
}

static bool cmp__match(const struct fnode *n, const struct ievt *ev, struct field_ctx *ctx)
{
	struct field_value v;
	bool multi = (n->ref.info->flags & FF_MULTI) && n->ref.index < 0;
	uint8_t op = n->op == OP_NE ? OP_EQ : n->op;
	unsigned i = 0;

	if (n->type_codes)
		return evt_type__match(n, ev);
	if (field__extract(&n->ref, ev, ctx, 0, &v))
		return false;	/* absent: no comparison holds, != included */
	if (n->op == OP_EXISTS)
		return true;
	do {
		if (value__any(op, &v, n))
			return n->op != OP_NE;
	} while (multi && field__extract(&n->ref, ev, ctx, ++i, &v) == 0);
	return n->op == OP_NE;
}

static bool node__match(const struct fnode *n, const struct ievt *ev, struct field_ctx *ctx)
{
	switch (n->kind) {
	case FN_AND:
		for (uint32_t i = 0; i < n->nkids; i++)
			if (!node__match(n->kids[i], ev, ctx))
				return false;
		return true;
	case FN_OR:
		for (uint32_t i = 0; i < n->nkids; i++)
			if (node__match(n->kids[i], ev, ctx))
				return true;
		return false;
	case FN_NOT:
		return !node__match(n->kids[0], ev, ctx);
	default:
		return cmp__match(n, ev, ctx);
	}
}

bool filter__match(const struct filter *f, const struct ievt *ev, struct field_ctx *ctx)
{
	if (!f || !f->root)
		return true;
	return node__match(f->root, ev, ctx);
}
