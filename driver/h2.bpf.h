/* Request mode's wide connections: HTTP/2's, and Redis pipelines' (resp.bpf.h
 * says when). HTTP/2 multiplexes a connection: a header
 * block may follow a long body in the same buffer, and HPACK's tables need
 * every block, so a buffer cut at the snaplen loses the connection's headers
 * from then on. An fd whose I/O begins with the client's preface ("PRI *
 * HTTP/2.0", written by the client, read by the server, in plaintext or
 * through the TLS probes), or that carries a server's 101 to h2c (HTTP/1.1's
 * upgrade), is marked in h2_fds here, in the kernel, so that
 * the response that follows at once is already captured whole: its buffers
 * up to settings.h2_snaplen, the opening buffer's own included (copied
 * again). Only such connections pay for it; a close unmarks the fd. */
#ifndef H2_BPF_H
#define H2_BPF_H

#include "scratch.bpf.h"
#include "params.bpf.h"
#include "fd_marks.bpf.h"
#include "resp.bpf.h"
#include "pgwire.bpf.h"

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
/* "HTTP/1.1" and " 101": a 101 response's first 12 bytes */
#define H2_HTTP11_WORD 0x312e312f50545448ull
#define H2_101_WORD 0x31303120u
/* A 101's head searched for "h2c" up to this many bytes */
#define H2_UPGRADE_SCAN 128

/* One turn of the 101's scan for "h2c": whether it starts at the walk's p.
 * The scan is a bpf_loop, its state the CPU's walk (resp.bpf.h: p, end and
 * the result in more), so that the verifier sees one turn wherever a buffer
 * is copied: unrolled inline, the scan's 114 steps at each copy of each
 * socket program took most of the agent's start (seconds of verifying). */
static long h2_scan__turn(__u64 i, void *arg)
{
	struct scratch *s = scratch__get();
	struct resp_walk *w;

	if (!s)
		return 1;
	w = &s->resp;
	if (w->p + 3 > w->end)
		return 1;
	if ((s->data[w->p & FRAME_MASK] | 0x20) == 'h' && s->data[(w->p + 1) & FRAME_MASK] == '2' &&
	    (s->data[(w->p + 2) & FRAME_MASK] | 0x20) == 'c') {
		w->more = 1;
		return 1;
	}
	w->p++;
	return 0;
}

/* F's frame at OFF0 holds a 101 response whose head names h2c (an Upgrade:
 * h2c, RFC 7540 3.2): HTTP/2 follows it at once, its response to the
 * upgraded request first. Any case of "h2c" in the first
 * H2_UPGRADE_SCAN bytes. */
static __always_inline bool h2__upgrade_101(struct scratch *s, __u32 off0)
{
	struct resp_walk *w = &s->resp;
	__u32 word;

	__builtin_memcpy(&word, &s->data[(off0 + 8) & FRAME_MASK], 4);
	if (word != H2_101_WORD)
		return false;
	__builtin_memset(w, 0, sizeof(*w));
	w->p = (__u64)off0 + 12;
	w->end = (__u64)off0 + H2_UPGRADE_SCAN;
	if (w->end > s->off)
		w->end = s->off;
	bpf_loop(H2_UPGRADE_SCAN, h2_scan__turn, NULL, 0);
	return w->more;
}

/* The bytes of FD's buffers F captures. */
static __always_inline __u32 h2__snaplen(struct filler *f, long fd)
{
	if (!settings.h2_snaplen)
		return settings.snaplen;
	return fdm__has(&h2_fds, &h2_marks, f->me >> 32, fd) ? settings.h2_snaplen :
							       settings.snaplen;
}

/* A buffer of FD's (LEN bytes moved) was just put in F's frame at OFF0, its
 * last param, cut to SNAP: when it starts with the preface, or is a 101 to
 * h2c, or is a Redis pipeline or a PostgreSQL batch SNAP cut, FD is marked. Returns true when that buffer was cut short of
 * h2_snaplen: the caller then takes it back (filler__uncommit) and copies it
 * again up to h2_snaplen, as a client's read of a 101 often holds the
 * response to the upgraded request after it, header block and all. Only
 * such opening buffers are copied twice; no other buffer pays a read. */
static __always_inline bool h2__note(struct filler *f, long fd, __u32 off0, __u32 snap,
				     __u64 len)
{
	struct scratch *s = f->s;
	bool cut;
	__u64 w;

	if (!settings.h2_snaplen || s->off < off0 + 8)
		return false;
	cut = snap < settings.h2_snaplen && len > snap && s->off == off0 + snap;
	__builtin_memcpy(&w, &s->data[off0 & FRAME_MASK], 8);
	if (w != H2_PREFACE_WORD &&
	    (w != H2_HTTP11_WORD || s->off < off0 + 12 || !h2__upgrade_101(s, off0))) {
		/* a Redis pipeline or a PostgreSQL batch the snaplen cut
		 * (resp.bpf.h, pgwire.bpf.h); a writev asks for all (~0): what
		 * it moved is its result */
		__u64 moved = len != ~0ull ? len : f->ret > 0 ? f->ret : 0;

		if (!cut || !(resp__more(s, off0, moved) || pg__more(s, off0, moved)))
			return false;
	}
	fdm__add(&h2_fds, &h2_marks, f->me >> 32, fd);
	return cut;
}

/* LEN bytes of FD's buffer at UPTR as F's next param, cut at what
 * h2__snaplen says; an opening buffer h2__note marks is copied again. */
static __always_inline void h2__buf_user(struct filler *f, long fd, const void *uptr, __u64 len)
{
	__u32 snap = h2__snaplen(f, fd), off0 = f->s->off;

	filler__buf_user(f, uptr, len, snap);
	if (h2__note(f, fd, off0, snap, len)) {
		filler__uncommit(f, off0);
		filler__buf_user(f, uptr, len, settings.h2_snaplen);
	}
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
