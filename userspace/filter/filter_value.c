/* What a comparison's operator and values must be, checked once when a filter
 * is compiled: a number within the field's range, true or false, an IP
 * address, a well-formed glob pattern. sysdig takes some of these and then
 * matches nothing (or wraps fd.sport = 70000 round to port 4464); here they are
 * errors that name the column. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "filter_int.h"

/* What a field compares as. */
enum vkind { VK_TEXT, VK_NUM, VK_BOOL, VK_IP, VK_ANY };

struct vspec {
	uint8_t kind;		/* enum vkind */
	__int128 min, max;	/* VK_NUM */
	bool id32;		/* -1 and 4294967295 are one value, (uid_t)-1 */
	__int128 unset;		/* id32: that value as the field yields it */
};

static const struct {
	int64_t min;
	uint64_t max;
} field_ranges[] = {
	[FR_U16] = { 0, UINT16_MAX },
	[FR_U32] = { 0, UINT32_MAX },
	[FR_S32] = { INT32_MIN, INT32_MAX },
	[FR_ID32] = { -1, UINT32_MAX },
};

/* A param type's range as evt.rawarg yields it (the types schema__param_int
 * reads); false for the types it yields as text. */
static bool param_type__range(uint8_t type, struct vspec *v)
{
	v->id32 = false;
	switch (type) {
	case PT_INT8:
		v->min = INT8_MIN, v->max = INT8_MAX;
		return true;
	case PT_UINT8: case PT_FLAGS8: case PT_SIGTYPE: case PT_L4PROTO:
	case PT_SOCKFAMILY: case PT_BOOL:
		v->min = 0, v->max = UINT8_MAX;
		return true;
	case PT_INT16:
		v->min = INT16_MIN, v->max = INT16_MAX;
		return true;
	case PT_UINT16: case PT_FLAGS16: case PT_PORT: case PT_SYSCALLID:
		v->min = 0, v->max = UINT16_MAX;
		return true;
	case PT_INT32:
		v->min = INT32_MIN, v->max = INT32_MAX;
		return true;
	case PT_UID: case PT_GID:
		v->id32 = true;
		v->min = -1, v->max = UINT32_MAX;
		return true;
	case PT_UINT32: case PT_FLAGS32: case PT_MODE: case PT_IPV4ADDR:
		v->min = 0, v->max = UINT32_MAX;
		return true;
	case PT_INT64: case PT_ERRNO: case PT_FD: case PT_PID:
		v->min = INT64_MIN, v->max = INT64_MAX;
		return true;
	case PT_UINT64: case PT_RELTIME: case PT_ABSTIME:
		v->min = 0, v->max = UINT64_MAX;
		return true;
	default:
		return false;
	}
}

/* evt.rawarg compares as its param's type, which may differ between the events
 * that have the param: a number only when it is one in all of them (then in
 * the union of their ranges), else anything goes, as before. */
static void rawarg__spec(const struct field_ref *ref, struct vspec *v)
{
	bool num = false, any_id = false, u32 = true;
	struct vspec p;

	for (unsigned t = 0; t < PPM_EVENT_MAX; t++) {
		const struct ppm_event_info *ei = &schema_events[t];
		unsigned idx = ref->param_idx ? ref->param_idx[t] : (unsigned)ref->index;

		if (!ei->name || idx >= ei->nparams || idx >= PPM_MAX_EVENT_PARAMS)
			continue;
		if (!param_type__range(ei->params[idx].type, &p)) {
			v->kind = VK_ANY;
			return;
		}
		if (!num || p.min < v->min)
			v->min = p.min;
		if (!num || p.max > v->max)
			v->max = p.max;
		any_id |= p.id32;
		u32 &= p.min >= -1 && p.max == UINT32_MAX;
		num = true;
	}
	v->kind = num ? VK_NUM : VK_ANY;
	/* a uid that some events declare as a plain UINT32 (clone's) */
	v->id32 = num && any_id && u32;
	v->unset = UINT32_MAX;
}

static void ref__spec(const struct field_ref *ref, struct vspec *v)
{
	const struct field_info *f = ref->info;

	memset(v, 0, sizeof(*v));
	switch (f->type) {
	case FT_STRING: case FT_BUFFER:
		v->kind = VK_TEXT;
		return;
	case FT_BOOL:
		v->kind = VK_BOOL;
		return;
	case FT_IPADDR:
		v->kind = VK_IP;
		return;
	case FT_PARAM:
		rawarg__spec(ref, v);
		return;
	default:
		break;
	}
	v->kind = VK_NUM;
	if (f->range != FR_TYPE && f->range < sizeof(field_ranges) / sizeof(field_ranges[0])) {
		v->min = field_ranges[f->range].min;
		v->max = field_ranges[f->range].max;
	} else {
		v->min = f->type == FT_INT64 ? INT64_MIN : 0;
		v->max = f->type == FT_INT64 ? INT64_MAX : (__int128)UINT64_MAX;
	}
	v->id32 = f->range == FR_ID32;
	v->unset = f->type == FT_INT64 ? -1 : (__int128)UINT32_MAX;
}

