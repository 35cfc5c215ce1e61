/* A slow request's timeline as JSON and SVG (timeline.h). The SVG is written
 * by hand: it is a few rectangles and labels, and cairo's SVG surface (the
 * Debian library that draws SVG) turns text into glyph outlines, which a
 * browser can neither search nor copy, at ten times the size. */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "timeline.h"

static const char *state_name(const struct prof_tl_slice *s)
{
	if (s->flags & PROF_SLICE_F_UNSEEN)
		return "lost";
	return s->kind == PROF_SLICE_RUNQ ? "runq" : "off";
}

/* ADD's result: false (and V freed) when it could not be added. */
static bool put(struct json_object *o, const char *k, struct json_object *v)
{
	if (!v || json_object_object_add(o, k, v)) {
		json_object_put(v);
		return false;
	}
	return true;
}

static struct json_object *slice__json(const struct prof_timeline *t, const struct prof_tl_slice *s)
{
	struct json_object *o = json_object_new_object();
	bool ok;
	char addr[24];

	if (!o)
		return NULL;
	ok = put(o, "offset", json_object_new_int64((int64_t)(s->start - t->start))) &&
	     put(o, "start", json_object_new_uint64(s->start)) &&
	     put(o, "dur", json_object_new_uint64(s->dur)) &&
	     put(o, "state", json_object_new_string(state_name(s)));
	if (ok && !(s->flags & PROF_SLICE_F_UNSEEN))
		ok = put(o, "reason", json_object_new_string(prof_slice__kind_name(s->kind)));
	if (ok && s->kind == PROF_SLICE_RUNQ && !(s->flags & PROF_SLICE_F_UNSEEN))
		ok = put(o, "preempted",
			 json_object_new_boolean(!!(s->flags & PROF_SLICE_F_PREEMPTED)));
	if (ok && s->syscall)
		ok = put(o, "syscall", json_object_new_string(s->syscall));
	if (ok && s->fd >= 0)
		ok = put(o, "fd", json_object_new_int64(s->fd)) &&
		     (!s->fd_name || put(o, "fd.name", json_object_new_string(s->fd_name)));
	if (ok && s->kind == PROF_SLICE_LOCK && s->futex) {
		snprintf(addr, sizeof(addr), "0x%" PRIx64, s->futex);
		ok = put(o, "futex", json_object_new_string(addr));
	}
	if (ok && s->waker)
		ok = put(o, "waker.tid", json_object_new_int64(s->waker)) &&
		     (!s->waker_name || put(o, "waker.name", json_object_new_string(s->waker_name)));
	if (!ok) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *call__json(const struct prof_timeline *t, const struct prof_tl_call *c)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	if (!(put(o, "req.id", json_object_new_uint64(c->id)) &&
	      put(o, "offset", json_object_new_int64((int64_t)(c->start - t->start))) &&
	      put(o, "start", json_object_new_uint64(c->start)) &&
	      put(o, "dur", json_object_new_uint64(c->dur)) &&
	      put(o, "protocol", json_object_new_string(c->proto)) &&
	      put(o, "request", json_object_new_string(c->what)) &&
	      put(o, "server", json_object_new_string(c->peer)) &&
	      (c->status < 0 || put(o, "status", json_object_new_int(c->status))) &&
	      put(o, "error", json_object_new_boolean(c->error)))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

struct json_object *prof_timeline__json(const struct prof_timeline *t)
{
	struct json_object *o = json_object_new_object(), *sl = json_object_new_array(),
			   *ca = json_object_new_array();
	bool ok = o && sl && ca;

	for (size_t i = 0; ok && i < t->n; i++) {
		struct json_object *x = slice__json(t, &t->s[i]);

		ok = x && !json_object_array_add(sl, x);
		if (!ok)
			json_object_put(x);
	}
	for (size_t i = 0; ok && i < t->ncalls; i++) {
		struct json_object *x = call__json(t, &t->calls[i]);

		ok = x && !json_object_array_add(ca, x);
		if (!ok)
			json_object_put(x);
	}
	ok = ok && put(o, "start", json_object_new_uint64(t->start)) &&
	     put(o, "end", json_object_new_uint64(t->end)) &&
	     put(o, "whole", json_object_new_boolean(t->whole));
	if (ok) {
		ok = put(o, "slices", sl);
		sl = NULL;
	}
	if (ok) {
		ok = put(o, "calls", ca);
		ca = NULL;
	}
	json_object_put(sl);
	json_object_put(ca);
	if (!ok) {
		json_object_put(o);
		errno = ENOMEM;
		return NULL;
	}
	return o;
}

/* The picture's geometry and colours (one per state and reason). */
#define W 1000
#define X0 10
#define PW (W - 2 * X0)
#define BAR_Y 50
#define BAR_H 30
#define CALL_H 18

static const char *const kind_colour[PROF_SLICE__KINDS] = {
	[PROF_SLICE_RUNQ] = "#f5b700", [PROF_SLICE_FILE] = "#1f77b4", [PROF_SLICE_NET] = "#9467bd",
	[PROF_SLICE_LOCK] = "#d62728", [PROF_SLICE_POLL] = "#7f7f7f",
	[PROF_SLICE_SLEEP] = "#17becf", [PROF_SLICE_OTHER] = "#8c564b",
};
#define ONCPU_COLOUR "#2ca02c"
#define LOST_COLOUR "#222222"

/* S as XML text (the five characters XML reserves escaped). */
static void xml(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			/* control bytes are not allowed in XML 1.0 */
			fputc((unsigned char)*s < 0x20 ? '?' : *s, f);
		}
	}
}

