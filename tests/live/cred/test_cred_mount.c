/* mount and umount2 on the real driver, in a forked child with a mount
 * namespace of its own (made private first, so nothing reaches the test's):
 * a tmpfs on a mkdtemp directory, a remount with the old magic number, a bind
 * mount, unmounts, and failing calls (ENODEV, EINVAL, ENOENT). */
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "cred_live.h"

#ifndef MS_MGC_VAL
#define MS_MGC_VAL 0xc0ed0000
#endif

static char dir[64], dir2[80];

/* The child's calls checked. */
static const int cred_mount_calls[] = { SYS_mount, SYS_umount2, -1 };

/* Exits 1 if a call did not do what the events are checked against. */
static void child_mounts(void *arg)
{
	int bad = 0;

	(void)arg;
	bad |= syscall(SYS_unshare, CLONE_NEWNS) != 0;
	bad |= syscall(SYS_mount, NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0;
	bad |= syscall(SYS_mount, "cred_tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m") != 0;
	bad |= syscall(SYS_mount, "cred_tmpfs", dir, "tmpfs", MS_MGC_VAL | MS_REMOUNT | MS_RDONLY,
		       NULL) != 0;
	bad |= syscall(SYS_mount, "cred_none", dir, "cred_nosuchfs", 0, NULL) != -1 ||
	       errno != ENODEV;
	bad |= mkdir(dir2, 0700) != 0 && errno != EROFS;
	bad |= syscall(SYS_mount, "/tmp", dir2, NULL, MS_BIND, NULL) != -1 || errno != ENOENT;
	bad |= syscall(SYS_umount2, dir, MNT_DETACH) != 0;
	bad |= syscall(SYS_umount2, dir, 0) != -1 || errno != EINVAL;
	bad |= syscall(SYS_umount2, "/cred/no/such", UMOUNT_NOFOLLOW) != -1 || errno != ENOENT;
	if (bad)
		_exit(1);
}

static void check_mount(struct harness *h, int64_t tid, int *at, uint32_t flags, int64_t res,
			const char *dev, const char *dir_, const char *type)
{
	struct hevt *e, *x;

	if (!cred__call(h, PPME_SYSCALL_MOUNT_E, tid, at, &e, &x))
		return;
	EXPECT_INTS(e, flags);
	EXPECT_INTS(x, res);
	/* NULL is sent as "(NULL)", as sysdig's kernel module does. */
	EXPECT_PARAM_STR(x, 1, dev ? dev : "(NULL)");
	EXPECT_PARAM_STR(x, 2, dir_);
	EXPECT_PARAM_STR(x, 3, type ? type : "(NULL)");
}

static void check_umount(struct harness *h, int64_t tid, int *at, uint32_t flags, int64_t res,
			 const char *name)
{
	struct hevt *e, *x;

	if (!cred__call(h, PPME_SYSCALL_UMOUNT_E, tid, at, &e, &x))
		return;
	EXPECT_INTS(e, flags);
	EXPECT_INTS(x, res);
	EXPECT_PARAM_STR(x, 1, name);
}

int main(void)
{
	struct harness *h = live__open(256, cred_mount_calls);
	pid_t child;
	int at = 0;

	live__tmpdir(dir, sizeof(dir), "cred_mount");
	snprintf(dir2, sizeof(dir2), "%s/sub", dir);
	harness__drain(h, -1);
	child = cred__in_child(child_mounts, NULL);
	harness__drain(h, child);

	check_mount(h, child, &at, PPM_MOUNT_FLAGS_REC | PPM_MOUNT_FLAGS_PRIVATE, 0, NULL, "/",
		    NULL);
	check_mount(h, child, &at, PPM_MOUNT_FLAGS_NOSUID | PPM_MOUNT_FLAGS_NODEV, 0, "cred_tmpfs",
		    dir, "tmpfs");
	/* The magic number in the upper half is dropped, as the kernel does. */
	check_mount(h, child, &at, PPM_MOUNT_FLAGS_REMOUNT | PPM_MOUNT_FLAGS_RDONLY, 0,
		    "cred_tmpfs", dir, "tmpfs");
	check_mount(h, child, &at, 0, -ENODEV, "cred_none", dir, "cred_nosuchfs");
	/* dir2 could not be made on the read-only tmpfs: the bind mount fails. */
	check_mount(h, child, &at, PPM_MOUNT_FLAGS_BIND, -ENOENT, "/tmp", dir2, NULL);
	check_umount(h, child, &at, PPM_UMOUNT_FLAGS_DETACH, 0, dir);
	check_umount(h, child, &at, 0, -EINVAL, dir);
	check_umount(h, child, &at, PPM_UMOUNT_FLAGS_NOFOLLOW, -ENOENT, "/cred/no/such");

	harness__close(h);
	live__rmtree(dir);
	return harness__report("cred_mount");
}
