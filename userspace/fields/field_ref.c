/* Field names as written in filters and formats: lookup, arguments, suggestions. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fields_int.h"

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.';
}

const struct field_info *fields__find(const char *name, size_t len)
{
	for (unsigned i = 0; i < field_table_len; i++) {
		const char *n = field_table[i].name;

		if (strncmp(n, name, len) == 0 && n[len] == '\0')
			return &field_table[i];
	}
	return NULL;
}

/* A field taking a named argument whose name is a prefix of NAME ("evt.arg.fd"). */
static const struct field_info *find_with_argname(const char *name, size_t len, size_t *baselen)
{
	for (unsigned i = 0; i < field_table_len; i++) {
		const struct field_info *f = &field_table[i];
		size_t n = strlen(f->name);

		if (f->arg != FARG_PARAM && f->arg != FARG_NAME && f->arg != FARG_EVTYPE)
			continue;
		if (len > n + 1 && strncmp(f->name, name, n) == 0 && name[n] == '.') {
			*baselen = n;
			return f;
		}
	}
	return NULL;
}

static unsigned edit_distance(const char *a, size_t la, const char *b)
{
	size_t lb = strlen(b);
	unsigned row[64];

	if (la >= 63 || lb >= 63)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0], tmp;

		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned best = diag + (a[i - 1] != b[j - 1]);

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			diag = tmp;
		}
	}
	return row[lb];
}

/* Appends "; did you mean a, b?" naming the closest fields, if any is close. */
static void suggest(const char *name, size_t len, char *msg, size_t size)
{
	unsigned best = 3, d;
	size_t off = strlen(msg);
	int n = 0;

	for (unsigned i = 0; i < field_table_len; i++) {
		d = edit_distance(name, len, field_table[i].name);
		if (d < best)
			best = d;
	}
	if (best >= 3)
		return;
	for (unsigned i = 0; i < field_table_len && n < 3; i++) {
		if (edit_distance(name, len, field_table[i].name) != best)
			continue;
		off += snprintf(msg + off, off < size ? size - off : 0, "%s%s",
				n ? ", " : "; did you mean ", field_table[i].name);
		n++;
		if (off >= size)
			return;
	}
	snprintf(msg + off, off < size ? size - off : 0, "?");
}

/* sysdig 0.29.3's container and k8s fields that the agent does not provide, and why. */
#define K8S_API "it needs the Kubernetes API server, which the agent does not ask (k8s.pod.name, " \
		"k8s.pod.id, k8s.pod.uid and k8s.ns.name come from the node's container runtime)"
static const struct {
	const char *prefix, *why;
} not_provided[] = {
	{ "container.mount", "container mounts are not read from the runtimes' files" },
	{ "container.healthcheck", "health checks are not read from the runtimes' files" },
	{ "container.liveness_probe", "probes are not read from the runtimes' files" },
	{ "container.readiness_probe", "probes are not read from the runtimes' files" },
	{ "k8s.pod.label", K8S_API }, { "k8s.ns.id", K8S_API }, { "k8s.ns.label", K8S_API },
	{ "k8s.rc.", K8S_API }, { "k8s.svc.", K8S_API }, { "k8s.rs.", K8S_API },
	{ "k8s.deployment.", K8S_API },
};

/* Appends why NAME is missing when it is a sysdig field the agent leaves out. */
static bool explain_missing(const char *name, size_t len, char *msg, size_t size)
{
	size_t off = strlen(msg);

	for (size_t i = 0; i < sizeof(not_provided) / sizeof(not_provided[0]); i++) {
		size_t pl = strlen(not_provided[i].prefix);

		if (len >= pl && strncmp(name, not_provided[i].prefix, pl) == 0) {
			snprintf(msg + off, off < size ? size - off : 0, ": %s",
				 not_provided[i].why);
			return true;
		}
	}
	return false;
}

