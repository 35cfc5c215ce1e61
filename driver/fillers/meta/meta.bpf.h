/* Helpers shared by the metadata and fd-control fillers: the few event shapes most
 * of them have (no params, one fd or res alone, res and paths) and native -> PPM
 * flag conversions. */
#ifndef META_BPF_H
#define META_BPF_H

#include "fillers/fs/fs.bpf.h"

/* x86_64 native values (include/uapi/asm-generic/fcntl.h, linux/fcntl.h,
 * linux/fs.h): vmlinux.h has no macros. */
#define NAT_F_DUPFD		0
#define NAT_F_GETFD		1
#define NAT_F_SETFD		2
#define NAT_F_GETFL		3
#define NAT_F_SETFL		4
#define NAT_F_GETLK		5
#define NAT_F_SETLK		6
#define NAT_F_SETLKW		7
#define NAT_F_SETOWN		8
#define NAT_F_GETOWN		9
#define NAT_F_SETSIG		10
#define NAT_F_GETSIG		11
#define NAT_F_SETOWN_EX		15
#define NAT_F_GETOWN_EX		16
#define NAT_F_OFD_GETLK		36
#define NAT_F_OFD_SETLK		37
#define NAT_F_OFD_SETLKW	38
#define NAT_F_SETLEASE		1024
#define NAT_F_GETLEASE		1025
#define NAT_F_NOTIFY		1026
#define NAT_F_CANCELLK		1029
#define NAT_F_DUPFD_CLOEXEC	1030
#define NAT_F_SETPIPE_SZ	1031
#define NAT_F_GETPIPE_SZ	1032

#define NAT_AT_SYMLINK_FOLLOW	0x400
#define NAT_AT_EMPTY_PATH	0x1000

/* A string param holding "" (only its NUL). */
static __always_inline void meta__empty_str(struct filler *f)
{
	f->s->data[f->s->off & FRAME_MASK] = 0;
	filler__commit(f, 1);
}

/* An event whose one param is an s64: the fd in arg 0 on enter, the return value
 * (an errno, a count, an fd) on EXIT. */
static __always_inline int meta__s64(void *ctx, __u16 type, __u32 nparams, int exit)
{
	struct filler f;

	if (filler__begin(&f, ctx, type, nparams))
		return 0;
	if (exit)
		filler__s64(&f, f.ret);
	else
		filler__fd_arg(&f, 0);
	return filler__submit(&f);
}

/* An exit event of the return value and the strings in args 0 .. NPARAMS - 2 (a
 * path, or link's two). Read on exit: the call has faulted their pages in by then,
 * so a string not yet in memory when the call starts is still complete. */
static __always_inline int meta__res_strs(void *ctx, __u16 type, __u32 nparams)
{
	struct filler f;

	if (filler__begin(&f, ctx, type, nparams))
		return 0;
	filler__s64(&f, f.ret);
	for (int i = 0; i + 1 < nparams && i < 2; i++)
		filler__str_user(&f, (const void *)filler__arg(&f, i));
	return filler__submit(&f);
}

/* Permission and set-id bits of a chmod mode: PPM_CHMOD_MODE_* have the native
 * values, so only the file type and stray bits go. */
static __always_inline __u32 meta__chmod_mode(unsigned long mode)
{
	return mode & 07777;
}

/* linkat flags: AT_SYMLINK_FOLLOW and AT_EMPTY_PATH keep their native values. */
static __always_inline __u32 meta__linkat_flags(unsigned long fl)
{
	return fl & (NAT_AT_SYMLINK_FOLLOW | NAT_AT_EMPTY_PATH);
}

/* access mode: X_OK 1, W_OK 2, R_OK 4 as natively; F_OK (0) is PPM's 0 too. */
static __always_inline __u32 meta__access_mode(unsigned long mode)
{
	return mode & (PPM_ACCESS_FLAGS_X_OK | PPM_ACCESS_FLAGS_W_OK | PPM_ACCESS_FLAGS_R_OK);
}

