/* openat2(dirfd, path, how, size): flags, mode and resolve come from the struct
 * open_how in user memory. sysdig 0.29.3's openat2 exit event has no dev param. */
#include "fs.bpf.h"

/* The three how params; empty when open_how cannot be read. */
static __always_inline void fs__open_how(struct filler *f)
{
	struct open_how how;
	const void *uhow = (const void *)filler__arg(f, 2);

	if (!uhow || bpf_probe_read_user(&how, sizeof(how), uhow)) {
		if (uhow)
			COUNT(n_drops_pf);
		filler__empty(f);
		filler__empty(f);
		filler__empty(f);
		return;
	}
	filler__u32(f, fs__open_flags(how.flags));
	filler__u32(f, fs__open_mode(how.flags, how.mode));
	filler__u32(f, fs__resolve_flags(how.resolve));
}

FILLER(syscall_openat2_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_OPENAT2_E))
		return 0;
	filler__dirfd_arg(&f, 0);
	filler__str_user(&f, (const void *)filler__arg(&f, 1));
	fs__open_how(&f);
	return filler__submit(&f);
}

FILLER_EXIT(syscall_openat2_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_OPENAT2_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__dirfd_arg(&f, 0);
	filler__str_user(&f, (const void *)filler__arg(&f, 1));
	fs__open_how(&f);
	return filler__submit(&f);
}
