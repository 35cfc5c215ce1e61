/* Helpers shared by the waiting, sleeping and semaphore fillers: native flag
 * values to sysdig's PPM_* ones, poll fd lists, timespecs from user memory. */
#ifndef WAIT_BPF_H
#define WAIT_BPF_H

#include "../../frame.bpf.h"
#include "schema_flags.h"

/* x86_64 native values (include/uapi/asm-generic/poll.h, linux/futex.h,
 * linux/ipc.h, linux/sem.h): vmlinux.h has no macros. */
#define NAT_POLLIN     0x0001
#define NAT_POLLPRI    0x0002
#define NAT_POLLOUT    0x0004
#define NAT_POLLERR    0x0008
#define NAT_POLLHUP    0x0010
#define NAT_POLLNVAL   0x0020
#define NAT_POLLRDNORM 0x0040
#define NAT_POLLRDBAND 0x0080
#define NAT_POLLWRNORM 0x0100
#define NAT_POLLWRBAND 0x0200
#define NAT_POLLRDHUP  0x2000

#define NAT_FUTEX_CMD_MASK	 127
#define NAT_FUTEX_PRIVATE_FLAG	 128
#define NAT_FUTEX_CLOCK_REALTIME 256
/* The last command sysdig knew (FUTEX_CMP_REQUEUE_PI); commands keep their
 * native numbers in its table. */
#define NAT_FUTEX_CMD_LAST	 12

#define NAT_IPC_CREAT  00001000
#define NAT_IPC_EXCL   00002000
#define NAT_IPC_NOWAIT 00004000
#define NAT_SEM_UNDO   0x1000

#define NAT_IPC_RMID 0
#define NAT_IPC_SET  1
#define NAT_IPC_STAT 2
#define NAT_IPC_INFO 3
#define NAT_GETPID   11
#define NAT_GETVAL   12
#define NAT_GETALL   13
#define NAT_GETNCNT  14
#define NAT_GETZCNT  15
#define NAT_SETVAL   16
#define NAT_SETALL   17
#define NAT_SEM_STAT 18
#define NAT_SEM_INFO 19

/* sysdig's cap on the fds a poll event lists. */
#define WAIT_POLL_MAX 16

static __always_inline __u16 wait__poll_flags(__u16 ev)
{
	__u16 r = 0;

	if (ev & NAT_POLLIN)
		r |= PPM_POLL_FLAGS_POLLIN;
	if (ev & NAT_POLLPRI)
		r |= PPM_POLL_FLAGS_POLLPRI;
	if (ev & NAT_POLLOUT)
		r |= PPM_POLL_FLAGS_POLLOUT;
	if (ev & NAT_POLLRDHUP)
		r |= PPM_POLL_FLAGS_POLLRDHUP;
	if (ev & NAT_POLLERR)
		r |= PPM_POLL_FLAGS_POLLERR;
	if (ev & NAT_POLLHUP)
		r |= PPM_POLL_FLAGS_POLLHUP;
	if (ev & NAT_POLLNVAL)
		r |= PPM_POLL_FLAGS_POLLNVAL;
	if (ev & NAT_POLLRDNORM)
		r |= PPM_POLL_FLAGS_POLLRDNORM;
	if (ev & NAT_POLLRDBAND)
		r |= PPM_POLL_FLAGS_POLLRDBAND;
	if (ev & NAT_POLLWRNORM)
		r |= PPM_POLL_FLAGS_POLLWRNORM;
	if (ev & NAT_POLLWRBAND)
		r |= PPM_POLL_FLAGS_POLLWRBAND;
	return r;
}

/* The command keeps its number (0 for one sysdig did not know), the two
 * option bits theirs. */
static __always_inline __u16 wait__futex_op(unsigned long op)
{
	__u16 cmd = op & NAT_FUTEX_CMD_MASK;
	__u16 r = cmd <= NAT_FUTEX_CMD_LAST ? cmd : 0;

	if (op & NAT_FUTEX_PRIVATE_FLAG)
		r |= PPM_FUTEX_OPERATIONS_FUTEX_PRIVATE_FLAG;
	if (op & NAT_FUTEX_CLOCK_REALTIME)
		r |= PPM_FUTEX_OPERATIONS_FUTEX_CLOCK_REALTIME;
	return r;
}

static __always_inline __u16 wait__semop_flags(__u16 fl)
{
	__u16 r = 0;

	if (fl & NAT_IPC_NOWAIT)
		r |= PPM_SEMOP_FLAGS_IPC_NOWAIT;
	if (fl & NAT_SEM_UNDO)
		r |= PPM_SEMOP_FLAGS_SEM_UNDO;
	return r;
}