static double x_of(const struct prof_timeline *t, uint64_t at)
{
	uint64_t span = t->end > t->start ? t->end - t->start : 1;

	if (at < t->start)
		at = t->start;
	if (at > t->end)
		at = t->end;
	return X0 + (double)(at - t->start) * PW / (double)span;
}

static void rect(FILE *f, double x0, double x1, int y, int h, const char *fill)
{
	double w = x1 - x0 < 0.5 ? 0.5 : x1 - x0;

	fprintf(f, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\">", x0, y, w, h,
		fill);
}

static void slice__svg(FILE *f, const struct prof_timeline *t, const struct prof_tl_slice *s)
{
	bool lost = s->flags & PROF_SLICE_F_UNSEEN;
	const char *name = lost ? "lost" : prof_slice__kind_name(s->kind);
	double x0 = x_of(t, s->start), x1 = x_of(t, s->start + s->dur);

	rect(f, x0, x1, BAR_Y, BAR_H, lost ? LOST_COLOUR : kind_colour[s->kind]);
	fprintf(f, "<title>%s %.3f ms at +%.3f ms", name, s->dur / 1e6,
		(double)(s->start - t->start) / 1e6);
	if (s->syscall) {
		fputs(" in ", f);
		xml(f, s->syscall);
	}
	if (s->fd >= 0) {
		fprintf(f, " fd %" PRId64 " ", s->fd);
		xml(f, s->fd_name);
	}
	if (s->kind == PROF_SLICE_LOCK && s->futex)
		fprintf(f, " futex 0x%" PRIx64, s->futex);
	if (s->waker) {
		fputs(" released by ", f);
		xml(f, s->waker_name ? s->waker_name : "");
		fprintf(f, "[%" PRId64 "]", s->waker);
	}
	fputs("</title></rect>\n", f);
	/* a label where it fits: its reason and what it waited on */
	if (x1 - x0 >= 70) {
		fprintf(f, "<text x=\"%.2f\" y=\"%d\" font-size=\"11\" fill=\"#fff\">%s %.1f ms",
			x0 + 3, BAR_Y + 13, name, s->dur / 1e6);
		fprintf(f, "</text>\n");
		if (s->waker && s->waker_name) {
			fprintf(f, "<text x=\"%.2f\" y=\"%d\" font-size=\"10\" fill=\"#fff\">released by ",
				x0 + 3, BAR_Y + 25);
			xml(f, s->waker_name);
			fprintf(f, "[%" PRId64 "]</text>\n", s->waker);
		} else if (s->fd_name || s->syscall) {
			fprintf(f, "<text x=\"%.2f\" y=\"%d\" font-size=\"10\" fill=\"#fff\">",
				x0 + 3, BAR_Y + 25);
			xml(f, s->syscall);
			if (s->fd_name && x1 - x0 >= 160) {
				fputc(' ', f);
				xml(f, s->fd_name);
			}
			fputs("</text>\n", f);
		}
	}
}

