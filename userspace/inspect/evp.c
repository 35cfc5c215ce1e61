/* Bounds-checked event params (see evp.h). */
#include <string.h>

#include "evp.h"

bool evp__has(const struct evt_params *e, uint32_t i)
{
	return e && e->p && i < e->p->n && e->p->len[i] > 0;
}

int64_t evp__int(const struct evt_params *e, uint32_t i, int64_t dflt)
{
	int64_t v;

	if (!evp__has(e, i) ||
	    schema__param_int(e->info->params[i].type, e->p->val[i], e->p->len[i], &v) < 0)
		return dflt;
	return v;
}

size_t evp__str(const struct evt_params *e, uint32_t i, char *buf, size_t n)
{
	size_t len;

	if (!evp__has(e, i)) {
		buf[0] = '\0';
		return 0;
	}
	len = strnlen((const char *)e->p->val[i], e->p->len[i]);
	if (len > n - 1)
		len = n - 1;
	memcpy(buf, e->p->val[i], len);
	buf[len] = '\0';
	return len;
}
