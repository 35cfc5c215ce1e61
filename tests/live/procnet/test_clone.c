/* fork, vfork, clone, clone3 and a thread (pthread_create): the exit event of the
 * parent (res = child) and of the child (res = 0), every param; a failing clone
 * (EINVAL) and clone3 (E2BIG/EINVAL); forks into and inside a new pid namespace
 * (the CHILD_IN_PIDNS flag, ids there). */
#include <linux/sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

#include "pn_test.h"

static char dir[PATH_MAX];
static struct pn_cmdline cmd;
static char comm[16];

/* The calls checked, the thread's clone3 (or clone, on older glibc: both are
 * looked for) included. */
static const int clone_calls[] = { SYS_fork, SYS_vfork, SYS_clone, SYS_clone3, -1 };

/* Checks exit event E of TID (in process PID, parent PTID) that returned RES. */
static void expect_clone_x(struct hevt *e, uint16_t type, int64_t res, int64_t tid, int64_t pid,
			   int64_t ptid, uint32_t flags)
{
	hevt__expect_header(e, type, tid);
	EXPECT_PARAM_INT(e, 0, res);
	EXPECT_PARAM_STR(e, 1, cmd.exe);
	if (cmd.args_len)
		EXPECT_PARAM_BYTES(e, 2, cmd.args, cmd.args_len);
	else
		EXPECT_PARAM_EMPTY(e, 2);
	EXPECT_PARAM_INT(e, 3, tid);
	EXPECT_PARAM_INT(e, 4, pid);
	EXPECT_PARAM_INT(e, 5, ptid);
	EXPECT_PARAM_STR(e, 6, dir);
	EXPECT_PARAM_INT(e, 7, pn_fdlimit());
	EXPECT(hevt__int(e, 8) >= 0);
	EXPECT(hevt__int(e, 9) >= 0);
	EXPECT(hevt__int(e, 10) > 0);
	EXPECT(hevt__int(e, 11) >= 0 && hevt__int(e, 11) <= hevt__int(e, 10));
	EXPECT(hevt__int(e, 12) >= 0 && hevt__int(e, 12) <= hevt__int(e, 10));
	EXPECT_PARAM_STR(e, 13, comm);
	EXPECT(pn_cgroups_match(e, 14));
	EXPECT_PARAM_INT(e, 15, flags);
	EXPECT_PARAM_INT(e, 16, geteuid());
	EXPECT_PARAM_INT(e, 17, getegid());
	/* The test runs in its own pid namespace's view: v-ids are the ids it sees. */
	EXPECT_PARAM_INT(e, 18, tid);
	EXPECT_PARAM_INT(e, 19, pid);
}

/* The enter event of the parent and the exit events of both sides. */
static void expect_pair(struct harness *h, uint16_t type_e, pid_t child, uint32_t flags)
{
	int64_t me = pn_gettid();
	struct hevt *e;
	int at = 0;

	harness__drain(h, -1);
	e = pn_find_tid(h, type_e, me, &at);
	EXPECT(e != NULL);
	if (e)
		hevt__expect_header(e, type_e, me);
	e = pn_find_tid(h, type_e + 1, me, &at);
	EXPECT(e != NULL);
	if (e)
		expect_clone_x(e, type_e + 1, child, me, getpid(), getppid(), flags);
	at = 0;
	e = pn_find_tid(h, type_e + 1, child, &at);
	EXPECT(e != NULL);
	if (e) {
		expect_clone_x(e, type_e + 1, 0, child, child, getpid(), flags);
		EXPECT_PARAM_INT(e, 8, 0);	/* a new task starts with no faults */
	}
}

