/* The capture-file reader: an engine that walks a .scap file block by block,
 * handing out the frames of its event blocks. Everything in the file is untrusted:
 * every length is checked against the block it sits in. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "capfile.h"
#include "capfile_int.h"
#include "schema.h"

/* Largest event block that can hold a valid frame: header, cpu, flags, frame,
 * padding, trailer. Longer ones are skipped by length and counted. */
#define EVBLOCK_MAX (CAPFILE_BLOCK_OVERHEAD + 6 + PPM_MAX_EVENT_SIZE + 3)

struct reader {
	gzFile g;
	char *path;		/* zlib's messages start with it */
	uint64_t off;		/* uncompressed offset of the next block */
	struct capfile_error *err;
	bool done;
	bool gz_failed;		/* zlib reported an error (a cut-short gzip stream) */
	uint32_t ncpus;
	struct capture_cpu_stats total;
	struct capture_cpu_stats cpu[CAPTURE_MAX_CPUS];
	/* State import: list blocks before the first event go into IN. */
	struct inspector *in;
	struct capfile_import imp;
	bool seen_event;
	/* The first event, read ahead at open so the lists are in first. */
	bool has_pending;
	int pending_rc;
	struct capture_event pending;
	uint8_t block[EVBLOCK_MAX];
	/* An old-format frame converted to the current header (4 bytes longer). */
	uint8_t conv[PPM_MAX_EVENT_SIZE + 8];
};

static int reader__fail(struct reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err->msg, sizeof(r->err->msg), fmt, ap);
	va_end(ap);
	r->done = true;
	return -EINVAL;
}

/* Reads up to N bytes; fewer only at the end of the data or on a zlib error. */
static size_t reader__read(struct reader *r, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		int k = gzread(r->g, (uint8_t *)buf + got, (unsigned)(n - got));

		int errnum = 0;

		/* some zlib versions end a cut-short stream with 0 and an error set */
		if (k < 0 || (k == 0 && (gzerror(r->g, &errnum), errnum != Z_OK)))
			r->gz_failed = true;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	return got;
}

/* The data ended inside WHAT (at offset AT): a plain file cut short, a gzip
 * stream cut short (zlib: "unexpected end of file"), corrupt gzip data (zlib's
 * reason, e.g. "incorrect data check") or a read error. */
static int reader__short(struct reader *r, uint64_t at, const char *what)
{
	int errnum = 0;
	const char *m = gzerror(r->g, &errnum);
	size_t plen = strlen(r->path);

	if (m && !strncmp(m, r->path, plen) && !strncmp(m + plen, ": ", 2))
		m += plen + 2;
	if (errnum == Z_BUF_ERROR)
		return reader__fail(r, "file truncated: the gzip data ends early (%s), in %s at "
				    "offset %" PRIu64, m, what, at);
	if (errnum == Z_ERRNO)
		return reader__fail(r, "cannot read the file: %s (%s at offset %" PRIu64 ")",
				    strerror(errno), what, at);
	if (errnum)
		return reader__fail(r, "corrupt gzip data: %s (in %s at offset %" PRIu64 ")", m,
				    what, at);
	return reader__fail(r, "file truncated: %s at offset %" PRIu64 " runs past the end of "
			    "the file", what, at);
}

/* reader__short for the block of TYPE and BLEN that starts at AT. */
static int reader__short_block(struct reader *r, uint64_t at, uint32_t type, uint32_t blen)
{
	char what[64];

	snprintf(what, sizeof(what), "the block (type 0x%x, length %u)", type, blen);
	return reader__short(r, at, what);
}

/* Discards N bytes of the block that started at AT. */
static int reader__skip(struct reader *r, uint64_t n, uint64_t at, uint32_t type, uint32_t blen)
{
	while (n) {
		size_t want = n < sizeof(r->block) ? (size_t)n : sizeof(r->block);

		if (reader__read(r, r->block, want) != want)
			return reader__short_block(r, at, type, blen);
		n -= want;
	}
	return 0;
}

