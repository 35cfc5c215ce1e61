/* Internal to the filter modules: the compiled tree. */
#ifndef FILTER_INT_H
#define FILTER_INT_H

#include "filter.h"
#include "field_ids.h"

enum fnode_kind { FN_AND, FN_OR, FN_NOT, FN_CMP };

enum fop {
	OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_CONTAINS, OP_ICONTAINS,
	OP_STARTSWITH, OP_ENDSWITH, OP_GLOB, OP_IN, OP_INTERSECTS, OP_PMATCH,
	OP_EXISTS,
};

/* A comparison value, pre-parsed for every way the field may need it. */
struct fconst {
	char *s;		/* the text, NUL-terminated, owned */
	uint32_t len;
	uint32_t column;	/* 0-based offset in the filter text */
	char *lower;		/* icontains: lower-case text, owned */
	bool has_num;
	__int128 num;
	bool has_ip;
	uint8_t family;		/* PPM_AF_INET / PPM_AF_INET6 */
	uint8_t addr[16];
	bool has_bool;
	bool b;
};

struct fnode {
	uint8_t kind;		/* enum fnode_kind */
	uint8_t op;		/* FN_CMP: enum fop */
	uint32_t column;
	/* FN_AND / FN_OR: n children; FN_NOT: one */
	struct fnode **kids;
	uint32_t nkids;
	/* FN_CMP */
	struct field_ref ref;
	struct fconst *vals;
	uint32_t nvals;
	/* evt.type comparisons: the event codes and generic-event syscalls whose
	 * name satisfies the comparison (for OP_NE: equality, negated at eval) */
	uint8_t *type_codes;	/* PPM_EVENT_MAX bytes */
	uint8_t *type_nr;	/* SYSCALL_TABLE_SIZE bytes: generic events' syscalls */
};

struct filter {
	struct fnode *root;
};

void fnode__free(struct fnode *n);

extern const char *const fop_names[];	/* "=", "contains"... (filter_parse.c) */

/* Compile-time checks of one comparison (filter_value.c): whether N's operator
 * suits its field (COL: the operator's 0-based offset), and value C parsed and
 * checked for it (numbers in the field's range, glob syntax). Both return 0,
 * or -EINVAL or -ENOMEM with ERR (if not NULL) filled as the parser words it. */
int fnode__check_op(const struct fnode *n, size_t col, struct filter_error *err);
int fconst__prepare(struct fconst *c, const struct fnode *n, struct filter_error *err);

/* Applies a string operator (not EQ/NE/IN: see fconst__str_eq). */
bool str__op(uint8_t op, const char *s, size_t len, const struct fconst *c);
bool fconst__str_eq(const struct fconst *c, const char *s, size_t len);
bool glob__match(const char *pat, size_t plen, const char *s, size_t slen);
/* 0 if PAT is a well-formed pattern, else -EINVAL with WHY saying what is wrong
 * ("reversed range 'z-a'"). */
int glob__check(const char *pat, size_t plen, char *why, size_t size);

/* The event codes and generic syscalls on which comparison N may be true
 * (filter_pushdown.c); EXACT: decided by the event type alone. */
void fnode__cmp_events(const struct fnode *n, uint8_t codes[PPM_EVENT_MAX],
		       uint8_t nr[SYSCALL_TABLE_SIZE], bool *exact);

#endif
