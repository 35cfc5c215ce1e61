/* Amounts as a reader takes them in: evt.latency.human's rule (sysdig's),
 * used for times and byte counts alike. */
#include "fields_int.h"

/* Below 10 of a unit two decimals, cut not rounded (3896 ns is 3.89us), from
 * 10 on whole units (11951897 ns is 11ms); below the smallest unit the bare
 * amount with BASE (812ns, 89B). UNITS: largest first. */
static int amount__human(uint64_t n, const struct human_unit *units, unsigned nunits,
			 const char *base, struct field_ctx *ctx, struct field_value *out)
{
	struct sbuf *o = &ctx->scratch;

	sbuf__reset(o);
	for (unsigned i = 0; i < nunits; i++) {
		uint64_t d = units[i].div;

		if (n < d)
			continue;
		sbuf__u64(o, n / d);
		if (n / d < 10) {
			sbuf__putc(o, '.');
			sbuf__padded(o, (int64_t)(n % d / (d / 100)), 2);
		}
		sbuf__puts(o, units[i].unit);
		goto done;
	}
	sbuf__u64(o, n);
	sbuf__puts(o, base);
done:
	if (o->err)
		return o->err;
	return value__str(out, o->buf, o->len);
}

int value__human_ns(struct field_value *out, uint64_t ns, struct field_ctx *ctx)
{
	static const struct human_unit units[] = {
		{ 1000000000ULL, "s" }, { 1000000ULL, "ms" }, { 1000ULL, "us" },
	};

	return amount__human(ns, units, sizeof(units) / sizeof(units[0]), "ns", ctx, out);
}

int value__human_bytes(struct field_value *out, uint64_t bytes, struct field_ctx *ctx)
{
	/* decimal (SI) units, as the times' */
	static const struct human_unit units[] = {
		{ 1000000000ULL, "GB" }, { 1000000ULL, "MB" }, { 1000ULL, "kB" },
	};

	return amount__human(bytes, units, sizeof(units) / sizeof(units[0]), "B", ctx, out);
}
