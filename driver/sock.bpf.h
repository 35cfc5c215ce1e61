/* Request mode's kernel filter (settings.sock_families): the data syscalls of
 * fds that are no socket of a wanted family stay in the kernel, so a host busy
 * with file and pipe I/O pays a look at the fd, not a frame per read. With
 * nothing but metrics asked, so do those of the client ends in quiet_socks. */
#ifndef SOCK_BPF_H
#define SOCK_BPF_H

#include <bpf/bpf_endian.h>

#include "counters.bpf.h"
#include "fd.bpf.h"

/* Native syscall number -> enum sock_io_fd. Filled by the loader before load
 * (loader.c, sock_io_calls): read-only, so the verifier knows it never changes. */
const volatile __u8 sock_io[SYSCALL_TABLE_SIZE] __weak = { 0 };
/* Native syscall number -> 1 when it is one of sock_io's that send. */
const volatile __u8 sock_send[SYSCALL_TABLE_SIZE] __weak = { 0 };

/* The client ends of connections whose I/O the agent does not want
 * (driver.h, struct sock_quiet_key); filled and emptied by userspace. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SOCK_QUIET_MAX);
	__type(key, struct sock_quiet_key);
	__type(value, __u8);
} quiet_socks __weak SEC(".maps");

#define SOCK_QUIET 2		/* sock__wanted_fd: wanted family, quiet end */

/* How many keys of quiet_socks have each local port, kept by userspace
 * (driver__sock_quiet: counted up before a key goes in, down after it went
 * out): a socket whose port has none, a server's end among them, is not
 * looked up. */
__u16 quiet_lports[65536] __weak;

/* Whether SK's tuple is in quiet_socks. A v4-mapped IPv6 socket is keyed as
 * IPv4, as userspace's fd table shows it; its IPv4 fields are set then. */
static __always_inline int sock__quiet(struct sock *sk)
{
	struct sock_quiet_key k = {};
	const __u32 *d6 = sk->__sk_common.skc_v6_daddr.in6_u.u6_addr32;
	__u16 lport = sk->__sk_common.skc_num;

	if (!quiet_lports[lport])
		return 0;
	k.family = sk->__sk_common.skc_family;
	k.l4proto = (__u8)sk->sk_protocol;
	k.lport = lport;
	k.rport = bpf_ntohs(sk->__sk_common.skc_dport);
	if (k.family == PPM_AF_INET6 && !(d6[0] == 0 && d6[1] == 0 &&
					  d6[2] == bpf_htonl(0xffff))) {
		__builtin_memcpy(k.laddr, &sk->__sk_common.skc_v6_rcv_saddr, 16);
		__builtin_memcpy(k.raddr, &sk->__sk_common.skc_v6_daddr, 16);
	} else {
		k.family = PPM_AF_INET;
		*(__u32 *)k.laddr = sk->__sk_common.skc_rcv_saddr;
		*(__u32 *)k.raddr = sk->__sk_common.skc_daddr;
	}
	return bpf_map_lookup_elem(&quiet_socks, &k) != NULL;
}

static __always_inline int sock__family_wanted(int fam)
{
	return fam >= 0 && fam < 32 && ((settings.sock_families >> fam) & 1);
}

/* Whether fd FD (a syscall's int argument) is a socket of a wanted family:
 * 1, or SOCK_QUIET for one whose client end is quiet, or 0. BTF: the caller
 * is a typed (tp_btf) program, which reads it by plain loads; quiet ends are
 * looked up there only, and only in exit-only capture, where the enter and
 * exit events of a syscall are judged once, together. */
static __always_inline int sock__wanted_fd(unsigned long fd, int btf)
{
	long n = (long)(int)fd;
	struct sock *sk;

	if (!btf || !FD_BTF_WALK())
		return sock__family_wanted(fd__sock_family(n));
	sk = fd__sock_btf(n);
	if (!sk || !sock__family_wanted(sk->__sk_common.skc_family))
		return 0;
	if (settings.sock_quiet && settings.exit_only && sock__quiet(sk))
		return SOCK_QUIET;
	return 1;
}

/* sock__skip for a socket already found and of a wanted family (the socket
 * tracepoints' programs): whether it is a quiet client end (counted). */
static __always_inline int sock__skip_sk(struct sock *sk)
{
	if (!settings.sock_quiet || !settings.exit_only || !sock__quiet(sk))
		return 0;
	COUNT(n_quiet);
	return 1;
}

/* Argument register REG (di or dx) of pt_regs R, by a plain load in a typed
 * program, else by a helper. */
#define SOCK_ARG(r, reg, btf) ((btf) ? (r)->reg : BPF_CORE_READ(r, reg))

#define MSG_PEEK_BPF 2

/* Whether a recvfrom or recvmsg (HOW) only peeks: its bytes come again with
 * the read that takes them, and pairing both would count them twice. */
static __always_inline int sock__peek(__u8 how, struct pt_regs *r, int btf)
{
	unsigned long flags;

	if (how == SOCK_IO_ARG0_PEEK3)
		flags = SOCK_ARG(r, r10, btf);
	else if (how == SOCK_IO_ARG0_PEEK2)
		flags = SOCK_ARG(r, dx, btf);
	else
		return 0;
	return (flags & MSG_PEEK_BPF) != 0;
}

/* Whether syscall ID's event stays in the kernel: it moves data on an fd that
 * is no wanted socket, or on a quiet client end (counted, n_quiet), or only
 * peeks at a wanted socket (counted, n_peeks; at enter and exit alike, so
 * each sys_enter/sys_exit pair counts it twice). REGS: the
 * caller's saved user registers (pt_regs), read at enter or exit alike, as the
 * arguments are still there at exit on x86_64; BTF: REGS is a typed pointer
 * (tp_btf), see sock__wanted_fd. Not a drop: like the other filters. */
static __always_inline int sock__skip(long id, __u64 regs, int btf)
{
	struct pt_regs *r = (struct pt_regs *)regs;
	int w, w2 = 0;
	__u8 how;

	if (!settings.sock_families || (unsigned long)id >= SYSCALL_TABLE_SIZE)
		return 0;
	how = sock_io[id];
	if (how == SOCK_IO_NONE || !regs)
		return 0;
	w = sock__wanted_fd(SOCK_ARG(r, di, btf), btf);
	if (w == 1) {
		if (!sock__peek(how, r, btf))
			return 0;
		COUNT(n_peeks);
		return 1;
	}
	if (how == SOCK_IO_ARG0_OR_2) {
		w2 = sock__wanted_fd(SOCK_ARG(r, dx, btf), btf);
		if (w2 == 1)
			return 0;
	}
	if (w == SOCK_QUIET || w2 == SOCK_QUIET)
		COUNT(n_quiet);
	return 1;
}

#endif
