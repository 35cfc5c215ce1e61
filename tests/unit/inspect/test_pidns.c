/* PID params named by thread, as evt.info prints them: a number a syscall's
 * caller passed or got back is one of its own pid namespace. A caller in the
 * initial one names host threads; one in a container names itself, its
 * process, the threads and children its process made (found by their number
 * there once their own clone exit came), or no thread: never the host thread
 * with that number (host tid 2 is kthreadd, 11 a kworker). Task ids the driver
 * read (a clone's tid/pid/ptid, switch's next) are host ids wherever the
 * caller is. Which namespace a thread is in comes from the kernel: /proc's
 * NSpid line, the clone exits' CHILD_IN_PIDNS flag and ids. */
#include "filter.h"
#include "test_util.h"

#define Q(x) ((uint64_t)(int64_t)(x))

static const uint32_t CLONE_THREAD_FLAGS = PPM_CLONE_FLAGS_CLONE_THREAD |
	PPM_CLONE_FLAGS_CLONE_FILES | PPM_CLONE_FLAGS_CLONE_VM | PPM_CLONE_FLAGS_CLONE_FS |
	PPM_CLONE_FLAGS_CLONE_SIGHAND;
static const uint32_t IN_PIDNS = PPM_CLONE_FLAGS_CHILD_IN_PIDNS;

static struct t_ctx *t;		/* the inspector the events go to */
static struct field_ctx fctx;	/* on its tables */
static struct field_ref info;
static struct sbuf line;

/* evt.info of the last event. */
static const char *info_text(void)
{
	sbuf__reset(&line);
	field__append(&info, &t->ev, &fctx, &line);
	return sbuf__cstr(&line);
}

/* Whether evt.info of the last event holds TEXT (a whole "name=value" pair). */
static bool shows(const char *text)
{
	char want[128];

	snprintf(want, sizeof(want), "%s ", text);
	if (strstr(info_text(), want))
		return true;
	fprintf(stderr, "  evt.info \"%s\" lacks \"%s\"\n", line.buf, text);
	return false;
}

static struct thread_info *find(int64_t tid)
{
	return thread_table__find(inspector__threads(t->in), tid);
}

/* kill(PID, SIGTERM) by TID, its evt.info holding WANT. */
static void kill_shows(int64_t tid, int64_t pid, const char *want)
{
	CHECK(t_emit(t, PPME_SYSCALL_KILL_E, (uint64_t)tid, "qb", Q(pid), 15u) == 0);
	CHECK(shows(want));
}

/* The host's kernel threads 2 and 11, and a host shell 900. */
static void host_threads(void)
{
	CHECK(t_spawn(t, 2, 0, "kthreadd", "/") == 0);
	CHECK(t_spawn(t, 11, 2, "kworker/0:1-eve", "/") == 0);
	CHECK(t_spawn(t, 900, 1, "bash", "/") == 0);
}

/* A container's init: host pid 5000, pid 1 in its namespace (its own clone
 * exit says so), made by runc 4990. */
static void container_init(void)
{
	CHECK(t_clone(t, PPME_SYSCALL_FORK_20_X, 5000, 0, "sh", "", 0, 5000, 5000, 4990, "/", "sh",
		      IN_PIDNS, 0, 1, 1) == 0);
	CHECK(find(5000) && thread__pidns(find(5000)) == PIDNS_CHILD);
}

static void test_host(void)
{
	/* a host caller's numbers are host ids: its child, kthreadd */
	CHECK(t_clone(t, PPME_SYSCALL_FORK_20_X, 900, 901, "bash", "", 0, 900, 900, 1, "/", "bash",
		      0, 0, 900, 900) == 0);
	CHECK(shows("res=901(bash)"));
	CHECK(find(901) && thread__pidns(find(901)) == PIDNS_INIT && find(901)->vtid == 901);
	kill_shows(900, 2, "pid=2(kthreadd)");
	kill_shows(900, 0, "pid=0");
}

static void test_container_parent_first(void)
{
	/* the parent's exit first: res=2 is its child, not kthreadd */
	CHECK(t_clone(t, PPME_SYSCALL_FORK_20_X, 5000, 2, "sh", "", 0, 5000, 5000, 4990, "/", "sh",
		      IN_PIDNS, 0, 1, 1) == 0);
	CHECK(shows("res=2"));
	CHECK(shows("tid=5000(sh)") && shows("vtid=1(sh)") && shows("vpid=1(sh)"));
	/* the child's own exit: host tid 5001, 2 in the namespace */
	CHECK(t_clone(t, PPME_SYSCALL_FORK_20_X, 5001, 0, "sh", "", 0, 5001, 5001, 5000, "/", "sh",
		      IN_PIDNS, 0, 2, 2) == 0);
	CHECK(shows("ptid=5000(sh)"));
	/* it runs cat: the parent's later syscalls name it by its number */
	CHECK(t_execve_x(t, 5001, 0, 5001, "cat", "", 0, "cat", "/") == 0);
	kill_shows(5000, 2, "pid=2(cat)");
	/* and itself by its own: its pid, its thread id */
	kill_shows(5000, 1, "pid=1(sh)");
	/* a number of no thread it knows: bare, though host thread 11 exists */
	kill_shows(5000, 11, "pid=11");
	kill_shows(5000, -1, "pid=-1");
	kill_shows(5000, 0, "pid=0");
	/* the child names its parent by number 1: the host's init is not it */
	kill_shows(5001, 1, "pid=1");
}

