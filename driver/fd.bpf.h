/* The current task's open files, for fillers that describe an fd (device of an
 * opened file, addresses of a socket). */
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

#endif
