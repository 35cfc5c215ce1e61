/* Safe access to event frames through the schema tables. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "schema.h"

int schema__event_by_id(const char *id)
{
	for (int i = 0; i < PPM_EVENT_MAX; i++)
		if (strcmp(schema_event_ids[i], id) == 0)
			return i;
	return -ENOENT;
}

int schema__validate(const void *frame, size_t buflen)
{
	struct ppm_evt_hdr hdr;
	const uint8_t *lens = (const uint8_t *)frame + PPM_HDR_LEN;
	size_t need;

	if (buflen < PPM_HDR_LEN)
		return -EINVAL;
	memcpy(&hdr, frame, sizeof(hdr));
	if (hdr.len < PPM_HDR_LEN || hdr.len > buflen || hdr.type >= PPM_EVENT_MAX)
		return -EINVAL;
	if (hdr.nparams > schema_events[hdr.type].nparams)
		return -EINVAL;
	need = PPM_HDR_LEN + (size_t)hdr.nparams * 2;
	if (need > hdr.len)
		return -EINVAL;
	for (uint32_t i = 0; i < hdr.nparams; i++)
		need += schema__u16(lens + i * 2);
	return need > hdr.len ? -EINVAL : 0;
}

int schema__params(const void *frame, struct schema_params *out)
{
	const uint8_t *base = frame;
	uint32_t n = schema__u32(base + 22);
	const uint8_t *val = base + PPM_HDR_LEN + n * 2;

	if (n > PPM_MAX_EVENT_PARAMS)
		return -EINVAL;
	out->n = n;
	for (uint32_t i = 0; i < n; i++) {
		out->len[i] = schema__u16(base + PPM_HDR_LEN + i * 2);
		out->val[i] = val;
		val += out->len[i];
	}
	return 0;
}

int schema__param(const void *frame, uint32_t idx, const uint8_t **val, uint16_t *len)
{
	const uint8_t *base = frame;
	uint32_t n = schema__u32(base + 22);
	const uint8_t *p = base + PPM_HDR_LEN + n * 2;

	if (idx >= n)
		return -ENOENT;
	for (uint32_t i = 0; i < idx; i++)
		p += schema__u16(base + PPM_HDR_LEN + i * 2);
	*val = p;
	*len = schema__u16(base + PPM_HDR_LEN + idx * 2);
	return 0;
}

int schema__param_int(uint8_t type, const uint8_t *val, uint16_t len, int64_t *out)
{
	switch (type) {
	case PT_INT8:
		if (len != 1)
			return -EINVAL;
		*out = (int8_t)val[0];
		return 0;
	case PT_UINT8: case PT_FLAGS8: case PT_SIGTYPE: case PT_L4PROTO:
	case PT_SOCKFAMILY: case PT_BOOL:
		if (len != 1)
			return -EINVAL;
		*out = val[0];
		return 0;
	case PT_INT16:
		if (len != 2)
			return -EINVAL;
		*out = (int16_t)schema__u16(val);
		return 0;
	case PT_UINT16: case PT_FLAGS16: case PT_PORT: case PT_SYSCALLID:
		if (len != 2)
			return -EINVAL;
		*out = schema__u16(val);
		return 0;
	case PT_INT32:
		if (len != 4)
			return -EINVAL;
		*out = (int32_t)schema__u32(val);
		return 0;
	case PT_UINT32: case PT_FLAGS32: case PT_UID: case PT_GID: case PT_MODE:
	case PT_IPV4ADDR:
		if (len != 4)
			return -EINVAL;
		*out = schema__u32(val);
		return 0;
	case PT_INT64: case PT_UINT64: case PT_ERRNO: case PT_FD: case PT_PID:
	case PT_RELTIME: case PT_ABSTIME:
		if (len != 8)
			return -EINVAL;
		*out = (int64_t)schema__u64(val);
		return 0;
	default:
		return -EINVAL;
	}
}

uint8_t schema__param_index(const struct ppm_event_info *ei, const char *name, uint8_t type)
{
	for (uint32_t p = 0; p < ei->nparams && p < PPM_MAX_EVENT_PARAMS; p++)
		if (ei->params[p].type == type && ei->params[p].name &&
		    strcmp(ei->params[p].name, name) == 0)
			return (uint8_t)p;
	return 0xff;
}

const char *schema__ppm_sc_name(uint16_t sc)
{
	return sc < PPM_SC_MAX ? schema_ppm_sc[sc].name : NULL;
}

const struct ppm_name_value *schema__flagset(const char *name)
{
	for (const struct ppm_flagset_ref *f = schema_flagsets; f->name; f++)
		if (strcmp(f->name, name) == 0)
			return f->values;
	return NULL;
}

/* Generic routes by PPM_SC code: built once, on first use. sysdig's codes name
 * one x86_64 syscall each among those routed to generic. */
static int16_t sc_native[PPM_SC_MAX];
static bool sc_native_done;

static void sc_native__build(void)
{
	for (unsigned sc = 0; sc < PPM_SC_MAX; sc++)
		sc_native[sc] = -1;
	for (unsigned nr = 0; nr < SYSCALL_TABLE_SIZE; nr++) {
		const struct syscall_route *r = &schema_syscall_routes[nr];

		if (r->enter_event == PPME_GENERIC_E && r->ppm_sc && r->ppm_sc < PPM_SC_MAX &&
		    sc_native[r->ppm_sc] < 0)
			sc_native[r->ppm_sc] = (int16_t)nr;
	}
	sc_native_done = true;
}

static int generic__native_id(const struct schema_params *p)
{
	uint16_t nr;

	if (!p || p->n < 2 || p->len[1] != 2)
		return -1;
	nr = schema__u16(p->val[1]);
	return nr < SYSCALL_TABLE_SIZE ? nr : -1;
}

int schema__generic_nr(const struct schema_params *p, const struct schema_params *enter)
{
	int nr = generic__native_id(p);
	uint16_t sc;

	if (nr < 0)
		nr = generic__native_id(enter);
	if (nr >= 0 || !p || p->n < 1 || p->len[0] != 2)
		return nr;
	sc = schema__u16(p->val[0]);
	if (!sc_native_done)
		sc_native__build();
	return sc && sc < PPM_SC_MAX ? sc_native[sc] : -1;
}
