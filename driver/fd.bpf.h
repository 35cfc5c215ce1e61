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

#endif
