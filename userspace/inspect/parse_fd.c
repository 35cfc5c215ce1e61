/* Exit events that create, change or destroy fds. Param indexes are those of
 * proto/events.def; fds the exit does not carry come from the paired enter. */
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <string.h>

#include "inspect_int.h"

#define LINUX_SOCK_TYPE_MASK 0xf
#define LINUX_SOCK_STREAM 1
#define LINUX_SOCK_DGRAM 2
#define LINUX_SOCK_CLOEXEC 02000000
#define PPM_AF_NETLINK 16

static void fd__socket(struct ievt *ev, int64_t fd, const struct evt_params *e)
{
	int64_t domain = evp__int(e, 0, -1), type = evp__int(e, 1, 0), proto = evp__int(e, 2, 0);
	enum fd_type t;
	struct fd_info *fi;

	switch (domain) {
	case PPM_AF_INET: t = FDT_IPV4_SOCK; break;
	case PPM_AF_INET6: t = FDT_IPV6_SOCK; break;
	case PPM_AF_UNIX: t = FDT_UNIX_SOCK; break;
	case PPM_AF_NETLINK: t = FDT_NETLINK; break;
	default: t = FDT_OTHER_SOCK; break;
	}
	fi = parse__new_fd(ev, fd, t);
	if (!fi)
		return;
	if (domain >= 0)
		fi->family = (uint8_t)domain;
	if (type & LINUX_SOCK_CLOEXEC)
		fi->open_flags |= PPM_FILE_FLAGS_O_CLOEXEC;
	if (t != FDT_IPV4_SOCK && t != FDT_IPV6_SOCK)
		return;
	fi->no_role = true;
	if (proto > 0 && proto < 256)
		fi->l4proto = (uint8_t)proto;
	else if ((type & LINUX_SOCK_TYPE_MASK) == LINUX_SOCK_STREAM)
		fi->l4proto = IPPROTO_TCP;
	else if ((type & LINUX_SOCK_TYPE_MASK) == LINUX_SOCK_DGRAM)
		fi->l4proto = IPPROTO_UDP;
}

/* Whether an entry of type T can be a socket's. */
static bool fd_type__socket(enum fd_type t)
{
	return t == FDT_IPV4_SOCK || t == FDT_IPV6_SOCK || t == FDT_UNIX_SOCK ||
	       t == FDT_NETLINK || t == FDT_OTHER_SOCK || t == FDT_UNKNOWN;
}

/* The socket an exit uses (from its enter), created when we missed it. */
static struct fd_info *fd__used_socket(struct ievt *ev, const struct evt_params *e)
{
	int64_t fd = evp__int(e, 0, -1);
	struct fd_info *fi;

	if (fd < 0 || !ev->thread->fds)
		return NULL;
	fi = fd_table__find(ev->thread->fds, fd);
	/* no entry, or one another thread is closing: then the socket is a new
	 * one on the number that close freed (its socket() kept in the kernel);
	 * so it is where the entry is no socket's: a file's from the /proc scan
	 * whose close request mode kept in the kernel */
	if (!fi || (fi->closer && fi->closer != ev->tid) || !fd_type__socket(fi->type))
		fi = parse__new_fd(ev, fd, FDT_OTHER_SOCK);
	ev->fdnum = fd;
	ev->fd = fi;
	return fi;
}

/* connect's enter: the peer it asks for is the socket's from now on (sysdig's
 * rule: the enter shows the socket as the connect finds it, the exit names it). */
void parse__connect_enter(struct ievt *ev, const struct evt_params *x)
{
	int64_t fd = evp__int(x, 0, -1);
	struct fd_info *fi;

	if (fd < 0 || !ev->thread || !ev->thread->fds || !evp__has(x, 1) ||
	    !(fi = fd_table__find(ev->thread->fds, fd)))
		return;
	sock__connect_enter(fi, x->p->val[1], x->p->len[1]);
}

/* Whether FI is a TCP connection's entry that a connect naming another
 * tuple (V, LEN) cannot be on: a socket connected or accepted cannot connect
 * again, so the entry is a closed connection's whose close is read later
 * (another thread's, its record written after this call's: haproxy's
 * threads close and connect server connections), and the number a new
 * socket's, its socket() kept in the kernel (request mode). A connect that
 * only completes one in progress names the same tuple. */
