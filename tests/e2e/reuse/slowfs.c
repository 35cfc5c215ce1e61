/* A FUSE file system with one file, /slow ("slow\n", mode 0444), whose close()
 * takes SLOWFS_DELAY_MS (default 300) milliseconds: the FLUSH that close()
 * sends sleeps that long. With SLOWFS_GATE=DIR (a path outside the mount) it
 * first waits until DIR exists (up to 10 s) and removes it, then sleeps: the
 * close ends after its caller's test says so, however slow the machine. The
 * kernel frees the fd number at the start of close(), before the flush, so
 * the number is free, and can be handed out again to another thread, while
 * the close still runs (see close_reuse.c).
 * Run: slowfs MOUNTPOINT -f -s; unmount: fusermount3 -u MOUNTPOINT. */
#define FUSE_USE_VERSION 31
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char fs__name[] = "/slow";
static const char fs__data[] = "slow\n";
static long fs__delay_ms = 300;
static const char *fs__gate;

static int fs__getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	if (!strcmp(path, "/")) {
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
		return 0;
	}
	if (strcmp(path, fs__name))
		return -ENOENT;
	st->st_mode = S_IFREG | 0444;
	st->st_nlink = 1;
	st->st_size = sizeof(fs__data) - 1;
	return 0;
}

static int fs__readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		       struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (strcmp(path, "/"))
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, fs__name + 1, NULL, 0, 0);
	return 0;
}

static int fs__open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, fs__name))
		return -ENOENT;
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return -EACCES;
	return 0;
}

static int fs__read(const char *path, char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	size_t len = sizeof(fs__data) - 1;

	(void)fi;
	if (strcmp(path, fs__name))
		return -ENOENT;
	if (off < 0 || (size_t)off >= len)
		return 0;
	if (size > len - (size_t)off)
		size = len - (size_t)off;
	memcpy(buf, fs__data + off, size);
	return (int)size;
}

/* Every close() of an fd on the file sends one FLUSH: the slow part. */
static int fs__flush(const char *path, struct fuse_file_info *fi)
{
	struct timespec ts = { fs__delay_ms / 1000, fs__delay_ms % 1000 * 1000000 };

	(void)path;
	(void)fi;
	if (fs__gate) {
		struct timespec ms = { 0, 1000000 };

		for (int i = 0; i < 10000 && rmdir(fs__gate); i++)
			nanosleep(&ms, NULL);
	}
	if (!fs__delay_ms)
		return 0; /* nanosleep(0) could still wait out the timer slack */
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
	return 0;
}

static const struct fuse_operations fs__ops = {
	.getattr = fs__getattr,
	.readdir = fs__readdir,
	.open = fs__open,
	.read = fs__read,
	.flush = fs__flush,
};

int main(int argc, char **argv)
{
	const char *env = getenv("SLOWFS_DELAY_MS");

	if (env && *env) {
		char *end;
		long ms = strtol(env, &end, 10);

		if (*end || ms < 0 || ms > 60000) {
			fprintf(stderr, "slowfs: SLOWFS_DELAY_MS must be 0..60000, not %s\n", env);
			return 2;
		}
		fs__delay_ms = ms;
	}
	env = getenv("SLOWFS_GATE");
	if (env && *env)
		fs__gate = env;
	return fuse_main(argc, argv, &fs__ops, NULL);
}
