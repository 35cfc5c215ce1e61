/* Types shared by the BPF driver and its userspace loader. No libc here. */
#ifndef DRIVER_H
#define DRIVER_H

#include "ppm_wire.h"
#include "schema_syscalls.h"

/* Each CPU's scratch frame: the event is built here, then sent in one piece. Writes
 * go to offsets masked into the first half, so a write of at most half a frame
 * never leaves the buffer (the verifier can see that). */
#define FRAME_HALF 65536
#define FRAME_SIZE (2 * FRAME_HALF)
/* Exit-only capture parks a syscall's enter frame of at most PARK_SIZE bytes
 * right before the frame, so that it and the exit frame go out in one record. */
#define PARK_SIZE 1024
/* Longest path or string param the driver copies. */
#define DRIVER_MAX_STR 4096
#define DRIVER_DEFAULT_SNAPLEN 80
/* Request mode's recvmmsg and sendmmsg: the messages of one call sent as
 * events, at most (fillers/sockio/sockio_mmsg.bpf.c); the rest are counted,
 * n_mmsg_unsent. Each takes a tail call, of the 33 a chain may make (the
 * dispatcher's into the first is one of them); a power of 2 (a mask bounds
 * mmsg_times' index). BIND reads up to 19 queries a recvmmsg. */
#define DRIVER_MMSG_MAX 32

/* Fillers too big for one program continue in up to FILLER_PARTS - 1 parts. */
#define FILLER_PARTS 4

/* Settings userspace may change while the driver runs (in .bss, mmapped). */
struct driver_settings {
	__u64 boot_time;	/* ns since the epoch at boot: ts = boot_time + boot ns */
	__u32 snaplen;		/* bytes of I/O buffers captured */
	__u32 own_tgid;		/* the agent's own process: never captured */
	/* Request mode: I/O syscalls on an fd (sock_io[]) are sent only when the
	 * fd is a socket of a family with its bit set (1u << PPM_AF_*); 0: all. */
	__u32 sock_families;
	__u8 capture;		/* 0: send nothing */
	__u8 drop_failed;	/* no exit events for syscalls that failed */
	__u8 procexit;		/* send procexit events (sched_process_exit) */
	__u8 exit_only;		/* one program per syscall, on sys_exit (loader.h) */
	__u8 ringbuf;		/* events go to `rings` (BPF ring buffers), not `events` */
	/* quiet_socks has had an entry: the socket test looks it up */
	__u8 sock_quiet;
	/* Profiling (prof.bpf.h): enum prof_follow, which threads' off-CPU and
	 * run-queue time is kept */
	__u8 profile;
	/* prof_let_go has had an entry: a thread not followed is looked up
	 * there before following begins */
	__u8 prof_let_go;
	/* FD_NAME events name the files followed threads wait on */
	__u8 prof_names;
	/* the TLS probes are loaded (tls.bpf.c): socket I/O made inside a
	 * TLS library call stays in the kernel, its plaintext goes instead */
	__u8 tls;
	/* Request mode (driver_config.sock_compact): a read-like or write-like
	 * call on a TCP socket that moved bytes goes as one SOCK_RECV_X or
	 * SOCK_SEND_X event (fillers/sockio), not its enter and exit pair */
	__u8 sock_compact;
	/* TCP health (tcp.bpf.c): connections tracked, one TCP_CLOSE event each */
	__u8 tcp;
	/* Request mode on the syscalls' own tracepoints: close has no exit
	 * program, close_enter sends its two events (file_fds.bpf.h) */
	__u8 close_at_enter;
	/* Request mode: the buffers of an fd whose I/O began with HTTP/2's
	 * client preface (h2.bpf.h) are captured up to this, not the snaplen,
	 * so that every frame header is seen; 0: off */
	__u32 h2_snaplen;
	__u32 pad2;
};

/* The most settings.h2_snaplen may be: an event is at most
 * PPM_MAX_EVENT_SIZE with its header and its other params. */
#define H2_SNAPLEN_MAX 64000
/* HTTP/2 fds followed at once (h2_fds, an LRU): past it the oldest go back to
 * the snaplen. */
