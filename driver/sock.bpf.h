/* Request mode's kernel filter (settings.sock_families): the data syscalls of
 * fds that are no socket of a wanted family stay in the kernel, so a host busy
 * with file and pipe I/O pays a look at the fd, not a frame per read. */
#ifndef SOCK_BPF_H
#define SOCK_BPF_H

#include "fd.bpf.h"

/* Native syscall number -> enum sock_io_fd. Filled by the loader before load
 * (loader.c, sock_io_calls): read-only, so the verifier knows it never changes. */
const volatile __u8 sock_io[SYSCALL_TABLE_SIZE] __weak = { 0 };

/* Whether fd FD (a syscall's int argument) is a socket of a wanted family.
 * BTF: the caller is a typed (tp_btf) program, which reads it by plain loads. */
static __always_inline int sock__wanted_fd(unsigned long fd, int btf)
{
	long n = (long)(int)fd;
	int fam = btf ? fd__sock_family_btf(n) : fd__sock_family(n);

	return fam >= 0 && fam < 32 && ((settings.sock_families >> fam) & 1);
}

/* Argument register REG (di or dx) of pt_regs R, by a plain load in a typed
 * program, else by a helper. */
#define SOCK_ARG(r, reg, btf) ((btf) ? (r)->reg : BPF_CORE_READ(r, reg))

/* Whether syscall ID's event stays in the kernel: it moves data on an fd that
 * is no wanted socket. REGS: the caller's saved user registers (pt_regs), read
 * at enter or exit alike, as the arguments are still there at exit on x86_64;
 * BTF: REGS is a typed pointer (tp_btf), see sock__wanted_fd.
 * Not a drop: like the other filters, nothing is counted. */
static __always_inline int sock__skip(long id, __u64 regs, int btf)
{
	struct pt_regs *r = (struct pt_regs *)regs;
	__u8 how;

	if (!settings.sock_families || (unsigned long)id >= SYSCALL_TABLE_SIZE)
		return 0;
	how = sock_io[id];
	if (how == SOCK_IO_NONE || !regs)
		return 0;
	if (sock__wanted_fd(SOCK_ARG(r, di, btf), btf))
		return 0;
	return how != SOCK_IO_ARG0_OR_2 || !sock__wanted_fd(SOCK_ARG(r, dx, btf), btf);
}

#endif
