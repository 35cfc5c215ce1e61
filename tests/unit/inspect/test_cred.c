/* Thread ids kept from events: setuid/setgid and setresuid/setresgid (the
 * effective id, -1 unchanged, the calling thread only), setsid and setpgid
 * (the whole process; pid 0 the caller, pgid 0 the pid; namespaced pids).
 * Failed calls and exits without their enter change nothing. */
#include "test_util.h"

#define Q(x) ((uint64_t)(int64_t)(x))

static const uint32_t CLONE_THREAD_FLAGS = PPM_CLONE_FLAGS_CLONE_THREAD |
	PPM_CLONE_FLAGS_CLONE_FILES | PPM_CLONE_FLAGS_CLONE_VM | PPM_CLONE_FLAGS_CLONE_FS |
	PPM_CLONE_FLAGS_CLONE_SIGHAND;

static struct t_ctx *t;

static struct thread_info *find(int64_t tid)
{
	return thread_table__find(inspector__threads(t->in), tid);
}

/* Process PID (uid 1000, gid 1001) with a second thread PID + 1. */
static void process_with_thread(int64_t pid, int64_t ppid)
{
	CHECK(t_spawn(t, pid, ppid, "app", "/") == 0);
	CHECK(t_emit(t, PPME_SYSCALL_CLONE_20_E, (uint64_t)pid, "") == 0);
	CHECK(t_clone(t, PPME_SYSCALL_CLONE_20_X, (uint64_t)pid, pid + 1, "app", "a1\0a2", 6, pid,
		      pid, ppid, "/", "app", CLONE_THREAD_FLAGS, 1000, pid, pid) == 0);
	CHECK(find(pid + 1) && find(pid + 1)->pid == pid);
}

static void id1(uint16_t enter, int64_t tid, uint32_t id, int64_t res)
{
	CHECK(t_emit(t, enter, (uint64_t)tid, "d", id) == 0);
	CHECK(t_emit(t, enter + 1, (uint64_t)tid, "q", Q(res)) == 0);
}

static void id3(uint16_t enter, int64_t tid, uint32_t r, uint32_t e, uint32_t s, int64_t res)
{
	CHECK(t_emit(t, enter, (uint64_t)tid, "ddd", r, e, s) == 0);
	CHECK(t_emit(t, enter + 1, (uint64_t)tid, "q", Q(res)) == 0);
}

static void test_setuid_setgid(void)
{
	struct thread_info *m, *th;

	process_with_thread(100, 1);
	m = find(100);
	th = find(101);
	CHECK(m && th && m->uid == 1000 && th->uid == 1000 && m->gid == 1001);

	/* success: the calling thread only, as the kernel does (glibc's
	 * broadcast shows up as one event per thread) */
	id1(PPME_SYSCALL_SETUID_E, 101, 0, 0);
	CHECK_INT(th->uid, 0);
	CHECK_INT(m->uid, 1000);
	id1(PPME_SYSCALL_SETGID_E, 101, 50, 0);
	CHECK_INT(th->gid, 50);
	CHECK_INT(m->gid, 1001);
	/* failures change nothing */
	id1(PPME_SYSCALL_SETUID_E, 100, 0, -1);
	CHECK_INT(m->uid, 1000);
	id1(PPME_SYSCALL_SETGID_E, 100, 0, -1);
	CHECK_INT(m->gid, 1001);
	/* an exit without its enter: the id is not known */
	CHECK(t_emit(t, PPME_SYSCALL_SETUID_X, 100, "q", Q(0)) == 0);
	CHECK_INT(m->uid, 1000);
	/* the main thread in turn */
	id1(PPME_SYSCALL_SETUID_E, 100, 33, 0);
	CHECK_INT(m->uid, 33);
	CHECK_INT(th->uid, 0);
}

static void test_setresuid_setresgid(void)
{
	struct thread_info *m, *th;

	process_with_thread(200, 1);
	m = find(200);
	th = find(201);
	/* the effective id is the one tracked */
	id3(PPME_SYSCALL_SETRESUID_E, 200, 5, 6, 7, 0);
	CHECK_INT(m->uid, 6);
	CHECK_INT(th->uid, 1000);
	/* -1: unchanged */
	id3(PPME_SYSCALL_SETRESUID_E, 200, 9, UINT32_MAX, 9, 0);
	CHECK_INT(m->uid, 6);
	id3(PPME_SYSCALL_SETRESUID_E, 200, UINT32_MAX, 0, UINT32_MAX, 0);
	CHECK_INT(m->uid, 0);
	/* failure: unchanged */
	id3(PPME_SYSCALL_SETRESUID_E, 200, 1, 2, 3, -1);
	CHECK_INT(m->uid, 0);
	id3(PPME_SYSCALL_SETRESGID_E, 201, 10, 11, 12, 0);
	CHECK_INT(th->gid, 11);
	CHECK_INT(m->gid, 1001);
	id3(PPME_SYSCALL_SETRESGID_E, 201, UINT32_MAX, UINT32_MAX, UINT32_MAX, 0);
	CHECK_INT(th->gid, 11);
	id3(PPME_SYSCALL_SETRESGID_E, 201, 0, 0, 0, -1);
	CHECK_INT(th->gid, 11);
	/* an exit paired with another call's enter is not a setresgid */
	CHECK(t_emit(t, PPME_SYSCALL_SETRESUID_E, 201, "ddd", 0u, 77u, 0u) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_SETRESGID_X, 201, "q", Q(0)) == 0);
	CHECK_INT(th->gid, 11);
	CHECK_INT(th->uid, 1000);
}

