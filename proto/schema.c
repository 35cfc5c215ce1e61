/* Safe access to event frames through the schema tables. */
#include <errno.h>
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
