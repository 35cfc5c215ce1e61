/* brk on the real driver: the requested break at enter, the break kept and the
 * memory counters at exit, for a query, a growth, a shrink and a refused call. */
#include "mem_live.h"

/* The call checked. */
static const int mem_brk_calls[] = { SYS_brk, -1 };

/* brk(ADDR) checked; returns the break the kernel kept. */
static unsigned long check_brk(struct harness *h, unsigned long addr)
{
	int64_t tid = live__tid();
	struct mem_status st;
	struct hevt *e, *x;
	unsigned long r;
	int at = 0;

	r = mem__call(h, SYS_brk, addr, 0, 0, 0, 0, 0, &st);
	e = live__find_int(h, PPME_SYSCALL_BRK_4_E, 0, (int64_t)addr, &at);
	EXPECT(e != NULL);
	if (!e)
		return r;
	hevt__expect_header(e, PPME_SYSCALL_BRK_4_E, tid);
	EXPECT_PARAM_INT(e, 0, addr);
	x = live__next(h, e, PPME_SYSCALL_BRK_4_X);
	EXPECT(x != NULL);
	if (!x)
		return r;
	hevt__expect_header(x, PPME_SYSCALL_BRK_4_X, tid);
	EXPECT_PARAM_INT(x, 0, r);
	mem__expect_stats(x, 1, st);
	return r;
}

int main(void)
{
	struct harness *h = live__open(256, mem_brk_calls);
	unsigned long cur, r;
	struct mem_status st;
	long size0;

	/* The harness allocates its event array when it keeps its first event,
	 * and malloc may move the break then. With brk alone loaded that event
	 * is our own first brk: one is made and kept before the break is read,
	 * not between the calls checked. */
	mem__call(h, SYS_brk, 0, 0, 0, 0, 0, 0, &st);
	cur = check_brk(h, 0);
	EXPECT(cur != 0);
	size0 = mem__status().size;
	/* Growing by 256 KiB: vm_size follows. */
	r = check_brk(h, cur + (256 << 10));
	EXPECT(r == cur + (256 << 10));
	EXPECT(mem__status().size == size0 + 256);
	/* Shrinking back. */
	r = check_brk(h, cur);
	EXPECT(r == cur);
	/* Refused (below the data segment): brk fails by returning the current
	 * break, not an errno. */
	r = check_brk(h, 4096);
	EXPECT(r == cur);
	harness__close(h);
	return harness__report("mem_brk");
}
