/* quotactl(cmd, special, id, addr). cmd packs a command (upper bits) and a quota
 * type (low byte): both are sent as PPM values, with the id only where it names
 * a user or group (GETQUOTA, SETQUOTA and their XFS forms) and the format only
 * for QUOTAON (where id is the format). The exit sends special, the quota file
 * (QUOTAON only, else ""), then what addr holds for the command: the fields of
 * an if_dqblk (GETQUOTA, SETQUOTA) or if_dqinfo (GETINFO, SETINFO) its valid
 * bits mark (others 0), the format (GETFMT). sysdig read addr whatever the
 * result, and dropped the event when it could not: here the fields are 0. */
#include "cred.bpf.h"

#define NAT_SUBCMDSHIFT 8
#define NAT_SUBCMDMASK 0xff
#define NAT_USRQUOTA 0
#define NAT_GRPQUOTA 1
/* include/uapi/linux/quota.h (0x8000xx) and dqblk_xfs.h (('X' << 8) + n). */
#define NAT_Q_SYNC 0x800001
#define NAT_Q_SETQUOTA 0x800008
#define NAT_Q_XQUOTAON 0x5801
#define NAT_Q_XQUOTASYNC 0x5807
/* QIF_* and IIF_* valid bits. */
#define NAT_QIF_BLIMITS 1
#define NAT_QIF_SPACE 2
#define NAT_QIF_ILIMITS 4
#define NAT_QIF_BTIME 16
#define NAT_QIF_ITIME 32
#define NAT_IIF_BGRACE 1
#define NAT_IIF_IGRACE 2
#define NAT_IIF_FLAGS 4

struct quota_dqblk {
	__u64 bhardlimit, bsoftlimit, curspace, ihardlimit, isoftlimit, curinodes;
	__u64 btime, itime;
	__u32 valid;
};

struct quota_dqinfo {
	__u64 bgrace, igrace;
	__u32 flags, valid;
};

/* Q_SYNC .. Q_SETQUOTA are 0x800001 .. 0x800008 (PPM has its own bits for them);
 * the XFS commands 'X'+1 .. 'X'+7 are PPM's bits 8..14 in order. (A switch: a
 * 16-byte const table lands in .rodata.cst16, which the object linker loses.) */
static __always_inline __u16 quota__cmd(unsigned long cmd)
{
	unsigned long c = cmd >> NAT_SUBCMDSHIFT;

	if (c >= NAT_Q_XQUOTAON && c <= NAT_Q_XQUOTASYNC)
		return PPM_QUOTACTL_CMDS_Q_XQUOTAON << (c - NAT_Q_XQUOTAON);
	switch (c) {
	case NAT_Q_SYNC: return PPM_QUOTACTL_CMDS_Q_SYNC;
	case NAT_Q_SYNC + 1: return PPM_QUOTACTL_CMDS_Q_QUOTAON;
	case NAT_Q_SYNC + 2: return PPM_QUOTACTL_CMDS_Q_QUOTAOFF;
	case NAT_Q_SYNC + 3: return PPM_QUOTACTL_CMDS_Q_GETFMT;
	case NAT_Q_SYNC + 4: return PPM_QUOTACTL_CMDS_Q_GETINFO;
	case NAT_Q_SYNC + 5: return PPM_QUOTACTL_CMDS_Q_SETINFO;
	case NAT_Q_SYNC + 6: return PPM_QUOTACTL_CMDS_Q_GETQUOTA;
	case NAT_Q_SETQUOTA: return PPM_QUOTACTL_CMDS_Q_SETQUOTA;
	}
	return 0;
}

static __always_inline __u8 quota__type(unsigned long cmd)
{
	switch (cmd & NAT_SUBCMDMASK) {
	case NAT_USRQUOTA: return PPM_QUOTACTL_TYPES_USRQUOTA;
	case NAT_GRPQUOTA: return PPM_QUOTACTL_TYPES_GRPQUOTA;
	}
	return 0;
}

/* QFMT_VFS_OLD 1, QFMT_VFS_V0 2, QFMT_VFS_V1 4 (QFMT_OCFS2 3 is not in PPM's). */
static __always_inline __u8 quota__fmt(unsigned long fmt)
{
	switch (fmt) {
	case 1: return PPM_QUOTACTL_QUOTA_FMTS_QFMT_VFS_OLD;
	case 2: return PPM_QUOTACTL_QUOTA_FMTS_QFMT_VFS_V0;
	case 4: return PPM_QUOTACTL_QUOTA_FMTS_QFMT_VFS_V1;
	}
	return PPM_QUOTACTL_QUOTA_FMTS_QFMT_NOT_USED;
}

