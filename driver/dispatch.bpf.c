/* The dispatchers on the raw syscall tracepoints: skip what is not wanted, then
 * tail-call the event's filler; syscalls without one get the generic event here. */
#include "frame.bpf.h"
#include "kfilter.bpf.h"
#include "sock.bpf.h"
#include "file_fds.bpf.h"
#include "fillers/fs/close_x.bpf.h"
#include "tls.bpf.h"
#include "prof.bpf.h"
#include "fillers/sockio/mmsg_times.bpf.h"
#include "fillers/sockio/sockio_fill.bpf.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Common checks of both directions: capture on, not our own process, a wanted
 * syscall, a thread the kernel filter sends, in request mode an fd that is a
 * wanted socket (sock.bpf.h). EXIT and RET: the exit side and its return
 * value, REGS its pt_regs (kf__skip_fast); BTF: REGS is typed (tp_btf), so the
 * fd test reads the fd table by plain loads. SK: the call's socket, already
 * found of a wanted family (typed; else NULL), so the fd test is only its
 * quiet one. Returns the syscall's route or NULL, and the task's pid_tgid in
 * *PID_TGID when it is wanted. */
static __always_inline const struct syscall_route *route__wanted(long id, int exit, long ret,
								 __u64 regs, int btf,
								 struct sock *sk,
								 __u64 *pid_tgid_out)
{
	/* Cheapest test first: most excluded syscalls stop at the bitmap, an
	 * excluded thread at its CPU's slot. */
	__u64 pid_tgid;

	if ((unsigned long)id >= SYSCALL_TABLE_SIZE || !interesting[id] || !settings.capture)
		return 0;
	if (kf__skip_fast(id, exit, ret, regs))
		return 0;
	/* By plain loads the fd test costs less than the helper calls below;
	 * by probe reads (raw_tp) it is the dearest check, so it goes last. */
	if (btf && (sk ? sock__skip_sk(sk) : sock__skip(id, regs, 1)))
		return 0;
	pid_tgid = bpf_get_current_pid_tgid();
	if ((pid_tgid >> 32) == settings.own_tgid)
		return 0;
	if (!kf__wants(id, pid_tgid, exit, ret, regs))
		return 0;
	if (!btf && sock__skip(id, regs, 0))
		return 0;
	*pid_tgid_out = pid_tgid;
	return &routes[id];
}

SEC("raw_tp/sys_enter")
int sys_enter(struct bpf_raw_tracepoint_args *ctx)
{
	long id = (long)ctx->args[1];
	__u64 pid_tgid;
	const struct syscall_route *r = route__wanted(id, 0, 0, ctx->args[0], 0, NULL, &pid_tgid);
	struct filler f;

	if (!r)
		return 0;
	if (r->enter_event != PPME_GENERIC_E) {
		bpf_tail_call(ctx, &fillers_enter, r->enter_event);
		if (filler__off(r->enter_event))
			return 0;
	}
	/* No filler (or the tail call failed): the generic event names the syscall. */
	if (FILLER_BEGIN_AS(&f, ctx, GENERIC_E, pid_tgid))
		return 0;
	filler__u16(&f, r->ppm_sc);
	filler__u16(&f, (__u16)id);
	return filler__submit(&f);
}

/* The exit event of route R (RET: the return value): its filler, or the
 * generic one; none for a failed call with drop_failed. */
static __always_inline int exit__send(void *ctx, const struct syscall_route *r, long ret,
				      __u64 pid_tgid)
{
	int eo_synth = settings.exit_only && (r->flags & UF_EO_SYNTH);

	if (settings.drop_failed && ret < 0)
		return 0;
	if (r->exit_event != PPME_GENERIC_X) {
		bpf_tail_call(ctx, &fillers_exit, r->exit_event);
		/* No filler: the generic event goes (or, for a filler left out
		 * at load, none), and a left-out enter event is lost (the
		 * reader rebuilds none for it). */
		if (eo_synth)
			DROP(n_drops_bug, r->enter_event);
		if (filler__off(r->exit_event))
			return 0;
		eo_synth = 0;
	}
	return filler__generic_exit(ctx, r->ppm_sc, pid_tgid, eo_synth);
}

