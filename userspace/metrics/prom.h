/* Prometheus text exposition format 0.0.4, written into a growable buffer.
 * https://prometheus.io/docs/instrumenting/exposition_formats/ */
#ifndef PROM_H
#define PROM_H

#include <stddef.h>
#include <stdint.h>

/* The text built so far: BUF[0..LEN) and a NUL after it (BUF is NULL while
 * nothing was written). Zero-initialised is empty. */
struct prom_buf {
	char *buf;
	size_t len;
	size_t cap;
};

#define PROM_BUF_INIT { NULL, 0, 0 }

/* Empties B and keeps its memory for the next snapshot. */
void prom_buf__reset(struct prom_buf *b);

/* Frees B's memory and empties it. NULL accepted. */
void prom_buf__free(struct prom_buf *b);

/* Appends "# HELP NAME HELP" (skipped when HELP is NULL) and "# TYPE NAME TYPE".
 * TYPE is "counter", "gauge", "untyped" or "histogram" (whose samples the
 * caller writes as NAME_bucket{le=...}, NAME_sum and NAME_count).
 *
 * All prom__ functions: NAME must match [a-zA-Z_:][a-zA-Z0-9_:]*; text that is not
 * UTF-8 has its bad bytes replaced by U+FFFD (Prometheus refuses the whole
 * scrape otherwise). Return 0, -EINVAL (bad name, type or labels) or -ENOMEM;
 * on error B is as it was before the call. */
int prom__family(struct prom_buf *b, const char *name, const char *type, const char *help);

/* Appends one sample line "NAME{k="v",...} VALUE". LABELS is NULL or an array of
 * name, value strings ended by a NULL name: {"output", "tcp://x:1", NULL}. Label
 * names match [a-zA-Z_][a-zA-Z0-9_]*, do not start with "__" (reserved) and appear
 * once. */
int prom__sample_u64(struct prom_buf *b, const char *name, const char *const labels[],
		     uint64_t value);

/* The same with a double: NaN, +Inf and -Inf spelled as Prometheus reads them,
 * other values with as many digits as it takes to read back the same double. */
int prom__sample_double(struct prom_buf *b, const char *name, const char *const labels[],
			double value);

#endif
