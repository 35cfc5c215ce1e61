/* quotactl on the real driver. There is no quota-enabled block device here, so
 * the calls name a missing one and fail (their res is what the kernel said),
 * except Q_SYNC of every filesystem; addr points at buffers filled beforehand,
 * which the exit event decodes per command (if_dqblk, if_dqinfo, a format). */
#include <sys/quota.h>

#include "cred_live.h"

#ifndef QFMT_VFS_V0
#define QFMT_VFS_V0 2
#endif
#ifndef QFMT_VFS_V1
#define QFMT_VFS_V1 4
#endif
#define XQM_CMD(x) (('X' << 8) + (x))
#define PRJQUOTA 2

static const char nodev[] = "/cred/no/such/dev";

/* The calls checked. */
static const int cred_quota_calls[] = { SYS_quotactl, -1 };

/* One call and what its events must carry. */
struct quota_call {
	long cmd;		/* native */
	const char *special;
	long id;
	void *addr;
	int64_t res;		/* set by run(): what it returned (-errno) */
	/* enter: PPM cmd, type, id, format */
	uint16_t ppm_cmd;
	uint8_t ppm_type;
	uint32_t ppm_id;
	uint8_t ppm_fmt;
	/* exit after res and special: quotafilepath, then bhard, bsoft, curspace,
	 * ihard, isoft, btime, itime, bgrace, igrace, dqi_flags, quota_fmt_out */
	const char *file;
	int64_t fields[11];
};

static void run(struct quota_call *c)
{
	long r = syscall(SYS_quotactl, c->cmd, c->special, c->id, c->addr);

	c->res = r < 0 ? -errno : r;
}

static void check(struct harness *h, int64_t tid, int *at, const struct quota_call *c)
{
	struct hevt *e, *x;

	if (!cred__call(h, PPME_SYSCALL_QUOTACTL_E, tid, at, &e, &x))
		return;
	EXPECT_INTS(e, c->ppm_cmd, c->ppm_type, c->ppm_id, c->ppm_fmt);
	EXPECT_INTS(x, c->res);
	/* NULL is sent as "(NULL)", as sysdig's kernel module does. */
	EXPECT_PARAM_STR(x, 1, c->special ? c->special : "(NULL)");
	EXPECT_PARAM_STR(x, 2, c->file);
	cred__ints(x, 3, c->fields, 11, __LINE__);
}

#define NOT_USED PPM_QUOTACTL_QUOTA_FMTS_QFMT_NOT_USED
#define USR PPM_QUOTACTL_TYPES_USRQUOTA
#define GRP PPM_QUOTACTL_TYPES_GRPQUOTA

int main(void)
{
	struct harness *h = live__open(256, cred_quota_calls);
	int64_t me = live__tid();
	struct if_dqblk blk = {
		.dqb_bhardlimit = 100, .dqb_bsoftlimit = 90, .dqb_curspace = 80,
		.dqb_ihardlimit = 70, .dqb_isoftlimit = 60, .dqb_curinodes = 50,
		.dqb_btime = 40, .dqb_itime = 30,
		.dqb_valid = QIF_BLIMITS | QIF_SPACE | QIF_BTIME,
	};
	struct if_dqinfo info = { .dqi_bgrace = 3600, .dqi_igrace = 7200, .dqi_flags = 1,
				  .dqi_valid = IIF_BGRACE | IIF_IGRACE | IIF_FLAGS };
	uint32_t fmt = QFMT_VFS_V1;
	char qfile[] = "/cred/quota.user";
	struct quota_call c[] = {
		/* Every filesystem: works, no special. */
		{ QCMD(Q_SYNC, USRQUOTA), NULL, 0, NULL, 0, PPM_QUOTACTL_CMDS_Q_SYNC, USR, 0,
		  NOT_USED, "", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NOT_USED } },
		/* Only the valid fields: no inode limits, no itime. */
		{ QCMD(Q_GETQUOTA, GRPQUOTA), nodev, 1234, &blk, 0, PPM_QUOTACTL_CMDS_Q_GETQUOTA,
		  GRP, 1234, NOT_USED, "", { 100, 90, 80, 0, 0, 40, 0, 0, 0, 0, NOT_USED } },
		/* The id is only sent where it names a user or group. */
		{ QCMD(Q_GETINFO, USRQUOTA), nodev, 5, &info, 0, PPM_QUOTACTL_CMDS_Q_GETINFO, USR,
		  0, NOT_USED, "", { 0, 0, 0, 0, 0, 0, 0, 3600, 7200, 1, NOT_USED } },
		/* QUOTAON: id is the format, addr the quota file. */
		{ QCMD(Q_QUOTAON, USRQUOTA), nodev, QFMT_VFS_V0, qfile, 0,
		  PPM_QUOTACTL_CMDS_Q_QUOTAON, USR, 0, PPM_QUOTACTL_QUOTA_FMTS_QFMT_VFS_V0, qfile,
		  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NOT_USED } },
		{ QCMD(Q_GETFMT, GRPQUOTA), nodev, 9, &fmt, 0, PPM_QUOTACTL_CMDS_Q_GETFMT, GRP, 0,
		  NOT_USED, "",
		  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, PPM_QUOTACTL_QUOTA_FMTS_QFMT_VFS_V1 } },
		/* XFS's XGETQUOTA: the id is sent, addr (an fs_disk_quota) is not
		 * decoded; a project quota has no PPM type. */
		{ QCMD(XQM_CMD(3), PRJQUOTA), nodev, 4321, &blk, 0, PPM_QUOTACTL_CMDS_Q_XGETQUOTA,
		  0, 4321, NOT_USED, "", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NOT_USED } },
		/* An unknown command. */
		{ QCMD(0x123456, USRQUOTA), nodev, 6, NULL, 0, 0, USR, 0, NOT_USED, "",
		  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NOT_USED } },
	};
	const size_t n = sizeof(c) / sizeof(c[0]);
	int at = 0;

	harness__drain(h, -1);
	for (size_t i = 0; i < n; i++)
		run(&c[i]);
	harness__drain(h, me);
	EXPECT(c[0].res == 0);
	for (size_t i = 0; i < n; i++) {
		EXPECT(i == 0 || c[i].res < 0);
		check(h, me, &at, &c[i]);
	}
	harness__close(h);
	return harness__report("cred_quota");
}
