/* -p format strings: compiled once into literal text and field references,
 * then rendered per event as text or as a JSON object. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "format.h"

struct fmt_item {
	char *text;		/* literal text before the field */
	uint32_t len;
	bool has_field;
	uint32_t width;		/* %Nfield: pad or cut to N characters; 0: as is */
	struct field_ref ref;
	char *key;		/* JSON: "\"name\":" */
	uint32_t key_len;
	char *name;		/* the field as named in the key */
};

struct format {
	struct fmt_item *items;
	uint32_t n;
	bool print_all;		/* leading '*' */
	uint32_t *json;		/* field items in key order, without repeats */
	uint32_t njson;
};


void format__free(struct format *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < f->n; i++) {
		free(f->items[i].text);
		free(f->items[i].key);
		free(f->items[i].name);
		field_ref__fini(&f->items[i].ref);
	}
	free(f->items);
	free(f->json);
	free(f);
}

static struct fmt_item *item__add(struct format *f, const char *text, size_t len)
{
	struct fmt_item *items = realloc(f->items, (f->n + 1) * sizeof(*items));
	struct fmt_item *it;

	if (!items)
		return NULL;
	f->items = items;
	it = &f->items[f->n];
	memset(it, 0, sizeof(*it));
	it->ref.index = -1;
	it->text = strndup(text, len);
	if (!it->text)
		return NULL;
	it->len = (uint32_t)len;
	f->n++;
	return it;
}

static int item__set_key(struct fmt_item *it)
{
	char name[192];
	size_t n;

	field_ref__name(&it->ref, name, sizeof(name));
	n = strlen(name);
	it->name = strdup(name);
	it->key = malloc(n + 4);
	if (!it->name || !it->key)
		return -ENOMEM;
	it->key[0] = '"';
	memcpy(it->key + 1, name, n);
	memcpy(it->key + 1 + n, "\":", 3);
	it->key_len = (uint32_t)n + 3;
	return 0;
}

/* JSON keys in name order (sysdig's objects are sorted), each field once. */
static int json_order__build(struct format *f)
{
	f->json = malloc((f->n ? f->n : 1) * sizeof(*f->json));
	if (!f->json)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->n; i++) {
		const struct fmt_item *it = &f->items[i];
		uint32_t pos = 0;
		int c = 1;

		if (!it->has_field)
			continue;
		while (pos < f->njson && (c = strcmp(f->items[f->json[pos]].name, it->name)) < 0)
			pos++;
		if (pos < f->njson && c == 0)
			continue;
		memmove(f->json + pos + 1, f->json + pos, (f->njson - pos) * sizeof(*f->json));
		f->json[pos] = i;
		f->njson++;
	}
	return 0;
}

/* Reads the digits of a %Nfield width at FMT[*POS], if any. Returns 0, or
 * -EINVAL when the width is above FORMAT_WIDTH_MAX. */
static int width__parse(const char *fmt, size_t *pos, uint32_t *width, struct filter_error *err)
{
	size_t start = *pos, n;

	*width = 0;
	for (; isdigit((unsigned char)fmt[*pos]); (*pos)++)
		if (*width <= FORMAT_WIDTH_MAX)	/* stays far from overflowing */
			*width = *width * 10 + (uint32_t)(fmt[*pos] - '0');
	if (*width <= FORMAT_WIDTH_MAX)
		return 0;
	n = *pos - start;
	return filter_error__set(err, (int)start + 1, "field width %.*s%s at column %zu is too "
				 "large (at most %u)", n > 24 ? 24 : (int)n, fmt + start,
				 n > 24 ? "..." : "", start + 1, FORMAT_WIDTH_MAX);
}

struct format *format__compile(const char *fmt, struct filter_error *err)
{
	struct format *f = calloc(1, sizeof(*f));
	size_t pos = 0, lit;
	int r = -EINVAL;

	if (err) {
		err->column = 0;
		err->msg[0] = '\0';
	}
	if (!f || !fmt) {
		r = f ? filter_error__set(err, 0, "no format given") : -ENOMEM;
		goto fail;
	}
	if (fmt[0] == '*') {
		f->print_all = true;
		pos = 1;
	}
	while (fmt[pos]) {
		struct fmt_item *it;
		uint32_t width = 0;
		size_t start;

		lit = pos;
		while (fmt[pos] && fmt[pos] != '%')
			pos++;
		if (!fmt[pos]) {	/* trailing text */
			if (!item__add(f, fmt + lit, pos - lit)) {
				r = -ENOMEM;
				goto fail;
			}
			break;
		}
		start = pos++;
		r = width__parse(fmt, &pos, &width, err);
		if (r)
			goto fail;
		if (!fmt[pos]) {
			if (pos == start + 1)
				r = filter_error__set(err, (int)start + 1, "a format cannot end with '%%' "
						      "(column %zu)", start + 1);
			else
				r = filter_error__set(err, (int)start + 2, "field width %.*s at column %zu "
						      "is not followed by a field name",
						      (int)(pos - start - 1), fmt + start + 1, start + 2);
			goto fail;
		}
		it = item__add(f, fmt + lit, start - lit);
		if (!it) {
			r = -ENOMEM;
			goto fail;
		}
		it->width = width;
		r = field_ref__parse(fmt + pos, (int)pos + 1, FREF_FORMAT, &it->ref, err);
		if (r) {
			if (err && strncmp(err->msg, "expected a field name", 21) == 0)
				filter_error__set(err, (int)pos + 1, "expected a field name after '%.*s' at "
						  "column %zu", (int)(pos - start), fmt + start, pos + 1);
			goto fail;
		}
		it->has_field = true;
		if (it->ref.info->flags & FF_FILTER_ONLY) {
			r = filter_error__set(err, (int)pos + 1, "%s can only be used in filters, not in output "
				 "formats (column %zu)", it->ref.info->name, pos + 1);
			goto fail;
		}
		/* proc.aname and proc.apid print the process itself without an index */
		if ((it->ref.info->flags & FF_MULTI) && it->ref.index < 0)
			it->ref.index = 0;
		r = item__set_key(it);
		if (r)
			goto fail;
		pos += it->ref.text_len;
	}
	r = json_order__build(f);
	if (r)
		goto fail;
	return f;
fail:
	format__free(f);
	errno = r == -ENOMEM ? ENOMEM : EINVAL;
	if (r == -ENOMEM && err)
		filter_error__set(err, 0, "out of memory");
	return NULL;
}

