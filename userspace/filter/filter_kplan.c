/* Kernel filtering by process: which comparisons of a filter the kernel can
 * decide per thread (atoms), and for each event type the atom results for which
 * the filter may still match.
 *
 * Every result combination A (2^natoms of them) is tried on every event type
 * with three-valued logic: an atom is true or false as A says, an evt.type
 * comparison is decided by the type, and any other comparison is "unknown"
 * (false only where node__events knows it cannot hold for that type). 'and',
 * 'or' and 'not' combine these as Kleene's logic does, so a type/result pair
 * is left out only when the filter is false whatever the unknowns are. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter_int.h"
#include "sbuf.h"

enum tv { TV_F, TV_U, TV_T };

enum leaf_kind { LEAF_TYPE, LEAF_ATOM, LEAF_OTHER };

struct leaf {
	const struct fnode *n;
	uint8_t kind;		/* enum leaf_kind */
	int8_t atom;		/* LEAF_ATOM */
	bool neg;		/* LEAF_ATOM: != */
	bool inexact;		/* LEAF_ATOM: true may not mean equal (proc.ppid) */
	uint8_t *codes, *nr;	/* LEAF_OTHER: may hold on these types */
};

struct kctx {
	struct filter_kplan *p;
	struct leaf *leaves;
	uint32_t nleaves, cap;
	/* the type under evaluation: an event code, or a generic syscall */
	bool generic;
	uint32_t type;
	uint32_t assign;	/* atom results */
	uint32_t pos;		/* next leaf, in the order of the walk */
};

/* The kind of atom N's field and operator make, or -1. */
static int cmp__kind(const struct fnode *n, bool *prefix)
{
	bool eq = n->op == OP_EQ || n->op == OP_NE || n->op == OP_IN;

	*prefix = false;
	if (n->kind != FN_CMP || n->type_codes || n->ref.index >= 0 || !n->nvals)
		return -1;
	switch (n->ref.info->id) {
	case F_PROC_NAME:
		if (n->op == OP_STARTSWITH && n->nvals == 1) {
			*prefix = true;
			return KP_COMM;
		}
		return eq ? KP_COMM : -1;
	case F_CONTAINER_ID:
		return eq ? KP_CONTAINER : -1;
	case F_PROC_PID: return eq ? KP_PID : -1;
	case F_THREAD_TID: return eq ? KP_TID : -1;
	case F_PROC_PPID: return eq ? KP_PPID : -1;
	case F_USER_UID: return eq ? KP_UID : -1;
	case F_GROUP_GID: return eq ? KP_GID : -1;
	case F_USER_LOGINUID:
	case F_PROC_LOGINUID: return eq ? KP_LOGINUID : -1;
	}
	return -1;
}

static bool atom__same(const struct kplan_atom *a, int kind, bool prefix, const struct fnode *n)
{
	if (a->kind != kind || a->prefix != prefix || a->nvals != n->nvals)
		return false;
	for (uint32_t i = 0; i < n->nvals; i++) {
		if (a->strs && strcmp(a->strs[i], n->vals[i].s))
			return false;
		if (a->nums && a->nums[i] != (int64_t)n->vals[i].num)
			return false;
	}
	return true;
}

static int atom__fill(struct kplan_atom *a, int kind, bool prefix, const struct fnode *n)
{
	struct sbuf t;

	a->kind = kind;
	a->prefix = prefix;
	a->nvals = n->nvals;
	if (kind == KP_COMM || kind == KP_CONTAINER)
		a->strs = calloc(n->nvals, sizeof(*a->strs));
	else
		a->nums = calloc(n->nvals, sizeof(*a->nums));
	if (!a->strs && !a->nums)
		return -ENOMEM;
	sbuf__init(&t);
	sbuf__puts(&t, n->ref.info->name);
	sbuf__putc(&t, ' ');
	sbuf__puts(&t, fop_names[n->op == OP_NE ? OP_EQ : n->op]);
	sbuf__puts(&t, n->op == OP_IN ? " (" : " ");
	for (uint32_t i = 0; i < n->nvals; i++) {
		if (i)
			sbuf__puts(&t, ", ");
		sbuf__puts(&t, n->vals[i].s);
		if (a->strs && !(a->strs[i] = strdup(n->vals[i].s)))
			return -ENOMEM;
		if (a->nums) {
			if (!n->vals[i].has_num)
				return -EINVAL;
			a->nums[i] = (int64_t)n->vals[i].num;
		}
	}
	if (n->op == OP_IN)
		sbuf__putc(&t, ')');
	a->text = strdup(sbuf__cstr(&t));
	sbuf__free(&t);
	return a->text ? 0 : -ENOMEM;
}

