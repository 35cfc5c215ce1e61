/* seccomp(op, flags, args): op as passed, res. bpf(cmd, attr, size): cmd as
 * passed; the exit's single DYN param (bpf_dynamic_param) is the new fd (index
 * 0) when BPF_MAP_CREATE or BPF_PROG_LOAD succeeded, else res (index 1). */
#include "cred.bpf.h"

#define NAT_BPF_MAP_CREATE 0
#define NAT_BPF_PROG_LOAD 5
#define BPF_DYN_FD 0
#define BPF_DYN_RES 1

FILLER(syscall_seccomp_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_SECCOMP_E))
		return 0;
	/* op is an unsigned int: the register's upper half is not part of it. */
	filler__u64(&f, (__u32)filler__arg(&f, 0));
	return filler__submit(&f);
}

CRED_FILLER(FILLER_EXIT(syscall_seccomp_x), cred__simple, SYSCALL_SECCOMP_X, CRED_RES)

FILLER(syscall_bpf_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_BPF_E))
		return 0;
	/* cmd is an int, like an fd. */
	filler__s64(&f, (int)filler__arg(&f, 0));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_bpf_x)
{
	struct filler f;
	int cmd;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_BPF_X))
		return 0;
	cmd = filler__arg(&f, 0);
	if (f.ret >= 0 && (cmd == NAT_BPF_MAP_CREATE || cmd == NAT_BPF_PROG_LOAD))
		filler__dyn(&f, BPF_DYN_FD, f.ret, 8);
	else
		filler__dyn(&f, BPF_DYN_RES, f.ret, 8);
	return filler__submit(&f);
}