/* tp_btf: the pt_regs pointer is typed, so reading the syscall number is a plain
 * load rather than a probe-read helper call, paid by every syscall. */
SEC("tp_btf/sys_exit")
int sys_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx->args[0];
	long id = regs->orig_ax;
	__u64 pid_tgid;
	const struct syscall_route *r = route__wanted(id, 1, (long)ctx->args[1], (__u64)regs,
						      1, NULL, &pid_tgid);

	if (!r)
		return 0;
	if (settings.profile)
		prof__at_event(ctx, pid_tgid, sock_io[id] != SOCK_IO_NONE);
	return exit__send(ctx, r, (long)ctx->args[1], pid_tgid);
}

/* Exit-only capture, a wanted call's events, past its route: this CPU's
 * frame, or NULL when the call stays here. SOCK: the call is socket I/O on
 * FD, SEND its side. */
static __always_inline struct scratch *exit__begin(void *ctx, __u64 pid_tgid, int fd, int sock,
						   int send)
{
	struct scratch *s;

	/* TLS probes loaded: the ciphertext of a TLS call stays here */
	if (settings.tls && sock && tls__nested(pid_tgid, fd, send))
		return NULL;
	s = scratch__get();
	if (!s)
		return NULL;
	/* An enter frame whose exit frame never came (a chain that failed) goes
	 * alone, and cannot pair with this syscall's. */
	park__flush(ctx, s);
	/* profiling: the thread's slices so far go before its events */
	if (settings.profile)
		prof__at_event(ctx, pid_tgid, sock);
	return s;
}

/* Exit-only capture: whether the enter event is built here, at exit. A new
 * thread or process returning from clone had no enter (its parent did); a
 * successful exec has lost its arguments with the old image, so its enter event
 * was sent at sched_process_exec (sched.bpf.c). */
static __always_inline int eo__enter_here(const struct syscall_route *r, long ret)
{
	if (ret != 0)
		return 1;
	switch (r->exit_event) {
	case PPME_SYSCALL_CLONE_20_X:
	case PPME_SYSCALL_FORK_20_X:
	case PPME_SYSCALL_VFORK_20_X:
	case PPME_SYSCALL_CLONE3_X:
	case PPME_SYSCALL_EXECVE_19_X:
	case PPME_SYSCALL_EXECVEAT_X:
		return 0;
	}
	return 1;
}

/* Exit-only capture (settings.exit_only; sys_enter is not attached): one program
 * for every syscall. Declared raw_tp, the loader makes it a tp_btf program on
 * the raw sys_exit tracepoint, or a tracepoint program on the own sys_exit_*
 * tracepoint of each syscall the run wants (syscall_tps), with its fillers. For a wanted one, the enter filler runs first on the registers
 * the syscall left (its arguments are still there on x86_64), then chains into
 * the exit filler (filler__chain), so both events are sent, enter first. */
