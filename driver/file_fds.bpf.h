/* Request mode's closes of fds that are no sockets (driver_config.file_closes,
 * exit-only capture): request mode sends no call that makes such an fd (open,
 * pipe, eventfd, ...), so their closes tell the agent nothing and stay in the
 * kernel, counted in n_file_closes. At close's exit the fd is gone and cannot
 * be told from a socket's; at its enter it is still there: close_enter
 * (close_enter.bpf.h) notes then whether it is a socket, and the exit
 * dispatcher reads the note here, first of all its tests, so that the verdict
 * holds whatever else filters the close. A close with no note (the program
 * attached while it ran) is sent, as every close was.
 *
 * The compact path (settings.sock_compact) keeps here the socket() calls
 * that make TCP sockets as well (FDF_SOCKET). */
#ifndef FILE_FDS_BPF_H
#define FILE_FDS_BPF_H

#include "close_enter.bpf.h"
#include "counters.bpf.h"
#include "fd.bpf.h"
#include "sock.bpf.h"

/* Native syscall number -> enum fdf_how. Filled by the loader before load
 * for driver_config.file_closes (loader.c, fdf_calls), else all FDF_NONE:
 * read-only, so the verifier knows it never changes. */
const volatile __u8 fdf_how[SYSCALL_TABLE_SIZE] __weak = { 0 };

#define FDF_EBADF 9
#define FDF_SOCK_STREAM 1
#define FDF_SOCK_TYPE_MASK 0xf
#define FDF_IPPROTO_TCP 6
#define FDF_NR_CLOSE 3	/* x86_64's close */

/* Whether socket()'s arguments in REGS make a TCP socket of a family request
 * mode wants (native and sysdig's family codes agree for these two). */
static __always_inline int fdf__tcp_socket(struct pt_regs *regs)
{
	long fam = (int)regs->di, proto = (int)regs->dx;

	return (fam == PPM_AF_INET || fam == PPM_AF_INET6) && sock__family_wanted(fam) &&
	       ((int)regs->si & FDF_SOCK_TYPE_MASK) == FDF_SOCK_STREAM &&
	       (proto == 0 || proto == FDF_IPPROTO_TCP);
}

/* What FD of the current task is open on. */
enum fdf_kind { FDF_KIND_NONE, FDF_KIND_SOCK, FDF_KIND_OTHER };

static __always_inline int fdf__kind(long fd)
{
	struct file *f;

	if (!FD_BTF_WALK()) {
		if (!fd__file(fd))
			return FDF_KIND_NONE;
		return fd__sock_family(fd) < 0 ? FDF_KIND_OTHER : FDF_KIND_SOCK;
	}
	f = fd__file_btf(fd);
	if (!f)
		return FDF_KIND_NONE;
	return (f->f_inode->i_mode & FD_S_IFMT) != FD_S_IFSOCK ? FDF_KIND_OTHER : FDF_KIND_SOCK;
}

/* Whether FD of the current task is open on something that is no socket. */
static __always_inline int fdf__not_sock(long fd)
{
	return fdf__kind(fd) == FDF_KIND_OTHER;
}

/* close_enter's part: whether the close of FD starting now is of an fd that
 * is no socket, where this run keeps those closes. */
static __always_inline __u8 fdf__close_enter(long fd)
{
	return fdf_how[FDF_NR_CLOSE] == FDF_CLOSE && fdf__not_sock(fd);
}

/* At close's exit: whether its enter found the fd no socket (the note taken,
 * so that it serves this close only). */
static __always_inline int fdf__close_kept(struct task_struct *t, long fd)
{
	struct close_began *c = bpf_task_storage_get(&close_began, t, 0, 0);

	if (!c || !c->ts || c->fd != fd || !c->not_sock)
		return 0;
	c->ts = 0;
	return 1;
}

/* At the exit of syscall ID (HOW = fdf_how[ID], not FDF_NONE) with result
 * RET. Returns 1 for a close of no socket, or a TCP socket(), kept in the
 * kernel (counted), 0 when the dispatcher goes on. REGS: typed (tp_btf). */
static __always_inline int fdf__exit(__u8 how, struct pt_regs *regs, long ret)
{
	struct task_struct *t = bpf_get_current_task_btf();

	if ((__u32)t->tgid == settings.own_tgid)
		return 0;
	switch (how) {
	case FDF_CLOSE:
		/* any other result but EBADF has closed the fd all the same */
		if (ret == -FDF_EBADF || !fdf__close_kept(t, (int)regs->di))
			return 0;
		if (settings.capture)
			COUNT(n_file_closes);
		return 1;
	case FDF_SOCKET:
		/* request mode's compact path: the agent makes the socket's fd
		 * entry from its connect, accept, bind or listen, whose events
		 * carry the family and the ends (fd__used_socket), so the call's
		 * two events would say nothing more but the CLOEXEC flag */
		if (ret < 0 || !settings.sock_compact || !fdf__tcp_socket(regs))
			return 0;
		if (settings.capture)
			COUNT(n_tcp_sockets);
		return 1;
	}
	return 0;
}

#endif