#define H2_FDS_MAX 8192
struct h2_fd_key {
	__u32 tgid;
	__s32 fd;
};

/* fdf_how[] (file_fds.bpf.h): what request mode's exit dispatcher does first
 * at a syscall's exit (driver_config.file_closes). */
enum fdf_how {
	FDF_NONE = 0,
	FDF_CLOSE,		/* close: kept when its enter found the fd no socket */
	/* socket: with settings.sock_compact a TCP socket's call is kept in
	 * the kernel (n_tcp_sockets): its connect, accept, bind or listen
	 * tells the agent all the call would */
	FDF_SOCKET,
};

/* Profiling: which threads the driver follows through the scheduler. */
enum prof_follow {
	PROF_FOLLOW_NONE = 0,
	/* a thread from its first syscall event sent that moves data on an
	 * fd (sock_io[]; in request mode the socket I/O sent, so the threads
	 * that serve and make requests), but one the agent let go
	 * (prof_let_go: a client's only) */
	PROF_FOLLOW_SENT,
	PROF_FOLLOW_ALL,	/* every thread but the agent's own */
};

/* Why a followed thread was not running. PROF_RUNQ: it could run (woken, or
 * preempted) and waited for a CPU; the others: it was blocked, in a syscall
 * of that kind (prof.bpf.h, prof__reason). */
enum prof_kind {
	PROF_RUNQ = 0,
	PROF_FILE,		/* on a regular file or block device, or fsync & co */
	PROF_NET,		/* on a socket */
	PROF_LOCK,		/* futex */
	PROF_POLL,		/* epoll, poll, select */
	PROF_SLEEP,		/* nanosleep, clock_nanosleep, pause */
	PROF_OTHER,		/* any other syscall, a pipe, a page fault */
	PROF__KINDS
};

/* One off-CPU or run-queue slice: 32 bytes, as CPU_SLICES events carry them. */
struct prof_slice {
	__u64 start;		/* ns since the epoch, as event times */
	__u64 dur;		/* ns */
	/* PROF_LOCK: the futex's user address; PROF_FILE, PROF_NET, PROF_OTHER
	 * in a call on an fd: the fd; else 0 */
	__u64 obj;
	__u32 waker;		/* the thread that woke it (host tid), 0 unknown */
	__u16 nr;		/* the syscall blocked in (native), PROF_NR_NONE */
	__u8 kind;		/* enum prof_kind */
	__u8 flags;		/* PROF_SLICE_* */
};
#define PROF_NR_NONE 0xffff
#define PROF_SLICE_PREEMPTED 1	/* PROF_RUNQ: it was preempted, not woken */
#define PROF_SLICE_FD 2		/* obj is an fd */
/* PROF_OTHER: the thread was found going on CPU while on it by our account
 * (its switch out was not seen): how it spent the slice is not known */
#define PROF_SLICE_UNSEEN 4

/* On-CPU stacks (driver_config.profile_hz): frames per stack a CPU_SAMPLE
 * event carries, user and kernel each (the kernel's perf_event_max_stack). */
#define PROF_STACK_DEPTH 127

/* Slices a thread keeps before they go out as one CPU_SLICES event. */
#define PROF_BATCH 16
/* Threads followed at once; past it a thread is not followed, counted. */
#define PROF_THREADS 8192

enum prof_state { PROF_ST_ON = 0, PROF_ST_RUNQ, PROF_ST_OFF };

/* A followed thread (prof_threads' value). */
struct prof_thread {
	__u64 from;		/* its slices since FROM are in S */
	__u64 since;		/* the current state's start */
	__u64 obj;		/* PROF_ST_OFF: the slice's obj */
	/* PROF_ST_OFF: the kernel's run_delay of it (sched_info) when it
	 * went off CPU, so that its run-queue wait is the growth since */
	__u64 rd;
	/* when it was last woken where the kernel's sched_info would count
	 * part of its sleep as queued (prof_waking): later than since, the
	 * current wait's wakeup */
	__u64 woke;
	__u32 waker;
	__u16 nr;		/* PROF_ST_OFF: the syscall */
	__u8 state;		/* enum prof_state */
	__u8 kind;		/* PROF_ST_OFF: enum prof_kind; RUNQ: its flags */
	__u32 n;		/* slices in S */
	__u32 pad;
	/* the file last named by an FD_NAME event since its last sent event */
	__u64 named;
	struct prof_slice s[PROF_BATCH];
};

