/* setresuid, setresgid (the three ids asked for, -1 meaning "unchanged" is sent
 * as 0xffffffff like any id), getuid, geteuid, getgid, getegid (the id returned)
 * and getresuid, getresgid (the three ids the call wrote back). */
#include "cred.bpf.h"

/* The three u32 ids of a setres*id call's args. */
static __always_inline int ids__set_enter(void *ctx, __u16 type, __u32 nparams)
{
	struct filler f;

	if (filler__begin(&f, ctx, type, nparams))
		return 0;
	filler__u32(&f, filler__arg(&f, 0));
	filler__u32(&f, filler__arg(&f, 1));
	filler__u32(&f, filler__arg(&f, 2));
	return filler__submit(&f);
}

/* res, then the id at each of the three user pointers; sysdig reads them even
 * when the call failed, and an unreadable one is 0. */
static __always_inline int ids__getres_exit(void *ctx, __u16 type, __u32 nparams)
{
	struct filler f;

	if (filler__begin(&f, ctx, type, nparams))
		return 0;
	filler__s64(&f, f.ret);
	for (int i = 0; i < 3; i++) {
		__u32 id = 0;

		bpf_probe_read_user(&id, sizeof(id), (const void *)filler__arg(&f, i));
		filler__u32(&f, id);
	}
	return filler__submit(&f);
}

CRED_FILLER(FILLER(syscall_setresuid_e), ids__set_enter, SYSCALL_SETRESUID_E)
CRED_FILLER(FILLER_EXIT(syscall_setresuid_x), cred__simple, SYSCALL_SETRESUID_X, CRED_RES)
CRED_FILLER(FILLER(syscall_setresgid_e), ids__set_enter, SYSCALL_SETRESGID_E)
CRED_FILLER(FILLER_EXIT(syscall_setresgid_x), cred__simple, SYSCALL_SETRESGID_X, CRED_RES)

CRED_FILLER(FILLER_EXIT(syscall_getuid_x), cred__simple, SYSCALL_GETUID_X, CRED_ID)
CRED_FILLER(FILLER_EXIT(syscall_geteuid_x), cred__simple, SYSCALL_GETEUID_X, CRED_ID)
CRED_FILLER(FILLER_EXIT(syscall_getgid_x), cred__simple, SYSCALL_GETGID_X, CRED_ID)
CRED_FILLER(FILLER_EXIT(syscall_getegid_x), cred__simple, SYSCALL_GETEGID_X, CRED_ID)

CRED_FILLER(FILLER_EXIT(syscall_getresuid_x), ids__getres_exit, SYSCALL_GETRESUID_X)
CRED_FILLER(FILLER_EXIT(syscall_getresgid_x), ids__getres_exit, SYSCALL_GETRESGID_X)
