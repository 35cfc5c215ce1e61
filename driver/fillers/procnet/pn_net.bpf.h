/* Sockets for the network fillers: the socket behind an fd, addresses in sysdig's
 * SOCKADDR / SOCKTUPLE encodings (docs/formats.md, "Socket addresses": family byte, addresses in
 * network order, ports in host order), message iovecs. */
#ifndef PN_NET_BPF_H
#define PN_NET_BPF_H

#include "../../fd.bpf.h"
#include "../../frame.bpf.h"
#include "../../h2.bpf.h"
#include "schema_flags.h"

#define PN_AF_UNIX 1
#define PN_AF_INET 2
#define PN_AF_INET6 10
#define PN_S_IFMT 0170000
#define PN_S_IFSOCK 0140000
#define PN_UNIX_PATH_MAX 108
/* sysdig reads at most this many iovecs of a message. */
#define PN_IOV_MAX 32

/* The struct socket behind FD of the current task, or NULL if FD is not a socket. */
static __always_inline struct socket *net__socket(long fd)
{
	struct file *file = fd__file(fd);

	if (!file || (BPF_CORE_READ(file, f_inode, i_mode) & PN_S_IFMT) != PN_S_IFSOCK)
		return NULL;
	return BPF_CORE_READ(file, private_data);
}

static __always_inline struct sock *net__sock(long fd)
{
	struct socket *sock = net__socket(fd);

	return sock ? BPF_CORE_READ(sock, sk) : NULL;
}

/* A native address family as sysdig's PPM_AF_* value: the same numbers for every
 * family sysdig knows (0..26, 29..39), AF_UNSPEC for the others. */
static __always_inline __u32 net__ppm_family(__u32 af)
{
	if (af > PPM_SOCKET_FAMILIES_AF_NFC || af == 27 || af == 28)
		return PPM_SOCKET_FAMILIES_AF_UNSPEC;
	return af;
}

static __always_inline __u16 net__ntohs(__u16 v)
{
	return __builtin_bswap16(v);
}

/* A sockaddr from user memory, decoded once for SOCKADDR and SOCKTUPLE params. */
struct net_addr {
	__u16 family;		/* native AF_*, 0 when absent or unreadable */
	__u16 port;		/* host order */
	__u8 ip[16];		/* network order: 4 bytes for AF_INET */
	const void *path;	/* AF_UNIX: sun_path in user memory */
	__u32 path_max;
};

static __always_inline void net__read_uaddr(const void *uaddr, long len, struct net_addr *a)
{
	struct sockaddr_in6 in6;
	struct sockaddr_in in;

	__builtin_memset(a, 0, sizeof(*a));
	if (!uaddr || len < 2)
		return;
	if (bpf_probe_read_user(&a->family, sizeof(a->family), uaddr)) {
		COUNT(n_drops_pf);
		a->family = 0;
		return;
	}
	switch (a->family) {
	case PN_AF_INET:
		if (len < sizeof(in) - 8 || bpf_probe_read_user(&in, 8, uaddr))
			break;
		a->port = net__ntohs(in.sin_port);
		__builtin_memcpy(a->ip, &in.sin_addr, 4);
		return;
	case PN_AF_INET6:
		if (len < sizeof(in6) - 4 || bpf_probe_read_user(&in6, sizeof(in6) - 4, uaddr))
			break;
		a->port = net__ntohs(in6.sin6_port);
		__builtin_memcpy(a->ip, &in6.sin6_addr, 16);
		return;
	case PN_AF_UNIX:
		a->path = (const char *)uaddr + 2;
		a->path_max = len - 2 > PN_UNIX_PATH_MAX ? PN_UNIX_PATH_MAX : len - 2;
		return;
	}
	a->family = 0;
}

/* A SOCKADDR param: family, then ip4+port, ip6+port or the unix path. Empty for
 * other families. */