static void width__apply(struct sbuf *out, size_t start, uint32_t width)
{
	size_t len = out->len - start;

	if (!width || out->err)
		return;
	if (len > width) {
		out->len = start + width;
		return;
	}
	if (sbuf__reserve(out, width - len))
		return;
	memset(out->buf + out->len, ' ', width - len);
	out->len += width - len;
}

int format__text(const struct format *f, const struct ievt *ev, struct field_ctx *ctx,
		 struct sbuf *out)
{
	size_t line = out->len, start;

	for (uint32_t i = 0; i < f->n; i++) {
		const struct fmt_item *it = &f->items[i];

		sbuf__append(out, it->text, it->len);
		if (!it->has_field)
			continue;
		start = out->len;
		if (field__append(&it->ref, ev, ctx, out) == 0) {
			/* appended */
		} else if (f->print_all) {
			sbuf__append(out, "<NA>", 4);
		} else {
			out->len = line;
			return -ENOENT;
		}
		width__apply(out, start, it->width);
	}
	sbuf__putc(out, '\n');
	if (out->err) {
		out->len = line;
		return out->err;
	}
	return 0;
}

static void json__value(const struct fmt_item *it, const struct field_value *v,
			struct field_ctx *ctx, struct sbuf *out)
{
	switch (v->type) {
	case FT_INT64:
		sbuf__i64(out, v->i);
		return;
	case FT_UINT64:
	case FT_ABSTIME:	/* times are numbers (ns) in JSON, as sysdig does */
		sbuf__u64(out, v->u);
		return;
	case FT_BOOL:
		sbuf__puts(out, v->b ? "true" : "false");
		return;
	case FT_STRING:
		sbuf__putc(out, '"');
		json__escape(out, v->s.ptr, v->s.len);
		sbuf__putc(out, '"');
		return;
	default:
		/* buffers and addresses: their text form */
		sbuf__reset(&ctx->tmp);
		field__render(&it->ref, v, ctx, &ctx->tmp);
		sbuf__putc(out, '"');
		if (!ctx->tmp.err)
			json__escape(out, ctx->tmp.buf ? ctx->tmp.buf : "", ctx->tmp.len);
		sbuf__putc(out, '"');
		return;
	}
}

/* evt.info and the like straight into OUT: they are printable ASCII, so only
 * quotes and backslashes (rare) need escaping, done from a copy. */
static int json__ascii_field(const struct fmt_item *it, const struct ievt *ev,
			     struct field_ctx *ctx, struct sbuf *out)
{
	size_t start;

	sbuf__putc(out, '"');
	start = out->len;
	if (field__append(&it->ref, ev, ctx, out)) {
		out->len = start - 1;
		return -ENOENT;
	}
	if (!out->err && (memchr(out->buf + start, '"', out->len - start) ||
			  memchr(out->buf + start, '\\', out->len - start))) {
		sbuf__reset(&ctx->tmp);
		sbuf__append(&ctx->tmp, out->buf + start, out->len - start);
		out->len = start;
		if (!ctx->tmp.err)
			json__escape(out, ctx->tmp.buf, ctx->tmp.len);
	}
	sbuf__putc(out, '"');
	return 0;
}

int format__json(const struct format *f, const struct ievt *ev, struct field_ctx *ctx,
		 struct sbuf *out)
{
	size_t line = out->len;
	struct field_value v;

	sbuf__putc(out, '{');
	for (uint32_t k = 0; k < f->njson; k++) {
		const struct fmt_item *it = &f->items[f->json[k]];

		if (k)
			sbuf__putc(out, ',');
		sbuf__append(out, it->key, it->key_len);
		if (field_ref__is_ascii(&it->ref)) {
			if (json__ascii_field(it, ev, ctx, out) == 0)
				continue;
		} else if (field__extract(&it->ref, ev, ctx, 0, &v) == 0) {
			json__value(it, &v, ctx, out);
			continue;
		}
		if (f->print_all) {
			sbuf__append(out, "null", 4);
		} else {
			out->len = line;
			return -ENOENT;
		}
	}
	sbuf__append(out, "}\n", 2);
	if (out->err) {
		out->len = line;
		return out->err;
	}
	return 0;
}

