/* Building an event in the per-CPU scratch frame and sending it. Every filler uses
 * these: filler__begin, one filler__* call per param in table order, filler__submit. */
#ifndef FRAME_BPF_H
#define FRAME_BPF_H

#include "maps.bpf.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

/* Offsets into data are masked with this so the verifier sees them bounded. */
#define FRAME_MASK (FRAME_HALF - 1)
#define PARK_MASK (PARK_SIZE - 1)
#define PARAMS_MASK 31
/* errno values are not in vmlinux.h. */
#define ENOSPC_BPF 28
#define EAGAIN_BPF 11

struct filler {
	struct scratch *s;
	void *ctx;
	struct pt_regs *regs;	/* the syscall's saved user registers */
	long ret;		/* exit events: the syscall's return value */
	/* pid_tgid of this task, read once: the scratch frame's owner while this
	 * filler builds in it (a task preempting us on the CPU changes that). */
	__u64 me;
	/* The event's type, a constant where the filler names it: the compiler
	 * then keeps only the send path of its direction (frame__send). */
	__u16 type;
	/* A generic exit event whose enter event exit-only capture left out
	 * (UF_EO_SYNTH); for other exit events the type says it. */
	__u8 eo_generic;
	/* pt_regs from r10 to orig_ax, read once on the first filler__arg: one probe
	 * read instead of one per argument. */
	unsigned long regblock[9];
	int have_args;
};

static __always_inline struct driver_counters *counters__get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&counters, &zero);
}

/* The drop counters are per CPU: a plain increment is enough. */
#define COUNT(field)                                            \
	do {                                                    \
		struct driver_counters *__c = counters__get();  \
		if (__c)                                        \
			__c->field++;                           \
	} while (0)

/* An event of type TYPE that will not be sent: counted once, by reason and type.
 * Atomic adds (a drop is rare): a program preempted mid-increment by another
 * on the same CPU would lose one, and the two counts would disagree. */
static __always_inline void drop__type(__u32 type)
{
	__u64 *n = bpf_map_lookup_elem(&drops_by_type, &type);

	if (n)
		__sync_fetch_and_add(n, 1);
}

#define DROP(field, evtype)                                             \
	do {                                                            \
		struct driver_counters *__c = counters__get();          \
		if (__c)                                                \
			__sync_fetch_and_add(&__c->field, 1);           \
		drop__type(evtype);                                     \
	} while (0)

static __always_inline struct scratch *scratch__get(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&frames, &cpu);
}

/* Starts event TYPE with NPARAMS params for the current task, whose pid_tgid
 * (read once per program: a helper call) is PID_TGID. CTX is the raw
 * tracepoint's context: args[0] the pt_regs, args[1] the syscall id (enter) or return value (exit). */
static __always_inline int filler__begin_as(struct filler *f, void *ctx, __u16 type,
					     __u32 nparams, __u64 pid_tgid)
{
	struct bpf_raw_tracepoint_args *a = ctx;

	f->s = scratch__get();
	if (!f->s) {
		DROP(n_drops_bug, type);
		return -1;
	}
	f->ctx = ctx;
	f->regs = (struct pt_regs *)a->args[0];
	f->ret = (long)a->args[1];
	f->have_args = 0;
	f->me = pid_tgid;
	f->type = type;
	f->eo_generic = 0;
	f->s->owner = f->me;
	f->s->type = type;
	f->s->nparams = nparams;
	f->s->curarg = 0;
	f->s->overflow = 0;
	f->s->off = PPM_HDR_LEN + nparams * 2;
	return 0;
}

static __always_inline int filler__begin(struct filler *f, void *ctx, __u16 type, __u32 nparams)
{
	return filler__begin_as(f, ctx, type, nparams, bpf_get_current_pid_tgid());
}

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

/* Sends LEN bytes at DATA into this CPU's ring: its BPF ring buffer with the
 * ring-buffer engine, else its perf ring. No wakeup from the ring buffer: the
 * reader wakes by its own clock, as it does for a perf ring below its
 * watermark, so a busy CPU pays no wakeup per event. */
