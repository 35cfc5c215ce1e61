/* mmap, munmap and mprotect on the real driver: every param of both events, the
 * flag conversions, the memory counters of the exits, and failing calls. */
#include <errno.h>
#include <sys/mman.h>

#include "schema_flags.h"
#include "mem_live.h"

#define PAGE 4096UL
/* check_mmap returns the kernel's result: an address, or -errno. */
#define MAPPED(p) ((unsigned long)(p) < -4095UL)
/* The PPM bits the driver must send. */
#define PR(x) PPM_PROT_FLAGS_PROT_##x
#define MF(x) PPM_MMAP_FLAGS_MAP_##x
/* The kernel accepts it on x86_64; glibc has no macro. */
#ifndef PROT_SEM
#define PROT_SEM 0x8
#endif

/* The calls checked, each made with syscall(). */
static const int mem_map_calls[] = { SYS_mmap, SYS_munmap, SYS_mprotect, -1 };

/* The enter event of TYPE whose length (param 1) is LEN, and its exit. */
static struct hevt *find_pair(struct harness *h, uint16_t type, unsigned long len, struct hevt **x)
{
	int64_t tid = live__tid();
	struct hevt *e;
	int at = 0;

	*x = NULL;
	e = live__find_int(h, type, 1, (int64_t)len, &at);
	EXPECT(e != NULL);
	if (!e)
		return NULL;
	hevt__expect_header(e, type, tid);
	*x = live__next(h, e, type + 1);
	EXPECT(*x != NULL);
	if (*x)
		hevt__expect_header(*x, type + 1, tid);
	return *x ? e : NULL;
}

/* One mmap call, checked: the PPM values PROT and FLAGS must be sent for the
 * native NPROT and NFLAGS. Returns the call's result. */
static void *check_mmap(struct harness *h, void *addr, unsigned long len, int nprot, int nflags,
			int fd, unsigned long off, uint32_t prot, uint32_t flags)
{
	struct hevt *e, *x;
	struct mem_status st;
	void *r;

	r = (void *)mem__call(h, SYS_mmap, (unsigned long)addr, len, nprot, nflags, fd, off, &st);
	e = find_pair(h, PPME_SYSCALL_MMAP_E, len, &x);
	if (!e)
		return r;
	EXPECT_PARAM_INT(e, 0, (uint64_t)addr);
	EXPECT_PARAM_INT(e, 1, len);
	EXPECT_PARAM_INT(e, 2, prot);
	EXPECT_PARAM_INT(e, 3, flags);
	EXPECT_PARAM_INT(e, 4, fd);
	EXPECT_PARAM_INT(e, 5, off);
	/* A failure is a negative errno sent as an address. */
	EXPECT_PARAM_INT(x, 0, (uint64_t)r);
	mem__expect_stats(x, 1, st);
	return r;
}

static void check_munmap(struct harness *h, void *addr, unsigned long len, long want)
{
	struct hevt *e, *x;
	struct mem_status st;
	long r;

	r = mem__call(h, SYS_munmap, (unsigned long)addr, len, 0, 0, 0, 0, &st);
	EXPECT(r == want);
	e = find_pair(h, PPME_SYSCALL_MUNMAP_E, len, &x);
	if (!e)
		return;
	EXPECT_PARAM_INT(e, 0, (uint64_t)addr);
	EXPECT_PARAM_INT(e, 1, len);
	EXPECT_PARAM_INT(x, 0, want);
	mem__expect_stats(x, 1, st);
}

static void check_mprotect(struct harness *h, void *addr, unsigned long len, int nprot,
			   uint32_t prot, long want)
{
	struct hevt *e, *x;
	struct mem_status st;
	long r;

	r = mem__call(h, SYS_mprotect, (unsigned long)addr, len, nprot, 0, 0, 0, &st);
	EXPECT(r == want);
	e = find_pair(h, PPME_SYSCALL_MPROTECT_E, len, &x);
	if (!e)
		return;
	EXPECT_PARAM_INT(e, 0, (uint64_t)addr);
	EXPECT_PARAM_INT(e, 1, len);
	EXPECT_PARAM_INT(e, 2, prot);
	EXPECT_PARAM_INT(x, 0, want);
}

