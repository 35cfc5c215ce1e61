/* The capture-file writer: a section header, then one EV v2 block (u16 cpu + the
 * frame, padded to 4, trailing length) per event, through zlib. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "capfile.h"
#include "capfile_int.h"

struct capfile_writer {
	gzFile g;
	uint64_t count;
	int err;	/* first write error, reported again by close */
};

static int writer__put(struct capfile_writer *w, const void *buf, size_t len)
{
	if (w->err)
		return w->err;
	if (len && gzwrite(w->g, buf, (unsigned)len) != (int)len) {
		int errnum = 0;

		gzerror(w->g, &errnum);
		w->err = errnum == Z_ERRNO && errno ? -errno : -EIO;
	}
	return w->err;
}

static int writer__header(struct capfile_writer *w)
{
	uint8_t b[CAPFILE_SHB_LEN];
	uint32_t u32;
	uint16_t u16;
	uint64_t section_len = UINT64_MAX;	/* unknown: the section runs to the end */

	u32 = CAPFILE_BLOCK_SHB;
	memcpy(b, &u32, 4);
	u32 = CAPFILE_SHB_LEN;
	memcpy(b + 4, &u32, 4);
	memcpy(b + 24, &u32, 4);
	u32 = CAPFILE_MAGIC;
	memcpy(b + 8, &u32, 4);
	u16 = CAPFILE_MAJOR;
	memcpy(b + 12, &u16, 2);
	u16 = CAPFILE_MINOR;
	memcpy(b + 14, &u16, 2);
	memcpy(b + 16, &section_len, 8);
	return writer__put(w, b, sizeof(b));
}

struct capfile_writer *capfile_writer__open(const char *path, bool gzip)
{
	struct capfile_writer *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return NULL;
	errno = 0;
	/* "T": zlib writes the bytes as they are (no gzip wrapper). */
	w->g = gzopen(path, gzip ? "wb6" : "wbT");
	if (!w->g) {
		err = errno ? errno : ENOMEM;
		free(w);
		errno = err;
		return NULL;
	}
	gzbuffer(w->g, 1 << 17);
	if ((err = writer__header(w))) {
		gzclose(w->g);
		free(w);
		errno = -err;
		return NULL;
	}
	return w;
}

int capfile_writer__write(struct capfile_writer *w, uint16_t cpu,
			  const struct ppm_evt_hdr *frame)
{
	static const uint8_t zeros[4];
	uint32_t flen, blen, pad, hdr[2];
	uint8_t lead[2];
	int err;

	memcpy(&flen, (const uint8_t *)frame + offsetof(struct ppm_evt_hdr, len), 4);
	if (flen < PPM_HDR_LEN || flen > PPM_MAX_EVENT_SIZE)
		return -EINVAL;
	pad = (4 - (2 + flen) % 4) % 4;
	blen = CAPFILE_BLOCK_OVERHEAD + 2 + flen + pad;
	hdr[0] = CAPFILE_BLOCK_EV_V2;
	hdr[1] = blen;
	memcpy(lead, &cpu, 2);
	if ((err = writer__put(w, hdr, sizeof(hdr))) || (err = writer__put(w, lead, 2)) ||
	    (err = writer__put(w, frame, flen)) || (err = writer__put(w, zeros, pad)) ||
	    (err = writer__put(w, &blen, 4)))
		return err;
	w->count++;
	return 0;
}

int capfile_writer__block(struct capfile_writer *w, uint32_t type, const void *body,
			  size_t len)
{
	static const uint8_t zeros[4];
	uint32_t pad = (4 - len % 4) % 4, hdr[2];
	uint64_t total = CAPFILE_BLOCK_OVERHEAD + (uint64_t)len + pad;
	int err;

	if (total > UINT32_MAX)
		return -E2BIG;
	hdr[0] = type;
	hdr[1] = (uint32_t)total;
	if ((err = writer__put(w, hdr, sizeof(hdr))) || (err = writer__put(w, body, len)) ||
	    (err = writer__put(w, zeros, pad)) || (err = writer__put(w, &hdr[1], 4)))
		return err;
	return 0;
}

uint64_t capfile_writer__count(const struct capfile_writer *w)
{
	return w->count;
}

int capfile_writer__close(struct capfile_writer *w)
{
	int err, rc;

	if (!w)
		return 0;
	err = w->err;
	errno = 0;
	rc = gzclose(w->g);
	if (!err && rc != Z_OK)
		err = rc == Z_ERRNO && errno ? -errno : -EIO;
	free(w);
	return err;
}
