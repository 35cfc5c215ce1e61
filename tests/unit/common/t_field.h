/* A field as -p prints it, for the tests of fields (test_fields, tcp's and
 * the like): parsed, extracted with CTX and rendered into OUT. */
#ifndef UNIT_T_FIELD_H
#define UNIT_T_FIELD_H

#include <stdio.h>

#include "fields.h"

/* FIELD of EV (NULL for a record's fields) as text in OUT, or "<NA>". */
static inline const char *t_field(struct field_ctx *ctx, struct sbuf *out, const char *field,
				  const struct ievt *ev)
{
	struct filter_error err;
	struct field_ref ref;
	struct field_value v;

	sbuf__reset(out);
	if (field_ref__parse(field, 1, 0, &ref, &err)) {
		fprintf(stderr, "bad field %s: %s\n", field, err.msg);
		return "<BAD FIELD>";
	}
	if (field__extract(&ref, ev, ctx, 0, &v) == 0)
		field__render(&ref, &v, ctx, out);
	else
		sbuf__puts(out, "<NA>");
	field_ref__fini(&ref);
	return sbuf__cstr(out);
}

#endif