static struct leaf *kctx__leaf(struct kctx *c)
{
	if (c->nleaves == c->cap) {
		uint32_t cap = c->cap ? 2 * c->cap : 16;
		struct leaf *l = realloc(c->leaves, cap * sizeof(*l));

		if (!l)
			return NULL;
		c->leaves = l;
		c->cap = cap;
	}
	memset(&c->leaves[c->nleaves], 0, sizeof(c->leaves[0]));
	return &c->leaves[c->nleaves++];
}

/* Records N's leaves in walk order, making atoms of those the kernel can test. */
static int kctx__collect(struct kctx *c, const struct fnode *n)
{
	struct filter_kplan *p = c->p;
	struct leaf *l;
	bool prefix, exact;
	int kind, r;

	if (n->kind != FN_CMP) {
		for (uint32_t i = 0; i < n->nkids; i++)
			if ((r = kctx__collect(c, n->kids[i])))
				return r;
		return 0;
	}
	if (!(l = kctx__leaf(c)))
		return -ENOMEM;
	l->n = n;
	if (n->type_codes) {
		l->kind = LEAF_TYPE;
		return 0;
	}
	kind = cmp__kind(n, &prefix);
	if (kind >= 0) {
		uint32_t i;

		for (i = 0; i < p->natoms; i++)
			if (atom__same(&p->atoms[i], kind, prefix, n))
				break;
		if (i == p->natoms && p->natoms < KPLAN_MAX_ATOMS) {
			p->natoms++;	/* first: freed with the plan if filling fails */
			if ((r = atom__fill(&p->atoms[i], kind, prefix, n)))
				return r;
		}
		if (i < p->natoms) {
			l->kind = LEAF_ATOM;
			l->atom = (int8_t)i;
			l->neg = n->op == OP_NE;
			l->inexact = kind == KP_PPID;
			return 0;
		}
		p->left++;
	}
	l->kind = LEAF_OTHER;
	l->codes = malloc(PPM_EVENT_MAX);
	l->nr = malloc(SYSCALL_TABLE_SIZE);
	if (!l->codes || !l->nr)
		return -ENOMEM;
	fnode__cmp_events(n, l->codes, l->nr, &exact);
	return 0;
}

static enum tv tv__not(enum tv v)
{
	return v == TV_U ? TV_U : v == TV_T ? TV_F : TV_T;
}

static enum tv leaf__eval(const struct kctx *c, const struct leaf *l)
{
	const struct fnode *n = l->n;
	bool hit;

	switch (l->kind) {
	case LEAF_TYPE:
		hit = c->generic ? n->type_nr[c->type] : n->type_codes[c->type];
		return (hit ^ (n->op == OP_NE)) ? TV_T : TV_F;
	case LEAF_ATOM:
		if (!((c->assign >> l->atom) & 1))
			return l->neg ? TV_T : TV_F;
		if (l->inexact)
			return TV_U;
		return l->neg ? TV_F : TV_T;
	default:
		hit = c->generic ? l->nr[c->type] : l->codes[c->type];
		return hit ? TV_U : TV_F;
	}
}

/* Walks every node (no short cut), so leaves are met in collection order. */
static enum tv node__eval(struct kctx *c, const struct fnode *n)
{
	enum tv v, k;

	switch (n->kind) {
	case FN_CMP:
		return leaf__eval(c, &c->leaves[c->pos++]);
	case FN_NOT:
		return tv__not(node__eval(c, n->kids[0]));
	case FN_AND:
		v = TV_T;
		for (uint32_t i = 0; i < n->nkids; i++) {
			k = node__eval(c, n->kids[i]);
			v = k == TV_F || v == TV_F ? TV_F : (k == TV_U || v == TV_U) ? TV_U : TV_T;
		}
		return v;
	default:
		v = TV_F;
		for (uint32_t i = 0; i < n->nkids; i++) {
			k = node__eval(c, n->kids[i]);
			v = k == TV_T || v == TV_T ? TV_T : (k == TV_U || v == TV_U) ? TV_U : TV_F;
		}
		return v;
	}
}