static void reader__count_corrupt(struct reader *r, int cpu)
{
	r->total.n_corrupt++;
	if (cpu >= 0 && cpu < CAPTURE_MAX_CPUS)
		r->cpu[cpu].n_corrupt++;
}

/* Old EV blocks lack nparams. Older writers may also have sent fewer params than
 * the schema has today, so the count is the one whose lengths add up to the
 * frame. Fills r->conv with the frame in the current layout. */
static int reader__convert_old(struct reader *r, const uint8_t *f, uint32_t avail,
			       uint32_t *outlen)
{
	const struct ppm_event_info *info;
	uint32_t flen, np, sum;

	if (avail < CAPFILE_OLD_HDR_LEN)
		return -EINVAL;
	flen = schema__u32(f + 16);
	info = schema__event(schema__u16(f + 20));
	if (!info || flen < CAPFILE_OLD_HDR_LEN || flen > avail ||
	    flen + 4 > PPM_MAX_EVENT_SIZE)
		return -EINVAL;
	for (np = info->nparams + 1; np-- > 0;) {
		if (CAPFILE_OLD_HDR_LEN + 2 * np > flen)
			continue;
		sum = CAPFILE_OLD_HDR_LEN + 2 * np;
		for (uint32_t k = 0; k < np; k++)
			sum += schema__u16(f + CAPFILE_OLD_HDR_LEN + 2 * k);
		if (sum == flen)
			break;
	}
	if (np == UINT32_MAX)
		return -EINVAL;
	memcpy(r->conv, f, CAPFILE_OLD_HDR_LEN);
	memcpy(r->conv + CAPFILE_OLD_HDR_LEN, &np, 4);
	memcpy(r->conv + PPM_HDR_LEN, f + CAPFILE_OLD_HDR_LEN, flen - CAPFILE_OLD_HDR_LEN);
	flen += 4;
	memcpy(r->conv + offsetof(struct ppm_evt_hdr, len), &flen, 4);
	*outlen = flen;
	return 0;
}

/* The frame of the event block of TYPE and BLEN bytes now in r->block. */
static int reader__event(struct reader *r, uint32_t type, uint32_t blen,
			 struct capture_event *ev, int *cpu_out)
{
	const uint8_t *f = r->block + CAPFILE_BLOCK_HDR;
	uint32_t avail = blen - CAPFILE_BLOCK_OVERHEAD;
	uint32_t lead = type == CAPFILE_BLOCK_EVF_V2 ? 6 : 2;
	uint32_t flen;

	if (avail < lead)
		return -EINVAL;
	*cpu_out = schema__u16(f);
	f += lead;
	avail -= lead;
	if (type == CAPFILE_BLOCK_EV) {
		if (reader__convert_old(r, f, avail, &flen))
			return -EINVAL;
		f = r->conv;
	} else {
		if (avail < PPM_HDR_LEN)
			return -EINVAL;
		flen = schema__u32(f + offsetof(struct ppm_evt_hdr, len));
		if (flen > avail)
			return -EINVAL;
	}
	if (flen > PPM_MAX_EVENT_SIZE || schema__validate(f, flen))
		return -EINVAL;
	ev->frame = (const struct ppm_evt_hdr *)f;
	ev->len = flen;
	ev->cpu = (uint16_t)*cpu_out;
	ev->flags = lead == 6 && (schema__u32(r->block + CAPFILE_BLOCK_HDR + 2) &
				  CAPFILE_DF_STATE_ONLY) ? CAPTURE_EVF_STATE_ONLY : 0;
	return 0;
}

static bool is_event_block(uint32_t type)
{
	return type == CAPFILE_BLOCK_EV || type == CAPFILE_BLOCK_EV_V2 ||
	       type == CAPFILE_BLOCK_EVF_V2;
}

