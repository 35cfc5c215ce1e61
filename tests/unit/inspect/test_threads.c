/* Thread lifecycle from events: clone (parent side first and child side first),
 * fork, vfork, clone3, exec (exe/args/comm, O_CLOEXEC fds, exec from a thread),
 * procexit (deferred removal, main thread kept while threads live), and the
 * purge of threads whose exit was missed when the table is full. */
#include "test_util.h"

#define Q(x) ((uint64_t)(int64_t)(x))

static const uint32_t CLONE_THREAD_FLAGS = PPM_CLONE_FLAGS_CLONE_THREAD |
	PPM_CLONE_FLAGS_CLONE_FILES | PPM_CLONE_FLAGS_CLONE_VM | PPM_CLONE_FLAGS_CLONE_FS |
	PPM_CLONE_FLAGS_CLONE_SIGHAND;

static struct thread_info *find(struct t_ctx *t, int64_t tid)
{
	return thread_table__find(inspector__threads(t->in), tid);
}

/* open(PATH) = FD through an enter/exit pair. */
static void t_open(struct t_ctx *t, int64_t tid, int64_t fd, const char *path, uint32_t flags)
{
	CHECK(t_emit(t, PPME_SYSCALL_OPEN_E, tid, "sdd", path, flags, 0644u) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_OPEN_X, tid, "qsddd", Q(fd), path, flags, 0644u, 0x803u) == 0);
}

static void test_clone_parent_first(void)
{
	struct t_ctx *t = calloc(1, sizeof(*t));
	char *root = t_tmpdir();
	struct thread_info *p, *th;

	t->in = t_inspector(root, 0);
	CHECK(t->in != NULL);
	CHECK(t_spawn(t, 100, 1, "server", "/srv/") == 0);
	p = find(t, 100);
	CHECK(p && p->pid == 100 && p->ptid == 1);
	CHECK_STR(p->comm, "server");
	CHECK_STR(p->exe, "server");
	CHECK(p->args_len == 6 && memcmp(p->args, "a1\0a2\0", 6) == 0);
	CHECK_STR(p->cwd, "/srv/");
	CHECK(p->cgroups_len == 19 && strcmp(p->cgroups, "cpu=/a") == 0 &&
	      strcmp(p->cgroups + 7, "memory=/a/b") == 0);
	CHECK(p->uid == 1000 && p->gid == 1001);
	CHECK(p->start_ts == t->ts);
	t_open(t, 100, 3, "/etc/passwd", PPM_FILE_FLAGS_O_RDONLY);

	/* the caller's exit comes first: the thread is made from the caller */
	CHECK(t_emit(t, PPME_SYSCALL_CLONE_20_E, 100, "") == 0);
	CHECK(t_clone(t, PPME_SYSCALL_CLONE_20_X, 100, 101, "server", "a1\0a2", 6, 100, 100, 1,
		      "/srv/", "server", CLONE_THREAD_FLAGS, 1000, 100, 100) == 0);
	CHECK(t->ev.thread == p && t->ev.res == 101 && t->ev.enter != NULL);
	th = find(t, 101);
	CHECK(th && th->pid == 100 && th->tid == 101 && th->ptid == 1);
	CHECK(th && th->fds == p->fds);
	CHECK(th && fd_table__find(th->fds, 3) != NULL);
	CHECK(th && thread_table__main(inspector__threads(t->in), th) == p);
	CHECK(th && th->vtid == 101 && th->vpid == 100);
	CHECK_INT(thread_table__count(inspector__threads(t->in)), 2);

	/* then the child's own exit: nothing new, but its namespaced ids count */
	CHECK(t_clone(t, PPME_SYSCALL_CLONE_20_X, 101, 0, "server", "a1\0a2", 6, 101, 100, 1,
		      "/srv/", "server", CLONE_THREAD_FLAGS, 1000, 7, 6) == 0);
	CHECK(t->ev.thread == th && th->vtid == 7 && th->vpid == 6);
	CHECK_INT(thread_table__count(inspector__threads(t->in)), 2);

	/* a thread's open is seen by the whole process */
	t_open(t, 101, 4, "/tmp/x", PPM_FILE_FLAGS_O_RDWR);
	CHECK(fd_table__find(p->fds, 4) != NULL);

	inspector__free(t->in);
	t_rmtree(root);
	free(t);
}

/* A server in a container (its own pid namespace) forks: the parent's clone
 * says the child is 6, its number in the namespace; host thread 6 (a kernel
 * worker here) must not become the child. The child's own event makes it, with
 * a copy of the parent's fds (the accepted socket). */
