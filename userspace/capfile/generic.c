/* The agent's own events (codes from PPM_SYSDIG_EVENT_MAX on) go into files as
 * the generic pair sysdig 0.29.3 reads: enter with ID and nativeID, exit with
 * ID. Their params are lost in the file; the syscall stays named by number.
 * The bpf pair goes the same way: sysdig 0.29.3 crashes (SIGSEGV) extracting
 * evt.res from its exit, whose result is a PT_DYN param. */
#include <stddef.h>
#include <string.h>

#include "capfile_int.h"

/* Event code written as generic -> native syscall number, from the routing
 * table. One writer thread fills it on first use. */
static int16_t own_nr[PPM_EVENT_MAX];
static bool own_nr_done;

static void own_nr__build(void)
{
	for (unsigned t = 0; t < PPM_EVENT_MAX; t++)
		own_nr[t] = -1;
	for (unsigned nr = 0; nr < SYSCALL_TABLE_SIZE; nr++) {
		const struct syscall_route *r = &schema_syscall_routes[nr];

		if ((r->enter_event >= PPM_SYSDIG_EVENT_MAX && r->enter_event < PPM_EVENT_MAX) ||
		    r->enter_event == PPME_SYSCALL_BPF_E)
			own_nr[r->enter_event] = own_nr[r->exit_event] = (int16_t)nr;
	}
	own_nr_done = true;
}

const struct ppm_evt_hdr *capfile__as_generic(const struct ppm_evt_hdr *frame,
					      struct capfile_generic *out)
{
	struct ppm_evt_hdr h;
	uint16_t id, nr, lens[2] = { 2, 2 };
	uint32_t n;

	uint16_t type;

	/* every written event passes here: look at its type alone first */
	memcpy(&type, (const uint8_t *)frame + offsetof(struct ppm_evt_hdr, type), sizeof(type));
	if ((type < PPM_SYSDIG_EVENT_MAX && type != PPME_SYSCALL_BPF_E &&
	     type != PPME_SYSCALL_BPF_X) || type >= PPM_EVENT_MAX)
		return frame;
	memcpy(&h, frame, sizeof(h));
	if (!own_nr_done)
		own_nr__build();
	if (own_nr[h.type] < 0)
		return frame;
	nr = (uint16_t)own_nr[h.type];
	id = schema_syscall_routes[nr].ppm_sc;
	n = PPME_IS_EXIT(h.type) ? 1 : 2;
	h.type = PPME_IS_EXIT(h.type) ? PPME_GENERIC_X : PPME_GENERIC_E;
	h.nparams = n;
	h.len = PPM_HDR_LEN + n * 2 + n * 2;
	memcpy(out->buf, &h, PPM_HDR_LEN);
	memcpy(out->buf + PPM_HDR_LEN, lens, n * 2);
	memcpy(out->buf + PPM_HDR_LEN + n * 2, &id, 2);
	if (n == 2)
		memcpy(out->buf + PPM_HDR_LEN + 4 + 2, &nr, 2);
	return (const struct ppm_evt_hdr *)out->buf;
}
