/* Shared pieces of the agent's own events (codes 336 and up): their enter
 * events carry no params, their exit events everything. */
#ifndef NEWER_BPF_H
#define NEWER_BPF_H

#include "fillers/fs/fs.bpf.h"

/* The bits each flags param keeps: the kernel's values, which the flagsets in
 * events.def name as they are. */
#define NAT_MFD_KNOWN	     0x1f
#define NAT_AT_KNOWN	     0x8f00	/* AT_SYMLINK_NOFOLLOW .. AT_EMPTY_PATH, AT_RECURSIVE */
#define NAT_OPEN_TREE_KNOWN  (NAT_AT_KNOWN | 0x1 | NAT_O_CLOEXEC)
#define NAT_CLOSE_RANGE_KNOWN 0x6
#define NAT_FINIT_KNOWN	     0x7

/* The result, then a dirfd and the path relative to it (args DFD and DFD + 1):
 * the path is read on exit, when the kernel has faulted its page in. */
static __always_inline void newer__res_dirfd_path(struct filler *f, int dfd)
{
	filler__s64(f, f->ret);
	filler__dirfd_arg(f, dfd);
	filler__str_user(f, (const void *)filler__arg(f, dfd + 1));
}

#endif