static bool fd__stale_tcp(const struct fd_info *fi, const uint8_t *v, uint16_t len)
{
	struct fd_info t = { 0 };

	if (fi->l4proto != IPPROTO_TCP || (!fi->dport && !fi->is_server) ||
	    sock__decode_tuple(&t, v, len) < 0)
		return false;
	return t.sport != fi->sport || t.dport != fi->dport || memcmp(t.sip, fi->sip, 16) ||
	       memcmp(t.dip, fi->dip, 16);
}

static void fd__connect(struct inspector *in, struct ievt *ev, const struct evt_params *x,
			const struct evt_params *e)
{
	int64_t res = evp__int(x, 0, -1);
	struct fd_info *fi;

	if (!evp__has(x, 1) || !(fi = fd__used_socket(ev, e)))
		return;
	/* A connect that failed (not just in progress) leaves the fd as it was,
	 * but its event shows the tuple for the fd's name, as sysdig does. */
	if (res < 0 && res != -EINPROGRESS) {
		in->scratch_used = true;
		if (fd_info__copy(&in->scratch_fd, fi) < 0)
			return;
		in->scratch_fd.fd = fi->fd;
		ev->fd = &in->scratch_fd;
		sock__name_from_tuple(&in->scratch_fd, x->p->val[1], x->p->len[1]);
		return;
	}
	if (fd__stale_tcp(fi, x->p->val[1], x->p->len[1]))
		fi = parse__new_fd(ev, fi->fd, FDT_OTHER_SOCK);
	if (!fi)
		return;
	sock__connect_exit(fi, x->p->val[1], x->p->len[1]);
	if (!fi->l4proto && (fi->type == FDT_IPV4_SOCK || fi->type == FDT_IPV6_SOCK))
		fi->l4proto = IPPROTO_TCP;
}

static void fd__accept(struct ievt *ev, const struct evt_params *x, const struct evt_params *e)
{
	int64_t fd = evp__int(x, 0, -1);
	struct fd_info *fi;

	if (fd < 0 || !(fi = parse__new_fd(ev, fd, FDT_OTHER_SOCK)))
		return;
	if (evp__has(x, 1))
		sock__from_tuple(fi, x->p->val[1], x->p->len[1]);
	fi->is_server = true;
	if (fi->type == FDT_IPV4_SOCK || fi->type == FDT_IPV6_SOCK)
		fi->l4proto = IPPROTO_TCP;
	if (ev->type == PPME_SOCKET_ACCEPT4_5_X && (evp__int(e, 0, 0) & LINUX_SOCK_CLOEXEC))
		fi->open_flags |= PPM_FILE_FLAGS_O_CLOEXEC;
}

static void fd__bind(struct ievt *ev, const struct evt_params *x, const struct evt_params *e)
{
	struct fd_info *fi;

	if (evp__int(x, 0, -1) != 0 || !evp__has(x, 1) || !(fi = fd__used_socket(ev, e)))
		return;
	sock__from_addr(fi, x->p->val[1], x->p->len[1]);
}

/* dup/dup2/dup3/F_DUPFD: the new fd is the old one again, O_CLOEXEC cleared (or
 * set by F_DUPFD_CLOEXEC). */
static void fd__dup(struct ievt *ev, int64_t newfd, int64_t oldfd, bool cloexec)
{
	struct fd_info *src, *fi;

	if (newfd < 0 || oldfd < 0 || newfd == oldfd || !ev->thread->fds)
		return;
	src = fd_table__find(ev->thread->fds, oldfd);
	fi = parse__new_fd(ev, newfd, FDT_UNKNOWN);
	if (!fi || !src)
		return;
	fd_info__copy(fi, src);
	fi->open_flags &= ~PPM_FILE_FLAGS_O_CLOEXEC;
	if (cloexec)
		fi->open_flags |= PPM_FILE_FLAGS_O_CLOEXEC;
}

static uint64_t enter__ts(const struct ievt *ev)
{
	struct ppm_evt_hdr h;

	/* (a copy: the thread keeps the enter frame at any alignment) */
	memcpy(&h, ev->enter, sizeof(h));
	return h.ts;
}

