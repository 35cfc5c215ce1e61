/* The test-input engine: frames laid back to back in memory, served in order. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"

struct memory {
	uint8_t *buf;
	size_t len;
	size_t off;
	struct capture_cpu_stats st;
};

static int memory_next(void *e, struct capture_event *ev, int timeout_ms)
{
	struct memory *m = e;
	size_t left = m->len - m->off;
	uint32_t flen;

	if (!left)
		return -ENODATA;
	if (left < PPM_HDR_LEN)
		goto corrupt;
	memcpy(&flen, m->buf + m->off + offsetof(struct ppm_evt_hdr, len), sizeof(flen));
	if (flen < PPM_HDR_LEN || flen > left)
		goto corrupt;
	ev->frame = (const struct ppm_evt_hdr *)(m->buf + m->off);
	ev->len = flen;
	ev->cpu = 0;
	m->off += flen;
	m->st.n_evts++;
	m->st.n_bytes += flen;
	return 0;
corrupt:
	/* Without a trustworthy length there is no next frame to find. */
	m->st.n_corrupt++;
	m->off = m->len;
	return -ENODATA;
}

static int memory_stats(void *e, struct capture_stats *st)
{
	struct memory *m = e;

	memset(st, 0, sizeof(*st));
	st->ncpus = 1;
	st->cpu[0] = m->st;
	st->total = m->st;
	st->mode = "synthetic";
	return 0;
}

static void memory_close(void *e)
{
	struct memory *m = e;

	if (!m)
		return;
	free(m->buf);
	free(m);
}

static const struct capture_engine_ops memory_ops = {
	.name = "memory",
	.next = memory_next,
	.stats = memory_stats,
	.close = memory_close,
};

struct capture *capture__open_memory(const void *buf, size_t len)
{
	struct memory *m = calloc(1, sizeof(*m));
	struct capture *c;
	int err;

	if (!m)
		return NULL;
	/* One byte more so that an empty input still gets a buffer. */
	m->buf = malloc(len + 1);
	if (!m->buf)
		goto fail;
	if (len)
		memcpy(m->buf, buf, len);
	m->len = len;
	c = capture__open_engine(&memory_ops, m);
	if (!c)
		goto fail;
	return c;
fail:
	err = errno;
	memory_close(m);
	errno = err;
	return NULL;
}
