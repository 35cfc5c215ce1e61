/* Exit-only capture's bookkeeping: the park where an enter frame waits for its
 * exit frame, the chain's marks and the stamp both events share. */
#ifndef EXIT_ONLY_BPF_H
#define EXIT_ONLY_BPF_H

#include "scratch.bpf.h"
#include "close_enter.bpf.h"

/* Where a parked frame of LEN (<= PARK_SIZE) bytes starts in scratch.park.
 * The mask is for the verifier; the barrier stops the compiler from dropping
 * it as redundant with the caller's bound. */
static __always_inline __u32 park__start(__u32 len)
{
	__u64 off = PARK_SIZE - (__u64)len;

	asm volatile("" : "+r"(off));
	return off & PARK_MASK;
}

/* Enter frames up to this size are parked by an inline copy of PARK_INLINE
 * bytes in 8-byte words, with no branch and no helper call; longer ones by
 * bpf_probe_read_kernel. */
#define PARK_INLINE 128

/* Parks the LEN-byte (<= PARK_SIZE) frame at data so that it ends where data
 * begins. The words past LEN land in data's first bytes, below any word still
 * to be read (a frame has at least a header): the next event is built over
 * them anyway. */
static __always_inline long park__copy(struct scratch *s, __u32 len)
{
	__u32 start = park__start(len);

	if (len > PARK_INLINE)
		return bpf_probe_read_kernel(&s->park[start], len, s->data);
#pragma unroll
	for (int i = 0; i < PARK_INLINE / 8; i++)
		*(__u64 *)&s->park[start + i * 8] = *(__u64 *)&s->data[i * 8];
	return 0;
}

/* The park's header for an enter frame of TYPE with N params in LEN bytes,
 * for ME, stamped s->stamp; the frame's length table begins at the result. */
static __always_inline __u8 *park__begin(struct scratch *s, __u16 type, __u32 n, __u32 len,
					 __u64 me)
{
	__u8 *p = &s->park[PARK_SIZE - len];
	struct ppm_evt_hdr *h = (struct ppm_evt_hdr *)p;

	h->ts = s->stamp;
	h->tid = (__u32)me;
	h->len = len;
	h->type = type;
	h->nparams = n;
	s->park_type = type;
	s->park_owner = me;
	s->park_len = len;
	return p + PPM_HDR_LEN;
}

/* Parks the enter frame of TYPE for ME: an fd (s64) and a size (u32). */
static __always_inline void park__fd_size(struct scratch *s, __u16 type, __s64 fd, __u32 size,
					  __u64 me)
{
	__u8 *p = park__begin(s, type, 2, PPM_HDR_LEN + 4 + 12, me);

	*(__u16 *)p = 8;
	*(__u16 *)(p + 2) = 4;
	*(__s64 *)(p + 4) = fd;
	*(__u32 *)(p + 12) = size;
}

/* Parks the enter frame of TYPE for ME: an fd (s64) alone. Returns where its
 * params begin. */
static __always_inline __u8 *park__fd(struct scratch *s, __u16 type, __s64 fd, __u64 me)
{
	__u8 *p = park__begin(s, type, 1, PPM_HDR_LEN + 2 + 8, me);

	*(__u16 *)p = 8;
	*(__s64 *)(p + 2) = fd;
	return p;
}

/* Writes the enter frame of TYPE into the park, for the enter events whose
 * params come straight from the saved registers: an fd (close, readv,
 * recvmsg), an fd and a size (read, write, recvfrom), accept4's flags, about
 * half of what request mode sends; and on the compact path connect's, its
 * fd with the addr left empty. The dispatcher then goes straight to the exit
 * filler: a tail call and a program fewer per such syscall, the same bytes
 * as their fillers write (header, length table, params) but connect's addr.
 * REGS: typed (tp_btf), read by plain loads. Returns 1 when parked, 0 for
 * other events and where either filler of the pair is not loaded
 * (park_inline): those take the dispatcher's old path. */
static __always_inline int park__simple_enter(struct scratch *s, __u16 type,
					      struct pt_regs *regs, __u64 me)
{
	__u8 *p;

	/* both fillers loaded: else the old path's events (the generic pair
	 * where a filler could not load) */
	if (type >= PPM_EVENT_MAX || !park_inline[type])
		return 0;
	switch (type) {
	case PPME_SYSCALL_CLOSE_E: {
		__u64 began = close_began__take((int)regs->di, s->stamp);

		p = park__fd(s, type, (int)regs->di, me);
		/* stamped when it began: close_enter.bpf.h */
		if (began)
			((struct ppm_evt_hdr *)(p - PPM_HDR_LEN))->ts = began;
		return 1;
	}
	case PPME_SYSCALL_READV_E:
	case PPME_SOCKET_RECVMSG_E:
		park__fd(s, type, (int)regs->di, me);
		return 1;
	case PPME_SYSCALL_READ_E:
	case PPME_SYSCALL_WRITE_E:
	case PPME_SOCKET_RECVFROM_E:
		park__fd_size(s, type, (int)regs->di, (__u32)regs->dx, me);
		return 1;
	case PPME_SOCKET_ACCEPT4_5_E:
		/* the flags (an INT32 param): the fourth argument */
		p = park__begin(s, type, 1, PPM_HDR_LEN + 2 + 4, me);
		*(__u16 *)p = 4;
		*(__u32 *)(p + 2) = (__u32)regs->r10;
		return 1;
	case PPME_SOCKET_CONNECT_E:
		/* Request mode's compact path only: the fd and an empty addr.
		 * The exit's tuple names the peer (the agent reads it there);
		 * the filler would read the caller's sockaddr twice. */
		if (!settings.sock_compact)
			return 0;
		p = park__begin(s, type, 2, PPM_HDR_LEN + 4 + 8, me);
		*(__u16 *)p = 8;
		*(__u16 *)(p + 2) = 0;
		*(__s64 *)(p + 4) = (int)regs->di;
		return 1;
	}
	return 0;
}

/* scratch.chain_ev of an enter event sent alone (drop_failed, a failed call). */
#define EO_NO_EXIT 0xffff

/* Every enter event's code is its exit event's - 1 (proto checks the
 * left-out ones); frame__send relies on it for the generic pair too. */
_Static_assert(PPME_GENERIC_E + 1 == PPME_GENERIC_X, "generic pair codes");

/* Exit-only capture: the dispatcher stamps the syscall's two events once. */
static __always_inline void stamp__set(struct scratch *s, __u64 owner)
{
	s->stamp = settings.boot_time + bpf_ktime_get_boot_ns();
	s->stamp_owner = owner;
}

/* A program that sends an event of its own (sched.bpf.c) ends any chain's
 * stamp on this CPU: its event is timed now. */
static __always_inline void stamp__clear(void)
{
	struct scratch *s = scratch__get();

	if (s)
		s->stamp = 0;
}

#endif
