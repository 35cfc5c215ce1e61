/* ptrace on the real driver: a forked child attached to, its memory read
 * (PEEKDATA) and written (POKEDATA), its registers and options, detached with a
 * signal; failing calls (ESRCH). The request as a PPM value, addr and data as
 * the DYN params sysdig fills. */
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/user.h>

#include "cred_live.h"

#define DYN_U64 0
#define DYN_SIG 1

/* The calls checked. */
static const int cred_ptrace_calls[] = { SYS_ptrace, -1 };

/* The word the tracer reads and writes in the child (same address there). */
static volatile uint64_t word = 0x1122334455667788ULL;

struct want_dyn {
	uint8_t idx;
	uint64_t v;
	uint32_t len;
};

static void check(struct harness *h, int64_t tid, int *at, uint16_t request, int64_t pid,
		  int64_t res, struct want_dyn addr, struct want_dyn data)
{
	struct hevt *e, *x;

	if (!cred__call(h, PPME_SYSCALL_PTRACE_E, tid, at, &e, &x))
		return;
	EXPECT_INTS(e, request, pid);
	EXPECT_INTS(x, res);
	EXPECT_PARAM_DYN(x, 1, addr.idx, addr.v, addr.len);
	EXPECT_PARAM_DYN(x, 2, data.idx, data.v, data.len);
}

#define U64(v) ((struct want_dyn){ DYN_U64, (uint64_t)(v), 8 })
#define SIG(v) ((struct want_dyn){ DYN_SIG, (uint64_t)(v), 1 })

int main(void)
{
	struct harness *h = live__open(256, cred_ptrace_calls);
	int64_t me = live__tid();
	struct user_regs_struct regs;
	uint64_t out1 = 0, out2 = 0, bad = 7;
	int status, at = 0;
	pid_t child = fork();

	if (child == 0) {
		for (;;)
			pause();
	}
	harness__drain(h, -1);
	EXPECT(syscall(SYS_ptrace, PTRACE_ATTACH, child, 0, 0) == 0);
	EXPECT(waitpid(child, &status, 0) == child && WIFSTOPPED(status));
	EXPECT(syscall(SYS_ptrace, PTRACE_PEEKDATA, child, &word, &out1) == 0);
	EXPECT(out1 == 0x1122334455667788ULL);
	EXPECT(syscall(SYS_ptrace, PTRACE_POKEDATA, child, &word, 0x4242) == 0);
	EXPECT(syscall(SYS_ptrace, PTRACE_PEEKDATA, child, &word, &out2) == 0);
	EXPECT(out2 == 0x4242);
	EXPECT(syscall(SYS_ptrace, PTRACE_GETREGS, child, 0, &regs) == 0);
	EXPECT(syscall(SYS_ptrace, PTRACE_SETOPTIONS, child, 0, PTRACE_O_TRACESYSGOOD) == 0);
	/* A bad data pointer: the peek fails (EFAULT), both DYN params are 0. */
	EXPECT(syscall(SYS_ptrace, PTRACE_PEEKDATA, child, &word, (void *)8) == -1 &&
	       errno == EFAULT);
	EXPECT(syscall(SYS_ptrace, PTRACE_DETACH, child, 0, SIGTERM) == 0);
	EXPECT(waitpid(child, &status, 0) == child && WIFSIGNALED(status) &&
	       WTERMSIG(status) == SIGTERM);
	/* Gone: ESRCH, for a known and an unknown (0x4300) request. */
	EXPECT(syscall(SYS_ptrace, PTRACE_PEEKDATA, child, &word, &bad) == -1 && errno == ESRCH);
	EXPECT(syscall(SYS_ptrace, 0x4300, child, 0, 0) == -1 && errno == ESRCH);
	harness__drain(h, me);

	check(h, me, &at, PPM_PTRACE_REQUESTS_PTRACE_ATTACH, child, 0, U64(0), U64(0));
	check(h, me, &at, PPM_PTRACE_REQUESTS_PTRACE_PEEKDATA, child, 0, U64(&word),
	      U64(0x1122334455667788ULL));
	check(h, me, &at, PPM_PTRACE_REQUESTS_PTRACE_POKEDATA, child, 0, U64(&word), U64(0x4242));
	check(h, me, &at, PPM_PTRACE_REQUESTS_PTRACE_PEEKDATA, child, 0, U64(&word), U64(0x4242));
	check(h, me, &at, PPM_PTRACE_REQUESTS_PTRACE_GETREGS, child, 0, U64(0), U64(&regs));
	check(h, me, &at, PPM_PTRACE_REQUESTS_PTRACE_SETOPTIONS, child, 0, U64(0),
	      U64(PTRACE_O_TRACESYSGOOD));
	check(h, me, &at, PPM_PTRACE_REQUESTS_PTRACE_PEEKDATA, child, -EFAULT, U64(0), U64(0));
	check(h, me, &at, PPM_PTRACE_REQUESTS_PTRACE_DETACH, child, 0, U64(0), SIG(SIGTERM));
	check(h, me, &at, PPM_PTRACE_REQUESTS_PTRACE_PEEKDATA, child, -ESRCH, U64(0), U64(0));
	check(h, me, &at, PPM_PTRACE_REQUESTS_PTRACE_UNKNOWN, child, -ESRCH, U64(0), U64(0));

	harness__close(h);
	return harness__report("cred_ptrace");
}
