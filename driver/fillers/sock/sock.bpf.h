/* Helpers shared by the sock fillers: events without params, and the socket
 * option params of setsockopt/getsockopt (level, optname, the DYN value). */
#ifndef SOCK_BPF_H
#define SOCK_BPF_H

#include "../procnet/pn_net.bpf.h"

/* x86_64 native levels and SOL_SOCKET option names (asm-generic/socket.h; the
 * *TIMEO ones are the _OLD timeval forms that 64-bit time_t selects). */
#define NAT_SOL_SOCKET	   1
#define NAT_SOL_TCP	   6
#define NAT_SO_ERROR	   4
#define NAT_SO_LINGER	   13
#define NAT_SO_PEERCRED	   17
#define NAT_SO_RCVTIMEO	   20
#define NAT_SO_SNDTIMEO	   21
#define NAT_SO_ATTACH_FILTER 26
#define NAT_SO_PEERNAME	   28
#define NAT_SO_ATTACH_BPF  50
#define NAT_SO_MEMINFO	   55
#define NAT_SO_COOKIE	   57
#define NAT_SO_PEERGROUPS  59

/* Which member of sockopt_dynamic_param a value is (the byte before it). */
enum sockopt_idx {
	SOCKOPT_IDX_BYTES,
	SOCKOPT_IDX_ERRNO,
	SOCKOPT_IDX_UINT32,
	SOCKOPT_IDX_UINT64,
	SOCKOPT_IDX_TIMEVAL,
};



static __always_inline __u8 sockopt__level(int level)
{
	if (level == NAT_SOL_SOCKET)
		return PPM_SOCKOPT_LEVELS_SOL_SOCKET;
	if (level == NAT_SOL_TCP)
		return PPM_SOCKOPT_LEVELS_SOL_TCP;
	return PPM_SOCKOPT_LEVELS_UNKNOWN;
}

/* sysdig's option numbers are the native ones up to SO_ATTACH_BPF; three newer
 * ones were renumbered; options of other levels are all UNKNOWN. */
static __always_inline __u8 sockopt__name(int level, int name)
{
	if (level != NAT_SOL_SOCKET)
		return PPM_SOCKOPT_OPTIONS_UNKNOWN;
	if (name >= 1 && name <= NAT_SO_ATTACH_BPF)
		return name;
	switch (name) {
	case NAT_SO_PEERGROUPS: return PPM_SOCKOPT_OPTIONS_SO_PEERGROUPS;
	case NAT_SO_MEMINFO: return PPM_SOCKOPT_OPTIONS_SO_MEMINFO;
	case NAT_SO_COOKIE: return PPM_SOCKOPT_OPTIONS_SO_COOKIE;
	}
	return PPM_SOCKOPT_OPTIONS_UNKNOWN;
}

/* How sysdig decodes the value of option NAME at LEVEL: structs and unknown
 * options are raw bytes, the rest a number of the kind the option holds. */
static __always_inline enum sockopt_idx sockopt__kind(int level, int name)
{
	if (level != NAT_SOL_SOCKET)
		return SOCKOPT_IDX_BYTES;
	switch (name) {
	case NAT_SO_ERROR: return SOCKOPT_IDX_ERRNO;
	case NAT_SO_RCVTIMEO:
	case NAT_SO_SNDTIMEO: return SOCKOPT_IDX_TIMEVAL;
	case NAT_SO_COOKIE: return SOCKOPT_IDX_UINT64;
	case NAT_SO_LINGER:
	case NAT_SO_PEERCRED:
	case NAT_SO_ATTACH_FILTER:
	case NAT_SO_PEERNAME: return SOCKOPT_IDX_BYTES;
	}
	if (name >= 1 && name < NAT_SO_ATTACH_BPF)
		return SOCKOPT_IDX_UINT32;
	return SOCKOPT_IDX_BYTES;
}

/* The val param: the index byte of the value's kind, then the value read from
 * the user's OPTVAL (LEN bytes for raw ones). Empty when OPTVAL is unreadable. */
static __always_inline void sockopt__val(struct filler *f, int level, int name,
					 const void *optval, __u32 len)
{
	__u8 *p = &f->s->data[f->s->off & FRAME_MASK];
	enum sockopt_idx kind = sockopt__kind(level, name);
	struct __kernel_old_timeval tv;
	__u64 v = 0;
	__u32 n = 8;

	p[0] = kind;
	switch (kind) {
	case SOCKOPT_IDX_ERRNO:
	case SOCKOPT_IDX_UINT32:
		if (bpf_probe_read_user(&v, 4, optval))
			goto fault;
		/* SO_ERROR holds a positive errno: the param is an ERRNO. */
		if (kind == SOCKOPT_IDX_ERRNO)
			v = -(__s64)(int)v;
		else
			n = 4;
		break;
	case SOCKOPT_IDX_UINT64:
		if (bpf_probe_read_user(&v, 8, optval))
			goto fault;
		break;
	case SOCKOPT_IDX_TIMEVAL:
		if (bpf_probe_read_user(&tv, sizeof(tv), optval))
			goto fault;
		v = tv.tv_sec * 1000000000ULL + tv.tv_usec * 1000ULL;
		break;
	default:
		if (len > PPM_MAX_ARG_SIZE - 1)
			len = PPM_MAX_ARG_SIZE - 1;
		if (!optval)
			len = 0;
		/* The mask is what the verifier sees bounded; the barrier keeps clang
		 * from dropping it as redundant after the clamp. */
		barrier_var(len);
		len &= 0xffff;
		if (len && bpf_probe_read_user(p + 1, len, optval))
			goto fault;
		filler__commit(f, 1 + len);
		return;
	}
	__builtin_memcpy(p + 1, &v, 8);
	filler__commit(f, 1 + n);
	return;
fault:
	COUNT(n_drops_pf);
	filler__empty(f);
}

#endif