static __always_inline long frame__output(void *ctx, void *data, __u32 len)
{
	if (settings.ringbuf) {
		__u32 cpu = bpf_get_smp_processor_id();
		void *rb = bpf_map_lookup_elem(&rings, &cpu);

		if (!rb)
			return -1;
		return bpf_ringbuf_output(rb, data, len, BPF_RB_NO_WAKEUP);
	}
	return bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, data, len);
}

/* Counts the outcome ERR of sending N (1 or 2) events, of types TYPE and
 * TYPE2: each sent, or each dropped once by reason and type. One place, so
 * that each send site costs the verifier little. */
static __always_inline void frame__account(long err, __u16 type, __u16 type2, int n)
{
	struct driver_counters *c = counters__get();

	if (!err) {
		if (c)
			c->n_evts += n;
		return;
	}
	/* Only -ENOSPC (perf) or -EAGAIN (ring buffer) is a full ring; anything
	 * else (no ring on this CPU, a bad size) is ours to fix. Atomic: see DROP. */
	if (c)
		__sync_fetch_and_add(err == -ENOSPC_BPF || err == -EAGAIN_BPF ?
				     &c->n_drops_buffer : &c->n_drops_bug, n);
	drop__type(type);
	if (n == 2)
		drop__type(type2);
}

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

/* The frame parked on this CPU, if any, sent alone: its exit frame is not
 * coming (dropped, or a failed chain), or another event goes first. */
static __always_inline void park__flush(void *ctx, struct scratch *s)
{
	__u32 len = s->park_len;
	long err = -1;

	if (!len)
		return;
	s->park_len = 0;
	/* A length past the park cannot be: not sent, counted as ours to fix. */
	if (len <= PARK_SIZE)
		err = frame__output(ctx, &s->park[park__start(len)], len);
	frame__account(err, s->park_type, 0, 1);
}

/* scratch.chain_ev of an enter event sent alone (drop_failed, a failed call). */
#define EO_NO_EXIT 0xffff

/* Every enter event's code is its exit event's - 1 (proto checks the
 * left-out ones); frame__send relies on it for the generic pair too. */
_Static_assert(PPME_GENERIC_E + 1 == PPME_GENERIC_X, "generic pair codes");

/* Sends the finished frame of LEN bytes and type TYPE. In exit-only mode the
 * enter frame of a syscall whose exit frame follows is parked instead, and
 * goes out with that exit frame in one record: the reserve, commit and copy of
 * a ring write are paid once per syscall. The reader walks the frames of a
 * record (userspace/capture/ring.c). */
static __always_inline void frame__send(struct filler *f, struct scratch *s, __u32 len, __u16 type)
{
	void *from = s->data;
	__u16 first = type;
	int n = 1;

	if (s->park_len) {
		__u32 plen = s->park_len;

		if (PPME_IS_EXIT(type) && s->park_owner == f->me && plen <= PARK_SIZE) {
			s->park_len = 0;
			from = &s->park[park__start(plen)];
			len += plen;
			first = s->park_type;
			n = 2;
		} else {
			park__flush(f->ctx, s);
		}
	} else if (settings.exit_only && !PPME_IS_EXIT(type) && len <= PARK_SIZE &&
		   s->chain_ev && s->chain_ev != EO_NO_EXIT && s->chain_owner == f->me &&
		   !park__copy(s, len)) {
		s->park_type = type;
		s->park_owner = f->me;
		s->park_len = len;
		return;
	}
	/* An exit event whose enter event (its type - 1, GENERIC_E included)
	 * was left out stands for both: sent or dropped, it counts as two, as
	 * the enter event the reader rebuilds from it (proto/schema_eo.c)
	 * counts there. */
	if (n == 1 && PPME_IS_EXIT(type) && settings.exit_only &&
	    (PPME_EO_SYNTH_BARE(type) || f->eo_generic)) {
		first = type - 1;
		n = 2;
	}
	frame__account(frame__output(f->ctx, from, len), first, type, n);
}