int filter_error__set(struct filter_error *err, int column, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->column = column;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Fills ref->param_idx for a named argument: the index of the param called
 * ref->argname in every event code. Returns how many codes have it. */
static int build_param_idx(struct field_ref *ref)
{
	int found = 0;

	ref->param_idx = malloc(PPM_EVENT_MAX);
	if (!ref->param_idx)
		return -ENOMEM;
	for (unsigned t = 0; t < PPM_EVENT_MAX; t++) {
		const struct ppm_event_info *ei = &schema_events[t];

		ref->param_idx[t] = 0xff;
		for (uint32_t p = 0; p < ei->nparams && p < PPM_MAX_EVENT_PARAMS; p++) {
			if (ei->params[p].name && strcmp(ei->params[p].name, ref->argname) == 0) {
				ref->param_idx[t] = (uint8_t)p;
				found++;
				break;
			}
		}
	}
	return found;
}

/* evt.type.is.NAME: ref->param_idx[t] is 1 for the event codes called NAME.
 * As in sysdig, NAME is an event's name: syscalls without events of their own
 * are not known by theirs. Returns how many codes have that name. */
static int build_type_idx(struct field_ref *ref)
{
	int found = 0;

	ref->param_idx = malloc(PPM_EVENT_MAX);
	if (!ref->param_idx)
		return -ENOMEM;
	for (unsigned t = 0; t < PPM_EVENT_MAX; t++) {
		const char *n = schema_events[t].name;

		ref->param_idx[t] = n && strcmp(n, ref->argname) == 0;
		found += ref->param_idx[t];
	}
	return found;
}

int field_ref__parse(const char *s, int column, unsigned flags, struct field_ref *ref,
		     struct filter_error *err)
{
	const struct field_info *f;
	size_t len = 0, baselen = 0, pos;
	int r;

	memset(ref, 0, sizeof(*ref));
	ref->index = -1;
	while (is_name_char(s[len]))
		len++;
	if (len == 0)
		return filter_error__set(err, column, "expected a field name at column %d", column);
	/* "%proc.name." in a format: a trailing dot is text, not part of the name */
	while (len > 1 && s[len - 1] == '.' && !fields__find(s, len))
		len--;
	f = fields__find(s, len);
	if (!f) {
		f = find_with_argname(s, len, &baselen);
		if (!f) {
			filter_error__set(err, column, "unknown field '%.*s' at column %d", (int)len, s, column);
			if (err && !explain_missing(s, len, err->msg, sizeof(err->msg)))
				suggest(s, len, err->msg, sizeof(err->msg));
			return -EINVAL;
		}
		ref->argname = strndup(s + baselen + 1, len - baselen - 1);
		if (!ref->argname)
			return -ENOMEM;
	}
	ref->info = f;
	pos = len;
	if (s[pos] == '[' && !((flags & FREF_FORMAT) && (f->arg == FARG_NONE || ref->argname))) {
		size_t start = ++pos;
		long v = 0;

		if (f->arg == FARG_NONE || ref->argname) {
			field_ref__fini(ref);
			return filter_error__set(err, column + (int)start - 1,
				    "field '%s' takes no [] argument (column %d)", f->name,
				    column + (int)start - 1);
		}
		while (isdigit((unsigned char)s[pos]) && v < 1000000)
			v = v * 10 + (s[pos++] - '0');
		if (pos == start || s[pos] != ']') {
			field_ref__fini(ref);
			return filter_error__set(err, column + (int)pos, "expected a number and ']' at column %d",
				    column + (int)pos);
		}
		ref->index = (int32_t)v;
		pos++;
	}
	if (f->arg == FARG_EVTYPE && !ref->argname) {
		field_ref__fini(ref);
		return filter_error__set(err, column, "field '%s' needs an event name, e.g. %s.open "
			    "(column %d)", f->name, f->name, column);
	}
	if ((f->arg == FARG_PARAM || f->arg == FARG_NAME) && ref->index < 0 && !ref->argname) {
		field_ref__fini(ref);
		return filter_error__set(err, column, "field '%s' needs an argument, e.g. %s.fd or %s[0] "
			    "(column %d)", f->name, f->name, f->name, column);
	}
	if (ref->argname) {
		r = f->arg == FARG_EVTYPE ? build_type_idx(ref) : build_param_idx(ref);
		if (r <= 0) {
			int col = column + (int)baselen + 1;

			if (r == 0 && f->arg == FARG_EVTYPE)
				filter_error__set(err, col, "no event is called '%s' (column %d)", ref->argname, col);
			else if (r == 0)
				filter_error__set(err, col, "no event has an argument named '%s' (column %d)",
				     ref->argname, col);
			field_ref__fini(ref);
			return r < 0 ? r : -EINVAL;
		}
	}
	ref->text_len = (uint32_t)pos;
	return 0;
}

void field_ref__fini(struct field_ref *ref)
{
	if (!ref)
		return;
	free(ref->argname);
	free(ref->param_idx);
	ref->argname = NULL;
	ref->param_idx = NULL;
}

int field_ref__copy(struct field_ref *dst, const struct field_ref *src)
{
	*dst = *src;
	dst->argname = NULL;
	dst->param_idx = NULL;
	if (src->argname) {
		dst->argname = strdup(src->argname);
		dst->param_idx = malloc(PPM_EVENT_MAX);
		if (!dst->argname || !dst->param_idx) {
			field_ref__fini(dst);
			return -ENOMEM;
		}
		memcpy(dst->param_idx, src->param_idx, PPM_EVENT_MAX);
	}
	return 0;
}

void field_ref__name(const struct field_ref *ref, char *buf, size_t size)
{
	if (ref->argname)
		snprintf(buf, size, "%s.%s", ref->info->name, ref->argname);
	else if (ref->index >= 0)
		snprintf(buf, size, "%s[%d]", ref->info->name, ref->index);
	else
		snprintf(buf, size, "%s", ref->info->name);
}
