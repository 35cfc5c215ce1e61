/* Request mode's HTTP/2 capture. HTTP/2 multiplexes a connection: a header
 * block may follow a long body in the same buffer, and HPACK's tables need
 * every block, so a buffer cut at the snaplen loses the connection's headers
 * from then on. An fd whose I/O begins with the client's preface ("PRI *
 * HTTP/2.0", written by the client, read by the server, in plaintext or
 * through the TLS probes) is marked in h2_fds here, in the kernel, so that
 * the response that follows at once is already captured whole: its buffers
 * up to settings.h2_snaplen. Only such connections pay for it; a close
 * unmarks the fd. */
#ifndef H2_BPF_H
#define H2_BPF_H

#include "scratch.bpf.h"
#include "fd_marks.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, H2_FDS_MAX);
	__type(key, struct h2_fd_key);
	__type(value, __u8);
} h2_fds __weak SEC(".maps");

/* h2_fds' count (fd_marks.bpf.h) */
__u32 h2_marks __weak;

/* "PRI * HT", the preface's first 8 bytes, as a little-endian word */
#define H2_PREFACE_WORD 0x5448202a20495250ull

/* The bytes of FD's buffers F captures. */
static __always_inline __u32 h2__snaplen(struct filler *f, long fd)
{
	if (!settings.h2_snaplen)
		return settings.snaplen;
	return fdm__has(&h2_fds, &h2_marks, f->me >> 32, fd) ? settings.h2_snaplen :
							       settings.snaplen;
}

/* A buffer of FD's was just put in F's frame at OFF0: when it starts with
 * the preface, FD is marked. */
static __always_inline void h2__note(struct filler *f, long fd, __u32 off0)
{
	struct scratch *s = f->s;
	__u64 w;

	if (!settings.h2_snaplen || s->off < off0 + 8)
		return;
	__builtin_memcpy(&w, &s->data[off0 & FRAME_MASK], 8);
	if (w == H2_PREFACE_WORD)
		fdm__add(&h2_fds, &h2_marks, f->me >> 32, fd);
}

/* FD of F's process is closed: its mark goes (a later socket may get the
 * number). Only closes the filters send come here: request mode sends every
 * socket's. */
static __always_inline void h2__forget(struct filler *f, long fd)
{
	if (settings.h2_snaplen)
		fdm__del(&h2_fds, &h2_marks, f->me >> 32, fd);
}

#endif