static bool is_fdlist(uint32_t type)
{
	return type == CAPFILE_BLOCK_FDL || type == CAPFILE_BLOCK_FDL_V2 ||
	       type == CAPFILE_BLOCK_FDL_INT;
}

/* The rest of the block at AT whose header was read (BLEN - 8 bytes, trailer
 * included) in a malloc()ed *BODY. */
static int reader__body(struct reader *r, uint32_t type, uint32_t blen, uint64_t at,
			uint8_t **body)
{
	uint32_t n = blen - CAPFILE_BLOCK_HDR;

	*body = malloc(n);
	if (!*body)
		return reader__fail(r, "out of memory reading the block at offset %" PRIu64, at);
	if (reader__read(r, *body, n) != n) {
		free(*body);
		return reader__short_block(r, at, type, blen);
	}
	return 0;
}

/* A process or fd list block of BLEN bytes whose header was read: imported into
 * r->in, or counted and skipped when malformed. */
static int reader__list(struct reader *r, uint32_t type, uint32_t blen, uint64_t at)
{
	uint32_t n = blen - CAPFILE_BLOCK_HDR, trailer;
	uint8_t *body;
	int err;

	if (blen - CAPFILE_BLOCK_OVERHEAD > CAPFILE_LIST_MAX) {
		reader__count_corrupt(r, -1);
		r->imp.n_bad_lists++;
		return reader__skip(r, n, at, type, blen);
	}
	if ((err = reader__body(r, type, blen, at, &body)))
		return err;
	memcpy(&trailer, body + n - 4, 4);
	if (trailer != blen)
		err = -EINVAL;
	else if (is_fdlist(type))
		err = capfile_lists__fdlist(r->in, type, body, n - 4, &r->imp);
	else if (capfile_userlist__is_block(type))
		err = capfile_userlist__read(type, body, n - 4, &r->imp);
	else
		err = capfile_lists__proclist(r->in, type, body, n - 4, &r->imp);
	free(body);
	if (err == -ENOMEM)
		return reader__fail(r, "out of memory importing the list block at offset %"
				    PRIu64, at);
	if (err) {
		reader__count_corrupt(r, -1);
		r->imp.n_bad_lists++;
	}
	return 0;
}

/* Largest "large" event block read: a container event with its JSON. */
#define LARGE_BLOCK_MAX (CAPFILE_BLOCK_OVERHEAD + 6 + JSON_EVENT_MAX)
#define JSON_EVENT_MAX ((1u << 20) + PPM_HDR_LEN + 8)

static bool is_container_event(const uint8_t *frame, size_t len)
{
	uint16_t type;

	if (len < PPM_HDR_LEN)
		return false;
	type = schema__u16(frame + offsetof(struct ppm_evt_hdr, type));
	return type == PPME_CONTAINER_JSON_E || type == PPME_CONTAINER_JSON_2_E;
}

/* Imports a container event into r->in; a malformed one is counted. */
static void reader__container(struct reader *r, const uint8_t *frame, size_t len, bool large,
			      int cpu)
{
	uint64_t cost = len + 4096;	/* the JSON and what is parsed from it */

	if (!r->in)
		return;
	if (r->imp.state_bytes + cost > CAPFILE_STATE_MAX) {
		r->imp.n_capped++;
		return;
	}
	r->imp.state_bytes += cost;
	if (capfile_containers__import(r->in, frame, len, large) == 0) {
		if (!r->seen_event)
			r->imp.n_containers++;
	} else {
		reader__count_corrupt(r, cpu);
	}
}

/* A block of events whose params have u32 lengths: sysdig's container events
 * are imported; the others (plugin events) are not ours to show. */