static __always_inline void net__sockaddr(struct filler *f, const struct net_addr *a)
{
	__u8 *p = &f->s->data[f->s->off & FRAME_MASK];
	long n;

	switch (a->family) {
	case PN_AF_INET:
		p[0] = PN_AF_INET;
		__builtin_memcpy(p + 1, a->ip, 4);
		__builtin_memcpy(p + 5, &a->port, 2);
		filler__commit(f, 7);
		return;
	case PN_AF_INET6:
		p[0] = PN_AF_INET6;
		__builtin_memcpy(p + 1, a->ip, 16);
		__builtin_memcpy(p + 17, &a->port, 2);
		filler__commit(f, 19);
		return;
	case PN_AF_UNIX:
		p[0] = PN_AF_UNIX;
		n = bpf_probe_read_user_str(p + 1, a->path_max & 0x7f, a->path);
		if (n <= 0) {
			p[1] = 0;
			n = 1;
		}
		filler__commit(f, 1 + n);
		return;
	}
	filler__empty(f);
}

static __always_inline void net__sockaddr_user(struct filler *f, const void *uaddr, long len)
{
	struct net_addr a;

	net__read_uaddr(uaddr, len, &a);
	net__sockaddr(f, &a);
}

/* The local port as getsockname() reports it: inet_sport, which a refused
 * connect keeps while it releases the bound skc_num. */
static __always_inline __u16 net__local_port(struct sock *sk)
{
	return net__ntohs(BPF_CORE_READ((struct inet_sock *)sk, inet_sport));
}

/* Whether the 16 bytes at IP are an IPv4-mapped IPv6 address (::ffff:a.b.c.d). */
static __always_inline bool net__v4mapped(const __u8 *ip)
{
	const __u32 *w = (const __u32 *)ip;

	return w[0] == 0 && w[1] == 0 && w[2] == __builtin_bswap32(0xffff);
}

/* The unix path of SK's bound address, or of its peer's when it has none (the
 * connecting end of a stream), into P (at most PN_UNIX_PATH_MAX + 1 bytes). */
static __always_inline long net__unix_path(__u8 *p, struct sock *sk, struct sock *peer)
{
	struct unix_sock *us = (struct unix_sock *)sk;
	struct unix_address *addr = BPF_CORE_READ(us, addr);
	long n;

	if (!addr && peer)
		addr = BPF_CORE_READ((struct unix_sock *)peer, addr);
	if (!addr)
		return 0;
	n = bpf_probe_read_kernel_str(p, PN_UNIX_PATH_MAX + 1,
				      __builtin_preserve_access_index(&addr->name[0].sun_path));
	return n > 0 ? n : 0;
}

/* A SOCKTUPLE param for socket SK. The remote end is UA when given (the address
 * the caller named: connect, sendto, recvfrom's source), else the socket's peer.
 * INBOUND (accept, receive): the remote end is the source, as in sysdig. */
static __always_inline void net__tuple(struct filler *f, struct sock *sk, const struct net_addr *ua,
				       bool inbound)
{
	__u8 *p = &f->s->data[f->s->off & FRAME_MASK];
	__u8 lip[16] = {}, rip[16] = {};
	__u16 lport, rport, family;
	struct sock *peer;
	bool remote_ua;
	long n;

	if (!sk) {
		filler__empty(f);
		return;
	}
	family = BPF_CORE_READ(sk, __sk_common.skc_family);
	remote_ua = ua && ua->family == family;
	switch (family) {
	case PN_AF_INET:
		bpf_core_read(lip, 4, &sk->__sk_common.skc_rcv_saddr);
		lport = net__local_port(sk);
		if (remote_ua) {
			__builtin_memcpy(rip, ua->ip, 4);
			rport = ua->port;
		} else {
			bpf_core_read(rip, 4, &sk->__sk_common.skc_daddr);
			rport = net__ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));
		}
		goto v4;
	case PN_AF_INET6:
		bpf_core_read(lip, 16, &sk->__sk_common.skc_v6_rcv_saddr);
		lport = net__local_port(sk);
		if (remote_ua) {
			__builtin_memcpy(rip, ua->ip, 16);
			rport = ua->port;
		} else {
			bpf_core_read(rip, 16, &sk->__sk_common.skc_v6_daddr);
			rport = net__ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));
		}
		if (net__v4mapped(lip) && net__v4mapped(rip)) {
			/* IPv4 over an IPv6 socket: sysdig reports it as IPv4. */
			__builtin_memcpy(lip, lip + 12, 4);
			__builtin_memcpy(rip, rip + 12, 4);
			goto v4;
		}
		p[0] = PN_AF_INET6;
		if (inbound) {
			__builtin_memcpy(p + 1, rip, 16);
			__builtin_memcpy(p + 17, &rport, 2);
			__builtin_memcpy(p + 19, lip, 16);
			__builtin_memcpy(p + 35, &lport, 2);
		} else {
			__builtin_memcpy(p + 1, lip, 16);
			__builtin_memcpy(p + 17, &lport, 2);
			__builtin_memcpy(p + 19, rip, 16);
			__builtin_memcpy(p + 35, &rport, 2);
		}
		filler__commit(f, 37);
		return;
	case PN_AF_UNIX: {
		__u64 self = (__u64)sk, other;

		peer = BPF_CORE_READ((struct unix_sock *)sk, peer);
		other = (__u64)peer;
		p[0] = PN_AF_UNIX;
		/* sysdig's order: inbound self -> peer, outbound peer -> self. */
		__builtin_memcpy(p + 1, inbound ? &self : &other, 8);
		__builtin_memcpy(p + 9, inbound ? &other : &self, 8);
		if (remote_ua) {
			n = bpf_probe_read_user_str(p + 17, ua->path_max & 0x7f, ua->path);
			n = n > 0 ? n : 0;
		} else {
			n = net__unix_path(p + 17, sk, peer);
		}
		if (n <= 0) {
			p[17] = 0;
			n = 1;
		}
		filler__commit(f, 17 + n);
		return;
	}
	}
	filler__empty(f);
	return;