int fnode__check_op(const struct fnode *n, size_t col, struct filter_error *err)
{
	uint8_t op = n->op;
	bool ordering = op >= OP_LT && op <= OP_GE;
	bool textual = (op >= OP_CONTAINS && op <= OP_GLOB) || op == OP_PMATCH;
	struct vspec v;
	char name[192];

	ref__spec(&n->ref, &v);
	field_ref__name(&n->ref, name, sizeof(name));
	if (ordering && v.kind != VK_NUM && v.kind != VK_ANY)
		return filter_error__set(err, (int)col + 1, "operator '%s' needs a numeric field and "
					 "%s is not one at column %zu", fop_names[op], name, col + 1);
	if (textual && v.kind != VK_TEXT && v.kind != VK_ANY)
		return filter_error__set(err, (int)col + 1, "operator '%s' needs a text field and "
					 "%s is not one at column %zu", fop_names[op], name, col + 1);
	return 0;
}

/* Decimal or 0x hex with an optional sign: 0, -EINVAL when S is not a number,
 * -ERANGE when it needs more than 64 bits. */
static int number__parse(const char *s, __int128 *out)
{
	const char *p = s;
	bool neg = false;
	unsigned __int128 v = 0;
	unsigned base = 10;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && p[2]) {
		base = 16;
		p += 2;
	}
	if (!*p)
		return -EINVAL;
	for (; *p; p++) {
		unsigned d;

		if (isdigit((unsigned char)*p))
			d = (unsigned)(*p - '0');
		else if (base == 16 && isxdigit((unsigned char)*p))
			d = (unsigned)(tolower((unsigned char)*p) - 'a' + 10);
		else
			return -EINVAL;
		/* past 64 bits, only whether it is a number still matters */
		if (v <= UINT64_MAX)
			v = v * base + d;
	}
	if (v > UINT64_MAX)
		return -ERANGE;
	*out = neg ? -(__int128)v : (__int128)v;
	return 0;
}

/* A duration in ns for FF_DURATION fields: a number with a unit (ns, us,
 * ms, s), as "req.duration > 100ms" reads. */
static int duration__parse(const char *s, __int128 *out)
{
	static const struct { const char *u; uint64_t mul; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};
	size_t n = strlen(s);
	char num[32];

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t ul = strlen(units[i].u);

		if (n <= ul || n - ul >= sizeof(num) || strcmp(s + n - ul, units[i].u))
			continue;
		/* "5ms" ends in "s" too: the digit before the unit decides */
		if (!isdigit((unsigned char)s[n - ul - 1]))
			continue;
		memcpy(num, s, n - ul);
		num[n - ul] = '\0';
		if (number__parse(num, out))
			return -EINVAL;
		if (*out < 0 || *out > (__int128)(UINT64_MAX / units[i].mul))
			return -ERANGE;
		*out *= units[i].mul;
		return 0;
	}
	return -EINVAL;
}

static bool ip__parse(const char *s, struct fconst *c)
{
	if (inet_pton(AF_INET, s, c->addr) == 1) {
		c->family = PPM_AF_INET;
		return true;
	}
	if (inet_pton(AF_INET6, s, c->addr) == 1) {
		c->family = PPM_AF_INET6;
		return true;
	}
	return false;
}

/* Checks a number against the field's range; (uid_t)-1 becomes the value the
 * field yields for it. */
static int num__check(struct fconst *c, int rc, const struct vspec *v, const char *name,
		      struct filter_error *err)
{
	int col = (int)c->column + 1;

	if (rc == -EINVAL)
		return filter_error__set(err, col, "expected a number for %s, not '%s', at column %d",
					 name, c->s, col);
	if (rc == -ERANGE || c->num < v->min || c->num > v->max)
		return filter_error__set(err, col, "%s is out of range for %s (%lld..%llu) at column %d",
					 c->s, name, (long long)v->min, (unsigned long long)v->max,
					 col);
	if (v->id32 && (c->num == -1 || c->num == UINT32_MAX))
		c->num = v->unset;
	return 0;
}

int fconst__prepare(struct fconst *c, const struct fnode *n, struct filter_error *err)
{
	int col = (int)c->column + 1, rc;
	char name[192], why[128];
	struct vspec v;

	ref__spec(&n->ref, &v);
	field_ref__name(&n->ref, name, sizeof(name));
	rc = number__parse(c->s, &c->num);
	if (rc == -EINVAL && n->ref.info && (n->ref.info->flags & FF_DURATION))
		rc = duration__parse(c->s, &c->num);
	c->has_num = rc == 0;
	if (strcmp(c->s, "true") == 0 || strcmp(c->s, "false") == 0) {
		c->has_bool = true;
		c->b = c->s[0] == 't';
	}
	c->has_ip = ip__parse(c->s, c);
	if (n->op == OP_ICONTAINS) {
		c->lower = strdup(c->s);
		if (!c->lower) {
			filter_error__set(err, 0, "out of memory");
			return -ENOMEM;
		}
		for (char *q = c->lower; *q; q++)
			*q = (char)tolower((unsigned char)*q);
	}
	if (v.kind == VK_NUM && num__check(c, rc, &v, name, err))
		return -EINVAL;
	if (v.kind == VK_BOOL && !c->has_bool)
		return filter_error__set(err, col, "expected true or false for %s, not '%s', at column %d",
					 name, c->s, col);
	if (v.kind == VK_IP && !c->has_ip)
		return filter_error__set(err, col, "expected an IP address for %s, not '%s', at column %d",
					 name, c->s, col);
	if (n->op == OP_GLOB && glob__check(c->s, c->len, why, sizeof(why)))
		return filter_error__set(err, col, "invalid glob pattern '%s' (%s) at column %d",
					 c->s, why, col);
	return 0;
}
