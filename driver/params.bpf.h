/* Parameter writers: each appends one param at the frame's end and records its
 * length in the header's length table, in table order. */
#ifndef PARAMS_BPF_H
#define PARAMS_BPF_H

#include "scratch.bpf.h"

/* Records that the param just written at s->off is LEN bytes long. */
static __always_inline void filler__commit(struct filler *f, __u32 len)
{
	struct scratch *s = f->s;
	__u32 slot = PPM_HDR_LEN + 2 * (s->curarg & PARAMS_MASK);

	*(__u16 *)&s->data[slot] = (__u16)len;
	s->off += len;
	s->curarg++;
	if (s->off > PPM_MAX_EVENT_SIZE)
		s->overflow = 1;
}

#define FILLER_PUT(fname, ctype)                                                 \
	static __always_inline void fname(struct filler *f, ctype v)             \
	{                                                                        \
		struct scratch *s = f->s;                                        \
		__builtin_memcpy(&s->data[s->off & FRAME_MASK], &v, sizeof(v));  \
		filler__commit(f, sizeof(v));                                    \
	}

FILLER_PUT(filler__u8, __u8)
FILLER_PUT(filler__u16, __u16)
FILLER_PUT(filler__u32, __u32)
FILLER_PUT(filler__u64, __u64)
FILLER_PUT(filler__s64, __s64)

/* An empty param: length 0 means "not available". */
static __always_inline void filler__empty(struct filler *f)
{
	filler__commit(f, 0);
}

/* A NUL-terminated string from user memory, at most DRIVER_MAX_STR bytes. */
static __always_inline void filler__str_user(struct filler *f, const void *uptr)
{
	struct scratch *s = f->s;
	long n = 0;

	if (uptr) {
		n = bpf_probe_read_user_str(&s->data[s->off & FRAME_MASK], DRIVER_MAX_STR, uptr);
		if (n < 0) {
			COUNT(n_drops_pf);
			n = 0;
		}
	}
	filler__commit(f, n);
}

/* A NUL-terminated string from kernel memory. */
static __always_inline void filler__str_kernel(struct filler *f, const void *kptr)
{
	struct scratch *s = f->s;
	long n = 0;

	if (kptr) {
		n = bpf_probe_read_kernel_str(&s->data[s->off & FRAME_MASK], DRIVER_MAX_STR, kptr);
		if (n < 0)
			n = 0;
	}
	filler__commit(f, n);
}

/* LEN bytes of user memory, cut to MAX (the snaplen or a param limit). */
static __always_inline void filler__buf_user(struct filler *f, const void *uptr, __u64 len, __u32 max)
{
	struct scratch *s = f->s;

	if (len > max)
		len = max;
	/* the bound below must reach the register the copy takes (clang
	 * folded it away where a caller copies twice: h2__buf_user) */
	barrier_var(len);
	if (len > PPM_MAX_ARG_SIZE)
		len = PPM_MAX_ARG_SIZE;
	if (!uptr || !len) {
		filler__commit(f, 0);
		return;
	}
	if (bpf_probe_read_user(&s->data[s->off & FRAME_MASK], len, uptr)) {
		COUNT(n_drops_pf);
		len = 0;
	}
	filler__commit(f, len);
}

/* The param just written, which began at OFF0, taken back: the next param
 * written takes its place. */
static __always_inline void filler__uncommit(struct filler *f, __u32 off0)
{
	f->s->off = off0;
	f->s->curarg--;
}

/* LEN bytes of kernel memory (LEN a constant or bounded by the caller). */
static __always_inline void filler__buf_kernel(struct filler *f, const void *kptr, __u32 len)
{
	struct scratch *s = f->s;

	if (len > PPM_MAX_ARG_SIZE)
		len = PPM_MAX_ARG_SIZE;
	if (bpf_probe_read_kernel(&s->data[s->off & FRAME_MASK], len, kptr))
		len = 0;
	filler__commit(f, len);
}

#endif
