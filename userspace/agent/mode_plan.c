/* What a mode asks of the kernel: its events, and the user's filter's tests
 * (the process tests the kernel can push), as one filter the kernel plan
 * reads (a->kplan). The modes (--requests, --profile, --tcp) each name
 * their events. */
#include <errno.h>
#include <string.h>

#include "agent.h"
#include "say.h"

int agent__mode_kplan(struct agent *a, const char *events, const char *what)
{
	struct filter_error ferr = { 0 };
	struct sbuf expr;

	sbuf__init(&expr);
	sbuf__append(&expr, events, strlen(events));
	if (a->o.filter) {
		sbuf__append(&expr, " and (", 6);
		sbuf__append(&expr, a->o.filter, strlen(a->o.filter));
		sbuf__append(&expr, ")", 2);	/* with the NUL */
	} else {
		sbuf__append(&expr, "", 1);
	}
	a->kplan = expr.err ? NULL : filter__compile(expr.buf, &ferr);
	sbuf__free(&expr);
	if (!a->kplan) {
		agent__say("cannot plan %s's kernel filter: %s", what,
			   ferr.msg[0] ? ferr.msg : strerror(ENOMEM));
		return -EINVAL;
	}
	return 0;
}
