/* close(fd) */
#include "close_x.bpf.h"

FILLER(syscall_close_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_CLOSE_E))
		return 0;
	filler__s64(&f, (int)filler__arg(&f, 0));
	return filler__submit(&f);
}

FILLER_EXIT(syscall_close_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_CLOSE_X))
		return 0;
	close_x__put(&f, filler__arg(&f, 0), f.ret);
	return filler__submit(&f);
}