static void test_clone_in_pid_namespace(void)
{
	struct t_ctx *t = calloc(1, sizeof(*t));
	char *root = t_tmpdir();
	struct thread_info *p, *six, *child;

	t->in = t_inspector(root, 0);
	CHECK(t->in != NULL);
	CHECK(t_spawn(t, 6, 2, "kworker", "/") == 0);
	CHECK(t_spawn(t, 18882, 18800, "httpd", "/") == 0);
	p = find(t, 18882);
	CHECK(p != NULL);
	t_open(t, 18882, 4, "/www/page.txt", PPM_FILE_FLAGS_O_RDONLY);
	/* the caller is pid 1 in its namespace */
	CHECK(t_clone(t, PPME_SYSCALL_FORK_20_X, 18882, 6, "httpd", "", 0, 18882, 18882, 18800,
		      "/", "httpd", 0, 0, 1, 1) == 0);
	six = find(t, 6);
	CHECK(six && six->pid == 6 && six->ptid == 2);
	CHECK_STR(six ? six->comm : "", "kworker");
	CHECK(six && !fd_table__find(six->fds, 4));
	CHECK(!find(t, 18890));
	/* nor is a number no host thread has made a thread */
	CHECK(t_clone(t, PPME_SYSCALL_FORK_20_X, 18882, 7, "httpd", "", 0, 18882, 18882, 18800,
		      "/", "httpd", 0, 0, 1, 1) == 0);
	CHECK(!find(t, 7));
	/* the parent closes the accepted socket before its child's event */
	CHECK(t_emit(t, PPME_SYSCALL_CLOSE_E, 18882, "q", (int64_t)4) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_CLOSE_X, 18882, "q", (int64_t)0) == 0);
	CHECK(!fd_table__find(p->fds, 4));
	/* the child's side: host tid 18890, 6 in the namespace */
	CHECK(t_clone(t, PPME_SYSCALL_FORK_20_X, 18890, 0, "httpd", "", 0, 18890, 18890, 18882,
		      "/", "httpd", 0, 0, 6, 6) == 0);
	child = find(t, 18890);
	CHECK(child && child->pid == 18890 && child->ptid == 18882);
	CHECK(child && child->vtid == 6 && child->vpid == 6);
	CHECK(child && fd_table__find(child->fds, 4) != NULL);
	CHECK(child && child->fds != p->fds);
	inspector__free(t->in);
	t_rmtree(root);
	free(t);
}

static void test_clone_child_first(void)
{
	struct t_ctx *t = calloc(1, sizeof(*t));
	char *root = t_tmpdir();
	struct inspector_counters c;
	struct thread_info *p, *ch;

	t->in = t_inspector(root, 0);
	CHECK(t_spawn(t, 100, 1, "sh", "/home/u/") == 0);
	p = find(t, 100);
	t_open(t, 100, 3, "/etc/hosts", PPM_FILE_FLAGS_O_RDONLY);

	/* fork: the child runs first */
	CHECK(t_emit(t, PPME_SYSCALL_FORK_20_E, 100, "") == 0);
	CHECK(t_clone(t, PPME_SYSCALL_FORK_20_X, 102, 0, "sh", "a1\0a2", 6, 102, 102, 100,
		      "/home/u/", "sh", 0, 1000, 102, 102) == 0);
	ch = find(t, 102);
	CHECK(ch && t->ev.thread == ch && ch->pid == 102 && ch->ptid == 100);
	CHECK(t->ev.enter == NULL);
	/* a copy of the parent's fds, not the same table */
	CHECK(ch && ch->fds != p->fds && fd_table__find(ch->fds, 3) &&
	      strcmp(fd_table__find(ch->fds, 3)->name, "/etc/hosts") == 0);
	CHECK_STR(ch->cwd, "/home/u/");
	/* the parent's exit afterwards adds nothing */
	CHECK(t_clone(t, PPME_SYSCALL_FORK_20_X, 100, 102, "sh", "a1\0a2", 6, 100, 100, 1,
		      "/home/u/", "sh", 0, 1000, 100, 100) == 0);
	CHECK(t->ev.thread == p && t->ev.enter != NULL);
	CHECK(find(t, 102) == ch);
	CHECK_INT(thread_table__count(inspector__threads(t->in)), 2);
	/* the child-side exit is not "unpaired", the parent's is paired */
	inspector__counters(t->in, &c);
	CHECK_INT(c.n_unpaired_exits, 0);

	t_open(t, 102, 5, "/tmp/child", PPM_FILE_FLAGS_O_WRONLY);
	CHECK(fd_table__find(ch->fds, 5) && !fd_table__find(p->fds, 5));

	/* vfork, parent side first: a copy too */
	CHECK(t_clone(t, PPME_SYSCALL_VFORK_20_X, 100, 103, "sh", "a1\0a2", 6, 100, 100, 1,
		      "/home/u/", "sh", PPM_CLONE_FLAGS_CLONE_VFORK | PPM_CLONE_FLAGS_CLONE_VM,
		      1000, 100, 100) == 0);
	CHECK(find(t, 103) && find(t, 103)->pid == 103 && find(t, 103)->ptid == 100 &&
	      find(t, 103)->fds != p->fds && fd_table__find(find(t, 103)->fds, 3));
	/* clone3 with CLONE_FILES but not CLONE_THREAD: a process sharing the fd table */
	CHECK(t_clone(t, PPME_SYSCALL_CLONE3_X, 100, 104, "sh", "a1\0a2", 6, 100, 100, 1,
		      "/home/u/", "sh", PPM_CLONE_FLAGS_CLONE_FILES, 1000, 100, 100) == 0);
	CHECK(find(t, 104) && find(t, 104)->pid == 104 && find(t, 104)->fds == p->fds);
	/* a failed clone makes nothing */
	CHECK(t_clone(t, PPME_SYSCALL_CLONE_20_X, 100, -11, "sh", "a1\0a2", 6, 100, 100, 1,
		      "/home/u/", "sh", 0, 1000, 100, 100) == 0);
	CHECK_INT(thread_table__count(inspector__threads(t->in)), 4);

	inspector__free(t->in);
	t_rmtree(root);
	free(t);
}

