/* The capture-file writer: a section header, then one EV v2 block (u16 cpu + the
 * frame, padded to 4, trailing length) per event, through zlib. The file holds
 * every process's arguments and environment: it is written 0600 under a new
 * name in the target's folder (O_EXCL, O_NOFOLLOW) and renamed over the target
 * at close, so a symlink planted at the target is never written through. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "capfile.h"
#include "capfile_int.h"

struct capfile_writer {
	gzFile g;
	bool gzip;
	uint64_t count;
	uint64_t bytes;	/* uncompressed bytes written */
	int err;	/* first write error, reported again by close */
	char *path;	/* the target, renamed into place at close */
	char *tmp;	/* the file being written, NULL: PATH itself (a device, a FIFO) */
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
	w->bytes += len;
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

/* Creates "DIR/.BASE.XXXXXX" next to PATH: 0600, never an existing name or a
 * symlink. The fd, or -errno. */
static int writer__create_tmp(struct capfile_writer *w)
{
	const char *slash = strrchr(w->path, '/');
	int dirlen = slash ? (int)(slash - w->path + 1) : 0;
	size_t n = strlen(w->path) + 16;
	uint64_t seed = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL) ^ (uintptr_t)w;

	w->tmp = malloc(n);
	if (!w->tmp)
		return -ENOMEM;
	for (int tries = 0; tries < 100; tries++) {
		int fd;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		snprintf(w->tmp, n, "%.*s.%s.%06x", dirlen, w->path, w->path + dirlen,
			 (unsigned)(seed >> 40) & 0xffffff);
		fd = open(w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

static void writer__free(struct capfile_writer *w)
{
	free(w->path);
	free(w->tmp);
	free(w);
}

struct capfile_writer *capfile_writer__open(const char *path, bool gzip)
{
	struct capfile_writer *w = calloc(1, sizeof(*w));
	struct stat st;
	int err, fd;

	if (!w)
		return NULL;
	w->gzip = gzip;
	/* A symlink at the target is refused: the caller names a file, not a link. */
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		err = -ELOOP;
		goto fail;
	}
	w->path = strdup(path);
	if (!w->path) {
		err = -ENOMEM;
		goto fail;
	}
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* a device or a FIFO is written as it is, never replaced */
		fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			goto fail;
		}
	} else if ((fd = writer__create_tmp(w)) < 0) {
		err = fd;
		free(w->tmp);
		w->tmp = NULL;
		goto fail;
	}
	errno = 0;
	/* "T": zlib writes the bytes as they are (no gzip wrapper). */
	w->g = gzdopen(fd, gzip ? "wb6" : "wbT");
	if (!w->g) {
		err = errno ? -errno : -ENOMEM;
		close(fd);
		goto fail_unlink;
	}
	gzbuffer(w->g, 1 << 17);
	if ((err = writer__header(w))) {
		gzclose(w->g);
		goto fail_unlink;
	}
	return w;
fail_unlink:
	if (w->tmp)
		unlink(w->tmp);
fail:
	writer__free(w);
	errno = -err;
	return NULL;
}

int capfile_writer__write(struct capfile_writer *w, uint16_t cpu,
			  const struct ppm_evt_hdr *frame)
{
	static const uint8_t zeros[4];
	struct capfile_generic g;
	uint32_t flen, blen, pad, hdr[2];
	uint8_t lead[2];
	int err;

	frame = capfile__as_generic(frame, &g);
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

uint64_t capfile_writer__size(const struct capfile_writer *w)
{
	/* gzip: what reached the file, as sysdig's scap_dump_get_offset (gzoffset) */
	if (w->gzip) {
		z_off_t off = gzoffset(w->g);

		return off > 0 ? (uint64_t)off : 0;
	}
	return w->bytes;
}

const char *capfile_writer__path(const struct capfile_writer *w)
{
	return w->path;
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
	/* Also after a write error: what was written is kept, as sysdig keeps it.
	 * rename() replaces a symlink planted meanwhile, it never follows it. */
	if (w->tmp && rename(w->tmp, w->path) && !err) {
		err = -errno;
		unlink(w->tmp);
	}
	writer__free(w);
	return err;
}
