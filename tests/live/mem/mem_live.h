/* Helpers of the mem live tests: the task's memory figures as /proc reports them,
 * and the slack the driver's rss reading is allowed. */
#ifndef MEM_LIVE_H
#define MEM_LIVE_H

#include <errno.h>
#include <fcntl.h>

#include "../fs/fs_live.h"

/* The KiB figure after FIELD ("VmSize:") in /proc/self/status, or -1. Plain
 * open/read into a static buffer: reading must not change the mapping. */
static inline long mem__status_kib(const char *field)
{
	static char buf[4096];
	int fd = open("/proc/self/status", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	char *p;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strstr(buf, field);
	return p ? strtol(p + strlen(field), NULL, 10) : -1;
}

struct mem_status {
	long size, rss, swap;
};

static inline struct mem_status mem__status(void)
{
	struct mem_status s = { mem__status_kib("VmSize:"), mem__status_kib("VmRSS:"),
				mem__status_kib("VmSwap:") };

	return s;
}

/* Since 6.2 the driver reads only the global part of each percpu rss counter:
 * each CPU may hold back up to a batch (max(32, 2 * ncpus) pages) per counter,
 * and rss sums three counters. In KiB. */
static inline long mem__rss_slack(void)
{
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	long batch = ncpus * 2 > 32 ? ncpus * 2 : 32;

	return 3 * ncpus * batch * 4;
}

/* Syscall NR with arguments A..F between two drains, the memory figures taken
 * into *ST right after it. Returns the kernel's result: -errno on failure. */
static inline long mem__call(struct harness *h, long nr, unsigned long a, unsigned long b,
				      unsigned long c, unsigned long d, unsigned long e,
				      unsigned long f, struct mem_status *st)
{
	long r;

	harness__drain(h, -1);
	r = syscall(nr, a, b, c, d, e, f);
	if (r == -1)
		r = -errno;
	*st = mem__status();
	harness__drain(h, live__tid());
	return r;
}

/* The exit event's vm_size, vm_rss, vm_swap (params FIRST..FIRST+2) are the
 * figures /proc gave right after the call: size exactly, rss and swap within the
 * slack. */
static inline void mem__expect_stats(const struct hevt *x, int first, struct mem_status st)
{
	long slack = mem__rss_slack();

	EXPECT_PARAM_INT(x, first, st.size);
	EXPECT(labs(hevt__int(x, first + 1) - st.rss) <= slack);
	EXPECT(labs(hevt__int(x, first + 2) - st.swap) <= slack);
	EXPECT(hevt__int(x, first + 1) > 0);
}

#endif
