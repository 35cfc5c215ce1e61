/* kill, tkill, tgkill (delivered and failing: ESRCH, EINVAL), setuid/setgid to
 * the current ids and a failing setuid (EPERM, as nobody); exit and exit_group
 * stay generic events (sysdig has no dedicated ones). */
#include <signal.h>

#include "pn_test.h"

/* The calls checked; exit and exit_group also for the generic exit event they
 * must never send. */
static const int signal_calls[] = {
	SYS_kill, SYS_tkill, SYS_tgkill, SYS_setuid, SYS_setgid, SYS_exit, SYS_exit_group, -1,
};

/* A child that waits for a signal. */
static pid_t spawn_sleeper(void)
{
	pid_t child = fork();

	if (child == 0) {
		pause();
		_exit(0);
	}
	return child;
}

static void expect_res(struct hevt *e, uint16_t type, int64_t tid, int64_t res)
{
	EXPECT(e != NULL);
	if (!e)
		return;
	hevt__expect_header(e, type, tid);
	EXPECT_PARAM_INT(e, 0, res);
}

static void test_kill(struct harness *h)
{
	int64_t me = pn_gettid();
	pid_t child = spawn_sleeper();
	struct hevt *e;
	int status, at = 0;

	harness__drain(h, -1);
	syscall(SYS_kill, child, SIGUSR2);
	waitpid(child, &status, 0);
	EXPECT(WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR2);
	syscall(SYS_kill, 0x7ffffff0, SIGTERM);	/* no such process */
	syscall(SYS_kill, getpid(), 1000);	/* no such signal */
	harness__drain(h, me);
	e = pn_find_arg0(h, PPME_SYSCALL_KILL_E, child, &at);
	EXPECT(e != NULL);
	if (e) {
		hevt__expect_header(e, PPME_SYSCALL_KILL_E, me);
		EXPECT_PARAM_INT(e, 1, SIGUSR2);
	}
	expect_res(harness__find(h, PPME_SYSCALL_KILL_X, &at), PPME_SYSCALL_KILL_X, me, 0);
	e = pn_find_arg0(h, PPME_SYSCALL_KILL_E, 0x7ffffff0, &at);
	EXPECT(e != NULL);
	if (e)
		EXPECT_PARAM_INT(e, 1, SIGTERM);
	expect_res(harness__find(h, PPME_SYSCALL_KILL_X, &at), PPME_SYSCALL_KILL_X, me, -ESRCH);
	e = pn_find_arg0(h, PPME_SYSCALL_KILL_E, getpid(), &at);
	EXPECT(e != NULL);
	if (e)
		EXPECT_PARAM_INT(e, 1, 1000 & 0xff);	/* SIGTYPE is one byte */
	expect_res(harness__find(h, PPME_SYSCALL_KILL_X, &at), PPME_SYSCALL_KILL_X, me, -EINVAL);
}

static void test_tkill_tgkill(struct harness *h)
{
	int64_t me = pn_gettid();
	pid_t child = spawn_sleeper(), child2 = spawn_sleeper();
	struct hevt *e;
	int status, at = 0;

	harness__drain(h, -1);
	syscall(SYS_tkill, child, SIGUSR1);
	syscall(SYS_tgkill, child2, child2, SIGHUP);
	syscall(SYS_tgkill, getpid(), 0x7ffffff0, SIGHUP);	/* no such thread */
	waitpid(child, &status, 0);
	EXPECT(WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR1);
	waitpid(child2, &status, 0);
	EXPECT(WIFSIGNALED(status) && WTERMSIG(status) == SIGHUP);
	harness__drain(h, me);
	e = pn_find_arg0(h, PPME_SYSCALL_TKILL_E, child, &at);
	EXPECT(e != NULL);
	if (e) {
		hevt__expect_header(e, PPME_SYSCALL_TKILL_E, me);
		EXPECT_PARAM_INT(e, 1, SIGUSR1);
	}
	expect_res(harness__find(h, PPME_SYSCALL_TKILL_X, &at), PPME_SYSCALL_TKILL_X, me, 0);
	e = pn_find_arg0(h, PPME_SYSCALL_TGKILL_E, child2, &at);
	EXPECT(e != NULL);
	if (e) {
		hevt__expect_header(e, PPME_SYSCALL_TGKILL_E, me);
		EXPECT_PARAM_INT(e, 1, child2);
		EXPECT_PARAM_INT(e, 2, SIGHUP);
	}
	expect_res(harness__find(h, PPME_SYSCALL_TGKILL_X, &at), PPME_SYSCALL_TGKILL_X, me, 0);
	e = pn_find_arg0(h, PPME_SYSCALL_TGKILL_E, getpid(), &at);
	EXPECT(e != NULL);
	if (e) {
		EXPECT_PARAM_INT(e, 1, 0x7ffffff0);
		EXPECT_PARAM_INT(e, 2, SIGHUP);
	}
	expect_res(harness__find(h, PPME_SYSCALL_TGKILL_X, &at), PPME_SYSCALL_TGKILL_X, me, -ESRCH);
}