v4:
	p[0] = PN_AF_INET;
	if (inbound) {
		__builtin_memcpy(p + 1, rip, 4);
		__builtin_memcpy(p + 5, &rport, 2);
		__builtin_memcpy(p + 7, lip, 4);
		__builtin_memcpy(p + 11, &lport, 2);
	} else {
		__builtin_memcpy(p + 1, lip, 4);
		__builtin_memcpy(p + 5, &lport, 2);
		__builtin_memcpy(p + 7, rip, 4);
		__builtin_memcpy(p + 11, &rport, 2);
	}
	filler__commit(f, 13);
}

/* A message's iovecs: their total length, and their bytes (up to LIMIT) copied
 * into the param being written. */
struct pn_iovs {
	const struct iovec *iov;
	__u64 total;
	__u32 off;	/* the param's offset in the frame */
	__u32 copied;
	__u32 limit;
	bool copy;
};

static long net__iov_one(__u32 i, void *arg)
{
	struct pn_iovs *v = arg;
	struct scratch *s = scratch__get();
	struct iovec iov;
	__u32 n;

	if (!s || bpf_probe_read_user(&iov, sizeof(iov), &v->iov[i])) {
		COUNT(n_drops_pf);
		return 1;
	}
	v->total += iov.iov_len;
	if (!v->copy || v->copied >= v->limit)
		return 0;
	n = v->limit - v->copied;
	if (iov.iov_len < n)
		n = iov.iov_len;
	if (n > PPM_MAX_ARG_SIZE)
		n = PPM_MAX_ARG_SIZE;
	if (n && bpf_probe_read_user(&s->data[(v->off + v->copied) & FRAME_MASK], n, iov.iov_base)) {
		COUNT(n_drops_pf);
		v->limit = v->copied;	/* keep what was read so far */
		return 1;
	}
	v->copied += n;
	return 0;
}

/* Walks the COUNT iovecs at IOV. COPY: their bytes (up to LIMIT) go to the current
 * param position (the caller commits v->copied). Returns the total length. */
static __always_inline __u64 net__iovs(struct filler *f, const struct iovec *iov, __u64 count,
				       bool copy, __u32 limit, struct pn_iovs *v)
{
	__builtin_memset(v, 0, sizeof(*v));
	v->iov = iov;
	v->off = f->s->off;
	v->copy = copy;
	v->limit = limit;
	if (iov && count)
		bpf_loop(count > PN_IOV_MAX ? PN_IOV_MAX : count, net__iov_one, v, 0);
	return v->total;
}

/* The user msghdr at UMSG; zeroed if unreadable. */
static __always_inline void net__msghdr(const void *umsg, struct user_msghdr *m)
{
	__builtin_memset(m, 0, sizeof(*m));
	if (!umsg || bpf_probe_read_user(m, sizeof(*m), umsg)) {
		if (umsg)
			COUNT(n_drops_pf);
		__builtin_memset(m, 0, sizeof(*m));
	}
}

#endif
