/* Helpers shared by the file, path, fd and I/O fillers: open flag conversion to
 * sysdig's PPM_* bits, dirfd args, the device and inode behind an fd, iovecs. */
#ifndef FS_BPF_H
#define FS_BPF_H

#include "../../fd.bpf.h"
#include "../../h2.bpf.h"

/* x86_64 native open flags (include/uapi/asm-generic/fcntl.h): vmlinux.h has no
 * macros. */
#define NAT_O_ACCMODE	 00000003
#define NAT_O_WRONLY	 00000001
#define NAT_O_RDWR	 00000002
#define NAT_O_CREAT	 00000100
#define NAT_O_EXCL	 00000200
#define NAT_O_TRUNC	 00001000
#define NAT_O_APPEND	 00002000
#define NAT_O_NONBLOCK	 00004000
#define NAT_O_DSYNC	 00010000
#define NAT_O_DIRECT	 00040000
#define NAT_O_LARGEFILE	 00100000
#define NAT_O_DIRECTORY	 00200000
#define NAT_O_CLOEXEC	 02000000
#define NAT___O_SYNC	 04000000	/* O_SYNC is __O_SYNC | O_DSYNC */
#define NAT___O_TMPFILE	 020000000	/* O_TMPFILE is __O_TMPFILE | O_DIRECTORY */

#define NAT_AT_FDCWD	 -100
#define NAT_AT_REMOVEDIR 0x200

/* include/uapi/linux/openat2.h */
#define NAT_RESOLVE_NO_XDEV	  0x01
#define NAT_RESOLVE_NO_MAGICLINKS 0x02
#define NAT_RESOLVE_NO_SYMLINKS	  0x04
#define NAT_RESOLVE_BENEATH	  0x08
#define NAT_RESOLVE_IN_ROOT	  0x10
#define NAT_RESOLVE_CACHED	  0x20

/* include/uapi/linux/fs.h */
#define NAT_RENAME_NOREPLACE 0x1
#define NAT_RENAME_EXCHANGE  0x2
#define NAT_RENAME_WHITEOUT  0x4

/* UIO_MAXIOV: readv/writev reject more iovecs than this. */
#define FS_MAX_IOV 1024

/* Native open flags -> PPM_FILE_FLAGS_* bits. The access mode is a 2-bit value
 * natively; sysdig gives O_RDONLY a bit of its own (1), so RDWR is 3. */
static __always_inline __u32 fs__open_flags(unsigned long fl)
{
	__u32 r = 0;

	switch (fl & NAT_O_ACCMODE) {
	case 0: r = PPM_FILE_FLAGS_O_RDONLY; break;
	case NAT_O_WRONLY: r = PPM_FILE_FLAGS_O_WRONLY; break;
	case NAT_O_RDWR: r = PPM_FILE_FLAGS_O_RDWR; break;
	}
	if (fl & NAT_O_CREAT)
		r |= PPM_FILE_FLAGS_O_CREAT;
	if (fl & NAT_O_EXCL)
		r |= PPM_FILE_FLAGS_O_EXCL;
	if (fl & NAT_O_TRUNC)
		r |= PPM_FILE_FLAGS_O_TRUNC;
	if (fl & NAT_O_APPEND)
		r |= PPM_FILE_FLAGS_O_APPEND;
	if (fl & NAT_O_NONBLOCK)
		r |= PPM_FILE_FLAGS_O_NONBLOCK;
	if (fl & NAT_O_DSYNC)
		r |= PPM_FILE_FLAGS_O_DSYNC;
	if (fl & NAT___O_SYNC)
		r |= PPM_FILE_FLAGS_O_SYNC;
	if (fl & NAT_O_DIRECT)
		r |= PPM_FILE_FLAGS_O_DIRECT;
	if (fl & NAT_O_DIRECTORY)
		r |= PPM_FILE_FLAGS_O_DIRECTORY;
	if (fl & NAT_O_LARGEFILE)
		r |= PPM_FILE_FLAGS_O_LARGEFILE;
	if (fl & NAT_O_CLOEXEC)
		r |= PPM_FILE_FLAGS_O_CLOEXEC;
	if (fl & NAT___O_TMPFILE)
		r |= PPM_FILE_FLAGS_O_TMPFILE;
	return r;
}

/* The mode argument only means something when the call may create a file;
 * otherwise the register holds whatever the caller left there: send 0. */
static __always_inline __u32 fs__open_mode(unsigned long fl, unsigned long mode)
{
	if (!(fl & (NAT_O_CREAT | NAT___O_TMPFILE)))
		return 0;
	return mode & 07777;
}

static __always_inline __u32 fs__resolve_flags(__u64 res)
{
	__u32 r = 0;

	if (res & NAT_RESOLVE_BENEATH)
		r |= PPM_OPENAT2_FLAGS_RESOLVE_BENEATH;
	if (res & NAT_RESOLVE_IN_ROOT)
		r |= PPM_OPENAT2_FLAGS_RESOLVE_IN_ROOT;
	if (res & NAT_RESOLVE_NO_MAGICLINKS)
		r |= PPM_OPENAT2_FLAGS_RESOLVE_NO_MAGICLINKS;
	if (res & NAT_RESOLVE_NO_SYMLINKS)
		r |= PPM_OPENAT2_FLAGS_RESOLVE_NO_SYMLINKS;
	if (res & NAT_RESOLVE_NO_XDEV)
		r |= PPM_OPENAT2_FLAGS_RESOLVE_NO_XDEV;
	if (res & NAT_RESOLVE_CACHED)
		r |= PPM_OPENAT2_FLAGS_RESOLVE_CACHED;
	return r;
}