FILLER(syscall_quotactl_e)
{
	struct filler f;
	__u32 cmd, id;
	__u16 ppm;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_QUOTACTL_E))
		return 0;
	/* cmd and id are 32-bit (unsigned int, qid_t): a caller may leave the
	 * register's upper half sign-extended (QCMD values have bit 31 set). */
	cmd = filler__arg(&f, 0);
	id = filler__arg(&f, 2);
	ppm = quota__cmd(cmd);
	filler__u16(&f, ppm);
	filler__u8(&f, quota__type(cmd));
	if (ppm == PPM_QUOTACTL_CMDS_Q_GETQUOTA || ppm == PPM_QUOTACTL_CMDS_Q_SETQUOTA ||
	    ppm == PPM_QUOTACTL_CMDS_Q_XGETQUOTA || ppm == PPM_QUOTACTL_CMDS_Q_XSETQLIM)
		filler__u32(&f, id);
	else
		filler__u32(&f, 0);
	filler__u8(&f, ppm == PPM_QUOTACTL_CMDS_Q_QUOTAON ? quota__fmt(id)
							 : PPM_QUOTACTL_QUOTA_FMTS_QFMT_NOT_USED);
	return filler__submit(&f);
}

/* V if VALID has BIT, else 0. */
static __always_inline __u64 quota__field(__u32 valid, __u32 bit, __u64 v)
{
	return valid & bit ? v : 0;
}

FILLER_EXIT(syscall_quotactl_x)
{
	struct quota_dqblk b = {};
	struct quota_dqinfo i = {};
	struct filler f;
	const void *addr;
	__u32 fmt = 0;
	__u16 ppm;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_QUOTACTL_X))
		return 0;
	ppm = quota__cmd((__u32)filler__arg(&f, 0));
	addr = (const void *)filler__arg(&f, 3);
	filler__s64(&f, f.ret);
	filler__str_user_or_null(&f, (const void *)filler__arg(&f, 1));
	if (ppm == PPM_QUOTACTL_CMDS_Q_QUOTAON) {
		filler__str_user(&f, addr);
	} else {
		/* "": just the NUL. */
		f.s->data[f.s->off & FRAME_MASK] = 0;
		filler__commit(&f, 1);
	}

	if ((ppm == PPM_QUOTACTL_CMDS_Q_GETQUOTA || ppm == PPM_QUOTACTL_CMDS_Q_SETQUOTA) &&
	    bpf_probe_read_user(&b, sizeof(b), addr))
		b.valid = 0;
	filler__u64(&f, quota__field(b.valid, NAT_QIF_BLIMITS, b.bhardlimit));
	filler__u64(&f, quota__field(b.valid, NAT_QIF_BLIMITS, b.bsoftlimit));
	filler__u64(&f, quota__field(b.valid, NAT_QIF_SPACE, b.curspace));
	filler__u64(&f, quota__field(b.valid, NAT_QIF_ILIMITS, b.ihardlimit));
	filler__u64(&f, quota__field(b.valid, NAT_QIF_ILIMITS, b.isoftlimit));
	filler__u64(&f, quota__field(b.valid, NAT_QIF_BTIME, b.btime));
	filler__u64(&f, quota__field(b.valid, NAT_QIF_ITIME, b.itime));

	if ((ppm == PPM_QUOTACTL_CMDS_Q_GETINFO || ppm == PPM_QUOTACTL_CMDS_Q_SETINFO) &&
	    bpf_probe_read_user(&i, sizeof(i), addr))
		i.valid = 0;
	filler__u64(&f, quota__field(i.valid, NAT_IIF_BGRACE, i.bgrace));
	filler__u64(&f, quota__field(i.valid, NAT_IIF_IGRACE, i.igrace));
	filler__u8(&f, quota__field(i.valid, NAT_IIF_FLAGS, i.flags));

	if (ppm == PPM_QUOTACTL_CMDS_Q_GETFMT && bpf_probe_read_user(&fmt, sizeof(fmt), addr))
		fmt = 0;
	filler__u8(&f, quota__fmt(fmt));
	return filler__submit(&f);
}