static int reader__large(struct reader *r, uint32_t type, uint32_t blen, uint64_t at)
{
	uint32_t n = blen - CAPFILE_BLOCK_HDR, lead = type == CAPFILE_BLOCK_EVF_V2_LARGE ? 6 : 2;
	uint32_t trailer;
	uint8_t *body;
	int err;

	if (blen > LARGE_BLOCK_MAX) {
		reader__count_corrupt(r, -1);
		return reader__skip(r, n, at, type, blen);
	}
	if ((err = reader__body(r, type, blen, at, &body)))
		return err;
	memcpy(&trailer, body + n - 4, 4);
	if (trailer != blen || n < lead + 4)
		reader__count_corrupt(r, -1);
	else if (is_container_event(body + lead, n - 4 - lead))
		reader__container(r, body + lead, n - 4 - lead, true, schema__u16(body));
	free(body);
	return 0;
}

static int reader__next(void *e, struct capture_event *ev, int timeout_ms)
{
	struct reader *r = e;
	uint32_t hdr[2], type, blen, trailer;
	uint64_t at;
	size_t got;
	int err, cpu;

	(void)timeout_ms;	/* a file never makes anyone wait */
	if (r->has_pending) {
		r->has_pending = false;
		if (!r->pending_rc)
			*ev = r->pending;
		return r->pending_rc;
	}
	while (!r->done) {
		at = r->off;
		got = reader__read(r, hdr, sizeof(hdr));
		if (got == 0 && !r->gz_failed) {
			r->done = true;
			break;
		}
		if (got < sizeof(hdr))
			return reader__short(r, at, "a block header");
		type = hdr[0];
		blen = hdr[1];
		if (blen < CAPFILE_BLOCK_OVERHEAD)
			return reader__fail(r, "block at offset %" PRIu64 " (type 0x%x) has length "
					    "%u, below 12: the blocks after it cannot be found",
					    at, type, blen);
		r->off += blen;
		if (type == CAPFILE_BLOCK_EV_V2_LARGE || type == CAPFILE_BLOCK_EVF_V2_LARGE) {
			if ((err = reader__large(r, type, blen, at)))
				return err;
			continue;
		}
		if (is_event_block(type))
			r->seen_event = true;
		else if (r->in && !r->seen_event &&
			 (capfile_lists__is_proclist(type) || is_fdlist(type) ||
			  capfile_userlist__is_block(type))) {
			if ((err = reader__list(r, type, blen, at)))
				return err;
			continue;
		}
		if (!is_event_block(type) || blen > EVBLOCK_MAX) {
			/* Process/fd/user lists and blocks of newer writers are skipped. */
			if (is_event_block(type))
				reader__count_corrupt(r, -1);
			if ((err = reader__skip(r, blen - CAPFILE_BLOCK_HDR, at, type, blen)))
				return err;
			continue;
		}
		if (reader__read(r, r->block + CAPFILE_BLOCK_HDR, blen - CAPFILE_BLOCK_HDR) !=
		    blen - CAPFILE_BLOCK_HDR)
			return reader__short_block(r, at, type, blen);
		memcpy(&trailer, r->block + blen - 4, 4);
		cpu = -1;
		/* users seen after the start: state for the user lists, not events */
		if (trailer == blen && capfile_userlist__event(r->in != NULL, type,
				r->block + CAPFILE_BLOCK_HDR, blen - CAPFILE_BLOCK_OVERHEAD, &r->imp))
			continue;
		if (trailer != blen || reader__event(r, type, blen, ev, &cpu)) {
			reader__count_corrupt(r, cpu);
			continue;
		}
		/* older writers' container events: state, not events to show */
		if (is_container_event((const uint8_t *)ev->frame, ev->len)) {
			reader__container(r, (const uint8_t *)ev->frame, ev->len, false, cpu);
			continue;
		}
		r->total.n_evts++;
		r->total.n_bytes += ev->len;
		if (ev->cpu < CAPTURE_MAX_CPUS) {
			r->cpu[ev->cpu].n_evts++;
			r->cpu[ev->cpu].n_bytes += ev->len;
			if (ev->cpu >= r->ncpus)
				r->ncpus = ev->cpu + 1u;
		}
		return 0;
	}
	return -ENODATA;
}

