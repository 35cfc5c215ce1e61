/* Request mode's HTTP/2 capture. HTTP/2 multiplexes a connection: a header
 * block may follow a long body in the same buffer, and HPACK's tables need
 * every block, so a buffer cut at the snaplen loses the connection's headers
 * from then on. An fd whose I/O begins with the client's preface ("PRI *
 * HTTP/2.0", written by the client, read by the server, in plaintext or
 * through the TLS probes), or that carries a server's 101 to h2c (HTTP/1.1's
 * upgrade), is marked in h2_fds here, in the kernel, so that
 * the response that follows at once is already captured whole: its buffers
 * up to settings.h2_snaplen, the opening buffer's own included. Only such
 * connections pay for it; a close unmarks the fd. */
#ifndef H2_BPF_H
#define H2_BPF_H

#include "scratch.bpf.h"
#include "params.bpf.h"
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
/* "HTTP/1.1" and " 101": a 101 response's first 12 bytes */
#define H2_HTTP11_WORD 0x312e312f50545448ull
#define H2_101_WORD 0x31303120u
/* A 101's head searched for "h2c" up to this many bytes */
#define H2_UPGRADE_SCAN 128

/* F's frame at OFF0 holds a 101 response whose head names h2c (an Upgrade:
 * h2c, RFC 7540 3.2): HTTP/2 follows it at once, its response to the
 * upgraded request first. Any case of "h2c" in the first
 * H2_UPGRADE_SCAN bytes. */
static __always_inline bool h2__upgrade_101(struct scratch *s, __u32 off0)
{
	__u32 w;

	__builtin_memcpy(&w, &s->data[(off0 + 8) & FRAME_MASK], 4);
	if (w != H2_101_WORD)
		return false;
	for (__u32 i = 12; i + 3 <= H2_UPGRADE_SCAN; i++) {
		if (off0 + i + 3 > s->off)
			return false;
		if ((s->data[(off0 + i) & FRAME_MASK] | 0x20) == 'h' &&
		    s->data[(off0 + i + 1) & FRAME_MASK] == '2' &&
		    (s->data[(off0 + i + 2) & FRAME_MASK] | 0x20) == 'c')
			return true;
	}
	return false;
}

/* BUF (LEN bytes; with IOV, an iovec array whose first iovec they start in)
 * starts HTTP/2 itself: the preface's first 8 bytes, or "HTTP/1.1 101" (its
 * h2c is looked for after the copy, by h2__note). Only the first iovec is
 * looked at, and only when it holds the 12 bytes. */
static __always_inline bool h2__opens(const void *buf, bool iov)
{
	struct iovec v;
	__u64 w[2] = {};

	if (iov) {
		if (!buf || bpf_probe_read_user(&v, sizeof(v), buf) || v.iov_len < 12)
			return false;
		buf = v.iov_base;
	}
	if (!buf || bpf_probe_read_user(w, 12, buf))
		return false;
	return w[0] == H2_PREFACE_WORD || (w[0] == H2_HTTP11_WORD && (__u32)w[1] == H2_101_WORD);
}

/* The bytes F captures of FD's buffer BUF (LEN bytes moved; IOV: h2__opens).
 * A marked fd's, up to h2_snaplen; and a buffer longer than the snaplen that
 * opens HTTP/2 itself (a client's read of a 101 often holds the response to
 * the upgraded request after it, its header block included) is not cut
 * before h2__note can mark its fd: the look costs a 12-byte read, and only
 * such long buffers of unmarked fds pay it. */
static __always_inline __u32 h2__snaplen(struct filler *f, long fd, const void *buf, __u64 len,
					 bool iov)
{
	if (!settings.h2_snaplen)
		return settings.snaplen;
	if (fdm__has(&h2_fds, &h2_marks, f->me >> 32, fd))
		return settings.h2_snaplen;
	return len > settings.snaplen && h2__opens(buf, iov) ? settings.h2_snaplen :
							       settings.snaplen;
}

/* A buffer of FD's was just put in F's frame at OFF0, its last param: when it
 * starts with the preface, or is a 101 to h2c, FD is marked. A 101 to
 * anything else (WebSocket) that h2__snaplen took past the snaplen is cut
 * back to it. */
static __always_inline void h2__note(struct filler *f, long fd, __u32 off0)
{
	struct scratch *s = f->s;
	__u64 w;
	__u32 w2;

	if (!settings.h2_snaplen || s->off < off0 + 8)
		return;
	__builtin_memcpy(&w, &s->data[off0 & FRAME_MASK], 8);
	if (w == H2_PREFACE_WORD) {
		fdm__add(&h2_fds, &h2_marks, f->me >> 32, fd);
		return;
	}
	if (w != H2_HTTP11_WORD || s->off < off0 + 12)
		return;
	if (h2__upgrade_101(s, off0)) {
		fdm__add(&h2_fds, &h2_marks, f->me >> 32, fd);
		return;
	}
	__builtin_memcpy(&w2, &s->data[(off0 + 8) & FRAME_MASK], 4);
	if (w2 == H2_101_WORD && s->off > off0 + settings.snaplen)
		filler__cut_last(f, off0, settings.snaplen);
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
