/* close(fd) */
#include "../../frame.bpf.h"
#include "../../h2.bpf.h"
#include "../../tls.bpf.h"

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
	/* the number's next socket is no HTTP/2 connection yet */
	h2__forget(&f, filler__arg(&f, 0));
	/* nor a Go TLS connection's */
	if (settings.tls)
		go__forget(f.me >> 32, filler__arg(&f, 0));
	filler__s64(&f, f.ret);
	return filler__submit(&f);
}