/* Request mode with nothing but metrics (exit-only capture, tp_btf fd test):
 * a TCP connection whose client side the agent does not walk, its server's
 * side being followed on this host too, has its tuple in quiet_socks, and the
 * socket I/O of that client end stays in the kernel (sock.bpf.h). The client
 * end's tuple: its own address and port, then its peer's. */
#define SOCK_QUIET_MAX 4096
struct sock_quiet_key {
	__u8 family;		/* PPM_AF_INET (v4-mapped IPv6 too), PPM_AF_INET6 */
	__u8 l4proto;		/* IPPROTO_TCP */
	__u16 lport;		/* host order */
	__u16 rport;
	__u16 pad;
	__u8 laddr[16];		/* network order; IPv4 in the first 4 bytes, then 0 */
	__u8 raddr[16];
};

/* sock_io[] (sock.bpf.h): which argument of an I/O syscall names the fd whose
 * socket family settings.sock_families tests. */
enum sock_io_fd {
	SOCK_IO_NONE = 0,	/* not filtered: not I/O, or no fd left to look at */
	SOCK_IO_ARG0,		/* the first argument */
	SOCK_IO_ARG0_OR_2,	/* splice: sent when either end (arg 0 or 2) is wanted */
	/* the first argument, and a peek (MSG_PEEK in the flags argument)
	 * stays in the kernel, counted in n_peeks: its bytes are read again */
	SOCK_IO_ARG0_PEEK3,	/* recvfrom: flags are argument 3 */
	SOCK_IO_ARG0_PEEK2,	/* recvmsg: flags are argument 2 */
};

/* Per-CPU counters, in a BPF_MAP_TYPE_PERCPU_ARRAY of one entry. */
struct driver_counters {
	__u64 n_evts;		/* events sent */
	__u64 n_drops_buffer;	/* ring full (no room for the event) */
	__u64 n_drops_pf;	/* user memory unreadable: param sent empty */
	__u64 n_drops_bug;	/* internal errors, no scratch frame, bad sizes */
	__u64 n_drops_scratch;	/* event larger than the frame: not sent */
	/* not a drop: socket I/O of a quiet connection kept in the kernel on
	 * purpose (sock_quiet_key), each syscall once */
	__u64 n_quiet;
	/* threads profiling did not follow: PROF_THREADS followed already */
	__u64 n_prof_full;
	/* not a drop: closes of fds that are no sockets, which request mode
	 * keeps in the kernel (driver_config.file_closes) */
	__u64 n_file_closes;
	/* not a drop: socket syscalls made inside a TLS library call (the
	 * ciphertext), kept in the kernel: its plaintext event goes instead */
	__u64 n_tls_cipher;
	/* TLS calls that moved plaintext on no socket the driver could name
	 * (no socket syscall inside it or earlier in its session): not sent */
	__u64 n_tls_nofd;
	/* not a drop: TLS sessions whose socket was named by the thread's
	 * next send after a call that knew none (memory BIOs, tls_claims) */
	__u64 n_tls_claimed;
	/* not a drop: request mode's peeks at a wanted socket (recvfrom,
	 * recvmsg with MSG_PEEK: nginx's look at a TLS port's first byte),
	 * kept in the kernel, as the read that follows brings the bytes */
	__u64 n_peeks;
	/* TCP health: connections begun with tcp_conns full, so never tracked
	 * (no TCP_CLOSE event for them) */
	__u64 n_tcp_untracked;
	/* not a drop: request mode's socket() calls that made a TCP socket,
	 * kept in the kernel (FDF_SOCKET) */
	__u64 n_tcp_sockets;
	/* not a drop: request mode's socket reads and writes that failed or
	 * moved no bytes, on the compact path (the pairing reads none) */
	__u64 n_sock_empty;
	/* request mode's recvmmsg and sendmmsg messages sent as no event:
	 * past the DRIVER_MMSG_MAX-th of a call, or cut off by a preempting
	 * task's call; not followed by the pairing */
	__u64 n_mmsg_unsent;
};