static void test_container_child_first(void)
{
	/* the child's exit first: the parent's res names it */
	CHECK(t_clone(t, PPME_SYSCALL_FORK_20_X, 5011, 0, "sh", "", 0, 5011, 5011, 5000, "/", "sh",
		      IN_PIDNS, 0, 11, 11) == 0);
	CHECK(t_clone(t, PPME_SYSCALL_FORK_20_X, 5000, 11, "sh", "", 0, 5000, 5000, 4990, "/", "sh",
		      IN_PIDNS, 0, 1, 1) == 0);
	CHECK(shows("res=11(sh)"));
	/* a thread of the process: its number too */
	CHECK(t_clone(t, PPME_SYSCALL_CLONE_20_X, 5012, 0, "sh", "", 0, 5012, 5000, 4990, "/",
		      "worker", CLONE_THREAD_FLAGS | IN_PIDNS, 0, 12, 1) == 0);
	CHECK(t_clone(t, PPME_SYSCALL_CLONE_20_X, 5000, 12, "sh", "", 0, 5000, 5000, 4990, "/", "sh",
		      CLONE_THREAD_FLAGS | IN_PIDNS, 0, 1, 1) == 0);
	CHECK(shows("res=12(worker)"));
	CHECK(t_emit(t, PPME_SYSCALL_TGKILL_E, 5011, "qqb", Q(1), Q(12), 10u) == 0);
	CHECK(shows("pid=1") && shows("tid=12"));
	CHECK(t_emit(t, PPME_SYSCALL_TGKILL_E, 5000, "qqb", Q(1), Q(12), 10u) == 0);
	CHECK(shows("pid=1(sh)") && shows("tid=12(worker)"));
	/* a child made with CLONE_NEWPID is 1 in a namespace of its own: its
	 * number 1 names none of the parent's */
	CHECK(t_clone(t, PPME_SYSCALL_CLONE_20_X, 5013, 0, "sh", "", 0, 5013, 5013, 5000, "/", "sh",
		      PPM_CLONE_FLAGS_CLONE_NEWPID | IN_PIDNS, 0, 1, 1) == 0);
	CHECK(t_clone(t, PPME_SYSCALL_CLONE_20_X, 5000, 13, "sh", "", 0, 5000, 5000, 4990, "/", "sh",
		      PPM_CLONE_FLAGS_CLONE_NEWPID | IN_PIDNS, 0, 1, 1) == 0);
	CHECK(shows("res=13"));
}

/* A host task that moved its children into a new namespace (unshare --pid
 * --fork): its clone's flag is set, but its own ids are host ids (from
 * /proc's one NSpid number, or an earlier clone exit without the flag), so res
 * is the child's host id; the child is pid 1 of the new namespace. */
static void test_unshare(void)
{
	CHECK(t_clone(t, PPME_SYSCALL_FORK_20_X, 6000, 0, "unshare", "", 0, 6000, 6000, 900, "/",
		      "unshare", 0, 0, 6000, 6000) == 0);
	CHECK(t_clone(t, PPME_SYSCALL_FORK_20_X, 6000, 6001, "unshare", "", 0, 6000, 6000, 900, "/",
		      "unshare", IN_PIDNS, 0, 6000, 6000) == 0);
	CHECK(shows("res=6001(unshare)"));
	CHECK(find(6000) && thread__pidns(find(6000)) == PIDNS_INIT);
	CHECK(find(6001) && thread__pidns(find(6001)) == PIDNS_CHILD);
	CHECK(t_clone(t, PPME_SYSCALL_FORK_20_X, 6001, 0, "unshare", "", 0, 6001, 6001, 6000, "/",
		      "unshare", IN_PIDNS, 0, 1, 1) == 0);
	CHECK(find(6001)->vtid == 1);
	/* the namespace's init forks its first child, pid 2 there */
	CHECK(t_clone(t, PPME_SYSCALL_FORK_20_X, 6001, 2, "sh", "", 0, 6001, 6001, 6000, "/", "sh",
		      IN_PIDNS, 0, 1, 1) == 0);
	CHECK(shows("res=2"));
	/* a task whose flag is set and whose ids equal its host ids, known to
	 * nothing else: which namespace is not known, so neither is the child */
	CHECK(t_clone(t, PPME_SYSCALL_FORK_20_X, 6100, 2, "odd", "", 0, 6100, 6100, 900, "/", "odd",
		      IN_PIDNS, 0, 6100, 6100) == 0);
	CHECK(shows("res=2"));
	CHECK(!find(2) || strcmp(find(2)->comm, "kthreadd") == 0);
}