/* Writes the header and sends the event into this CPU's ring. An event that
 * is not sent first lets a parked enter frame go alone. */
static __always_inline int filler__submit(struct filler *f)
{
	struct scratch *s = f->s;
	struct ppm_evt_hdr *h = (struct ppm_evt_hdr *)s->data;
	__u32 len = s->off;

	__u64 me = f->me;
	__u64 ts = s->stamp_owner == me ? s->stamp : 0;
	int too_big = s->overflow || len > PPM_MAX_EVENT_SIZE;

	/* the exit event ends its syscall's chain, sent or not */
	if (PPME_IS_EXIT(f->type))
		s->stamp = 0;
	if (too_big || s->curarg != s->nparams || s->owner != me || s->type != f->type ||
	    len < PPM_HDR_LEN) {
		if (too_big)
			DROP(n_drops_scratch, f->type);
		else
			DROP(n_drops_bug, f->type);
		/* a parked enter frame still goes */
		park__flush(f->ctx, s);
		return 0;
	}
	h->ts = ts ? ts : settings.boot_time + bpf_ktime_get_boot_ns();
	h->tid = (__u32)me;
	h->len = len;
	h->type = f->type;
	h->nparams = s->nparams;
	frame__send(f, s, len, f->type);
	return 0;
}

/* Syscall argument I (0..5) from the saved user registers (x86_64 ABI). */
static __always_inline unsigned long syscall__arg(struct pt_regs *regs, int i)
{
	switch (i) {
	case 0: return BPF_CORE_READ(regs, di);
	case 1: return BPF_CORE_READ(regs, si);
	case 2: return BPF_CORE_READ(regs, dx);
	case 3: return BPF_CORE_READ(regs, r10);
	case 4: return BPF_CORE_READ(regs, r8);
	case 5: return BPF_CORE_READ(regs, r9);
	}
	return 0;
}

/* x86_64 pt_regs keeps r10, r9, r8, ax, cx, dx, si, di, orig_ax next to each other
 * (a ptrace ABI); the six argument registers are all in that block. */
static __always_inline unsigned long filler__arg(struct filler *f, int i)
{
	if (!f->have_args) {
		/* A local, so the CO-RE relocation is on pt_regs alone. */
		struct pt_regs *regs = f->regs;

		if (bpf_core_read(f->regblock, sizeof(f->regblock), &regs->r10))
			__builtin_memset(f->regblock, 0, sizeof(f->regblock));
		f->have_args = 1;
	}
	switch (i) {
	case 0: return f->regblock[7];	/* di */
	case 1: return f->regblock[6];	/* si */
	case 2: return f->regblock[5];	/* dx */
	case 3: return f->regblock[0];	/* r10 */
	case 4: return f->regblock[2];	/* r8 */
	case 5: return f->regblock[1];	/* r9 */
	}
	return 0;
}

/* Picks up, in a continuation part, the event the previous part left in this
 * CPU's frame (tail calls stay on the CPU). */
static __always_inline int filler__resume(struct filler *f, void *ctx, __u16 type)
{
	struct bpf_raw_tracepoint_args *a = ctx;

	f->s = scratch__get();
	f->me = bpf_get_current_pid_tgid();
	if (!f->s || f->s->type != type || f->s->owner != f->me) {
		DROP(n_drops_bug, type);
		return -1;
	}
	f->type = type;
	f->eo_generic = 0;
	f->ctx = ctx;
	f->regs = (struct pt_regs *)a->args[0];
	f->ret = (long)a->args[1];
	f->have_args = 0;
	return 0;
}

/* Continues in part N of this event's filler; returns only if that failed. */
static __always_inline int filler__next_part(struct filler *f, int n)
{
	bpf_tail_call(f->ctx, &filler_parts, f->s->type * FILLER_PARTS + n);
	DROP(n_drops_bug, f->s->type);
	return 0;
}

/* An event without params (sysdig's table gives many enter events none): the
 * header alone still says which call it was, and times it. */
