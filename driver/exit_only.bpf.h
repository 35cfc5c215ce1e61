/* Exit-only capture's bookkeeping: the park where an enter frame waits for its
 * exit frame, the chain's marks and the stamp both events share. */
#ifndef EXIT_ONLY_BPF_H
#define EXIT_ONLY_BPF_H

#include "scratch.bpf.h"

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

/* Writes the enter frame of TYPE into the park, for the enter events whose
 * params are an fd and (read, write, recvfrom) a size straight from the
 * saved registers: close, readv, recvmsg, read, write, recvfrom, about half
 * of what request mode sends. The dispatcher then goes straight to the exit
 * filler: a tail call and a program fewer per such syscall, the same bytes
 * as their fillers write (header, length table, fd as s64, size as u32).
 * REGS: typed (tp_btf), read by plain loads. Returns 1 when parked, 0 for
 * other events and where either filler of the pair is not loaded
 * (park_inline): those take the dispatcher's old path. */
/* Parks the enter frame of TYPE for ME, stamped s->stamp: the fd alone
 * (N 1), or the fd and a size (N 2): header, a u16 length per param, the fd
 * (s64), the size (u32). */
static __always_inline void park__fd_size(struct scratch *s, __u16 type, __u32 n, __s64 fd,
					  __u32 size, __u64 me)
{
	__u32 len = n == 1 ? PPM_HDR_LEN + 2 + 8 : PPM_HDR_LEN + 4 + 12;
	__u8 *p = &s->park[PARK_SIZE - len];
	struct ppm_evt_hdr *h = (struct ppm_evt_hdr *)p;

	h->ts = s->stamp;
	h->tid = (__u32)me;
	h->len = len;
	h->type = type;
	h->nparams = n;
	*(__u16 *)(p + PPM_HDR_LEN) = 8;
	if (n == 1) {
		*(__s64 *)(p + PPM_HDR_LEN + 2) = fd;
	} else {
		*(__u16 *)(p + PPM_HDR_LEN + 2) = 4;
		*(__s64 *)(p + PPM_HDR_LEN + 4) = fd;
		*(__u32 *)(p + PPM_HDR_LEN + 12) = size;
	}
	s->park_type = type;
	s->park_owner = me;
	s->park_len = len;
}

static __always_inline int park__simple_enter(struct scratch *s, __u16 type,
					      struct pt_regs *regs, __u64 me)
{
	__u32 n;

	switch (type) {
	case PPME_SYSCALL_CLOSE_E:
	case PPME_SYSCALL_READV_E:
	case PPME_SOCKET_RECVMSG_E:
		n = 1;
		break;
	case PPME_SYSCALL_READ_E:
	case PPME_SYSCALL_WRITE_E:
	case PPME_SOCKET_RECVFROM_E:
		n = 2;
		break;
	default:
		return 0;
	}
	/* both fillers loaded: else the old path's events (the generic pair
	 * where a filler could not load) */
	if (type >= PPM_EVENT_MAX || !park_inline[type])
		return 0;
	park__fd_size(s, type, n, (int)regs->di, (__u32)regs->dx, me);
	return 1;
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