static void fd__close(struct inspector *in, struct ievt *ev, const struct evt_params *x,
		      const struct evt_params *e)
{
	int64_t fd = evp__int(e, 0, -1);
	struct fd_info *fi;

	if (fd < 0 || !ev->thread->fds)
		return;
	/* The number is free from the start of the close: another thread may
	 * have got it before this exit. Its entry set this one aside... */
	fi = fd_table__take_aside(ev->thread->fds, fd, ev->tid);
	if (fi) {
		in->c.n_close_reused++;
		ev->fdnum = fd;
		ev->fd = fi;
		ev->fd_reused = true;
		inspector__defer_fd(in, fi);
		return;
	}
	fi = fd_table__find(ev->thread->fds, fd);
	if (fi && fi->closer == ev->tid)
		fi->closer = 0;
	/* a failed close leaves the fd open */
	if (!fi || evp__int(x, 0, -1) < 0)
		return;
	/* ...or, made after this close began (the kernel frees the number
	 * only then), it is not the file closed, which was not seen aside
	 * (an enter late or lost): kept, and this close names none */
	if (ev->enter && fi->born > enter__ts(ev)) {
		in->c.n_close_reused++;
		ev->fdnum = fd;
		ev->fd_reused = true;
		return;
	}
	fd_table__detach(ev->thread->fds, fd);
	ev->fdnum = fd;
	ev->fd = fi;
	inspector__defer_fd(in, fi);
}

/* A close begins: the entry it will close is marked, for a call of another
 * thread that gets the number before the close returns. */
void parse__close_enter(struct ievt *ev, const struct evt_params *x)
{
	struct fd_info *fi;

	if (!ev->thread || !ev->thread->fds)
		return;
	fi = fd_table__find(ev->thread->fds, evp__int(x, 0, -1));
	if (fi)
		fi->closer = ev->tid;
}

static void fd__pair(struct ievt *ev, const struct evt_params *x, enum fd_type type,
		     uint8_t family)
{
	struct fd_info *a, *b;

	if (evp__int(x, 0, -1) < 0)
		return;
	/* the event shows the second one, as sysdig does */
	a = parse__new_fd(ev, evp__int(x, 1, -1), type);
	b = parse__new_fd(ev, evp__int(x, 2, -1), type);
	if (a)
		a->family = family;
	if (b)
		b->family = family;
	if (type == FDT_PIPE && evp__has(x, 3)) {
		if (a)
			a->ino = (uint64_t)evp__int(x, 3, 0);
		if (b)
			b->ino = (uint64_t)evp__int(x, 3, 0);
	}
}

/* eventfd, signalfd, timerfd, inotify: no name (as in sysdig), the access mode
 * the kernel gives them (their flags params are not filled, as in sysdig). */
static void fd__anon(struct ievt *ev, int64_t fd, enum fd_type type, uint32_t mode)
{
	struct fd_info *fi = parse__new_fd(ev, fd, type);

	if (fi)
		fi->open_flags = mode;
}

static void fd__bpf(struct ievt *ev, const struct evt_params *x)
{
	int64_t fd;

	/* DYN param: index byte 0 means the value is an fd */
	if (!evp__has(x, 0) || x->p->len[0] != 9 || x->p->val[0][0] != 0)
		return;
	fd = (int64_t)schema__u64(x->p->val[0] + 1);
	parse__new_fd(ev, fd, FDT_BPF);
}

