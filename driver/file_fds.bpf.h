/* Request mode's file closes (driver.h, struct file_fds): the fds a process
 * got from the calls request mode keeps in the kernel (open and the like,
 * never a socket) are marked per fd table, and their closes stay in the
 * kernel too. Only exit-only capture's dispatcher looks here, first of all
 * its tests, so that a mark follows every close whatever else filters it.
 *
 * A mark is trusted only while the fd is open with what made it. The calls
 * that end an fd some other way unmark it: close_range, dup2 and dup3 onto it,
 * exec (every mark of the table). Those that put a socket in place unmark the
 * fd they return, a second guard. A table the entry's process did not make
 * (freed and its address reused, or shared with another process) has its
 * marks dropped. A mark lost, or one never made (an fd from before the run,
 * or past FILE_FDS_MAX), only sends a close: never the other way round.
 *
 * The compact path (settings.sock_compact) keeps here the socket() calls
 * that make TCP sockets as well (FDF_SOCKET). */
#ifndef FILE_FDS_BPF_H
#define FILE_FDS_BPF_H

#include "counters.bpf.h"
#include "fd.bpf.h"
#include "sock.bpf.h"

/* Native syscall number -> enum fdf_how. Filled by the loader before load
 * for driver_config.file_closes (loader.c, fdf_calls), else all FDF_NONE:
 * read-only, so the verifier knows it never changes. */
const volatile __u8 fdf_how[SYSCALL_TABLE_SIZE] __weak = { 0 };

/* The fd table's address (struct files_struct) -> its marks. An LRU: an
 * entry evicted loses marks only. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FILE_FDS_TABLES);
	__type(key, __u64);
	__type(value, struct file_fds);
} file_fds __weak SEC(".maps");

/* A new entry's value, all clear: too big for the stack. */
const struct file_fds fdf_zero __weak = { 0 };

#define FDF_WORDS (FILE_FDS_MAX / 64)
#define FDF_F_DUPFD 0
#define FDF_F_DUPFD_CLOEXEC 1030
#define FDF_EBADF 9
#define FDF_SOCK_STREAM 1
#define FDF_SOCK_TYPE_MASK 0xf
#define FDF_IPPROTO_TCP 6

/* Whether socket()'s arguments in REGS make a TCP socket of a family request
 * mode wants (native and sysdig's family codes agree for these two). */
static __always_inline int fdf__tcp_socket(struct pt_regs *regs)
{
	long fam = (int)regs->di, proto = (int)regs->dx;

	return (fam == PPM_AF_INET || fam == PPM_AF_INET6) && sock__family_wanted(fam) &&
	       ((int)regs->si & FDF_SOCK_TYPE_MASK) == FDF_SOCK_STREAM &&
	       (proto == 0 || proto == FDF_IPPROTO_TCP);
}

/* The current fd table's entry, or NULL. */
static __always_inline struct file_fds *fdf__table(struct task_struct *t)
{
	__u64 key = (__u64)t->files;

	return bpf_map_lookup_elem(&file_fds, &key);
}

static __always_inline int fdf__owner(const struct file_fds *v, struct task_struct *t)
{
	return v->tgid == (__u32)t->tgid && v->start == t->group_leader->start_time;
}

/* Whether FD of the current task is open on something that is no socket. */
static __always_inline int fdf__not_sock(long fd)
{
	struct file *f;

	if (!FD_BTF_WALK())
		return fd__file(fd) && fd__sock_family(fd) < 0;
	f = fd__file_btf(fd);
	return f && (f->f_inode->i_mode & FD_S_IFMT) != FD_S_IFSOCK;
}

/* Marks FD, just returned by a call that makes no socket. It is looked at
 * again first: another thread may have closed the number since, and a socket
 * taken it. */
static __always_inline void fdf__mark(struct task_struct *t, long fd)
{
	__u64 key = (__u64)t->files;
	struct file_fds *v;

	if (fd < 0 || fd >= FILE_FDS_MAX || !fdf__not_sock(fd))
		return;
	v = fdf__table(t);
	if (!v || !fdf__owner(v, t)) {
		if (bpf_map_update_elem(&file_fds, &key, &fdf_zero, BPF_ANY))
			return;
		v = fdf__table(t);
		if (!v)
			return;
		v->tgid = t->tgid;
		v->start = t->group_leader->start_time;
	}
	__sync_fetch_and_or(&v->w[(fd >> 6) & (FDF_WORDS - 1)], 1ULL << (fd & 63));
}