static void test_exec(void)
{
	struct t_ctx *t = calloc(1, sizeof(*t));
	char *root = t_tmpdir();
	struct thread_info *p;

	t->in = t_inspector(root, 0);
	CHECK(t_spawn(t, 200, 1, "bash", "/home/u/") == 0);
	p = find(t, 200);
	t_open(t, 200, 3, "/keep", PPM_FILE_FLAGS_O_RDONLY);
	t_open(t, 200, 4, "/drop", PPM_FILE_FLAGS_O_RDONLY | PPM_FILE_FLAGS_O_CLOEXEC);

	/* a failed exec changes nothing */
	CHECK(t_emit(t, PPME_SYSCALL_EXECVE_19_E, 200, "s", "/nope") == 0);
	CHECK(t_execve_x(t, 200, -2, 200, "bash", "", 0, "bash", "") == 0);
	CHECK_STR(p->comm, "bash");
	CHECK(fd_table__find(p->fds, 4) != NULL);

	CHECK(t_emit(t, PPME_SYSCALL_EXECVE_19_E, 200, "s", "../../bin/ls") == 0);
	CHECK(t_execve_x(t, 200, 0, 200, "ls", "-l\0/tmp", 8, "ls", "") == 0);
	CHECK(t->ev.enter != NULL && t->ev.thread == p);
	CHECK_STR(p->comm, "ls");
	CHECK_STR(p->exe, "ls");
	CHECK(p->args_len == 8 && memcmp(p->args, "-l\0/tmp\0", 8) == 0);
	CHECK_STR(p->exepath, "/bin/ls");
	CHECK_STR(p->cwd, "/home/u/");	/* empty cwd param: unchanged */
	CHECK(p->cgroups && strcmp(p->cgroups, "cpu=/exec") == 0);
	CHECK(p->tty == 34817 && p->loginuid == 1000 && p->pgid == 200);
	CHECK(fd_table__find(p->fds, 3) != NULL);
	CHECK(fd_table__find(p->fds, 4) == NULL);
	CHECK_INT(fd_table__count(p->fds), 1);

	/* exec from a non-main thread: the exit shows up on the main tid and the
	 * other threads are gone */
	CHECK(t_clone(t, PPME_SYSCALL_CLONE_20_X, 200, 201, "ls", "", 0, 200, 200, 1, "/", "ls",
		      CLONE_THREAD_FLAGS, 1000, 200, 200) == 0);
	CHECK(t_clone(t, PPME_SYSCALL_CLONE_20_X, 200, 202, "ls", "", 0, 200, 200, 1, "/", "ls",
		      CLONE_THREAD_FLAGS, 1000, 200, 200) == 0);
	CHECK(find(t, 201) && find(t, 202));
	CHECK(t_emit(t, PPME_SYSCALL_EXECVE_19_E, 202, "s", "/usr/bin/env") == 0);
	CHECK(t_execve_x(t, 200, 0, 200, "env", "", 0, "env", "/work") == 0);
	CHECK(find(t, 201) == NULL && find(t, 202) == NULL);
	CHECK(find(t, 200) == p);
	CHECK_STR(p->comm, "env");
	CHECK_STR(p->cwd, "/work/");
	CHECK_INT(thread_table__count(inspector__threads(t->in)), 1);
	/* the process is whole again: its exit removes it */
	CHECK(t_emit(t, PPME_PROCEXIT_1_E, 200, "qqbb", Q(0), Q(0), 0u, 0u) == 0);
	CHECK(t_emit(t, PPME_GENERIC_E, 1, "ww", 1u, 2u) == 0);
	CHECK(find(t, 200) == NULL);

	/* a process sharing its fd table (CLONE_FILES) gets its own one on exec */
	CHECK(t_spawn(t, 300, 1, "a", "/") == 0);
	t_open(t, 300, 3, "/shared", PPM_FILE_FLAGS_O_RDONLY | PPM_FILE_FLAGS_O_CLOEXEC);
	CHECK(t_clone(t, PPME_SYSCALL_CLONE_20_X, 300, 301, "a", "", 0, 300, 300, 1, "/", "a",
		      PPM_CLONE_FLAGS_CLONE_FILES, 1000, 300, 300) == 0);
	CHECK(find(t, 301) && find(t, 301)->fds == find(t, 300)->fds);
	CHECK(t_execve_x(t, 301, 0, 301, "b", "", 0, "b", "") == 0);
	CHECK(find(t, 301)->fds != find(t, 300)->fds);
	CHECK(fd_table__find(find(t, 301)->fds, 3) == NULL);
	CHECK(fd_table__find(find(t, 300)->fds, 3) != NULL);

	inspector__free(t->in);
	t_rmtree(root);
	free(t);
}