/* flock operation: LOCK_SH 1, LOCK_EX 2, LOCK_NB 4, LOCK_UN 8, as natively. */
static __always_inline __u32 meta__flock_op(unsigned long op)
{
	return op & (PPM_FLOCK_FLAGS_LOCK_SH | PPM_FLOCK_FLAGS_LOCK_EX |
		     PPM_FLOCK_FLAGS_LOCK_NB | PPM_FLOCK_FLAGS_LOCK_UN);
}

/* lseek whence: SEEK_SET/CUR/END keep their values; sysdig had no code for
 * SEEK_DATA, SEEK_HOLE or a bad value and sent SEEK_SET (0) for them. */
static __always_inline __u8 meta__lseek_whence(unsigned long whence)
{
	return whence <= PPM_LSEEK_WHENCE_SEEK_END ? (__u8)whence : PPM_LSEEK_WHENCE_SEEK_SET;
}

/* fcntl cmd -> PPM_FCNTL_COMMANDS_*; a cmd sysdig did not know is UNKNOWN (0),
 * the 32-bit-only *LK64 commands included (on x86_64 they are other numbers). */
static __always_inline __u8 meta__fcntl_cmd(unsigned int cmd)
{
	switch (cmd) {
	case NAT_F_DUPFD: return PPM_FCNTL_COMMANDS_F_DUPFD;
	case NAT_F_GETFD: return PPM_FCNTL_COMMANDS_F_GETFD;
	case NAT_F_SETFD: return PPM_FCNTL_COMMANDS_F_SETFD;
	case NAT_F_GETFL: return PPM_FCNTL_COMMANDS_F_GETFL;
	case NAT_F_SETFL: return PPM_FCNTL_COMMANDS_F_SETFL;
	case NAT_F_GETLK: return PPM_FCNTL_COMMANDS_F_GETLK;
	case NAT_F_SETLK: return PPM_FCNTL_COMMANDS_F_SETLK;
	case NAT_F_SETLKW: return PPM_FCNTL_COMMANDS_F_SETLKW;
	case NAT_F_SETOWN: return PPM_FCNTL_COMMANDS_F_SETOWN;
	case NAT_F_GETOWN: return PPM_FCNTL_COMMANDS_F_GETOWN;
	case NAT_F_SETSIG: return PPM_FCNTL_COMMANDS_F_SETSIG;
	case NAT_F_GETSIG: return PPM_FCNTL_COMMANDS_F_GETSIG;
	case NAT_F_SETOWN_EX: return PPM_FCNTL_COMMANDS_F_SETOWN_EX;
	case NAT_F_GETOWN_EX: return PPM_FCNTL_COMMANDS_F_GETOWN_EX;
	case NAT_F_OFD_GETLK: return PPM_FCNTL_COMMANDS_F_OFD_GETLK;
	case NAT_F_OFD_SETLK: return PPM_FCNTL_COMMANDS_F_OFD_SETLK;
	case NAT_F_OFD_SETLKW: return PPM_FCNTL_COMMANDS_F_OFD_SETLKW;
	case NAT_F_SETLEASE: return PPM_FCNTL_COMMANDS_F_SETLEASE;
	case NAT_F_GETLEASE: return PPM_FCNTL_COMMANDS_F_GETLEASE;
	case NAT_F_NOTIFY: return PPM_FCNTL_COMMANDS_F_NOTIFY;
	case NAT_F_CANCELLK: return PPM_FCNTL_COMMANDS_F_CANCELLK;
	case NAT_F_DUPFD_CLOEXEC: return PPM_FCNTL_COMMANDS_F_DUPFD_CLOEXEC;
	case NAT_F_SETPIPE_SZ: return PPM_FCNTL_COMMANDS_F_SETPIPE_SZ;
	case NAT_F_GETPIPE_SZ: return PPM_FCNTL_COMMANDS_F_GETPIPE_SZ;
	}
	return PPM_FCNTL_COMMANDS_UNKNOWN;
}

#endif
