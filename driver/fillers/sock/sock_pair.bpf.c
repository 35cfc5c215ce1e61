/* socketpair(domain, type, protocol, sv). */
#include "sock.bpf.h"

/* domain, type and protocol as passed: type keeps its SOCK_* flags. */
FILLER(socket_socketpair_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SOCKET_SOCKETPAIR_E))
		return 0;
	filler__u32(&f, filler__arg(&f, 0));
	filler__u32(&f, filler__arg(&f, 1));
	filler__u32(&f, filler__arg(&f, 2));
	return filler__submit(&f);
}

/* res, fd1, fd2, source (the struct sock of fd1) and peer (its unix peer, the
 * sock of fd2). A failed call sends zeros, as sysdig did. */
FILLER_EXIT(socket_socketpair_x)
{
	struct sock *sk = NULL, *peer = NULL;
	int fds[2] = {};
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SOCKET_SOCKETPAIR_X))
		return 0;
	if (f.ret >= 0) {
		if (bpf_probe_read_user(fds, sizeof(fds), (const void *)filler__arg(&f, 3))) {
			COUNT(n_drops_pf);
			fds[0] = fds[1] = 0;
		} else {
			sk = net__sock(fds[0]);
		}
	}
	if (sk)
		peer = BPF_CORE_READ((struct unix_sock *)sk, peer);
	filler__s64(&f, f.ret);
	filler__s64(&f, fds[0]);
	filler__s64(&f, fds[1]);
	filler__u64(&f, (__u64)sk);
	filler__u64(&f, (__u64)peer);
	return filler__submit(&f);
}
