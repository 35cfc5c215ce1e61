/* Containers in capture files, as sysdig keeps them: one container event
 * (CONTAINER_JSON_2, its JSON param with a u32 length, in a "large" event block)
 * per container, all of those known at the start after the lists, then one
 * before the first event of each container seen later. The reader imports them
 * into the inspector's container table, so a replay names what live named. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capfile_int.h"
#include "container.h"

/* ts, tid, len, type, nparams; then one u32 length */
#define JSON2_HDR (PPM_HDR_LEN + 4)

static int container__write(struct capfile_writer *w, struct container_info *ci, uint64_t ts)
{
	struct ppm_evt_hdr h = { 0 };
	uint8_t *body;
	size_t jlen, blen;
	uint32_t plen;
	uint16_t cpu = 0;
	char *json;
	int err;

	if ((err = container_info__to_json(ci, &json, &jlen)))
		return err;
	plen = (uint32_t)jlen + 1;	/* sysdig counts the NUL */
	blen = 2 + JSON2_HDR + plen;
	body = malloc(blen);
	if (!body) {
		free(json);
		return -ENOMEM;
	}
	h.ts = ts;
	h.tid = UINT64_MAX;	/* no thread: sysdig writes -1 */
	h.len = JSON2_HDR + plen;
	h.type = PPME_CONTAINER_JSON_2_E;
	h.nparams = 1;
	memcpy(body, &cpu, 2);
	memcpy(body + 2, &h, PPM_HDR_LEN);
	memcpy(body + 2 + PPM_HDR_LEN, &plen, 4);
	memcpy(body + 2 + JSON2_HDR, json, plen);
	free(json);
	err = capfile_writer__block(w, CAPFILE_BLOCK_EV_V2_LARGE, body, blen);
	free(body);
	if (!err)
		ci->written = true;
	return err;
}

struct start_ctx {
	struct capfile_writer *w;
	uint64_t ts;
	uint64_t n;
};

static int start__one(struct container_info *ci, void *ctx)
{
	struct start_ctx *s = ctx;
	int err = container__write(s->w, ci, s->ts);

	s->n += err == 0;
	return err;
}

int capfile_writer__containers(struct capfile_writer *w, struct container_table *t,
			       uint64_t *n)
{
	struct start_ctx s = { .w = w };
	struct timespec now;
	int err;

	/* before any event: the time of writing, as sysdig does */
	clock_gettime(CLOCK_REALTIME, &now);
	s.ts = (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
	err = t ? container_table__for_each(t, start__one, &s) : 0;
	if (n)
		*n = s.n;
	return err;
}

int capfile_writer__container(struct capfile_writer *w, const struct thread_info *ti,
			      uint64_t ts)
{
	if (!ti || !ti->container || ti->container->written)
		return 0;
	return container__write(w, ti->container, ts);
}

int capfile_containers__import(struct inspector *in, const uint8_t *frame, size_t len,
			       bool large)
{
	struct ppm_evt_hdr h;
	size_t hdr = PPM_HDR_LEN + (large ? 4 : 2);
	uint32_t plen = 0;
	uint16_t plen16;

	if (len < hdr)
		return -EINVAL;
	memcpy(&h, frame, sizeof(h));
	if (h.nparams != 1 || h.len > len || h.len < hdr)
		return -EINVAL;
	if (large) {
		memcpy(&plen, frame + PPM_HDR_LEN, 4);
	} else {
		memcpy(&plen16, frame + PPM_HDR_LEN, 2);
		plen = plen16;
	}
	if (plen > h.len - hdr)
		return -EINVAL;
	return inspector__container_event(in, (const char *)frame + hdr, plen);
}