/* TCP health (tcp.bpf.c): connections tracked at once, from the SYN (or the
 * connection made from a listener) to the socket's destruction, and the
 * listening ports whose process is known. */
#define TCP_CONNS 65536
#define TCP_LISTENERS 4096
struct tcp_conn {
	__u64 start;		/* boot ns: SYN sent, or made from the listener */
	__u64 est;		/* boot ns: established; 0 not (yet) */
	__u64 closed;		/* boot ns: moved to CLOSE; 0 not yet */
	__u32 pid;		/* host tgid; 0 not known */
	char comm[16];		/* its name at the SYN or the listen */
	__u32 rst_sent, rst_recv;
	__s32 err;		/* the socket's error at the move to CLOSE */
	__u8 side;		/* 1 client, 2 server */
	__u8 fin;		/* this end sent its FIN (CLOSE left from a state past it) */
	/* the tuple (client -> server) as TCP_CLOSE carries it, taken at the
	 * move to CLOSE: a client's port and address are let go there */
	__u8 tlen;		/* 13 (IPv4), 37 (IPv6); 0 not taken */
	__u8 tuple[37];
	__u8 pad[4];
	/* the tcp_sock's counts at the move to CLOSE (an abort's disconnect
	 * clears them before the socket goes): data bytes acknowledged and
	 * received (no SYN or FIN), segments retransmitted, srtt (us) */
	__u64 sent, received;
	__u32 retrans, srtt_us;
};
/* A listening socket's process. */
struct tcp_listener {
	__u32 pid;		/* host tgid */
	char comm[16];
};
/* A listening socket: its network namespace and port. */
struct tcp_lkey {
	__u32 netns;		/* the namespace's inode number */
	__u16 port;		/* host order */
	__u16 pad;
};

/* Request mode's TLS probes (tls.bpf.c): the library call a thread is in,
 * from its entry probe to its return probe (tls_calls, by pid_tgid). */
#define TLS_CALLS 16384
struct tls_call {
	__u64 sess;		/* the SSL * or gnutls_session_t */
	__u64 buf;		/* the caller's buffer */
	__u64 moved;		/* _ex calls: the size_t * that gets the bytes moved, else 0 */
	__u32 size;		/* what the call asked for */
	__s32 fd;		/* the socket a syscall inside the call used, -1 */
	__u32 hs;		/* 1: a handshake (SSL_do_handshake): no plaintext */
	__u32 pad;
};
/* Sessions over memory BIOs (gRPC's C-core): the library never touches the
 * socket, its caller moves the ciphertext. A handshake or write that knows
 * no socket leaves its session waiting in tls_claims (by pid_tgid), and the
 * thread's next socket send within TLS_CLAIM_NS names the session's socket:
 * the caller sends what the call made. */
#define TLS_CLAIMS 4096
#define TLS_CLAIM_NS 1000000000ULL
struct tls_claim {
	__u64 sess;
	__u64 ts;		/* the call's return, boot ns */
};
/* The socket each TLS session last used (tls_fds): a call served from the
 * library's buffer makes no syscall. */
#define TLS_SESSIONS 65536
struct tls_sess_key {
	__u64 sess;
	__u32 tgid;
	__u32 pad;
};

/* Request mode's Go TLS probes (tls_go.bpf.c), on Go programs' crypto/tls
 * (*Conn).Read and Write: a call from its entry to one of its RETs, by
 * goroutine (Go's g, in R14: a goroutine may come back on another thread),
 * in go_calls; the value is a struct tls_call (sess: the *tls.Conn). */
struct go_call_key {
	__u64 g;
	__u32 tgid;
	__u32 pad;
};
/* Go programs probed at most (go_bins, by a probe's cookie): per program,
 * the link-time addresses of the itabs of *net.TCPConn and *net.UnixConn
 * as a net.Conn, 0 for one the program never makes. */