void parse__fd_exit(struct inspector *in, struct ievt *ev, const struct evt_params *x,
		    const struct evt_params *e)
{
	char name[PATH_MAX];

	if (!ev->thread || !ev->thread->fds)
		return;
	switch (ev->type) {
	case PPME_SYSCALL_OPEN_X:
		evp__str(x, 1, name, sizeof(name));
		parse__open_path(in, ev, evp__int(x, 0, -1), PPM_AT_FDCWD, name,
			 (uint32_t)evp__int(x, 2, 0), (uint32_t)evp__int(x, 4, 0));
		break;
	case PPME_SYSCALL_CREAT_X:
		evp__str(x, 1, name, sizeof(name));
		parse__open_path(in, ev, evp__int(x, 0, -1), PPM_AT_FDCWD, name,
			 PPM_FILE_FLAGS_O_CREAT | PPM_FILE_FLAGS_O_WRONLY | PPM_FILE_FLAGS_O_TRUNC,
			 (uint32_t)evp__int(x, 3, 0));
		break;
	case PPME_SYSCALL_OPENAT_2_X:
	case PPME_SYSCALL_OPENAT2_X:
		evp__str(x, 2, name, sizeof(name));
		parse__open_path(in, ev, evp__int(x, 0, -1), evp__int(x, 1, PPM_AT_FDCWD), name,
			 (uint32_t)evp__int(x, 3, 0),
			 ev->type == PPME_SYSCALL_OPENAT_2_X ? (uint32_t)evp__int(x, 5, 0) : 0);
		break;
	case PPME_SYSCALL_OPENAT_X:
		/* the old openat exit has only the fd: the rest is in the enter */
		if (!e)
			break;
		evp__str(e, 1, name, sizeof(name));
		parse__open_path(in, ev, evp__int(x, 0, -1), evp__int(e, 0, PPM_AT_FDCWD), name,
			 (uint32_t)evp__int(e, 2, 0), 0);
		break;
	case PPME_SOCKET_SOCKET_X:
		fd__socket(ev, evp__int(x, 0, -1), e);
		break;
	case PPME_SOCKET_SOCKETPAIR_X:
		fd__pair(ev, x, evp__int(e, 0, PPM_AF_UNIX) == PPM_AF_UNIX ? FDT_UNIX_SOCK :
			 FDT_OTHER_SOCK, (uint8_t)evp__int(e, 0, PPM_AF_UNIX));
		break;
	case PPME_SOCKET_CONNECT_X:
		fd__connect(in, ev, x, e);
		break;
	case PPME_SOCKET_ACCEPT_5_X:
	case PPME_SOCKET_ACCEPT4_5_X:
		fd__accept(ev, x, e);
		break;
	case PPME_SOCKET_BIND_X:
		fd__bind(ev, x, e);
		break;
	case PPME_SYSCALL_DUP_X:
		fd__dup(ev, evp__int(x, 0, -1), evp__int(e, 0, -1), false);
		break;
	case PPME_SYSCALL_FCNTL_X: {
		int64_t cmd = evp__int(e, 1, -1);

		if (cmd == PPM_FCNTL_COMMANDS_F_DUPFD || cmd == PPM_FCNTL_COMMANDS_F_DUPFD_CLOEXEC)
			fd__dup(ev, evp__int(x, 0, -1), evp__int(e, 0, -1),
				cmd == PPM_FCNTL_COMMANDS_F_DUPFD_CLOEXEC);
		break;
	}
	case PPME_SYSCALL_PIPE_X:
		fd__pair(ev, x, FDT_PIPE, 0);
		break;
	case PPME_SYSCALL_EVENTFD_X:
		fd__anon(ev, evp__int(x, 0, -1), FDT_EVENT, PPM_FILE_FLAGS_O_RDWR);
		break;
	case PPME_SYSCALL_SIGNALFD_X:
		/* signalfd on an existing signalfd only changes its mask */
		if (evp__int(e, 0, -1) < 0 || !fd_table__find(ev->thread->fds, evp__int(x, 0, -1)))
			fd__anon(ev, evp__int(x, 0, -1), FDT_SIGNALFD, PPM_FILE_FLAGS_O_RDWR);
		break;
	case PPME_SYSCALL_TIMERFD_CREATE_X:
		fd__anon(ev, evp__int(x, 0, -1), FDT_TIMERFD, PPM_FILE_FLAGS_O_RDWR);
		break;
	case PPME_SYSCALL_INOTIFY_INIT_X:
		fd__anon(ev, evp__int(x, 0, -1), FDT_INOTIFY, PPM_FILE_FLAGS_O_RDONLY);
		break;
	case PPME_SYSCALL_BPF_X:
		fd__bpf(ev, x);
		break;
	case PPME_SYSCALL_CLOSE_X:
		fd__close(in, ev, x, e);
		break;
	default:
		/* sendto/sendmsg/recvfrom/recvmsg, then the newer calls */
		if (!parse__msg_exit(in, ev, x, e))
			parse__fdnew_exit(in, ev, x);
		break;
	}
}