static __always_inline int filler__no_params(void *ctx, __u16 type)
{
	struct filler f;

	if (filler__begin(&f, ctx, type, 0))
		return 0;
	return filler__submit(&f);
}

/* The event's size must match the table: generated counts keep fillers honest. */
#define FILLER_BEGIN(f, ctx, ID) filler__begin(f, ctx, PPME_##ID, PPME_##ID##_NPARAMS)
#define FILLER_BEGIN_AS(f, ctx, ID, me) \
	filler__begin_as(f, ctx, PPME_##ID, PPME_##ID##_NPARAMS, me)

/* The generic exit event of a syscall without an exit filler; EO_SYNTH: its
 * enter event was left out (exit-only capture, a UF_EO_SYNTH route). */
static __always_inline int filler__generic_exit(void *ctx, __u16 ppm_sc, __u64 pid_tgid,
						int eo_synth)
{
	struct filler f;

	if (FILLER_BEGIN_AS(&f, ctx, GENERIC_X, pid_tgid))
		return 0;
	f.eo_generic = eo_synth;
	filler__u16(&f, ppm_sc);
	return filler__submit(&f);
}

/* After a tail call to the filler of event TYPE failed: whether the loader
 * left that filler out (filler_off). Its event then came for a syscall the
 * run was not to capture: counted as ours to fix, and never sent as the
 * generic event instead. Other failed tail calls (a filler this kernel could
 * not load) fall back to the generic event. */
static __always_inline int filler__off(__u32 type)
{
	if (type >= PPM_EVENT_MAX || !filler_off[type])
		return 0;
	DROP(n_drops_bug, type);
	return 1;
}

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

/* Exit-only capture, after the enter event: continues with the exit event the
 * sys_exit dispatcher left in this CPU's frame. A task that preempted this one
 * on the CPU may have taken the chain over: that exit event is counted lost. */
static __always_inline int filler__chain(void *ctx, __u64 pid_tgid)
{
	struct scratch *s;
	__u16 ev, sc;

	if (!settings.exit_only)
		return 0;
	s = scratch__get();
	if (!s || !s->chain_ev || s->chain_owner != pid_tgid) {
		DROP(n_drops_bug, PPME_GENERIC_X);
		if (s)
			park__flush(ctx, s);
		return 0;
	}
	ev = s->chain_ev - 1;
	sc = s->chain_sc;
	s->chain_ev = 0;
	if (ev + 1 == EO_NO_EXIT)
		return 0;
	if (ev != PPME_GENERIC_X) {
		bpf_tail_call(ctx, &fillers_chain, ev);
		if (filler__off(ev))
			return 0;
	}
	return filler__generic_exit(ctx, sc, pid_tgid, 0);
}

/* Declares the filler program of an enter event; its name (the event id in lower
 * case) is how the loader finds it. In exit-only mode the same program runs from
 * sys_exit and then goes on to the exit event (filler__chain). */
#define FILLER(name)                                                              \
	static __always_inline int name##__fill(struct bpf_raw_tracepoint_args *ctx); \
	SEC("raw_tp") int name(struct bpf_raw_tracepoint_args *ctx)                   \
	{                                                                             \
		name##__fill(ctx);                                                    \
		return filler__chain(ctx, bpf_get_current_pid_tgid());                \
	}                                                                             \
	static __always_inline int name##__fill(struct bpf_raw_tracepoint_args *ctx)
/* The same for exit events and their parts: typed tp_btf programs on sys_exit,
 * like their dispatcher (a tail call needs the same kind of program). The context
 * has the same layout: args[0] the pt_regs, args[1] the return value. */
#define FILLER_EXIT(name) SEC("tp_btf/sys_exit") int name(struct bpf_raw_tracepoint_args *ctx)

/* Program NAME (KIND: FILLER or FILLER_EXIT) of event ID, which has no params. */
#define FILLER_BARE(kind, name, ID) \
	kind(name) { return filler__no_params(ctx, PPME_##ID); }

#endif
