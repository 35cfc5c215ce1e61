/* execve(filename, argv, envp) and execveat(dirfd, pathname, argv, envp, flags).
 * The exit event describes the new image (or, on failure, the unchanged task with
 * the argv/envp it tried): main part, then cwd+stats, cgroups, env+rest. */
#include "pn_proc.bpf.h"

#define PN_AT_SYMLINK_NOFOLLOW 0x100
#define PN_AT_EMPTY_PATH 0x1000

/* Main part: res, exe, args, tid, pid, ptid. ARGV_ARG: which syscall arg is argv. */
static __always_inline int execve__main(void *ctx, __u16 type, __u32 nparams, int argv_arg)
{
	struct task_struct *t = proc__current();
	struct filler f;

	if (filler__begin(&f, ctx, type, nparams))
		return 0;
	filler__s64(&f, f.ret);
	if (f.ret < 0)
		proc__exe_args_argv(&f, (const char *const *)filler__arg(&f, argv_arg));
	else
		proc__exe_args(&f, t);
	proc__ids(&f, t);
	return filler__next_part(&f, 1);
}

/* env, tty, pgid, loginuid, flags. ENVP_ARG: which syscall arg is envp. */
static __always_inline int execve__part3(void *ctx, __u16 type, int envp_arg)
{
	struct task_struct *t = proc__current();
	struct filler f;

	if (filler__resume(&f, ctx, type))
		return 0;
	if (f.ret < 0)
		proc__strarray_user(&f, (const char *const *)filler__arg(&f, envp_arg), 0);
	else
		proc__env(&f, t);
	proc__tty(&f, t);
	proc__pgid(&f, t);
	filler__u32(&f, BPF_CORE_READ(t, loginuid.val));
	filler__u32(&f, pn__exe_writable(t) ? PPM_EXECVE_FLAGS_EXE_WRITABLE : 0);
	return filler__submit(&f);
}

FILLER(syscall_execve_19_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_EXECVE_19_E))
		return 0;
	filler__str_user(&f, (void *)filler__arg(&f, 0));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_execve_19_x)
{
	return execve__main(ctx, PPME_SYSCALL_EXECVE_19_X, PPME_SYSCALL_EXECVE_19_X_NPARAMS, 1);
}

FILLER_EXIT(syscall_execve_19_x_part1)
{
	return proc__part_cwd_stats(ctx, PPME_SYSCALL_EXECVE_19_X);
}

FILLER_EXIT(syscall_execve_19_x_part2)
{
	return proc__part_cgroups(ctx, PPME_SYSCALL_EXECVE_19_X);
}

FILLER_EXIT(syscall_execve_19_x_part3)
{
	return execve__part3(ctx, PPME_SYSCALL_EXECVE_19_X, 2);
}

FILLER(syscall_execveat_e)
{
	unsigned long fl;
	struct filler f;
	__u32 flags = 0;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_EXECVEAT_E))
		return 0;
	filler__s64(&f, (int)filler__arg(&f, 0));
	filler__str_user(&f, (void *)filler__arg(&f, 1));
	fl = filler__arg(&f, 4);
	if (fl & PN_AT_EMPTY_PATH)
		flags |= PPM_EXECVEAT_FLAGS_AT_EMPTY_PATH;
	if (fl & PN_AT_SYMLINK_NOFOLLOW)
		flags |= PPM_EXECVEAT_FLAGS_AT_SYMLINK_NOFOLLOW;
	filler__u32(&f, flags);
	return filler__submit(&f);
}

FILLER_EXIT(syscall_execveat_x)
{
	return execve__main(ctx, PPME_SYSCALL_EXECVEAT_X, PPME_SYSCALL_EXECVEAT_X_NPARAMS, 2);
}

FILLER_EXIT(syscall_execveat_x_part1)
{
	return proc__part_cwd_stats(ctx, PPME_SYSCALL_EXECVEAT_X);
}

FILLER_EXIT(syscall_execveat_x_part2)
{
	return proc__part_cgroups(ctx, PPME_SYSCALL_EXECVEAT_X);
}

FILLER_EXIT(syscall_execveat_x_part3)
{
	return execve__part3(ctx, PPME_SYSCALL_EXECVEAT_X, 3);
}
