/* Sending a finished frame into this CPU's ring (a BPF ring buffer or a perf
 * ring), with a parked enter frame where there is one, and counting the
 * outcome. */
#ifndef RING_OUT_BPF_H
#define RING_OUT_BPF_H

#include "counters.bpf.h"
#include "exit_only.bpf.h"
#include "scratch.bpf.h"

/* errno values are not in vmlinux.h. */
#define ENOSPC_BPF 28
#define EAGAIN_BPF 11

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

#endif