/* The table of one type: every result for which the filter may match. Returns
 * whether it is neither empty nor full (over the results that can occur). */
static bool kctx__table(struct kctx *c, const struct fnode *root, uint64_t tab[KPLAN_WORDS])
{
	uint32_t nres = 1u << c->p->natoms, set = 0;

	memset(tab, 0, KPLAN_WORDS * sizeof(tab[0]));
	for (c->assign = 0; c->assign < nres; c->assign++) {
		c->pos = 0;
		if (node__eval(c, root) != TV_F) {
			tab[c->assign >> 6] |= 1ull << (c->assign & 63);
			set++;
		}
	}
	for (int w = 0; w < KPLAN_WORDS; w++)
		c->p->any[w] |= tab[w];
	return set && set < nres;
}

void filter_kplan__free(struct filter_kplan *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->natoms; i++) {
		struct kplan_atom *a = &p->atoms[i];

		for (uint32_t v = 0; a->strs && v < a->nvals; v++)
			free(a->strs[v]);
		free(a->strs);
		free(a->nums);
		free(a->text);
	}
	free(p);
}

struct filter_kplan *filter__kplan(const struct filter *f)
{
	struct filter_kplan *p = calloc(1, sizeof(*p));
	struct kctx c = { .p = p };
	int r = 0;

	if (!p)
		return NULL;
	if (f && f->root)
		r = kctx__collect(&c, f->root);
	if (!r && p->natoms) {
		for (c.type = 0; c.type < PPM_EVENT_MAX; c.type++)
			if (c.type != PPME_GENERIC_E && c.type != PPME_GENERIC_X)
				p->useful |= kctx__table(&c, f->root, p->codes[c.type]);
		c.generic = true;
		for (c.type = 0; c.type < SYSCALL_TABLE_SIZE; c.type++) {
			if (schema_syscall_routes[c.type].enter_event != PPME_GENERIC_E)
				continue;
			p->useful |= kctx__table(&c, f->root, p->generic_nr[c.type]);
			for (int w = 0; w < KPLAN_WORDS; w++)
				p->codes[PPME_GENERIC_E][w] = p->codes[PPME_GENERIC_X][w] |=
					p->generic_nr[c.type][w];
		}
	}
	for (uint32_t i = 0; i < c.nleaves; i++) {
		free(c.leaves[i].codes);
		free(c.leaves[i].nr);
	}
	free(c.leaves);
	if (r) {
		filter_kplan__free(p);
		errno = -r;
		return NULL;
	}
	return p;
}

static bool atom__holds(const struct kplan_atom *a, const struct kplan_thread *t)
{
	int64_t v;

	for (uint32_t i = 0; i < a->nvals; i++) {
		switch (a->kind) {
		case KP_COMM:
			if (a->prefix ? !strncmp(t->comm, a->strs[i], strlen(a->strs[i]))
				      : !strcmp(t->comm, a->strs[i]))
				return true;
			continue;
		case KP_CONTAINER:
			if (!strcmp(t->container_id, a->strs[i]))
				return true;
			continue;
		case KP_PID: v = t->pid; break;
		case KP_TID: v = t->tid; break;
		case KP_PPID: v = t->ppid; break;
		case KP_UID: v = t->uid; break;
		case KP_GID: v = t->gid; break;
		default:	/* loginuid: -1 when unset, as the field shows it */
			v = t->loginuid == UINT32_MAX ? -1 : (int64_t)t->loginuid;
		}
		if (a->nums[i] == v)
			return true;
	}
	return false;
}

uint32_t filter_kplan__results(const struct filter_kplan *p, const struct kplan_thread *t,
			       bool containers)
{
	uint32_t r = 0;

	for (uint32_t i = 0; i < p->natoms; i++)
		if ((containers || p->atoms[i].kind != KP_CONTAINER) && atom__holds(&p->atoms[i], t))
			r |= 1u << i;
	return r;
}