static __always_inline __u32 wait__semget_flags(unsigned long fl)
{
	__u32 r = 0;

	if (fl & NAT_IPC_CREAT)
		r |= PPM_SEMGET_FLAGS_IPC_CREAT;
	if (fl & NAT_IPC_EXCL)
		r |= PPM_SEMGET_FLAGS_IPC_EXCL;
	return r;
}

/* One value per command (not bits), 0 for an unknown one. */
static __always_inline __u16 wait__semctl_cmd(int cmd)
{
	switch (cmd) {
	case NAT_IPC_STAT: return PPM_SEMCTL_COMMANDS_IPC_STAT;
	case NAT_IPC_SET: return PPM_SEMCTL_COMMANDS_IPC_SET;
	case NAT_IPC_RMID: return PPM_SEMCTL_COMMANDS_IPC_RMID;
	case NAT_IPC_INFO: return PPM_SEMCTL_COMMANDS_IPC_INFO;
	case NAT_SEM_INFO: return PPM_SEMCTL_COMMANDS_SEM_INFO;
	case NAT_SEM_STAT: return PPM_SEMCTL_COMMANDS_SEM_STAT;
	case NAT_GETALL: return PPM_SEMCTL_COMMANDS_GETALL;
	case NAT_GETNCNT: return PPM_SEMCTL_COMMANDS_GETNCNT;
	case NAT_GETPID: return PPM_SEMCTL_COMMANDS_GETPID;
	case NAT_GETVAL: return PPM_SEMCTL_COMMANDS_GETVAL;
	case NAT_GETZCNT: return PPM_SEMCTL_COMMANDS_GETZCNT;
	case NAT_SETALL: return PPM_SEMCTL_COMMANDS_SETALL;
	case NAT_SETVAL: return PPM_SEMCTL_COMMANDS_SETVAL;
	}
	return 0;
}

/* An FDLIST param from the first WAIT_POLL_MAX of the NFDS pollfds at UFDS:
 * a u16 count, then per fd an s64 fd and u16 PPM poll flags, of the requested
 * events (enter) or of the returned ones (exit, REVENTS set). An array that
 * cannot be read gives an empty list (count 0), not an empty param: sysdig's
 * reader takes a count from an FDLIST param whatever its length. */
static __always_inline void filler__pollfds(struct filler *f, const struct pollfd *ufds,
					    __u32 nfds, int revents)
{
	struct pollfd fds[WAIT_POLL_MAX];
	struct scratch *s = f->s;
	__u32 n = nfds > WAIT_POLL_MAX ? WAIT_POLL_MAX : nfds;
	__u32 pos = sizeof(__u16);

	if (n && bpf_probe_read_user(fds, n * sizeof(fds[0]), ufds)) {
		COUNT(n_drops_pf);
		n = 0;
	}
	for (int i = 0; i < WAIT_POLL_MAX && i < n; i++) {
		__s64 fd = fds[i].fd;
		__u16 fl = wait__poll_flags(revents ? fds[i].revents : fds[i].events);
		__u32 at = s->off + pos;

		__builtin_memcpy(&s->data[at & FRAME_MASK], &fd, sizeof(fd));
		__builtin_memcpy(&s->data[(at + sizeof(fd)) & FRAME_MASK], &fl, sizeof(fl));
		pos += sizeof(fd) + sizeof(fl);
	}
	*(__u16 *)&s->data[s->off & FRAME_MASK] = (__u16)n;
	filler__commit(f, pos);
}

/* A RELTIME param (ns) from the timespec at UTS; empty when it cannot be read. */
static __always_inline void filler__timespec_user(struct filler *f, const void *uts)
{
	struct __kernel_timespec ts;

	if (bpf_probe_read_user(&ts, sizeof(ts), uts)) {
		COUNT(n_drops_pf);
		filler__empty(f);
		return;
	}
	filler__u64(f, (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec);
}

/* The one-param exit events: res, the call's return value. */
static __always_inline int wait__submit_res(void *ctx, __u16 type, __u32 nparams)
{
	struct filler f;

	if (filler__begin(&f, ctx, type, nparams))
		return 0;
	filler__s64(&f, f.ret);
	return filler__submit(&f);
}

#define WAIT_RES_ONLY(ctx, ID) wait__submit_res(ctx, PPME_##ID, PPME_##ID##_NPARAMS)

#endif