/* Unmarks FD; with FETCH returns whether it was marked by the table's own
 * process (a close: then it is kept). */
static __always_inline int fdf__unmark(struct task_struct *t, long fd, int fetch)
{
	__u64 bit = 1ULL << (fd & 63);
	struct file_fds *v;

	if (fd < 0 || fd >= FILE_FDS_MAX)
		return 0;
	v = fdf__table(t);
	if (!v)
		return 0;
	if (!fetch) {
		__sync_fetch_and_and(&v->w[(fd >> 6) & (FDF_WORDS - 1)], ~bit);
		return 0;
	}
	/* the fetch (BPF_FETCH) only where its result is wanted */
	return (__sync_fetch_and_and(&v->w[(fd >> 6) & (FDF_WORDS - 1)], ~bit) & bit) &&
	       fdf__owner(v, t);
}

/* close_range(FIRST, LAST, ...) succeeded: its fds unmarked (with
 * CLOSE_RANGE_CLOEXEC they stay open: unmarked all the same, which only
 * sends their closes). */
static __always_inline void fdf__unmark_range(struct task_struct *t, __u32 first, __u32 last)
{
	struct file_fds *v;

	if (first >= FILE_FDS_MAX || last < first)
		return;
	v = fdf__table(t);
	if (!v)
		return;
	for (__u32 i = 0; i < FDF_WORDS; i++) {
		__u32 lo = i * 64, a, b, z = 0;
		__u64 m = ~0ULL;

		/* A and B are FIRST and LAST made anew in each word, opaque to
		 * the compiler: the tests below narrow their ranges, not
		 * FIRST's and LAST's. Else each word's tests left the verifier
		 * states it could not tell apart, and it walked the 32 words'
		 * paths one by one (180 000 instructions, more than half of the
		 * dispatcher's verifying). */
		barrier_var(z);
		a = first | z;
		b = last | z;
		if (lo + 63 < a || lo > b)
			continue;
		if (a > lo)
			m &= ~0ULL << (a - lo);
		if (b < lo + 63)
			m &= ~0ULL >> (63 - (b - lo));
		__sync_fetch_and_and(&v->w[i], ~m);
	}
}

/* At the exit of syscall ID (HOW = fdf_how[ID], not FDF_NONE) with result
 * RET: the marks kept up to date. Returns 1 for a close, or a TCP socket(),
 * kept in the kernel (counted), 0 when the dispatcher goes on. REGS: typed
 * (tp_btf). */
static __always_inline int fdf__exit(__u8 how, struct pt_regs *regs, long ret)
{
	struct task_struct *t = bpf_get_current_task_btf();

	if ((__u32)t->tgid == settings.own_tgid)
		return 0;
	switch (how) {
	case FDF_MAKE:
		fdf__mark(t, ret);
		return 0;
	case FDF_MAKE2: {
		int fds[2];

		if (ret == 0 && !bpf_probe_read_user(fds, sizeof(fds), (void *)regs->di)) {
			fdf__mark(t, fds[0]);
			fdf__mark(t, fds[1]);
		}
		return 0;
	}
	case FDF_CLOSE:
		/* any other result but EBADF has closed the fd all the same */
		if (ret == -FDF_EBADF || !fdf__unmark(t, (int)regs->di, 1))
			return 0;
		if (settings.capture)
			COUNT(n_file_closes);
		return 1;
	case FDF_DUPFD:
		if ((int)regs->si != FDF_F_DUPFD && (int)regs->si != FDF_F_DUPFD_CLOEXEC)
			return 0;
		/* fall through */
	case FDF_PUT:
		fdf__unmark(t, ret, 0);
		return 0;
	case FDF_SOCKET:
		fdf__unmark(t, ret, 0);
		/* request mode's compact path: the agent makes the socket's fd
		 * entry from its connect, accept, bind or listen, whose events
		 * carry the family and the ends (fd__used_socket), so the call's
		 * two events would say nothing more but the CLOEXEC flag */
		if (ret < 0 || !settings.sock_compact || !fdf__tcp_socket(regs))
			return 0;
		if (settings.capture)
			COUNT(n_tcp_sockets);
		return 1;
	case FDF_RANGE:
		if (ret == 0)
			fdf__unmark_range(t, (__u32)regs->di, (__u32)regs->si);
		return 0;
	case FDF_EXEC:
		if (ret == 0) {
			__u64 key = (__u64)t->files;

			bpf_map_delete_elem(&file_fds, &key);
		}
		return 0;
	}
	return 0;
}

#endif
