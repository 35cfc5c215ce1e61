/* Request mode's TLS probes: the plaintext a TLS call moved, sent as a
 * TLS_READ or TLS_WRITE pair (tls.bpf.c for the libraries, tls_go.bpf.c for
 * Go's crypto/tls). */
#ifndef TLS_SEND_BPF_H
#define TLS_SEND_BPF_H

#include "frame.bpf.h"
#include "prof.bpf.h"
#include "h2.bpf.h"
#include "kfilter.bpf.h"

/* The syscall whose kernel-filter verdict a TLS call of that direction
 * takes: its plaintext stands for the socket read or write it replaces. */
#define TLS_KF_READ 0	/* x86_64 read */
#define TLS_KF_WRITE 1	/* x86_64 write */

/* The pid_tgid of the thread making a TLS call, when the call is followed:
 * capture on, not the agent's, and the filters send KF_ID for the thread;
 * else 0. One left out gets no note, so neither a plaintext event nor a
 * count of one on no socket. */
static __always_inline __u64 tls__caller(long kf_id)
{
	__u64 me;

	if (!settings.capture || !settings.tls)
		return 0;
	me = bpf_get_current_pid_tgid();
	return (me >> 32) != settings.own_tgid && interesting[kf_id] &&
	       kf__wants(kf_id, me, 1, 0, 0) ? me : 0;
}

/* The pair of ETYPE (the enter event's code) for call C, which moved MOVED
 * bytes on C->fd: the enter frame (fd, size) parked, the exit frame (res,
 * data) built in the scratch frame, both stamped now and sent together. */
static __always_inline int tls__send(struct pt_regs *ctx, __u16 etype, const struct tls_call *c,
				     __u64 moved, __u64 me)
{
	struct scratch *s = scratch__get();
	struct filler f = { 0 };

	if (!s) {
		DROP(n_drops_bug, etype);
		return 0;
	}
	/* an enter frame left by a chain that failed goes alone first */
	park__flush(ctx, s);
	/* profiling: the thread's slices so far go before its events, and
	 * its TLS I/O makes it followed as its socket I/O would */
	if (settings.profile)
		prof__at_event(ctx, me, 1);
	stamp__set(s, me);
	park__fd_size(s, etype, c->fd, c->size, me);

	f.s = s;
	f.ctx = ctx;
	f.regs = ctx;
	f.ret = (long)moved;
	f.me = me;
	f.type = etype + 1;
	s->owner = me;
	s->type = etype + 1;
	s->nparams = 2;
	s->curarg = 0;
	s->overflow = 0;
	s->off = PPM_HDR_LEN + 2 * 2;
	filler__s64(&f, (__s64)moved);
	h2__buf_user(&f, c->fd, (const void *)c->buf, moved);
	return filler__submit(&f);
}

#endif