static void reap(pid_t child)
{
	int status;

	waitpid(child, &status, __WALL);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_fork(struct harness *h)
{
	pid_t child;

	harness__drain(h, -1);
	child = syscall(SYS_fork);
	if (child == 0)
		_exit(0);
	reap(child);
	expect_pair(h, PPME_SYSCALL_FORK_20_E, child, 0);
}

static void test_vfork(struct harness *h)
{
	pid_t child;

	harness__drain(h, -1);
	child = vfork();
	if (child == 0)
		_exit(0);
	reap(child);
	/* sysdig reports no flags for vfork. */
	expect_pair(h, PPME_SYSCALL_VFORK_20_E, child, 0);
}

static void test_clone(struct harness *h)
{
	pid_t child, ptid = 0;

	harness__drain(h, -1);
	/* No new stack and no CLONE_VM: the child runs on a copy, like fork. */
	child = syscall(SYS_clone, CLONE_FS | CLONE_FILES | CLONE_PARENT_SETTID | SIGCHLD,
			NULL, &ptid, NULL, 0);
	if (child == 0)
		_exit(0);
	reap(child);
	EXPECT(ptid == child);
	expect_pair(h, PPME_SYSCALL_CLONE_20_E, child,
		    PPM_CLONE_FLAGS_CLONE_FS | PPM_CLONE_FLAGS_CLONE_FILES |
		    PPM_CLONE_FLAGS_CLONE_PARENT_SETTID);
}

static void test_clone3(struct harness *h)
{
	struct clone_args args = { .flags = CLONE_FILES | CLONE_SYSVSEM, .exit_signal = SIGCHLD };
	pid_t child;

	harness__drain(h, -1);
	child = syscall(SYS_clone3, &args, sizeof(args));
	if (child == 0)
		_exit(0);
	reap(child);
	expect_pair(h, PPME_SYSCALL_CLONE3_E, child,
		    PPM_CLONE_FLAGS_CLONE_FILES | PPM_CLONE_FLAGS_CLONE_SYSVSEM);
}

static atomic_long thread_tid;

static void *thread_main(void *arg)
{
	(void)arg;
	thread_tid = pn_gettid();
	return NULL;
}

/* glibc's pthread_create is clone3 with CLONE_THREAD and friends; the new thread
 * has its own exit event, in the same process. */
static void test_thread(struct harness *h)
{
	const uint32_t want = PPM_CLONE_FLAGS_CLONE_VM | PPM_CLONE_FLAGS_CLONE_FS |
			      PPM_CLONE_FLAGS_CLONE_FILES | PPM_CLONE_FLAGS_CLONE_SIGHAND |
			      PPM_CLONE_FLAGS_CLONE_THREAD | PPM_CLONE_FLAGS_CLONE_SYSVSEM;
	int64_t me = pn_gettid(), tid;
	pthread_t th;
	struct hevt *e;
	int at = 0, type;

	harness__drain(h, -1);
	pthread_create(&th, NULL, thread_main, NULL);
	pthread_join(th, NULL);
	tid = thread_tid;
	harness__drain(h, -1);
	/* clone3 on current glibc, clone on older ones. */
	type = pn_find_tid(h, PPME_SYSCALL_CLONE3_X, me, &at) ? PPME_SYSCALL_CLONE3_X
							       : PPME_SYSCALL_CLONE_20_X;
	at = 0;
	e = pn_find_arg0(h, type, tid, &at);
	EXPECT(e != NULL);
	if (e) {
		hevt__expect_header(e, type, me);
		EXPECT_PARAM_INT(e, 3, me);
		EXPECT_PARAM_INT(e, 4, getpid());
		EXPECT((hevt__int(e, 15) & want) == want);
		EXPECT(hevt__int(e, 15) & PPM_CLONE_FLAGS_CLONE_SETTLS);
	}
	at = 0;
	e = pn_find_tid(h, type, tid, &at);
	EXPECT(e != NULL);
	if (e) {
		uint32_t flags = hevt__int(e, 15);

		/* A thread's real parent is its process's parent. */
		expect_clone_x(e, type, 0, tid, getpid(), getppid(), flags);
		EXPECT((flags & want) == want);
	}
}

static void test_failures(struct harness *h)
{
	struct clone_args args = { .flags = CLONE_FILES, .exit_signal = SIGCHLD };
	int64_t me = pn_gettid();
	struct hevt *e;
	long r1, r2;
	int at = 0;

	harness__drain(h, -1);
	/* CLONE_THREAD needs CLONE_SIGHAND: EINVAL before any task is made. */
	r1 = syscall(SYS_clone, CLONE_THREAD | SIGCHLD, NULL, NULL, NULL, 0);
	/* A clone_args size smaller than the first version's. */
	r2 = syscall(SYS_clone3, &args, 8);
	harness__drain(h, me);
	EXPECT(r1 == -1 && r2 == -1);
	e = pn_find_arg0(h, PPME_SYSCALL_CLONE_20_X, -EINVAL, &at);
	EXPECT(e != NULL);
	if (e)
		expect_clone_x(e, PPME_SYSCALL_CLONE_20_X, -EINVAL, me, getpid(), getppid(),
			       PPM_CLONE_FLAGS_CLONE_THREAD);
	at = 0;
	e = pn_find_arg0(h, PPME_SYSCALL_CLONE3_X, -EINVAL, &at);
	EXPECT(e != NULL);
	if (e)
		expect_clone_x(e, PPME_SYSCALL_CLONE3_X, -EINVAL, me, getpid(), getppid(),
			       PPM_CLONE_FLAGS_CLONE_FILES);
}

/* The exit event of TYPE from TID that returned RES, or NULL. */
static struct hevt *find_res(struct harness *h, uint16_t type, int64_t tid, int64_t res)
{
	struct hevt *e;
	int at = 0;

	while ((e = pn_find_tid(h, type, tid, &at)))
		if (hevt__int(e, 0) == res)
			return e;
	return NULL;
}

static void expect_pidns(struct hevt *e, int64_t vtid, int64_t vpid)
{
	EXPECT(e != NULL);
	if (!e)
		return;
	EXPECT(hevt__int(e, 15) & PPM_CLONE_FLAGS_CHILD_IN_PIDNS);
	EXPECT_PARAM_INT(e, 18, vtid);
	EXPECT_PARAM_INT(e, 19, vpid);
}

/* unshare --pid --fork in small: a helper moves its children into a new pid
 * namespace and forks its init (pid 1 there), which forks pid 2. The flag is
 * set on all three exits: the helper's (in the initial namespace, its children
 * elsewhere: its ids are its host ids) and both of the init's (not in the
 * initial one). The test's own forks (above) have it clear. */
static void test_pid_namespace(struct harness *h)
{
	pid_t helper, init = 0, two = 0;
	int p_init[2], p_two[2];	/* the init's host pid, its child's number */

	harness__drain(h, -1);
	EXPECT(pipe(p_init) == 0 && pipe(p_two) == 0);
	helper = syscall(SYS_fork);
	if (helper == 0) {
		pid_t c;
		int st = 1;

		if (unshare(CLONE_NEWPID))
			_exit(2);
		c = syscall(SYS_fork);
		if (c == 0) {
			c = syscall(SYS_fork);
			if (c == 0)
				_exit(0);
			if (write(p_two[1], &c, sizeof(c)) != sizeof(c) || waitpid(c, &st, 0) != c)
				_exit(3);
			_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 4);
		}
		if (c < 0 || write(p_init[1], &c, sizeof(c)) != sizeof(c) || waitpid(c, &st, 0) != c)
			_exit(5);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 6);
	}
	reap(helper);
	EXPECT(read(p_init[0], &init, sizeof(init)) == sizeof(init) && init > 0);
	EXPECT(read(p_two[0], &two, sizeof(two)) == sizeof(two) && two == 2);
	for (int i = 0; i < 2; i++) {
		close(p_init[i]);
		close(p_two[i]);
	}
	harness__drain(h, -1);
	expect_pidns(find_res(h, PPME_SYSCALL_FORK_20_X, helper, init), helper, helper);
	expect_pidns(find_res(h, PPME_SYSCALL_FORK_20_X, init, 0), 1, 1);
	expect_pidns(find_res(h, PPME_SYSCALL_FORK_20_X, init, 2), 1, 1);
}

int main(void)
{
	struct harness *h;
	char old[PATH_MAX];

	pn_tmpdir(dir, sizeof(dir));
	if (!getcwd(old, sizeof(old)) || chdir(dir))
		return 1;
	pn_cmdline(&cmd);
	pn_comm(comm);
	h = pn_open(256, clone_calls);
	test_fork(h);
	test_vfork(h);
	test_clone(h);
	test_clone3(h);
	test_thread(h);
	test_failures(h);
	test_pid_namespace(h);
	harness__close(h);
	if (chdir(old))
		return 1;
	rmdir(dir);
	return harness__report("procnet_clone");
}