SEC("raw_tp")
int sys_exit_eo(struct bpf_raw_tracepoint_args *ctx)
{
	struct pt_regs *regs = sysexit__regs(ctx);
	long id = regs->orig_ax;
	long ret = sysexit__arg1(ctx, regs);
	__u64 pid_tgid;
	const struct syscall_route *r;
	struct scratch *s;
	struct sock *sk;
	struct filler f;
	__u8 how;
	int data;

	/* request mode's closes of no socket: before every filter (file_fds.bpf.h) */
	if ((unsigned long)id < SYSCALL_TABLE_SIZE && (how = fdf_how[id]) &&
	    fdf__exit(how, regs, ret))
		return 0;
	/* the messages' times noted in this call are its own (mmsg_times.bpf.h) */
	if (id == SOCKIO_NR_SENDMMSG && settings.sock_compact)
		mmsg_times__end();
	r = route__wanted(id, 1, ret, (__u64)regs, 1, NULL, &pid_tgid);
	if (!r)
		return 0;
	s = exit__begin(ctx, pid_tgid, (int)regs->di, sock_io[id] != SOCK_IO_NONE, sock_send[id]);
	if (!s)
		return 0;
	/* Request mode's compact socket I/O: one event for the call, no enter
	 * event, no filler of its own (fillers/sockio). */
	if (settings.sock_compact && (data = sockio__data(id, regs->r8))) {
		/* a read or write of a wanted socket (the route's test) that
		 * failed or moved nothing says nothing the pairing reads, which
		 * takes results above 0 (an mmsg call's: the messages moved) */
		if (ret <= 0) {
			COUNT(n_sock_empty);
			return 0;
		}
		sk = data == SOCKIO_MMSG ? fd__sock((int)regs->di) : sockio__tcp((int)regs->di);
		if (sk) {
			s->stamp = 0;
			/* the filler reads the socket's TCP state from here */
			s->sock = (__u64)sk;
			s->sock_owner = pid_tgid;
			if (data == SOCKIO_MMSG) {
				s->mmsg_i = 0;
				bpf_tail_call(ctx, &filler_parts,
					      id == SOCKIO_NR_RECVMMSG ? SOCKIO_MMSG_RECV_PART :
									 SOCKIO_MMSG_SEND_PART);
			} else {
				bpf_tail_call(ctx, &fillers_exit, sockio__event(id));
			}
			/* not loaded (it needs bpf_loop): the call's own events go */
		}
	}
	/* No enter event here: a new thread's clone, an exec (see above), or a
	 * call whose enter event says nothing its exit event does not (proto's
	 * UF_EO_SYNTH): userspace rebuilds that one, and the syscall costs one
	 * frame. With drop_failed a failed call sends its enter event alone. */
	if (!eo__enter_here(r, ret) ||
	    ((r->flags & UF_EO_SYNTH) && !(settings.drop_failed && ret < 0))) {
		s->stamp = 0;
		return exit__send(ctx, r, ret, pid_tgid);
	}
	/* drop_failed: the enter event still goes, as with sys_enter attached */
	s->chain_ev = settings.drop_failed && ret < 0 ? EO_NO_EXIT : r->exit_event + 1;
	s->chain_sc = r->ppm_sc;
	s->chain_owner = pid_tgid;
	stamp__set(s, pid_tgid);
	/* an fd (and size) enter frame: parked here, on to the exit filler */
	if (s->chain_ev != EO_NO_EXIT && park__simple_enter(s, r->enter_event, regs, pid_tgid))
		return filler__chain(ctx, pid_tgid);
	if (r->enter_event != PPME_GENERIC_E) {
		bpf_tail_call(ctx, &fillers_enter, r->enter_event);
		/* a filler left out at load: its exit event is judged alone */
		if (filler__off(r->enter_event)) {
			s->chain_ev = 0;
			s->stamp = 0;
			return exit__send(ctx, r, ret, pid_tgid);
		}
	}
	if (!FILLER_BEGIN_AS(&f, ctx, GENERIC_E, pid_tgid)) {
		filler__u16(&f, r->ppm_sc);
		filler__u16(&f, (__u16)id);
		filler__submit(&f);
	}
	return filler__chain(ctx, pid_tgid);
}

/* Request mode on the syscalls' own tracepoints (settings.close_at_enter):
 * close's exit has no program, and its events go from here, as its exit
 * would have sent them. The fd's state now gives the close's result: a
 * socket's close succeeds (only a thread that takes the number from the
 * table in between, with its own close or a dup2, makes it fail), a number
 * with no file fails with EBADF. An fd that is no socket is kept and
 * counted, as at the exit. So every close on the host costs this one run,
 * not two, and a socket's close one frame record built here. */
static __always_inline int close__at_enter(void *ctx, int fd)
{
	struct task_struct *t = bpf_get_current_task_btf();
	const struct syscall_route *r;
	struct pt_regs *regs;
	struct scratch *s;
	struct filler f;
	__u64 pid_tgid;
	long ret;
	int kind;

	if ((__u32)t->tgid == settings.own_tgid)
		return 0;
	kind = fdf__kind(fd);
	if (kind == FDF_KIND_OTHER) {
		if (settings.capture)
			COUNT(n_file_closes);
		return 0;
	}
	ret = kind == FDF_KIND_NONE ? -FDF_EBADF : 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(t);
	r = route__wanted(FDF_NR_CLOSE, 1, ret, (__u64)regs, 1, NULL, &pid_tgid);
	if (!r)
		return 0;
	s = exit__begin(ctx, pid_tgid, fd, 0, 0);
	if (!s)
		return 0;
	stamp__set(s, pid_tgid);
	/* the enter event, parked: it goes out with the exit's in one record */
	park__fd(s, PPME_SYSCALL_CLOSE_E, fd, pid_tgid);
	if (FILLER_BEGIN_AS(&f, ctx, SYSCALL_CLOSE_X, pid_tgid))
		return 0;
	close_x__put(&f, fd, ret);
	return filler__submit(&f);
}

