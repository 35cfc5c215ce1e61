/* The current task's open files, for fillers that describe an fd (device of an
 * opened file, addresses of a socket) and request mode's socket test
 * (sock.bpf.h), by probe reads or, in typed programs, by plain loads. */
#ifndef FD_BPF_H
#define FD_BPF_H

#include "frame.bpf.h"

/* The struct file behind FD in the current task, or NULL. */
static __always_inline struct file *fd__file(long fd)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(t, files, fdt);
	struct file **fds;
	struct file *f = NULL;

	if (!fdt || fd < 0 || fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	fds = BPF_CORE_READ(fdt, fd);
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	return f;
}

#define FD_S_IFMT 0170000
#define FD_S_IFSOCK 0140000

/* The address family (AF_*, the same values as PPM_AF_*) of the socket behind
 * FD in the current task, or -1 when FD is no open socket. */
static __always_inline int fd__sock_family(long fd)
{
	struct file *f = fd__file(fd);
	struct socket *sock;

	if (!f || (BPF_CORE_READ(f, f_inode, i_mode) & FD_S_IFMT) != FD_S_IFSOCK)
		return -1;
	sock = BPF_CORE_READ(f, private_data);
	return BPF_CORE_READ(sock, sk, __sk_common.skc_family);
}

/* The socket behind FD in the current task by probe reads (untyped: read its
 * fields with BPF_CORE_READ), or NULL. For the fillers, which are no typed
 * programs and cannot use the typed walk below. */
static __always_inline struct sock *fd__sock_probe(long fd)
{
	struct file *f = fd__file(fd);
	struct socket *sock;

	if (!f || (BPF_CORE_READ(f, f_inode, i_mode) & FD_S_IFMT) != FD_S_IFSOCK)
		return NULL;
	sock = BPF_CORE_READ(f, private_data);
	return BPF_CORE_READ(sock, sk);
}

/* The same walk by plain loads, for typed (tp_btf) programs only: from the
 * trusted task pointer the verifier turns each load into a fault-safe one, with
 * no helper call. A pointer that BTF cannot type (an fd slot, private_data) is
 * given its type again by bpf_rdonly_cast, which the kernel inlines. */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/* The kernel can cast to void (btf id 0: memory read at any offset, the fd
 * slots here) from 6.17, which added this value. */
enum bpf_features___fd { BPF_FEAT_RDONLY_CAST_TO_VOID___fd = 0 };

static __always_inline struct file *fd__file_btf(long fd)
{
	struct fdtable *fdt = bpf_get_current_task_btf()->files->fdt;
	struct file *f;

	if (!fdt || fd < 0 || fd >= fdt->max_fds)
		return NULL;
	f = ((struct file **)bpf_rdonly_cast(fdt->fd, 0))[fd];
	return f ? bpf_rdonly_cast(f, bpf_core_type_id_kernel(struct file)) : NULL;
}

/* Whether the typed walk below can run: an older kernel reads the fd slot
 * with the helper (fd__file), and so the whole walk. */
#define FD_BTF_WALK() bpf_core_enum_value_exists(enum bpf_features___fd, \
						 BPF_FEAT_RDONLY_CAST_TO_VOID___fd)

/* The socket behind FD in the current task, or NULL when FD is no open
 * socket; typed, so its fields are plain loads too. Only where FD_BTF_WALK. */
static __always_inline struct sock *fd__sock_btf(long fd)
{
	struct file *f = fd__file_btf(fd);
	struct socket *sock;

	if (!f || (f->f_inode->i_mode & FD_S_IFMT) != FD_S_IFSOCK)
		return NULL;
	sock = bpf_rdonly_cast(f->private_data, bpf_core_type_id_kernel(struct socket));
	return sock->sk;
}

/* The socket behind FD in the current task, or NULL: by the typed walk where
 * it runs, else by probe reads (then untyped: read its fields with
 * BPF_CORE_READ). For a caller that runs in either kind of kernel. */
static __always_inline struct sock *fd__sock(long fd)
{
	if (FD_BTF_WALK())
		return fd__sock_btf(fd);
	return fd__sock_probe(fd);
}

#endif