static void setsid_(int64_t tid, int64_t res)
{
	CHECK(t_emit(t, PPME_SYSCALL_SETSID_E, (uint64_t)tid, "") == 0);
	CHECK(t_emit(t, PPME_SYSCALL_SETSID_X, (uint64_t)tid, "q", Q(res)) == 0);
}

static void setpgid_(int64_t tid, int64_t pid, int64_t pgid, int64_t res)
{
	CHECK(t_emit(t, PPME_SYSCALL_SETPGID_E, (uint64_t)tid, "qq", Q(pid), Q(pgid)) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_SETPGID_X, (uint64_t)tid, "q", Q(res)) == 0);
}

static void test_setsid_setpgid(void)
{
	struct thread_info *m, *th, *child;

	process_with_thread(300, 1);
	m = find(300);
	th = find(301);
	m->pgid = th->pgid = 7;
	m->sid = th->sid = 7;
	/* a failed setsid (already a group leader) changes nothing */
	setsid_(301, -1);
	CHECK(m->pgid == 7 && m->sid == 7 && th->pgid == 7 && th->sid == 7);
	/* setsid from any thread: the process leads a new session and group */
	setsid_(301, 300);
	CHECK(m->pgid == 300 && m->sid == 300 && th->pgid == 300 && th->sid == 300);

	/* a child of it: setpgid(0, 0) makes its own group, the session stays */
	CHECK(t_spawn(t, 310, 300, "child", "/") == 0);
	child = find(310);
	CHECK(child && child->sid == 300 && child->pgid == 300);
	setpgid_(310, 0, 0, 0);
	CHECK_INT(child->pgid, 310);
	CHECK_INT(child->sid, 300);
	CHECK_INT(m->pgid, 300);
	/* the parent moves the child back into its group: setpgid(310, 300) */
	setpgid_(301, 310, 300, 0);
	CHECK_INT(child->pgid, 300);
	/* setpgid(310, 0): pgid 0 is the named pid */
	setpgid_(300, 310, 0, 0);
	CHECK_INT(child->pgid, 310);
	/* failures change nothing */
	setpgid_(300, 310, 300, -1);
	CHECK_INT(child->pgid, 310);
	setpgid_(301, 0, 999, -3);
	CHECK(m->pgid == 300 && th->pgid == 300);
	/* setpgid(0, pgid) from a thread moves its whole process */
	setpgid_(301, 0, 310, 0);
	CHECK(m->pgid == 310 && th->pgid == 310 && m->sid == 300);
	/* a process we do not know: nothing to change, nothing made */
	setpgid_(300, 4242, 0, 0);
	CHECK(find(4242) == NULL);
	/* no enter: the pids are not known */
	CHECK(t_emit(t, PPME_SYSCALL_SETPGID_X, 310, "q", Q(0)) == 0);
	CHECK_INT(child->pgid, 310);
}

static void test_pid_namespace(void)
{
	struct thread_info *c, *k;

	/* process 400 is pid 1 in its namespace, its child 401 is pid 2 */
	CHECK(t_clone(t, PPME_SYSCALL_FORK_20_X, 400, 0, "init", "", 1, 400, 400, 1, "/", "init",
		      0, 0, 1, 1) == 0);
	CHECK(t_clone(t, PPME_SYSCALL_FORK_20_X, 401, 0, "sh", "", 1, 401, 401, 400, "/", "sh",
		      0, 0, 2, 2) == 0);
	c = find(400);
	k = find(401);
	CHECK(c && k && c->vpid == 1 && k->vpid == 2);
	/* setsid: the table keeps host pids (res is the namespaced one) */
	setsid_(400, 1);
	CHECK(c->sid == 400 && c->pgid == 400);
	/* setpgid(0, 0) and setpgid(own vpid, own vpid) in the namespace */
	setpgid_(401, 0, 0, 0);
	CHECK_INT(k->pgid, 401);
	setpgid_(401, 2, 1, 0);
	CHECK_INT(k->pgid, 401);	/* group 1 of the namespace: host pid unknown */
	setpgid_(401, 2, 2, 0);
	CHECK_INT(k->pgid, 401);
	/* the parent names its child by namespaced pid: unknown on the host */
	setpgid_(400, 2, 0, 0);
	CHECK_INT(k->pgid, 401);
}

int main(void)
{
	char *root = t_tmpdir();

	t = t_new(root);
	test_setuid_setgid();
	test_setresuid_setresgid();
	test_setsid_setpgid();
	test_pid_namespace();
	t_free(t, root);
	return t_report();
}