#define GO_BINS_MAX 256
struct go_bin_itabs {
	__u64 tcp, unix_;
};
/* A probe's cookie: its program's slot in go_bins in the top 16 bits, the
 * probed instruction's link-time address below (a PIE's load bias is the
 * probe's address less it). */
#define GO_COOKIE_SLOT_SHIFT 48
/* Sockets of Go TLS connections (go_fds, an LRU by process and fd, like
 * h2_fds): their socket I/O is ciphertext, kept in the kernel. */
#define GO_FDS_MAX 16384
/* Go TLS calls in flight at once (go_calls, an LRU: a goroutine that never
 * returns leaves its entry behind) */
#define GO_TLS_CALLS 16384

/* Kernel filtering by process (kfilter.bpf.h): up to KF_MAX_ATOMS tests of a
 * thread ("comm is nginx", "euid is 1000", "in container X") are evaluated when
 * the thread is first seen, at clone, execve and the set*id calls; an event is
 * sent when the bit of the thread's test results (an index 0..255) is set in
 * its syscall's table. Userspace derives the tests and tables from the filter. */
#define KF_MAX_ATOMS 8
#define KF_WORDS 4		/* 2^KF_MAX_ATOMS bits */

/* What a test looks at; numeric tests are looked up in kf_nums by (kind, value). */
enum kf_kind {
	KF_COMM = 0,		/* kf_comm, an LPM trie: equal or starts with */
	KF_PID,			/* tgid */
	KF_TID,
	KF_PPID,		/* the leader's real parent: its tgid or its tid */
	KF_UID,			/* euid */
	KF_GID,			/* egid */
	KF_LOGINUID,
	KF_CGROUP,		/* kf_cgroups: the cgroup v2 id's container */
	KF__KINDS
};

/* Syscalls after whose success a thread's tests are computed again. */
enum kf_trigger {
	KF_T_NONE = 0,
	KF_T_EXEC,		/* execve, execveat: everything */
	KF_T_CLONE,		/* the child's return from clone: a new thread */
	KF_T_CRED,		/* setuid, setgid, setresuid, setresgid: the uid/gid tests */
};

struct kf_num_key {
	__u32 kind;
	__u32 value;
};

/* One thread's results (kf_threads' value). Userspace seeds the threads of its
 * /proc scan with cg_pending set: the kernel reads the cgroup at first sight. */
struct kf_thread {
	__u32 bits;		/* results of every test but the cgroup ones */
	__u32 cg_bits;		/* the cgroup tests, from kf_cgroups */
	__u64 cgid;		/* cgroup v2 id when last evaluated */
	__u64 cg1;		/* the first controller's v1 cgroup id then, 0 on v2 */
	__u32 cg1_bits;		/* the cgroup tests for cg1, from kf_cgroups1 */
	__u32 gen;		/* kf.gen when cg_bits was looked up */
	__u8 cg_known;		/* cgid was in kf_cgroups */
	__u8 cg1_known;		/* cg1 was in kf_cgroups1 */
	__u8 cg_pending;
	/* the cgroup tests say "maybe" while userspace's cgroups may not be the
	 * kernel's: the thread started in another cgroup than its parent
	 * (clone3's CLONE_INTO_CGROUP), which userspace learns only at its next
	 * execve (and, kfilter.bpf.h: kf__moved, while it was moved from outside
	 * since its cgroups were read) */
	__u8 cg_mixed;
	__u8 pad[4];
};

struct kf_comm_key {
	__u32 prefixlen;	/* in bits */
	__u8 comm[16];
};

/* In .bss (`kf`); userspace fills it, then sets `on`. */
struct driver_kfilter {
	__u32 on;
	__u32 gen;		/* bumped when kf_cgroups gains entries */
	__u32 kinds;		/* 1 << enum kf_kind, for every kind in use */
	__u32 cred_mask;	/* atoms of kinds KF_UID and KF_GID */
	__u8 trigger[SYSCALL_TABLE_SIZE];	/* enum kf_trigger */
	__u64 table[SYSCALL_TABLE_SIZE][KF_WORDS];
};

#endif
