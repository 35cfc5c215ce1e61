/* Request mode's TLS probes: uprobes on the TLS libraries' read and write
 * calls, attached per library file by the loader (driver__tls_attach). The
 * entry probe notes the call (its session, buffer and size) for the thread;
 * a socket syscall the call makes meanwhile names its socket (tls.bpf.h, in
 * the dispatcher, which keeps that ciphertext in the kernel); the return
 * probe sends the plaintext the call moved as a TLS_READ or TLS_WRITE pair,
 * the enter frame parked as a syscall's is, so the two go in one record.
 *
 * OpenSSL: int SSL_read(SSL *, void *, int), int SSL_write(SSL *, const void *,
 * int): the bytes moved, or <= 0; int SSL_read_ex(SSL *, void *, size_t,
 * size_t *), SSL_write_ex: 1 and the bytes moved at the last argument.
 * GnuTLS: ssize_t gnutls_record_recv(session, void *, size_t),
 * gnutls_record_send: the bytes moved, or < 0. A record is at most 16 KiB,
 * so the int view of either return is whole. */
#include "frame.bpf.h"
#include "prof.bpf.h"
#include "tls.bpf.h"
#include "tls_send.bpf.h"

static __always_inline int tls__enter(struct pt_regs *ctx, int ex, long kf_id)
{
	struct tls_call c = { 0 };
	__u64 me = tls__caller(kf_id);

	if (!me)
		return 0;
	c.sess = PT_REGS_PARM1(ctx);
	c.buf = PT_REGS_PARM2(ctx);
	c.size = (__u32)PT_REGS_PARM3(ctx);
	c.moved = ex ? PT_REGS_PARM4(ctx) : 0;
	c.fd = -1;
	bpf_map_update_elem(&tls_calls, &me, &c, BPF_ANY);
	return 0;
}

static __always_inline int tls__exit(struct pt_regs *ctx, __u16 etype)
{
	__u64 me = bpf_get_current_pid_tgid();
	long ret = (int)PT_REGS_RC(ctx);
	struct tls_call *cp, c;
	__u64 moved = 0;

	cp = bpf_map_lookup_elem(&tls_calls, &me);
	if (!cp || cp->hs)
		return 0;
	c = *cp;
	bpf_map_delete_elem(&tls_calls, &me);
	if (!settings.capture)
		return 0;
	if (c.moved) {
		if (ret != 1)
			return 0;
		if (bpf_probe_read_user(&moved, sizeof(moved), (const void *)c.moved)) {
			COUNT(n_drops_pf);
			return 0;
		}
	} else if (ret > 0) {
		moved = ret;
	}
	if (!moved)
		return 0;
	if (c.fd < 0) {
		/* served from the library's buffer: the session's socket */
		struct tls_sess_key k = { .sess = c.sess, .tgid = me >> 32 };
		__s32 *fd = bpf_map_lookup_elem(&tls_fds, &k);

		if (!fd) {
			COUNT(n_tls_nofd);
			/* over memory BIOs, the caller sends a write's
			 * ciphertext after it */
			if (etype == PPME_TLS_WRITE_E)
				tls__wait(me, c.sess);
			return 0;
		}
		c.fd = *fd;
	}
	return tls__send(ctx, etype, &c, moved, me);
}

/* SSL_read, gnutls_record_recv */
SEC("uprobe")
int tlsp_read(struct pt_regs *ctx)
{
	return tls__enter(ctx, 0, TLS_KF_READ);
}

/* SSL_read_ex */
SEC("uprobe")
int tlsp_read_ex(struct pt_regs *ctx)
{
	return tls__enter(ctx, 1, TLS_KF_READ);
}

SEC("uretprobe")
int tlsp_read_ret(struct pt_regs *ctx)
{
	return tls__exit(ctx, PPME_TLS_READ_E);
}

/* SSL_write, gnutls_record_send */
SEC("uprobe")
int tlsp_write(struct pt_regs *ctx)
{
	return tls__enter(ctx, 0, TLS_KF_WRITE);
}

/* SSL_write_ex */
SEC("uprobe")
int tlsp_write_ex(struct pt_regs *ctx)
{
	return tls__enter(ctx, 1, TLS_KF_WRITE);
}

SEC("uretprobe")
int tlsp_write_ret(struct pt_regs *ctx)
{
	return tls__exit(ctx, PPME_TLS_WRITE_E);
}

/* SSL_do_handshake: it moves no plaintext, but a session over memory BIOs
 * knows no socket until its caller sends what the handshake made (the
 * ClientHello, the ServerHello): that send names it (tls__claim) before the
 * first byte of data. One inside a read or write (none in OpenSSL 3, which
 * runs its state machine directly) is left to that call. */
SEC("uprobe")
int tlsp_hs(struct pt_regs *ctx)
{
	struct tls_call c = { .fd = -1, .hs = 1 };
	__u64 me = tls__caller(TLS_KF_WRITE);

	if (!me || bpf_map_lookup_elem(&tls_calls, &me))
		return 0;
	c.sess = PT_REGS_PARM1(ctx);
	bpf_map_update_elem(&tls_calls, &me, &c, BPF_NOEXIST);
	return 0;
}

SEC("uretprobe")
int tlsp_hs_ret(struct pt_regs *ctx)
{
	__u64 me = bpf_get_current_pid_tgid();
	struct tls_call *cp = bpf_map_lookup_elem(&tls_calls, &me);
	__u64 sess;
	__s32 fd;

	if (!cp || !cp->hs)
		return 0;
	sess = cp->sess;
	fd = cp->fd;
	bpf_map_delete_elem(&tls_calls, &me);
	if (fd < 0 && settings.capture)
		tls__wait(me, sess);
	return 0;
}

/* SSL_free, gnutls_deinit: the session's socket is forgotten, so a session
 * made later at the same address starts with none. */
SEC("uprobe")
int tlsp_free(struct pt_regs *ctx)
{
	struct tls_sess_key k = { .sess = PT_REGS_PARM1(ctx) };

	if (!settings.tls)
		return 0;
	k.tgid = bpf_get_current_pid_tgid() >> 32;
	bpf_map_delete_elem(&tls_fds, &k);
	return 0;
}