/* Exit-only capture: close's enter tracepoint keeps when the thread's close
 * began (close_enter.bpf.h) and, for request mode, whether its fd is a socket
 * (file_fds.bpf.h). Every close, wanted or not: an exit must never find a
 * time left by an earlier close of the same number. */
SEC("tp/syscalls/sys_enter_close")
int close_enter(struct trace_event_raw_sys_enter *ctx)
{
	struct close_began *c;
	int fd = (int)ctx->args[0];

	/* (syscall_tps, read-only: on a load without it the verifier drops
	 * this path, whose helpers an older kernel's tracepoints lack) */
	if (syscall_tps && settings.close_at_enter)
		return close__at_enter(ctx, fd);
	c = bpf_task_storage_get(&close_began, bpf_get_current_task_btf(), 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (c) {
		c->fd = fd;
		c->not_sock = fdf__close_enter(fd);
		c->ts = settings.boot_time + bpf_ktime_get_boot_ns();
	}
	return 0;
}

/* Request mode's compact socket I/O at the socket's own tracepoints
 * (settings.sock_compact, loaded with syscall_tps; README, "Compact socket
 * I/O", at the socket's tracepoints). read, readv, write and writev serve any
 * fd: on their syscalls' tracepoints every pipe and file call would run the
 * dispatcher to be found no socket. sock_recv_length and sock_send_length
 * fire where the kernel has handed a socket its bytes, inside the call, for
 * sockets only, with the socket and the result. The call's own registers
 * say which call it is and on which fd. Typed (tp_btf) programs: the
 * kernel's call into them is the raw tracepoint's, cheaper than a
 * tracepoint's perf record, which matters for the socket calls that stop
 * at the first test. They build the event themselves: a tail call into the
 * fillers would need the fillers' kind, a tracepoint program's. */
static __always_inline int sock_tp__run(void *ctx, struct sock *sk, long ret, int send)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	long id = regs->orig_ax;
	const struct syscall_route *r;
	struct scratch *s;
	__u64 pid_tgid;
	int fd;

	/* a sendmmsg's messages go at its exit: here, when each was sent */
	if (send && id == SOCKIO_NR_SENDMMSG) {
		if (sock__family_wanted(sk->__sk_common.skc_family) && fd__sock(regs->di) == sk)
			mmsg_times__note();
		return 0;
	}
	if (!sockio__on_sock_tp(id, send) || !sock__family_wanted(sk->__sk_common.skc_family))
		return 0;
	/* the kernel's own socket I/O inside some other call on this fd (a
	 * file on a network file system) is not the call's */
	fd = (int)regs->di;
	if (fd__sock(fd) != sk)
		return 0;
	r = route__wanted(id, 1, ret, (__u64)regs, 1, sk, &pid_tgid);
	if (!r)
		return 0;
	s = exit__begin(ctx, pid_tgid, fd, 1, send);
	if (!s)
		return 0;
	/* as at the exit tracepoint: nothing moved, nothing sent */
	if (ret <= 0) {
		COUNT(n_sock_empty);
		return 0;
	}
	s->stamp = 0;
	return sockio__fill(ctx, sockio__event(id), SOCKIO_NPARAMS, ret, 1, sk);
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(socktp_recv, struct sock *sk, int ret, int flags)
{
	return sock_tp__run(ctx, sk, ret, 0);
}

SEC("tp_btf/sock_send_length")
int BPF_PROG(socktp_send, struct sock *sk, int ret, int flags)
{
	return sock_tp__run(ctx, sk, ret, 1);
}