static int reader__stats(void *e, struct capture_stats *st)
{
	struct reader *r = e;

	memset(st, 0, sizeof(*st));
	st->ncpus = r->ncpus ? r->ncpus : 1;
	st->total = r->total;
	memcpy(st->cpu, r->cpu, sizeof(st->cpu[0]) * st->ncpus);
	st->mode = "file";
	return 0;
}

static void reader__close(void *e)
{
	struct reader *r = e;

	if (!r)
		return;
	if (r->g)
		gzclose(r->g);
	free(r->path);
	free(r);
}

static const struct capture_engine_ops file_ops = {
	.name = "file",
	.next = reader__next,
	.stats = reader__stats,
	.close = reader__close,
};

/* The section header: magic and major version; its options (comments written
 * by newer tools) are skipped. */
static int reader__header(struct reader *r, const char *path)
{
	uint8_t b[CAPFILE_BLOCK_HDR + 8];
	uint32_t type, blen, magic;
	uint16_t major;

	if (reader__read(r, b, sizeof(b)) != sizeof(b)) {
		int errnum = 0;

		gzerror(r->g, &errnum);
		if (errnum)
			return reader__short(r, 0, "the section header");
		return reader__fail(r, "%s is not a capture file: too short", path);
	}
	type = schema__u32(b);
	blen = schema__u32(b + 4);
	magic = schema__u32(b + 8);
	major = schema__u16(b + 12);
	if (type != CAPFILE_BLOCK_SHB)
		return reader__fail(r, "%s is not a capture file: it starts with block type "
				    "0x%08x, not a section header", path, type);
	if (magic == __builtin_bswap32(CAPFILE_MAGIC))
		return reader__fail(r, "%s was written on a machine of the other byte order: "
				    "not supported", path);
	if (magic != CAPFILE_MAGIC)
		return reader__fail(r, "%s: section header at offset 0 has magic 0x%08x, not "
				    "0x%08x", path, magic, CAPFILE_MAGIC);
	if (blen < CAPFILE_SHB_LEN)
		return reader__fail(r, "%s: section header at offset 0 has length %u, below %u",
				    path, blen, CAPFILE_SHB_LEN);
	if (major != CAPFILE_MAJOR)
		return reader__fail(r, "%s: capture format version %u is not supported", path,
				    major);
	r->off = blen;
	return reader__skip(r, blen - sizeof(b), 0, type, blen);
}

struct capture *capture__open_file(const char *path, struct capfile_error *err)
{
	return capture__open_file_state(path, err, NULL, NULL);
}

struct capture *capture__open_file_state(const char *path, struct capfile_error *err,
					 struct inspector *in, struct capfile_import *imp)
{
	struct reader *r = calloc(1, sizeof(*r));
	struct capture *c;
	int e;

	err->msg[0] = 0;
	if (!r) {
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return NULL;
	}
	r->err = err;
	r->path = strdup(path);
	if (!r->path) {
		e = ENOMEM;
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		goto fail;
	}
	errno = 0;
	r->g = gzopen(path, "rb");
	if (!r->g) {
		e = errno ? errno : ENOMEM;
		snprintf(err->msg, sizeof(err->msg), "cannot open %s: %s", path, strerror(e));
		goto fail;
	}
	gzbuffer(r->g, 1 << 17);
	if ((e = -reader__header(r, path)))
		goto fail;
	r->in = in;
	if (in) {
		/* Read up to the first event: every list before it is imported now. */
		r->pending_rc = reader__next(r, &r->pending, 0);
		r->has_pending = true;
	}
	if (imp)
		*imp = r->imp;
	c = capture__open_engine(&file_ops, r);
	if (c)
		return c;
	e = errno;
	snprintf(err->msg, sizeof(err->msg), "out of memory");
fail:
	reader__close(r);
	errno = e;
	return NULL;
}
