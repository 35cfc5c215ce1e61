/* nanosleep and futex on the real driver: every param of both events, the futex
 * command and option conversion, and failing calls. */
#include <linux/futex.h>
#include <time.h>

#include "wait_live.h"

#define NOT_AVAILABLE INT64_MIN

/* The calls checked, each made with syscall(). */
static const int wait_sleep_calls[] = { SYS_nanosleep, SYS_futex, -1 };

/* nanosleep(TS) checked: the interval in ns (or NOT_AVAILABLE). */
static void check_nanosleep(struct harness *h, const struct timespec *ts, int64_t want_ns,
			    long want)
{
	struct hevt *e, *x;
	long r;

	r = wait__call(h, SYS_nanosleep, (unsigned long)ts, 0, 0, 0, 0, 0);
	EXPECT(r == want);
	e = wait__last_pair(h, PPME_SYSCALL_NANOSLEEP_E, &x);
	if (!e)
		return;
	if (want_ns == NOT_AVAILABLE)
		EXPECT_PARAM_EMPTY(e, 0);
	else
		EXPECT_PARAM_INT(e, 0, want_ns);
	EXPECT_PARAM_INT(x, 0, want);
}

static void test_nanosleep(struct harness *h)
{
	struct timespec ts = { 0, 1000 };

	check_nanosleep(h, &ts, 1000, 0);
	/* Failing: nanoseconds out of range (EINVAL), sent as computed; an
	 * unreadable timespec (EFAULT): not available. */
	ts = (struct timespec){ 3, 2000000000 };
	check_nanosleep(h, &ts, 5000000000LL, -EINVAL);
	ts = (struct timespec){ -1, 0 };
	check_nanosleep(h, &ts, -1000000000LL, -EINVAL);
	check_nanosleep(h, (struct timespec *)8, NOT_AVAILABLE, -EFAULT);
}

static uint32_t word = 42;

/* futex(ADDR, OP, VAL, ...) checked: OP must be sent as WANT_OP. */
static void check_futex(struct harness *h, uint32_t *addr, unsigned long op, unsigned long val,
			uint16_t want_op, long want)
{
	struct timespec ts = { 0, 1 };
	struct hevt *e, *x;
	long r;

	r = wait__call(h, SYS_futex, (unsigned long)addr, op, val, (unsigned long)&ts, 0,
		       FUTEX_BITSET_MATCH_ANY);
	if (r != want)
		fprintf(stderr, "  futex op %#lx: res %ld, want %ld\n", op, r, want);
	EXPECT(r == want);
	e = wait__pair(h, PPME_SYSCALL_FUTEX_E, 0, (int64_t)(uintptr_t)addr, &x);
	if (!e)
		return;
	EXPECT_PARAM_INT(e, 0, (uint64_t)(uintptr_t)addr);
	EXPECT_PARAM_INT(e, 1, want_op);
	EXPECT_PARAM_INT(e, 2, val);
	EXPECT_PARAM_INT(x, 0, want);
}

static void test_futex(struct harness *h)
{
	/* Nobody waits: woken 0. */
	check_futex(h, &word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 5,
		    PPM_FUTEX_OPERATIONS_FUTEX_WAKE | PPM_FUTEX_OPERATIONS_FUTEX_PRIVATE_FLAG, 0);
	/* The word is not VAL: the wait returns at once (EAGAIN). */
	check_futex(h, &word, FUTEX_WAIT, 41, PPM_FUTEX_OPERATIONS_FUTEX_WAIT, -EAGAIN);
	check_futex(h, &word, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME | FUTEX_PRIVATE_FLAG, 40,
		    PPM_FUTEX_OPERATIONS_FUTEX_WAIT_BITSET |
			    PPM_FUTEX_OPERATIONS_FUTEX_CLOCK_REALTIME |
			    PPM_FUTEX_OPERATIONS_FUTEX_PRIVATE_FLAG,
		    -EAGAIN);
	/* The word is VAL: waits out the 1 ns timeout (ETIMEDOUT). */
	check_futex(h, &word, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 42,
		    PPM_FUTEX_OPERATIONS_FUTEX_WAIT | PPM_FUTEX_OPERATIONS_FUTEX_PRIVATE_FLAG,
		    -ETIMEDOUT);
	/* A PI lock this thread does not hold (EPERM). */
	check_futex(h, &word, FUTEX_UNLOCK_PI, 0, PPM_FUTEX_OPERATIONS_FUTEX_UNLOCK_PI, -EPERM);
	/* A command sysdig did not know (FUTEX_LOCK_PI2, 13; 99 unknown to the kernel
	 * too): sent as 0. */
	check_futex(h, &word, 99 | FUTEX_PRIVATE_FLAG, 3, PPM_FUTEX_OPERATIONS_FUTEX_PRIVATE_FLAG,
		    -ENOSYS);
	/* Failing: an unaligned word (EINVAL). */
	check_futex(h, (uint32_t *)((char *)&word + 1), FUTEX_WAKE, 1,
		    PPM_FUTEX_OPERATIONS_FUTEX_WAKE, -EINVAL);
}

int main(void)
{
	struct harness *h = live__open(256, wait_sleep_calls);

	test_nanosleep(h);
	test_futex(h);
	harness__close(h);
	return harness__report("wait_sleep");
}