static void test_mmap(struct harness *h)
{
	const unsigned long big = 16UL << 20;
	long before, after;
	void *p, *q;
	int fd;

	/* Anonymous, then file-backed and executable (the test's own binary). */
	p = check_mmap(h, NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0,
		       PR(READ) | PR(WRITE), MF(PRIVATE) | MF(ANONYMOUS));
	EXPECT(MAPPED(p));
	fd = open("/proc/self/exe", O_RDONLY);
	q = check_mmap(h, NULL, 5 * PAGE, PROT_READ | PROT_EXEC, MAP_SHARED, fd, PAGE,
		       PR(READ) | PR(EXEC), MF(SHARED));
	EXPECT(MAPPED(q));

	/* Every flag x86_64 has, at a fixed address (over the first mapping). */
	q = check_mmap(h, p, 2 * PAGE, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE | MAP_NONBLOCK |
			       MAP_GROWSDOWN | MAP_DENYWRITE | MAP_EXECUTABLE | MAP_LOCKED | MAP_POPULATE,
		       -1, 0, PR(NONE),
		       MF(PRIVATE) | MF(ANONYMOUS) | MF(FIXED) | MF(NORESERVE) | MF(NONBLOCK) |
			       MF(GROWSDOWN) | MF(DENYWRITE) | MF(EXECUTABLE) | MF(LOCKED) | MF(POPULATE));
	EXPECT(q == p);
	q = check_mmap(h, NULL, 7 * PAGE, PROT_READ | PROT_WRITE | PROT_SEM,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0,
		       PR(READ) | PR(WRITE) | PR(SEM), MF(PRIVATE) | MF(ANONYMOUS) | MF(32BIT));
	EXPECT(MAPPED(q) && (uint64_t)q < (1UL << 32));
	check_munmap(h, q, 7 * PAGE, 0);

	/* 16 MiB populated: rss grows by about as much, and shrinks back at munmap. */
	before = mem__status().rss;
	q = check_mmap(h, NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
		       -1, 0, PR(READ) | PR(WRITE), MF(PRIVATE) | MF(ANONYMOUS) | MF(POPULATE));
	after = mem__status().rss;
	EXPECT(MAPPED(q) && after - before >= (long)(big >> 10) - mem__rss_slack());
	check_munmap(h, q, big, 0);

	/* Failing: no length (EINVAL), a bad fd (EBADF). */
	q = check_mmap(h, NULL, 0, PROT_READ, MAP_PRIVATE, fd, 0, PR(READ),
		       MF(PRIVATE));
	EXPECT(q == (void *)-EINVAL);
	q = check_mmap(h, NULL, 11 * PAGE, PROT_READ, MAP_PRIVATE, 9999, 0, PR(READ), MF(PRIVATE));
	EXPECT(q == (void *)-EBADF);
	close(fd);
}

static void test_munmap_mprotect(struct harness *h)
{
	char *p = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	EXPECT(p != MAP_FAILED);
	check_mprotect(h, p, 4 * PAGE, PROT_READ, PR(READ), 0);
	check_mprotect(h, p, 3 * PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
		       PR(READ) | PR(WRITE) | PR(EXEC), 0);
	check_mprotect(h, p, 2 * PAGE, PROT_NONE, PR(NONE), 0);
	/* Failing: an unaligned address (EINVAL), PROT_GROWSDOWN on a mapping that
	 * does not grow down (EINVAL), PROT_GROWSUP (no such mappings on x86_64:
	 * EINVAL). */
	check_mprotect(h, p + 1, 9 * PAGE, PROT_READ, PR(READ), -EINVAL);
	check_mprotect(h, p, 10 * PAGE, PROT_READ | PROT_GROWSDOWN,
		       PR(READ) | PR(GROWSDOWN), -EINVAL);
	check_mprotect(h, p, 12 * PAGE, PROT_READ | PROT_GROWSUP,
		       PR(READ) | PR(GROWSUP), -EINVAL);

	check_munmap(h, p + PAGE, PAGE, 0);
	check_munmap(h, p, 4 * PAGE, 0);
	/* Failing: unaligned (EINVAL), zero length (EINVAL). */
	check_munmap(h, p + 3, 2 * PAGE, -EINVAL);
	check_munmap(h, p, 0, -EINVAL);
}

int main(void)
{
	struct harness *h = live__open(256, mem_map_calls);

	test_mmap(h);
	test_munmap_mprotect(h);
	harness__close(h);
	return harness__report("mem_map");
}
