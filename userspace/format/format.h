/* Output formatters: sysdig's default text line, -p format strings, and JSON
 * lines (-j). They append to a caller-owned struct sbuf that the caller writes
 * out and resets; after warm-up no call allocates. */
#ifndef FORMAT_H
#define FORMAT_H

#include "fields.h"

struct format;

/* sysdig's default line:
 * "*%evt.num %evt.outputtime %evt.cpu %proc.name (%thread.tid) %evt.dir %evt.type %evt.info"
 * (evt.outputtime prints as evt.time in text). */
#define FORMAT_DEFAULT "*%evt.num %evt.outputtime %evt.cpu %proc.name (%thread.tid) " \
		       "%evt.dir %evt.type %evt.info"

/* sysdig's -pc and -pk lines: the container's name (or the pod's) and id, and
 * the thread's id in its own pid namespace too. */
#define FORMAT_CONTAINER "*%evt.num %evt.outputtime %evt.cpu %container.name " \
			 "(%container.id) %proc.name (%thread.tid:%thread.vtid) %evt.dir " \
			 "%evt.type %evt.info"
#define FORMAT_K8S "*%evt.num %evt.outputtime %evt.cpu %k8s.pod.name " \
		   "(%container.id) %proc.name (%thread.tid:%thread.vtid) %evt.dir " \
		   "%evt.type %evt.info"

/* The largest N of %Nfield (sysdig takes N modulo 2^32 and prints gigabytes). */
#define FORMAT_WIDTH_MAX 65535u

/* Compiles a -p format: literal text with %field, %field[N], %evt.arg.NAME, and
 * %Nfield to pad or cut a field to N characters. A leading '*' prints events
 * even when a field is absent (as <NA>); otherwise such events are skipped.
 * Returns NULL with errno set (EINVAL: ERR names the column; ENOMEM). */
struct format *format__compile(const char *fmt, struct filter_error *err);
void format__free(struct format *f);

/* Appends the text line of EV, newline included. Returns 0, -ENOENT if the
 * event is skipped (a field absent, no '*'; nothing appended), or -ENOMEM. */
int format__text(const struct format *f, const struct ievt *ev, struct field_ctx *ctx,
		 struct sbuf *out);

/* Appends EV as one JSON object line, newline included: the fields of F as keys
 * in name order, numbers as numbers, absent fields as null. With the default
 * format this is sysdig -j's object (evt.cpu, evt.dir, evt.info, evt.num,
 * evt.outputtime, evt.type, proc.name, thread.tid). Same returns as
 * format__text. */
int format__json(const struct format *f, const struct ievt *ev, struct field_ctx *ctx,
		 struct sbuf *out);

/* Appends S as the inside of a JSON string: quotes, backslashes and control
 * characters escaped, valid UTF-8 kept, each invalid byte as U+FFFD. */
void json__escape(struct sbuf *out, const char *s, size_t len);

#endif
