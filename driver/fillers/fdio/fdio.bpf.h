/* Helpers shared by the fdio fillers (fd makers and fd-to-fd I/O). The fd and
 * iovec helpers come from the fs family. */
#ifndef FDIO_BPF_H
#define FDIO_BPF_H

#include "../fs/fs.bpf.h"

/* Exit events whose only param is the result (an fd or an errno). */
static __always_inline int fdio__res(void *ctx, __u16 type, __u32 nparams)
{
	struct filler f;

	if (filler__begin(&f, ctx, type, nparams))
		return 0;
	filler__s64(&f, f.ret);
	return filler__submit(&f);
}

/* The exit program NAME of event ID, whose only param is res. */
#define FDIO_RES_EXIT(name, ID) \
	FILLER_EXIT(name) { return fdio__res(ctx, PPME_##ID, PPME_##ID##_NPARAMS); }

/* The 64-bit value at the user pointer UPTR (an off_t / loff_t argument), 0 when
 * the pointer is NULL or unreadable, as sysdig sends it. */
static __always_inline __u64 fdio__user_u64(unsigned long uptr)
{
	__u64 v = 0;

	if (uptr && bpf_probe_read_user(&v, sizeof(v), (const void *)uptr)) {
		COUNT(n_drops_pf);
		v = 0;
	}
	return v;
}

/* A size param: the sum of the CNT iovec lengths at IOV, empty when the array
 * cannot be read. READ_RES >= 0 is a read's result: the size is no more than the
 * bytes it got, as sysdig reports it (pass -1 for writes). */
static __always_inline void fdio__iov_size(struct filler *f, const struct iovec *iov,
					   unsigned long cnt, long read_res)
{
	long total = fs__iov_total(iov, cnt);

	if (total < 0) {
		COUNT(n_drops_pf);
		filler__empty(f);
		return;
	}
	if (read_res >= 0 && total > read_res)
		total = read_res;
	filler__u32(f, total);
}

#endif