static void test_setuid_setgid(struct harness *h)
{
	int64_t me = pn_gettid();
	uid_t uid = getuid();
	gid_t gid = getgid();
	struct hevt *e;
	pid_t child;
	int at = 0, status;

	harness__drain(h, -1);
	syscall(SYS_setuid, uid);
	syscall(SYS_setgid, gid);
	harness__drain(h, me);
	e = harness__find(h, PPME_SYSCALL_SETUID_E, &at);
	EXPECT(e != NULL);
	if (e) {
		hevt__expect_header(e, PPME_SYSCALL_SETUID_E, me);
		EXPECT_PARAM_INT(e, 0, uid);
	}
	expect_res(harness__find(h, PPME_SYSCALL_SETUID_X, &at), PPME_SYSCALL_SETUID_X, me, 0);
	e = harness__find(h, PPME_SYSCALL_SETGID_E, &at);
	EXPECT(e != NULL);
	if (e) {
		hevt__expect_header(e, PPME_SYSCALL_SETGID_E, me);
		EXPECT_PARAM_INT(e, 0, gid);
	}
	expect_res(harness__find(h, PPME_SYSCALL_SETGID_X, &at), PPME_SYSCALL_SETGID_X, me, 0);

	/* nobody may not become root again: EPERM (raw calls: one thread only). */
	child = fork();
	if (child == 0) {
		syscall(SYS_setgid, 65534);
		syscall(SYS_setuid, 65534);
		_exit(syscall(SYS_setuid, 0) == -1 && errno == EPERM ? 0 : 1);
	}
	waitpid(child, &status, 0);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	harness__drain(h, child);
	at = 0;
	e = pn_find_arg0(h, PPME_SYSCALL_SETUID_E, 0, &at);
	EXPECT(e != NULL);
	if (e)
		hevt__expect_header(e, PPME_SYSCALL_SETUID_E, child);
	expect_res(harness__find(h, PPME_SYSCALL_SETUID_X, &at), PPME_SYSCALL_SETUID_X, child, -EPERM);
}

/* exit and exit_group have no dedicated event in sysdig's table: the generic
 * one names them, and they never return (no exit event); procexit follows. */
static void test_exit_generic(struct harness *h)
{
	const uint16_t sc_exit = schema_syscall_routes[SYS_exit].ppm_sc;
	const uint16_t sc_group = schema_syscall_routes[SYS_exit_group].ppm_sc;
	pid_t child;
	struct hevt *e;
	int at = 0;

	EXPECT(schema_syscall_routes[SYS_exit].enter_event == PPME_GENERIC_E);
	EXPECT(schema_syscall_routes[SYS_exit_group].enter_event == PPME_GENERIC_E);
	EXPECT(strcmp(schema__ppm_sc_name(sc_exit), "exit") == 0);
	EXPECT(strcmp(schema__ppm_sc_name(sc_group), "exit_group") == 0);
	for (int group = 0; group < 2; group++) {
		harness__drain(h, -1);
		child = fork();
		if (child == 0)
			syscall(group ? SYS_exit_group : SYS_exit, 5);
		waitpid(child, NULL, 0);
		harness__drain(h, child);
		at = 0;
		e = pn_find_arg0(h, PPME_GENERIC_E, group ? sc_group : sc_exit, &at);
		EXPECT(e != NULL);
		if (!e)
			continue;
		hevt__expect_header(e, PPME_GENERIC_E, child);
		EXPECT_PARAM_INT(e, 1, group ? SYS_exit_group : SYS_exit);
		EXPECT(harness__find(h, PPME_GENERIC_X, &(int){ at }) == NULL);
		e = harness__find(h, PPME_PROCEXIT_1_E, &at);
		EXPECT(e != NULL);
		if (e)
			EXPECT_PARAM_INT(e, 1, 5);
	}
}

/* The sleepers die of the signals sent them only with the default action: a
 * test run under nohup (SIGHUP ignored) or with them blocked would wait for
 * them for ever. Set before any fork, so no child can miss it. */
static void signals_default(void)
{
	static const int sigs[] = { SIGUSR1, SIGUSR2, SIGHUP };
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		signal(sigs[i], SIG_DFL);
		sigaddset(&set, sigs[i]);
	}
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

int main(void)
{
	struct harness *h;

	signals_default();
	h = pn_open(256, signal_calls);

	test_kill(h);
	test_tkill_tgkill(h);
	test_setuid_setgid(h);
	test_exit_generic(h);
	harness__close(h);
	return harness__report("procnet_signal");
}