/* /proc says which namespace (NSpid: one number per level), also when the
 * namespaced id equals the host one. */
static void test_proc(void)
{
	static const char *const tasks[][3] = {
		{ "2", "kthreadd", "Tgid:\t2\nPid:\t2\nPPid:\t0\nNStgid:\t2\nNSpid:\t2\n" },
		{ "700", "app", "Tgid:\t700\nPid:\t700\nPPid:\t1\nNStgid:\t700\t700\nNSpid:\t700\t700\n" },
		{ "701", "hostapp", "Tgid:\t701\nPid:\t701\nPPid:\t1\nNStgid:\t701\nNSpid:\t701\n" },
	};
	struct t_ctx *host = t, p = { 0 };
	char *root = t_tmpdir(), rel[64], text[256];

	for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++) {
		snprintf(rel, sizeof(rel), "proc/%s/status", tasks[i][0]);
		snprintf(text, sizeof(text), "Name:\t%s\n%s", tasks[i][1], tasks[i][2]);
		t_puts(root, rel, text);
		snprintf(rel, sizeof(rel), "proc/%s/comm", tasks[i][0]);
		snprintf(text, sizeof(text), "%s\n", tasks[i][1]);
		t_puts(root, rel, text);
		snprintf(rel, sizeof(rel), "proc/%s/stat", tasks[i][0]);
		snprintf(text, sizeof(text), "%s (x) S 1 %s %s 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1\n",
			 tasks[i][0], tasks[i][0], tasks[i][0]);
		t_puts(root, rel, text);
		snprintf(rel, sizeof(rel), "%s/proc/%s/task/%s", root, tasks[i][0], tasks[i][0]);
		t_mkdirs(rel);
	}
	/* the /proc scan reads them all */
	p.in = inspector__new(&(struct inspector_opts){ .host_root = root });
	CHECK(p.in != NULL);
	if (!p.in)
		return;
	t = &p;
	field_ctx__fini(&fctx);
	field_ctx__init(&fctx, inspector__threads(p.in));
	kill_shows(700, 2, "pid=2");
	CHECK(find(700) && thread__pidns(find(700)) == PIDNS_CHILD);
	kill_shows(700, 700, "pid=700(app)");
	kill_shows(701, 2, "pid=2(kthreadd)");
	CHECK(find(701) && thread__pidns(find(701)) == PIDNS_INIT);
	inspector__free(p.in);
	t_rmtree(root);
	t = host;
	field_ctx__fini(&fctx);
	field_ctx__init(&fctx, inspector__threads(t->in));
}

/* Params the driver fills with host ids name host threads from any caller. */
static void test_host_ids(void)
{
	CHECK(t_emit(t, PPME_SCHEDSWITCH_6_E, 5000, "qqqddd", Q(2), Q(0), Q(0), 0u, 0u, 0u) == 0);
	CHECK(shows("next=2(kthreadd)"));
	CHECK(t_emit(t, PPME_SIGNALDELIVER_E, 5000, "qqb", Q(1), Q(900), 9u) == 0);
	CHECK(shows("spid=1(sh)") && shows("dpid=900(bash)"));
}

/* State kept from such numbers: setpgid(child, parent) in the namespace. */
static void test_setpgid(void)
{
	CHECK(t_emit(t, PPME_SYSCALL_SETPGID_E, 5000, "qq", Q(2), Q(1)) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_SETPGID_X, 5000, "q", Q(0)) == 0);
	CHECK(find(5001) && find(5001)->pgid == 5000);
	CHECK(find(11) && find(11)->pgid != 5000);
}

int main(void)
{
	char *root = t_tmpdir();
	struct filter_error err;

	sbuf__init(&line);
	t = t_new(root);
	field_ctx__init(&fctx, inspector__threads(t->in));
	CHECK(field_ref__parse("evt.info", 1, 0, &info, &err) == 0);
	host_threads();
	test_host();
	container_init();
	test_container_parent_first();
	test_container_child_first();
	test_unshare();
	test_host_ids();
	test_setpgid();
	test_proc();
	field_ref__fini(&info);
	field_ctx__fini(&fctx);
	sbuf__free(&line);
	t_free(t, root);
	return t_report();
}
