/* close's exit event's params, and what the end of FD ends with it: for
 * close's exit filler and for close_enter, which sends closes itself in
 * request mode (dispatch.bpf.c, close__at_enter). RET: the close's result. */
#ifndef CLOSE_X_BPF_H
#define CLOSE_X_BPF_H

#include "../../frame.bpf.h"
#include "../../h2.bpf.h"
#include "../../tls.bpf.h"

static __always_inline void close_x__put(struct filler *f, long fd, long ret)
{
	/* the number's next socket is no HTTP/2 connection yet */
	h2__forget(f, fd);
	/* nor a Go TLS connection's */
	if (settings.tls)
		go__forget(f->me >> 32, fd);
	filler__s64(f, ret);
}

#endif