static void test_procexit(void)
{
	struct t_ctx *t = calloc(1, sizeof(*t));
	char *root = t_tmpdir();
	struct thread_info *p;

	t->in = t_inspector(root, 0);
	CHECK(t_spawn(t, 100, 1, "srv", "/") == 0);
	p = find(t, 100);
	CHECK(t_clone(t, PPME_SYSCALL_CLONE_20_X, 100, 101, "srv", "", 0, 100, 100, 1, "/",
		      "srv", CLONE_THREAD_FLAGS, 1000, 100, 100) == 0);

	/* the main thread exits first: kept (exited) while its thread lives */
	CHECK(t_emit(t, PPME_PROCEXIT_1_E, 100, "qqbb", Q(0), Q(0), 0u, 0u) == 0);
	CHECK(t->ev.thread == p && p->exited);
	CHECK(t_emit(t, PPME_GENERIC_E, 101, "ww", 1u, 2u) == 0);
	CHECK(find(t, 100) == p);
	CHECK(thread_table__main(inspector__threads(t->in), find(t, 101)) == p);

	/* the last thread goes: the thread, then the process */
	CHECK(t_emit(t, PPME_PROCEXIT_1_E, 101, "qqbb", Q(0), Q(0), 0u, 0u) == 0);
	/* still readable while its event is looked at, and still counted in its
	 * process (sysdig's proc.nthreads on a procexit counts the exiting thread) */
	CHECK(t->ev.thread && t->ev.thread->tid == 101 && t->ev.thread->exited);
	CHECK(find(t, 101) == t->ev.thread);
	CHECK_INT(thread_table__nthreads(inspector__threads(t->in), p), 2);
	CHECK(t_emit(t, PPME_GENERIC_E, 1, "ww", 1u, 2u) == 0);
	CHECK(find(t, 101) == NULL && find(t, 100) == NULL);

	/* an exit of a thread we never knew does not create it */
	CHECK(t_emit(t, PPME_PROCEXIT_1_E, 555, "qqbb", Q(0), Q(0), 0u, 0u) == 0);
	CHECK(t->ev.thread == NULL && find(t, 555) == NULL);

	inspector__free(t->in);
	t_rmtree(root);
	free(t);
}

