/* Kernel pushdown: which event codes (and syscalls) a filter can possibly match.
 *
 * Each node yields a set of event codes and a set of generic-event syscalls
 * (native numbers) that may match, plus whether the node is decided by the event
 * type alone ("exact"). Only exact sets can be complemented under 'not'; any
 * other node under 'not' may match anything. Generic codes 0/1 are decided by
 * the syscall set, never by the code set. */
#include <errno.h>
#include <stdlib.h>

#include "filter_int.h"

struct evset {
	uint8_t codes[PPM_EVENT_MAX];
	uint8_t nr[SYSCALL_TABLE_SIZE];
	bool exact;
};

static void evset__fill(struct evset *s, uint8_t v)
{
	memset(s->codes, v, sizeof(s->codes));
	memset(s->nr, v, sizeof(s->nr));
}

void fnode__cmp_events(const struct fnode *n, uint8_t codes[PPM_EVENT_MAX],
		       uint8_t nr[SYSCALL_TABLE_SIZE], bool *exact)
{
	*exact = false;
	if (n->type_codes) {
		bool neg = n->op == OP_NE;

		for (unsigned t = 0; t < PPM_EVENT_MAX; t++)
			codes[t] = n->type_codes[t] ^ neg;
		for (unsigned i = 0; i < SYSCALL_TABLE_SIZE; i++)
			nr[i] = n->type_nr[i] ^ neg;
		*exact = true;
	} else if (n->ref.param_idx && n->ref.info->arg != FARG_EVTYPE && n->op != OP_EXISTS) {
		/* evt.arg.NAME / evt.rawarg.NAME: absent (so false) on events
		 * without that param (evt.type.is.X is 0 or 1 on every event,
		 * so it narrows nothing) */
		for (unsigned t = 0; t < PPM_EVENT_MAX; t++)
			codes[t] = n->ref.param_idx[t] != 0xff;
		memset(nr, 0, SYSCALL_TABLE_SIZE);
		if (n->ref.param_idx[PPME_GENERIC_E] != 0xff ||
		    n->ref.param_idx[PPME_GENERIC_X] != 0xff)
			memset(nr, 1, SYSCALL_TABLE_SIZE);
	} else {
		memset(codes, 1, PPM_EVENT_MAX);
		memset(nr, 1, SYSCALL_TABLE_SIZE);
	}
}

static int node__events(const struct fnode *n, struct evset *out)
{
	struct evset *kid;
	int r = 0;

	switch (n->kind) {
	case FN_CMP:
		fnode__cmp_events(n, out->codes, out->nr, &out->exact);
		return 0;
	case FN_NOT:
		r = node__events(n->kids[0], out);
		if (r)
			return r;
		if (!out->exact) {
			evset__fill(out, 1);
			return 0;
		}
		for (unsigned t = 0; t < PPM_EVENT_MAX; t++)
			out->codes[t] ^= 1;
		for (unsigned nr = 0; nr < SYSCALL_TABLE_SIZE; nr++)
			out->nr[nr] ^= 1;
		return 0;
	default:
		break;
	}

	/* and / or */
	kid = malloc(sizeof(*kid));
	if (!kid)
		return -ENOMEM;
	evset__fill(out, n->kind == FN_AND ? 1 : 0);
	out->exact = true;
	for (uint32_t i = 0; i < n->nkids && !r; i++) {
		r = node__events(n->kids[i], kid);
		if (r)
			break;
		for (unsigned t = 0; t < PPM_EVENT_MAX; t++)
			out->codes[t] = n->kind == FN_AND ? out->codes[t] & kid->codes[t]
							  : out->codes[t] | kid->codes[t];
		for (unsigned nr = 0; nr < SYSCALL_TABLE_SIZE; nr++)
			out->nr[nr] = n->kind == FN_AND ? out->nr[nr] & kid->nr[nr]
							: out->nr[nr] | kid->nr[nr];
		out->exact = out->exact && kid->exact;
	}
	free(kid);
	return r;
}

