/* setsockopt and getsockopt exits: res, fd, level, optname, the option's value
 * (a DYN param, see sock.bpf.h) and optlen. */
#include "sock.bpf.h"

/* setsockopt: val and optlen are what the caller passed. getsockopt (GET): the
 * buffer and the length the kernel wrote back (on failure what the caller had
 * there); both empty when the length cannot be read. */
static __always_inline int sockopt__exit(void *ctx, __u16 type, __u32 nparams, bool get)
{
	struct filler f;
	int level, name;
	__u32 len;

	if (filler__begin(&f, ctx, type, nparams))
		return 0;
	level = filler__arg(&f, 1);
	name = filler__arg(&f, 2);
	filler__s64(&f, f.ret);
	filler__s64(&f, (int)filler__arg(&f, 0));
	filler__u8(&f, sockopt__level(level));
	filler__u8(&f, sockopt__name(level, name));
	len = filler__arg(&f, 4);
	if (get && bpf_probe_read_user(&len, sizeof(len), (const void *)filler__arg(&f, 4))) {
		COUNT(n_drops_pf);
		filler__empty(&f);
		filler__empty(&f);
		return filler__submit(&f);
	}
	sockopt__val(&f, level, name, (const void *)filler__arg(&f, 3), len);
	filler__u32(&f, len);
	return filler__submit(&f);
}

FILLER_EXIT(socket_setsockopt_x)
{
	return sockopt__exit(ctx, PPME_SOCKET_SETSOCKOPT_X, PPME_SOCKET_SETSOCKOPT_X_NPARAMS, false);
}

FILLER_EXIT(socket_getsockopt_x)
{
	return sockopt__exit(ctx, PPME_SOCKET_GETSOCKOPT_X, PPME_SOCKET_GETSOCKOPT_X_NPARAMS, true);
}
