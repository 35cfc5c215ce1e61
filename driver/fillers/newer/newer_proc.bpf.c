/* Calls that reach into another process or the kernel: process_vm_readv and
 * process_vm_writev (memory of another pid), init_module and finit_module. */
#include "newer.bpf.h"

/* res, the target pid and both iovec counts (args 2 and 4). */
static __always_inline int newer__vm_rw(void *ctx, __u16 type, __u32 nparams)
{
	struct filler f;

	if (filler__begin(&f, ctx, type, nparams))
		return 0;
	filler__s64(&f, f.ret);
	filler__s64(&f, (int)filler__arg(&f, 0));
	filler__u64(&f, filler__arg(&f, 2));
	filler__u64(&f, filler__arg(&f, 4));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_process_vm_readv_x)
{
	return newer__vm_rw(ctx, PPME_SYSCALL_PROCESS_VM_READV_X,
			    PPME_SYSCALL_PROCESS_VM_READV_X_NPARAMS);
}

FILLER_EXIT(syscall_process_vm_writev_x)
{
	return newer__vm_rw(ctx, PPME_SYSCALL_PROCESS_VM_WRITEV_X,
			    PPME_SYSCALL_PROCESS_VM_WRITEV_X_NPARAMS);
}

FILLER_EXIT(syscall_init_module_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_INIT_MODULE_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__u64(&f, filler__arg(&f, 1));
	filler__str_user(&f, (const void *)filler__arg(&f, 2));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_finit_module_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_FINIT_MODULE_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__fd_arg(&f, 0);
	filler__str_user(&f, (const void *)filler__arg(&f, 1));
	filler__u32(&f, (__u32)filler__arg(&f, 2) & NAT_FINIT_KNOWN);
	return filler__submit(&f);
}
