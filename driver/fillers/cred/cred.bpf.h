/* Helpers shared by the credential, session, limit, namespace and privileged-call
 * fillers: events with res alone or an id, DYN params, and the native ->
 * PPM conversions sysdig applies to their args. */
#ifndef CRED_BPF_H
#define CRED_BPF_H

#include "../../frame.bpf.h"
#include "schema_flags.h"

/* Highest native RLIMIT_* (RLIMIT_RTTIME): 0..15 have the same PPM values. */
#define NAT_RLIMIT_LAST 15

/* mount(2): flags may carry the old magic number in their upper half
 * (MS_MGC_VAL), which the kernel drops; sysdig drops it too. */
#define NAT_MS_MGC_MSK 0xffff0000UL
#define NAT_MS_MGC_VAL 0xc0ed0000UL

static const char cred_null_str[] = "(NULL)";

/* What an event filled by cred__simple carries. */
enum cred_simple {
	CRED_RES,	/* res alone: an ERRNO or a PID, both s64 */
	CRED_ID,	/* the uid or gid the call returned, as a u32 */
};

static __always_inline int cred__simple(void *ctx, __u16 type, __u32 nparams,
					enum cred_simple what)
{
	struct filler f;

	if (filler__begin(&f, ctx, type, nparams))
		return 0;
	if (what == CRED_RES)
		filler__s64(&f, f.ret);
	else if (what == CRED_ID)
		filler__u32(&f, f.ret);
	return filler__submit(&f);
}

/* The filler program PROG of event ID is HELPER(ctx, type, nparams, ...) alone:
 * one line per event instead of a four-line wrapper each. */
#define CRED_FILLER(prog, helper, ID, ...) \
	prog { return helper(ctx, PPME_##ID, PPME_##ID##_NPARAMS, ##__VA_ARGS__); }

/* A DYN param: the index of its type in the event's dyntype table (one byte),
 * then the value in LEN bytes (1 or 8). */
static __always_inline void filler__dyn(struct filler *f, __u8 idx, __u64 v, __u32 len)
{
	struct scratch *s = f->s;

	s->data[s->off & FRAME_MASK] = idx;
	if (len == 1)
		s->data[(s->off + 1) & FRAME_MASK] = (__u8)v;
	else
		__builtin_memcpy(&s->data[(s->off + 1) & FRAME_MASK], &v, sizeof(v));
	filler__commit(f, 1 + (len == 1 ? 1 : sizeof(v)));
}

/* A string arg that may be NULL (mount's dev and type, quotactl's special): NULL
 * is sent as "(NULL)", as sysdig's kernel module did (its BPF probe dropped the
 * event instead); sysdig -r prints an empty string param as leftover bytes. */
static __always_inline void filler__str_user_or_null(struct filler *f, const void *uptr)
{
	if (uptr)
		filler__str_user(f, uptr);
	else
		filler__str_kernel(f, cred_null_str);
}

/* pid_t args are C ints: the register's upper half is not part of them. */
static __always_inline void filler__pid_arg(struct filler *f, int i)
{
	filler__s64(f, (int)filler__arg(f, i));
}

static __always_inline __u8 cred__rlimit_resource(unsigned long r)
{
	return r <= NAT_RLIMIT_LAST ? r : PPM_RLIMIT_RESOURCES_RLIMIT_UNKNOWN;
}

/* The native CLONE_* bit number behind each PPM_CLONE_FLAGS_* bit (-1: a PPM bit
 * with no native flag, such as sysdig's own thread-table states, or
 * CLONE_STOPPED, which this kernel no longer has). */
static const __s8 cred_clone_native_bit[29] = {
	10, 9, 31, 27, 30, 17, 29, 26, 15, 20, 13, 11, 18, 16, 23, 8,
	-1, -1, -1, -1, 28, -1, -1, 21, 24, 19, -1, 14, 25,
};

/* Native clone/unshare/setns flags -> PPM_CLONE_FLAGS_* bits. */
static __always_inline __u32 cred__clone_flags(unsigned long native)
{
	__u32 ppm = 0;

	for (int i = 0; i < 29; i++) {
		__s8 b = cred_clone_native_bit[i];

		if (b >= 0 && (native >> b) & 1)
			ppm |= 1U << i;
	}
	return ppm;
}

/* Native PTRACE_* request -> PPM_PTRACE_REQUESTS_*. 0 (TRACEME) .. 9 (SINGLESTEP)
 * are one higher in PPM; 0x4200 (SETOPTIONS) .. 0x420b (SETSIGMASK) are a run
 * from 14; the rest, below 34, by table (0: unknown). */
static const __u8 cred_ptrace_low[34] = {
	[12] = PPM_PTRACE_REQUESTS_PTRACE_GETREGS,
	[13] = PPM_PTRACE_REQUESTS_PTRACE_SETREGS,
	[14] = PPM_PTRACE_REQUESTS_PTRACE_GETFPREGS,
	[15] = PPM_PTRACE_REQUESTS_PTRACE_SETFPREGS,
	[16] = PPM_PTRACE_REQUESTS_PTRACE_ATTACH,
	[17] = PPM_PTRACE_REQUESTS_PTRACE_DETACH,
	[18] = PPM_PTRACE_REQUESTS_PTRACE_GETFPXREGS,
	[19] = PPM_PTRACE_REQUESTS_PTRACE_SETFPXREGS,
	[21] = PPM_PTRACE_REQUESTS_PTRACE_OLDSETOPTIONS,
	[24] = PPM_PTRACE_REQUESTS_PTRACE_SYSCALL,
	[25] = PPM_PTRACE_REQUESTS_PTRACE_GET_THREAD_AREA,
	[26] = PPM_PTRACE_REQUESTS_PTRACE_SET_THREAD_AREA,
	[30] = PPM_PTRACE_REQUESTS_PTRACE_ARCH_PRCTL,
	[31] = PPM_PTRACE_REQUESTS_PTRACE_SYSEMU,
	[32] = PPM_PTRACE_REQUESTS_PTRACE_SYSEMU_SINGLESTEP,
	[33] = PPM_PTRACE_REQUESTS_PTRACE_SINGLEBLOCK,
};

static __always_inline __u16 cred__ptrace_request(unsigned long req)
{
	if (req <= 9)
		return req + 1;
	if (req < 34)
		return cred_ptrace_low[req];
	if (req >= 0x4200 && req <= 0x420b)
		return req - 0x4200 + PPM_PTRACE_REQUESTS_PTRACE_SETOPTIONS;
	return PPM_PTRACE_REQUESTS_PTRACE_UNKNOWN;
}

#endif
