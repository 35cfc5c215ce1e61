/* Bounds-checked access to an event's params, shared by the inspector and its
 * parsers (parse_*.c); it knows only the schema, nothing of the tables. */
#ifndef INSPECT_EVP_H
#define INSPECT_EVP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schema.h"

/* A param of the current event (or of its paired enter), bounds-checked. */
struct evt_params {
	const struct ppm_event_info *info;
	const struct schema_params *p;
};

bool evp__has(const struct evt_params *e, uint32_t i);
/* Integer param I, or DFLT when missing or of the wrong size. */
int64_t evp__int(const struct evt_params *e, uint32_t i, int64_t dflt);
/* Copies string param I into BUF (NUL-terminated, cut at the first NUL).
 * Returns its length, 0 when missing or empty. */
size_t evp__str(const struct evt_params *e, uint32_t i, char *buf, size_t n);

#endif
