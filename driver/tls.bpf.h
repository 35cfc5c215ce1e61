/* Request mode's TLS probes, the dispatcher's half: a socket syscall made
 * inside a TLS library call (tls.bpf.c) carries that call's ciphertext. Its
 * socket is what the call's plaintext event names, and the syscall itself
 * stays in the kernel: the plaintext goes instead. */
#ifndef TLS_BPF_H
#define TLS_BPF_H

#include "counters.bpf.h"

/* 1 when thread PID_TGID is inside a TLS call: FD is then its socket (for
 * the call and, in tls_fds, for its session) and the syscall is not sent,
 * counted in n_tls_cipher. Only socket I/O syscalls that passed every
 * filter come here, so a call's fd is one the run wants. */
static __always_inline int tls__nested(__u64 pid_tgid, __s32 fd)
{
	struct tls_sess_key k = { 0 };
	struct tls_call *c;
	__s32 *known;

	c = bpf_map_lookup_elem(&tls_calls, &pid_tgid);
	if (!c)
		return 0;
	c->fd = fd;
	k.sess = c->sess;
	k.tgid = pid_tgid >> 32;
	known = bpf_map_lookup_elem(&tls_fds, &k);
	if (!known || *known != fd)
		bpf_map_update_elem(&tls_fds, &k, &fd, BPF_ANY);
	COUNT(n_tls_cipher);
	return 1;
}

#endif
