/* The enter events exit-only capture leaves out, rebuilt from their exit events. */
#include <errno.h>

#include "schema.h"

/* Writes the header of an enter frame of TYPE, LEN bytes, NPARAMS params, at
 * the time and thread of the exit frame header X. */
static void eo__header(uint8_t *buf, const struct ppm_evt_hdr *x, uint16_t type,
		       uint32_t len, uint32_t nparams)
{
	struct ppm_evt_hdr h = {
		.ts = x->ts, .tid = x->tid, .len = len, .type = type, .nparams = nparams,
	};

	memcpy(buf, &h, sizeof(h));
}

int schema__eo_enter(const void *exit, size_t len, void *buf, size_t size)
{
	const uint8_t *f = exit;
	struct ppm_evt_hdr x;
	uint16_t plen, sc, nr;
	uint8_t *b = buf;
	int16_t native;

	if (len < PPM_HDR_LEN)
		return -EINVAL;
	memcpy(&x, f, sizeof(x));
	if (!schema__eo_maybe(x.type))
		return 0;
	if (size < SCHEMA_EO_ENTER_MAX)
		return -ENOSPC;
	if (schema_eo_synth[x.type] == SCHEMA_EO_BARE) {
		eo__header(b, &x, x.type - 1, PPM_HDR_LEN, 0);
		return PPM_HDR_LEN;
	}
	/* Generic: the ID param (the first, 2 bytes) says which call. */
	if (x.nparams < 1 || x.len > len || x.len < PPM_HDR_LEN + 2 * x.nparams + 2)
		return -EINVAL;
	plen = schema__u16(f + PPM_HDR_LEN);
	if (plen != 2)
		return -EINVAL;
	sc = schema__u16(f + PPM_HDR_LEN + 2 * x.nparams);
	native = sc < PPM_SC_MAX ? schema_eo_sc_nr[sc] : -1;
	if (native < 0)
		return 0;
	nr = (uint16_t)native;
	eo__header(b, &x, PPME_GENERIC_E, SCHEMA_EO_ENTER_MAX, 2);
	plen = 2;
	memcpy(b + PPM_HDR_LEN, &plen, 2);
	memcpy(b + PPM_HDR_LEN + 2, &plen, 2);
	memcpy(b + PPM_HDR_LEN + 4, &sc, 2);
	memcpy(b + PPM_HDR_LEN + 6, &nr, 2);
	return SCHEMA_EO_ENTER_MAX;
}
