/* A filtered -w keeps what a replay needs: the events the filter left out but
 * that change the process and fd tables go into the file too, flagged "state
 * only" (an EVF block with libscap's SCAP_DF_STATE_ONLY, as sysdig's fatfile
 * mode writes them). A reader parses them and shows none of them: sysdig 0.29.3
 * does so, and so does agent -r. */
#include <errno.h>
#include <string.h>

#include "capfile_int.h"

/* The block body: cpu, flags, frame. One writer thread: a static scratch keeps
 * the per-event path free of allocations. */
static uint8_t body[2 + 4 + PPM_MAX_EVENT_SIZE];

int capfile_writer__write_state_only(struct capfile_writer *w, uint16_t cpu,
				     const struct ppm_evt_hdr *frame)
{
	uint32_t flen, flags = CAPFILE_DF_STATE_ONLY;
	struct capfile_generic g;

	frame = capfile__as_generic(frame, &g);
	memcpy(&flen, (const uint8_t *)frame + offsetof(struct ppm_evt_hdr, len), 4);
	if (flen < PPM_HDR_LEN || flen > PPM_MAX_EVENT_SIZE)
		return -EINVAL;
	memcpy(body, &cpu, 2);
	memcpy(body + 2, &flags, 4);
	memcpy(body + 6, frame, flen);
	return capfile_writer__block(w, CAPFILE_BLOCK_EVF_V2, body, 6 + flen);
}