static void test_purge_when_full(void)
{
	struct t_ctx *t = calloc(1, sizeof(*t));
	char *root = t_tmpdir();
	struct inspector_counters c;

	/* 300 and its thread 301 are alive in /proc; 400 and 401 exited unseen */
	t_fake_task(root, 300, 300, 1, "alive", 0, 10);
	t_fake_task(root, 300, 301, 1, "alive", 0, 10);
	t->in = t_inspector(root, 4);
	t->ts = 5000000000ULL;
	CHECK(t_spawn(t, 300, 1, "alive", "/") == 0);
	CHECK(t_clone(t, PPME_SYSCALL_CLONE_20_X, 300, 301, "alive", "", 0, 300, 300, 1, "/",
		      "alive", CLONE_THREAD_FLAGS, 0, 300, 300) == 0);
	CHECK(t_spawn(t, 400, 300, "gone", "/") == 0);
	CHECK(t_spawn(t, 401, 300, "gone", "/") == 0);
	CHECK_INT(thread_table__count(inspector__threads(t->in)), 4);

	CHECK(t_spawn(t, 500, 300, "new", "/") == 0);
	inspector__counters(t->in, &c);
	CHECK_INT(c.n_threads_purged, 2);
	CHECK(find(t, 500) != NULL && t->ev.thread == find(t, 500));
	CHECK(find(t, 400) == NULL && find(t, 401) == NULL);
	CHECK(find(t, 300) != NULL && find(t, 301) != NULL);
	CHECK_INT(c.n_threads, 3);

	/* full again right away: no second scan within a second; the event
	 * goes on without a thread and the drop is counted */
	CHECK(t_spawn(t, 501, 300, "new", "/") == 0);
	CHECK(t_emit(t, PPME_GENERIC_E, 502, "ww", 1u, 2u) == 0);
	CHECK(t->ev.thread == NULL);
	inspector__counters(t->in, &c);
	CHECK_INT(c.n_threads_dropped, 1);
	CHECK_INT(c.n_threads_purged, 2);
	CHECK_INT(c.n_threads, 4);

	/* a second later the scan runs again and frees 500 and 501 */
	t->ts += 2000000000ULL;
	CHECK(t_emit(t, PPME_GENERIC_E, 503, "ww", 1u, 2u) == 0);
	CHECK(t->ev.thread != NULL && find(t, 503) != NULL);
	inspector__counters(t->in, &c);
	CHECK_INT(c.n_threads_purged, 4);

	inspector__free(t->in);
	t_rmtree(root);
	free(t);
}

static void test_periodic_purge(void)
{
	struct t_ctx *t = calloc(1, sizeof(*t));
	char *root = t_tmpdir();
	struct inspector_counters c;

	t_fake_task(root, 300, 300, 1, "alive", 0, 10);
	t->in = t_inspector(root, 0);
	t->ts = 1000000000ULL;
	CHECK(t_spawn(t, 300, 1, "alive", "/") == 0);
	CHECK(t_spawn(t, 400, 300, "gone", "/") == 0);
	/* 40 s later, both idle for more than 30 s: the one /proc lacks goes */
	t->ts += 40000000000ULL;
	CHECK(t_emit(t, PPME_GENERIC_E, 300, "ww", 1u, 2u) == 0);
	CHECK(find(t, 400) == NULL && find(t, 300) != NULL);
	inspector__counters(t->in, &c);
	CHECK_INT(c.n_threads_purged, 1);
	/* threads with recent events are not checked, /proc or not */
	CHECK(t_emit(t, PPME_GENERIC_E, 401, "ww", 1u, 2u) == 0);
	t->ts += 25000000000ULL;
	CHECK(t_emit(t, PPME_GENERIC_E, 401, "ww", 1u, 2u) == 0);
	t->ts += 10000000000ULL;
	CHECK(t_emit(t, PPME_GENERIC_E, 300, "ww", 1u, 2u) == 0);
	CHECK(find(t, 401) != NULL);
	inspector__counters(t->in, &c);
	CHECK_INT(c.n_threads_purged, 1);
	/* once idle long enough, it goes */
	t->ts += 40000000000ULL;
	CHECK(t_emit(t, PPME_GENERIC_E, 300, "ww", 1u, 2u) == 0);
	CHECK(find(t, 401) == NULL);

	inspector__free(t->in);
	t_rmtree(root);
	free(t);
}

int main(void)
{
	unsetenv("HOST_ROOT");
	test_clone_parent_first();
	test_clone_child_first();
	test_clone_in_pid_namespace();
	test_exec();
	test_procexit();
	test_purge_when_full();
	test_periodic_purge();
	return t_report();
}