int prof_timeline__svg(const struct prof_timeline *t, FILE *f)
{
	int calls_y = BAR_Y + BAR_H + 36, legend_y = calls_y + (int)t->ncalls * (CALL_H + 6) + 16;
	int h = legend_y + 24;
	uint64_t span = t->end > t->start ? t->end - t->start : 0;

	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" "
		"fill=\"#fff\"/>\n<text x=\"%d\" y=\"18\" font-size=\"14\" font-weight=\"bold\">",
		W, h, X0);
	xml(f, t->title);
	fprintf(f, " (%.3f ms)</text>\n<text x=\"%d\" y=\"36\" font-size=\"11\">", span / 1e6, X0);
	xml(f, t->thread);
	fprintf(f, ": on CPU %.1f ms", t->oncpu / 1e6);
	for (unsigned k = 0; k < PROF_SLICE__KINDS; k++)
		if (t->t[k])
			fprintf(f, ", %s %.1f ms", prof_slice__kind_name(k), t->t[k] / 1e6);
	fprintf(f, "%s</text>\n", t->whole ? "" : " (some slices not kept)");
	/* on CPU is what no slice covers */
	rect(f, X0, X0 + PW, BAR_Y, BAR_H, ONCPU_COLOUR);
	fputs("<title>on CPU</title></rect>\n", f);
	for (size_t i = 0; i < t->n; i++)
		slice__svg(f, t, &t->s[i]);
	/* the time axis, in ms from the request's first byte */
	for (int i = 0; i <= 5; i++) {
		double x = X0 + (double)PW * i / 5;

		fprintf(f, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#444\"/>"
			"<text x=\"%.2f\" y=\"%d\" font-size=\"10\" text-anchor=\"%s\">%.1f ms</text>\n",
			x, BAR_Y + BAR_H, x, BAR_Y + BAR_H + 5, x, BAR_Y + BAR_H + 16,
			i == 0 ? "start" : i == 5 ? "end" : "middle", span / 1e6 * i / 5);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" font-weight=\"bold\">calls made "
		"meanwhile: %zu</text>\n", X0, calls_y - 6, t->ncalls);
	for (size_t i = 0; i < t->ncalls; i++) {
		const struct prof_tl_call *c = &t->calls[i];
		int y = calls_y + (int)i * (CALL_H + 6);
		double x0 = x_of(t, c->start), x1 = x_of(t, c->start + c->dur);

		rect(f, x0, x1, y, CALL_H, c->error ? "#d62728" : "#555");
		fprintf(f, "<title>%s #%" PRIu64 "</title></rect>\n<text x=\"%.2f\" y=\"%d\" "
			"font-size=\"11\"%s>", c->proto, c->id, x1 > W - 300 ? x0 - 4 : x1 + 4,
			y + 13, x1 > W - 300 ? " text-anchor=\"end\"" : "");
		xml(f, c->proto);
		fputc(' ', f);
		xml(f, c->what);
		fputs(" → ", f);
		xml(f, c->peer);
		fprintf(f, " %.3f ms</text>\n", c->dur / 1e6);
	}
	/* the legend */
	int x = X0;
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" "
		"y=\"%d\" font-size=\"11\">on CPU</text>\n", x, legend_y, ONCPU_COLOUR, x + 16,
		legend_y + 10);
	x += 70;
	for (unsigned k = 0; k < PROF_SLICE__KINDS; k++, x += 70)
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text "
			"x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>\n", x, legend_y, kind_colour[k],
			x + 16, legend_y + 10, prof_slice__kind_name(k));
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" "
		"y=\"%d\" font-size=\"11\">lost</text>\n</svg>\n", x, legend_y, LOST_COLOUR, x + 16,
		legend_y + 10);
	return ferror(f) ? -EIO : 0;
}
