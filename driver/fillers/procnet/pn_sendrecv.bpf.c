/* sendto, recvfrom, sendmsg, recvmsg: sizes, data cut to the snaplen, and the
 * tuple when the caller names an address (as sysdig: none for connected sends). */
#include "pn_net.bpf.h"

/* A tuple for FD with the address at UADDR (LEN bytes) as the remote end; empty
 * without an address. */
static __always_inline void msg__tuple(struct filler *f, long fd, const void *uaddr, long len,
				       bool inbound)
{
	struct net_addr ua;

	if (!uaddr || len <= 0) {
		filler__empty(f);
		return;
	}
	net__read_uaddr(uaddr, len, &ua);
	net__tuple(f, net__sock(fd), &ua, inbound);
}

/* RES bytes of a call's buffer at UBUF, cut to the snaplen; empty on failure. */
static __always_inline void msg__data(struct filler *f, const void *ubuf)
{
	if (f->ret > 0)
		h2__buf_user(f, filler__arg(f, 0), ubuf, f->ret);
	else
		filler__empty(f);
}

/* The RES bytes a msg call moved through the IOVLEN iovecs at IOV, cut at
 * what h2__snaplen says; an opening buffer h2__note marks is copied again. */
static __always_inline void msg__iov_data(struct filler *f, long fd, const struct iovec *iov,
					  __u64 iovlen)
{
	__u32 snap = h2__snaplen(f, fd), off0 = f->s->off;
	struct pn_iovs v;

	net__iovs(f, iov, iovlen, true, f->ret < snap ? f->ret : snap, &v);
	filler__commit(f, v.copied);
	if (h2__note(f, fd, off0, snap, f->ret)) {
		filler__uncommit(f, off0);
		net__iovs(f, iov, iovlen, true,
			  f->ret < settings.h2_snaplen ? f->ret : settings.h2_snaplen, &v);
		filler__commit(f, v.copied);
	}
}

/* sendto(fd, buf, len, flags, addr, addrlen) */
FILLER(socket_sendto_e)
{
	struct filler f;
	int fd;

	if (FILLER_BEGIN(&f, ctx, SOCKET_SENDTO_E))
		return 0;
	fd = filler__arg(&f, 0);
	filler__s64(&f, fd);
	filler__u32(&f, filler__arg(&f, 2));
	msg__tuple(&f, fd, (void *)filler__arg(&f, 4), (int)filler__arg(&f, 5), false);
	return filler__submit(&f);
}

FILLER_EXIT(socket_sendto_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SOCKET_SENDTO_X))
		return 0;
	filler__s64(&f, f.ret);
	msg__data(&f, (void *)filler__arg(&f, 1));
	return filler__submit(&f);
}

/* recvfrom(fd, buf, len, flags, addr, addrlen) */
FILLER(socket_recvfrom_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SOCKET_RECVFROM_E))
		return 0;
	filler__s64(&f, (int)filler__arg(&f, 0));
	filler__u32(&f, filler__arg(&f, 2));
	return filler__submit(&f);
}

/* res, data, tuple: the sender (the address the kernel wrote back) -> us. */
FILLER_EXIT(socket_recvfrom_x)
{
	const int *ulen;
	struct filler f;
	int len = 0;

	if (FILLER_BEGIN(&f, ctx, SOCKET_RECVFROM_X))
		return 0;
	filler__s64(&f, f.ret);
	msg__data(&f, (void *)filler__arg(&f, 1));
	ulen = (const int *)filler__arg(&f, 5);
	if (f.ret >= 0 && ulen && bpf_probe_read_user(&len, sizeof(len), ulen))
		COUNT(n_drops_pf);
	msg__tuple(&f, (int)filler__arg(&f, 0), f.ret >= 0 ? (void *)filler__arg(&f, 4) : NULL,
		   len, true);
	return filler__submit(&f);
}

/* sendmsg(fd, msg, flags): fd, size (all iovecs), tuple (msg_name). */
FILLER(socket_sendmsg_e)
{
	struct user_msghdr m;
	struct pn_iovs v;
	struct filler f;
	int fd;

	if (FILLER_BEGIN(&f, ctx, SOCKET_SENDMSG_E))
		return 0;
	fd = filler__arg(&f, 0);
	filler__s64(&f, fd);
	net__msghdr((void *)filler__arg(&f, 1), &m);
	filler__u32(&f, net__iovs(&f, m.msg_iov, m.msg_iovlen, false, 0, &v));
	msg__tuple(&f, fd, m.msg_name, m.msg_namelen, false);
	return filler__submit(&f);
}

/* res, data: the bytes sent, from the iovecs, cut to the snaplen. */
FILLER_EXIT(socket_sendmsg_x)
{
	struct user_msghdr m;
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SOCKET_SENDMSG_X))
		return 0;
	filler__s64(&f, f.ret);
	if (f.ret > 0) {
		net__msghdr((void *)filler__arg(&f, 1), &m);
		msg__iov_data(&f, filler__arg(&f, 0), m.msg_iov, m.msg_iovlen);
	} else {
		filler__empty(&f);
	}
	return filler__submit(&f);
}

FILLER(socket_recvmsg_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SOCKET_RECVMSG_E))
		return 0;
	filler__s64(&f, (int)filler__arg(&f, 0));
	return filler__submit(&f);
}

/* res, size (all iovecs), data (the bytes received, cut to the snaplen), tuple
 * (the sender, from msg_name when the caller gave one and the kernel filled it). */
FILLER_EXIT(socket_recvmsg_x)
{
	struct user_msghdr m;
	struct pn_iovs v;
	struct filler f;
	int fd;

	if (FILLER_BEGIN(&f, ctx, SOCKET_RECVMSG_X))
		return 0;
	fd = filler__arg(&f, 0);
	filler__s64(&f, f.ret);
	net__msghdr((void *)filler__arg(&f, 1), &m);
	filler__u32(&f, net__iovs(&f, m.msg_iov, m.msg_iovlen, false, 0, &v));
	if (f.ret > 0)
		msg__iov_data(&f, fd, m.msg_iov, m.msg_iovlen);
	else
		filler__empty(&f);
	msg__tuple(&f, fd, f.ret >= 0 ? m.msg_name : NULL, m.msg_namelen, true);
	return filler__submit(&f);
}