static __always_inline __u32 fs__rename_flags(unsigned long fl)
{
	__u32 r = 0;

	if (fl & NAT_RENAME_NOREPLACE)
		r |= PPM_RENAMEAT2_FLAGS_RENAME_NOREPLACE;
	if (fl & NAT_RENAME_EXCHANGE)
		r |= PPM_RENAMEAT2_FLAGS_RENAME_EXCHANGE;
	if (fl & NAT_RENAME_WHITEOUT)
		r |= PPM_RENAMEAT2_FLAGS_RENAME_WHITEOUT;
	return r;
}

/* fd and dirfd args are C ints: the register's upper half is not part of them. */
static __always_inline void filler__fd_arg(struct filler *f, int i)
{
	filler__s64(f, (int)filler__arg(f, i));
}

/* A dirfd arg: sysdig's PPM_AT_FDCWD has AT_FDCWD's value (-100), so it is sent
 * like any fd. */
static __always_inline void filler__dirfd_arg(struct filler *f, int i)
{
	filler__fd_arg(f, i);
}

/* The device of the file open at FD, as stat(2) reports it: the kernel keeps
 * s_dev as MKDEV (major << 20 | minor) and stat() sends it through new_encode_dev();
 * sysdig sends that encoding too. 0 when there is no such file. */
static __always_inline __u32 fs__fd_dev(long fd)
{
	struct file *file = fd__file(fd);
	__u32 kdev, major, minor;

	if (!file)
		return 0;
	kdev = BPF_CORE_READ(file, f_inode, i_sb, s_dev);
	major = kdev >> 20;
	minor = kdev & ((1U << 20) - 1);
	return (minor & 0xff) | (major << 8) | ((minor & ~0xffU) << 12);
}

/* The inode number of the file open at FD, 0 when there is none. */
static __always_inline __u64 fs__fd_ino(long fd)
{
	struct file *file = fd__file(fd);

	if (!file)
		return 0;
	return BPF_CORE_READ(file, f_inode, i_ino);
}

/* Iovec walks run in bpf_loop callbacks: the verifier checks a callback once
 * instead of every iteration of a 1024-round loop. */
struct iov_walk {
	const struct iovec *uiov;
	__u64 total;	/* fs__iov_total: sum so far */
	__u32 off;	/* filler__iov_user: where the param starts in the frame */
	__u32 done;	/* bytes copied so far */
	__u32 len;	/* bytes wanted */
	int fault;
};

static long iov_walk__sum(__u64 i, void *arg)
{
	struct iov_walk *w = arg;
	struct iovec v;

	if (bpf_probe_read_user(&v, sizeof(v), &w->uiov[i & (FS_MAX_IOV - 1)])) {
		w->fault = 1;
		return 1;
	}
	w->total += v.iov_len;
	return 0;
}

/* Sum of the lengths of the CNT iovecs at UIOV (the size the call asked for).
 * Returns -1 when the array cannot be read. */
static __always_inline long fs__iov_total(const struct iovec *uiov, unsigned long cnt)
{
	struct iov_walk w = { .uiov = uiov };

	if (cnt > FS_MAX_IOV)
		cnt = FS_MAX_IOV;
	bpf_loop(cnt, iov_walk__sum, &w, 0);
	return w.fault ? -1 : (long)w.total;
}

static long iov_walk__copy(__u64 i, void *arg)
{
	struct iov_walk *w = arg;
	struct scratch *s = scratch__get();
	struct iovec v;
	__u32 chunk;

	if (!s || w->done >= w->len)
		return 1;
	if (bpf_probe_read_user(&v, sizeof(v), &w->uiov[i & (FS_MAX_IOV - 1)]))
		goto fault;
	chunk = w->len - w->done;
	if (v.iov_len < chunk)
		chunk = v.iov_len;
	if (chunk > PPM_MAX_ARG_SIZE)
		return 1;
	if (chunk && bpf_probe_read_user(&s->data[(w->off + w->done) & FRAME_MASK], chunk,
					 v.iov_base))
		goto fault;
	w->done += chunk;
	return 0;
fault:
	w->fault = 1;
	return 1;
}

/* A BYTEBUF param of the first LEN bytes (cut to MAX) found across the CNT iovecs
 * at UIOV, copied one iovec after the other. */
static __always_inline void filler__iov_user(struct filler *f, const struct iovec *uiov,
					     unsigned long cnt, __u64 len, __u32 max)
{
	struct iov_walk w = { .uiov = uiov, .off = f->s->off };

	if (len > max)
		len = max;
	if (len > PPM_MAX_ARG_SIZE)
		len = PPM_MAX_ARG_SIZE;
	w.len = len;
	if (cnt > FS_MAX_IOV)
		cnt = FS_MAX_IOV;
	if (uiov && len)
		bpf_loop(cnt, iov_walk__copy, &w, 0);
	if (w.fault) {
		COUNT(n_drops_pf);
		w.done = 0;
	}
	filler__commit(f, w.done);
}

/* filler__iov_user for FD's buffers: LEN bytes (the call moved; ~0: up to
 * the iovecs' end) of the CNT iovecs at UIOV, cut at what h2__snaplen says;
 * an opening buffer h2__note marks is copied again. */
static __always_inline void h2__iov_user(struct filler *f, long fd, const struct iovec *uiov,
					 unsigned long cnt, __u64 len)
{
	__u32 snap = h2__snaplen(f, fd), off0 = f->s->off;

	filler__iov_user(f, uiov, cnt, len, snap);
	if (h2__note(f, fd, off0, snap, len)) {
		filler__uncommit(f, off0);
		filler__iov_user(f, uiov, cnt, len, settings.h2_snaplen);
	}
}

#endif