int filter__events(const struct filter *f, struct filter_events *out)
{
	struct evset *s;
	bool all = true, any_nr = false;
	int r;

	if (!f || !f->root) {
		memset(out->codes, 1, sizeof(out->codes));
		memset(out->generic_nr, 1, sizeof(out->generic_nr));
		out->all = true;
		return 0;
	}
	s = malloc(sizeof(*s));
	if (!s)
		return -ENOMEM;
	r = node__events(f->root, s);
	if (r) {
		free(s);
		return r;
	}
	memcpy(out->generic_nr, s->nr, sizeof(out->generic_nr));
	memcpy(out->codes, s->codes, sizeof(out->codes));
	/* generic events come only from syscalls routed to them: an evt.type
	 * naming a syscall with an event of its own needs no generic events */
	for (unsigned i = 0; i < SYSCALL_TABLE_SIZE; i++) {
		if (schema_syscall_routes[i].enter_event != PPME_GENERIC_E)
			continue;
		all &= s->nr[i];
		any_nr |= s->nr[i];
	}
	out->codes[PPME_GENERIC_E] = out->codes[PPME_GENERIC_X] = any_nr;
	for (unsigned t = 0; t < PPM_EVENT_MAX; t++)
		all &= out->codes[t];
	out->all = all;
	free(s);
	return 0;
}

/* The event set on the heap: it is too large for a small stack. */
static int filter__events_alloc(const struct filter *f, struct filter_events **out)
{
	struct filter_events *ev = malloc(sizeof(*ev));
	int r;

	if (!ev)
		return -ENOMEM;
	r = filter__events(f, ev);
	if (r) {
		free(ev);
		return r;
	}
	*out = ev;
	return 0;
}

int filter__event_set(const struct filter *f, uint8_t set[PPM_EVENT_MAX])
{
	struct filter_events *ev;
	int r = filter__events_alloc(f, &ev);

	if (r)
		return r;
	memcpy(set, ev->codes, PPM_EVENT_MAX);
	r = ev->all;
	free(ev);
	return r;
}

int filter_events__syscalls(const struct filter_events *events, uint8_t sc[SYSCALL_TABLE_SIZE])
{
	int n = 0;

	for (unsigned i = 0; i < SYSCALL_TABLE_SIZE; i++) {
		const struct syscall_route *r = &schema_syscall_routes[i];

		if (events->all)
			sc[i] = 1;
		else if (r->enter_event == PPME_GENERIC_E)
			sc[i] = events->generic_nr[i];
		else
			sc[i] = (r->enter_event < PPM_EVENT_MAX && events->codes[r->enter_event]) ||
				(r->exit_event < PPM_EVENT_MAX && events->codes[r->exit_event]);
		n += sc[i];
	}
	return n;
}

void filter_events__add_state(struct filter_events *events)
{
	for (unsigned t = 0; t < PPM_EVENT_MAX; t++)
		if (schema_events[t].flags & (EF_MODIFIES_STATE | EF_CREATES_FD | EF_DESTROYS_FD))
			events->codes[t] = 1;
}

int filter__syscalls_needed(const struct filter *f, uint8_t sc[SYSCALL_TABLE_SIZE])
{
	struct filter_events *ev;
	int r = filter__events_alloc(f, &ev);

	if (r)
		return r;
	if (!ev->all)
		filter_events__add_state(ev);
	r = filter_events__syscalls(ev, sc);
	free(ev);
	return r;
}

static void node__open_names(const struct fnode *n, bool *open, bool *openat)
{
	for (uint32_t i = 0; i < n->nkids; i++)
		node__open_names(n->kids[i], open, openat);
	if (n->kind != FN_CMP || !n->type_codes)
		return;
	if (n->op != OP_EQ && n->op != OP_NE && n->op != OP_IN && n->op != OP_INTERSECTS)
		return;
	for (uint32_t v = 0; v < n->nvals; v++) {
		*open |= strcmp(n->vals[v].s, "open") == 0;
		*openat |= strcmp(n->vals[v].s, "openat") == 0;
	}
}

bool filter__names_open_without_openat(const struct filter *f)
{
	bool open = false, openat = false;

	if (!f || !f->root)
		return false;
	node__open_names(f->root, &open, &openat);
	return open && !openat;
}
