/* How an event or a request record becomes a line for the outputs: the
 * format, sysdig's buffer printing, and -n. */
#include <errno.h>

#include "agent.h"

/* sysdig's buffer printing: cut at 80 characters unless -v or JSON output, in
 * one of the -A/-x/-X/-b forms. */
void agent__buffer_options(struct agent *a)
{
	if (a->o.verbose || a->o.json)
		a->fctx.buf_limit = 0;
	switch (a->o.buf_format) {
	case 'A': a->fctx.buf_format = BUF_ASCII; break;
	case 'x': a->fctx.buf_format = BUF_HEX; break;
	case 'X': a->fctx.buf_format = BUF_HEXASCII; break;
	case 'b': a->fctx.buf_format = BUF_BASE64; break;
	}
}

int agent__emit(struct agent *a, const struct ievt *ev)
{
	int err;

	sbuf__reset(&a->out);
	err = a->o.json ? format__json(a->fmt, ev, &a->fctx, &a->out)
			: format__text(a->fmt, ev, &a->fctx, &a->out);
	if (err == -ENOENT)
		return 0;	/* a field the format needs is absent: sysdig skips it */
	if (err)
		return err;
	outputs__push(&a->outs, a->out.buf, a->out.len, ev->ts);
	return 0;
}

/* Whether -n is reached. */
bool agent__n_reached(const struct agent *a)
{
	return a->o.max_events && a->tally.matched >= a->o.max_events;
}
