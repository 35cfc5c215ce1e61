/* Drop markers: the line an output's stream gets, before the next event line,
 * when lines were dropped because its queue was full:
 *   text: agent: N events dropped for this output (queue full)
 *   JSON: {"agent.drop":{"output":"<url>","reason":"queue full","count":N}}
 * The part before N is made once at open; the capture thread only adds the
 * number and the end, into a buffer of its own (no allocation on the hot path). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output_int.h"

#define MARKER_TEXT_PRE "agent: "
#define MARKER_TEXT_POST " events dropped for this output (queue full)\n"
#define MARKER_JSON_POST ",\"reason\":\"queue full\",\"count\":"
#define MARKER_NUM_MAX 24	/* a u64 and the JSON's "}}\n" */

/* The URL is escaped for JSON once here: quotes, backslashes, controls. */
int marker__init(struct output *o)
{
	size_t cap = 64 + strlen(o->url) * 6 + sizeof(MARKER_JSON_POST) + MARKER_NUM_MAX;
	char *p = malloc(cap);
	size_t n = 0;

	if (!p)
		return -ENOMEM;
	o->marker = p;
	if (!o->opts.json) {
		memcpy(p, MARKER_TEXT_PRE, sizeof(MARKER_TEXT_PRE) - 1);
		o->marker_pre = sizeof(MARKER_TEXT_PRE) - 1;
		return 0;
	}
	n += (size_t)sprintf(p, "{\"agent.drop\":{\"output\":\"");
	for (const unsigned char *c = (const unsigned char *)o->url; *c; c++) {
		if (*c == '"' || *c == '\\')
			n += (size_t)sprintf(p + n, "\\%c", *c);
		else if (*c < 0x20)
			n += (size_t)sprintf(p + n, "\\u%04x", *c);
		else
			p[n++] = (char)*c;
	}
	memcpy(p + n, "\"" MARKER_JSON_POST, sizeof(MARKER_JSON_POST));
	o->marker_pre = n + sizeof(MARKER_JSON_POST);
	return 0;
}

/* The marker for COUNT drops, in o->marker; its length. */
size_t marker__format(struct output *o, uint64_t count)
{
	char digits[24];
	size_t n = 0, len = o->marker_pre;

	do {
		digits[n++] = (char)('0' + count % 10);
		count /= 10;
	} while (count);
	while (n)
		o->marker[len++] = digits[--n];
	if (o->opts.json) {
		memcpy(o->marker + len, "}}\n", 3);
		return len + 3;
	}
	memcpy(o->marker + len, MARKER_TEXT_POST, sizeof(MARKER_TEXT_POST) - 1);
	return len + sizeof(MARKER_TEXT_POST) - 1;
}
