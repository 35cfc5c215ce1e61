/* Request mode's Go TLS probes: Go programs' crypto/tls (*Conn).Read and
 * (*Conn).Write, put on each program file by the loader
 * (driver__go_tls_attach): an entry probe at each function's start and,
 * for Read, a probe at each of its RET instructions. Go moves goroutine
 * stacks, which a uretprobe's rewritten return address would not survive.
 *
 * Go >= 1.17's register ABI on x86-64: func (c *Conn) Read(b []byte) (int,
 * error) takes c in RAX and b's data and length in RBX and RCX, and returns
 * n in RAX; R14 holds the running goroutine (g) throughout Go code.
 *
 * The socket: a tls.Conn's first field is its net.Conn, an interface {itab,
 * data}; for a *net.TCPConn or *net.UnixConn (the itab says which) data
 * points to a net.conn whose first field is its *netFD; a netFD begins with
 * its poll.FD, whose Sysfd follows a 16-byte fdMutex (Go 1.19's layouts,
 * tested; older and unchanged for long). A tls.Conn over anything else (a wrapper, a pipe) is on no
 * socket the driver can name: counted in n_tls_nofd, not sent.
 *
 * A Read is noted by goroutine at entry (go_calls) and sent at its RET, on
 * whichever thread runs it then, as the libraries' calls are
 * (tls_send.bpf.h). A Write is sent at its entry, all of b: Go's Write
 * writes all of it or fails, and another goroutine may read the peer's
 * answer to it before the writer gets back to its RET, so a Write sent there
 * could come after that answer. Its socket is marked in go_fds, so its
 * ciphertext, which Go reads and writes from any thread, stays in the
 * kernel (tls.bpf.h). */
#include "frame.bpf.h"
#include "tls.bpf.h"
#include "tls_send.bpf.h"

#define GO_VADDR_MASK ((1ull << GO_COOKIE_SLOT_SHIFT) - 1)
#define GO_POLL_FD_SYSFD 16

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, GO_TLS_CALLS);
	__type(key, struct go_call_key);
	__type(value, struct tls_call);
} go_calls __weak SEC(".maps");

/* Filled by the loader for each program probed, before its probes go on. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, GO_BINS_MAX);
	__type(key, __u32);
	__type(value, struct go_bin_itabs);
} go_bins __weak SEC(".maps");

/* The socket of the tls.Conn at CONN, -1 for none. */
static __always_inline __s32 go__conn_fd(struct pt_regs *ctx, __u64 conn)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);
	__u32 slot = cookie >> GO_COOKIE_SLOT_SHIFT;
	struct go_bin_itabs *it = bpf_map_lookup_elem(&go_bins, &slot);
	/* a PIE's load bias: where the probe is less where it was linked */
	__u64 bias = PT_REGS_IP(ctx) - (cookie & GO_VADDR_MASK);
	__u64 iface[2], netfd;
	__s64 fd;

	if (!it || bpf_probe_read_user(iface, sizeof(iface), (const void *)conn))
		return -1;
	if (!iface[0] || ((!it->tcp || iface[0] != it->tcp + bias) &&
			  (!it->unix_ || iface[0] != it->unix_ + bias)))
		return -1;
	if (bpf_probe_read_user(&netfd, sizeof(netfd), (const void *)iface[1]) ||
	    bpf_probe_read_user(&fd, sizeof(fd), (const void *)(netfd + GO_POLL_FD_SYSFD)))
		return -1;
	return fd < 0 || fd > 0x7fffffff ? -1 : (__s32)fd;
}

/* The call at CTX (ETYPE its enter event): its socket marked; a Read noted
 * for its RET, a Write sent now. */
static __always_inline int go__enter(struct pt_regs *ctx, long kf_id, __u16 etype)
{
	struct go_call_key k = { 0 };
	struct tls_call c = { 0 };
	__u64 me = tls__caller(kf_id);

	if (!me)
		return 0;
	c.sess = ctx->ax;
	c.buf = ctx->bx;
	c.size = (__u32)ctx->cx;
	c.fd = go__conn_fd(ctx, c.sess);
	if (c.fd < 0) {
		COUNT(n_tls_nofd);
		return 0;
	}
	go__mark(me >> 32, c.fd);
	if (etype == PPME_TLS_WRITE_E)
		return c.size ? tls__send(ctx, etype, &c, c.size, me) : 0;
	k.g = ctx->r14;
	k.tgid = me >> 32;
	/* a stack grown at the prologue enters again: the same note */
	bpf_map_update_elem(&go_calls, &k, &c, BPF_ANY);
	return 0;
}

static __always_inline int go__ret(struct pt_regs *ctx, __u16 etype)
{
	__u64 me = bpf_get_current_pid_tgid();
	struct go_call_key k = { .g = ctx->r14, .tgid = me >> 32 };
	long n = (long)ctx->ax;
	struct tls_call *cp, c;

	cp = bpf_map_lookup_elem(&go_calls, &k);
	if (!cp)
		return 0;
	c = *cp;
	bpf_map_delete_elem(&go_calls, &k);
	if (!settings.capture || n <= 0)
		return 0;
	/* Read returns at most len(b) */
	if ((__u64)n > c.size)
		n = c.size;
	return tls__send(ctx, etype, &c, (__u64)n, me);
}

/* crypto/tls.(*Conn).Read */
SEC("uprobe")
int gotls_read(struct pt_regs *ctx)
{
	return go__enter(ctx, TLS_KF_READ, PPME_TLS_READ_E);
}

SEC("uprobe")
int gotls_read_ret(struct pt_regs *ctx)
{
	return go__ret(ctx, PPME_TLS_READ_E);
}

/* crypto/tls.(*Conn).Write: its entry only */
SEC("uprobe")
int gotls_write(struct pt_regs *ctx)
{
	return go__enter(ctx, TLS_KF_WRITE, PPME_TLS_WRITE_E);
}
