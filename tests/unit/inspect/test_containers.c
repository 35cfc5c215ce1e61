/* Threads and their containers: known from the /proc scan, inherited on clone,
 * changed by an execve into another cgroup, looked up once per container (not
 * per thread or event), forgotten with the container's last thread. */
#include "container.h"
#include "test_util.h"

#define Q(x) ((uint64_t)(int64_t)(x))
#define DID "7c8f2a1b3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8"
#define DID2 "1111111111115f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8"

static const char docker_cfg[] =
	"{\"ID\":\"" DID "\",\"Name\":\"/shop-db-1\",\"Image\":\"sha256:d3a2\","
	"\"Config\":{\"Image\":\"postgres:16\",\"Labels\":{}}}";

static struct thread_info *find(struct t_ctx *t, int64_t tid)
{
	return thread_table__find(inspector__threads(t->in), tid);
}

/* A fork child's own exit event with the given cgroups. */
static int fork_child(struct t_ctx *t, int64_t pid, int64_t ppid, const char *cg, size_t cglen)
{
	return t_emit(t, PPME_SYSCALL_FORK_20_X, (uint64_t)pid, "qsBqqqsqqqdddsBdddqq", Q(0),
		      "sh", "", 0u, Q(pid), Q(pid), Q(ppid), "/", Q(1024), Q(0), Q(0), 100u, 50u,
		      0u, "sh", cg, (unsigned)cglen, 0u, 0u, 0u, Q(pid), Q(pid));
}

static int execve_x(struct t_ctx *t, int64_t tid, const char *comm, const char *cg, size_t cglen)
{
	return t_emit(t, PPME_SYSCALL_EXECVE_19_X, (uint64_t)tid, "qsBqqqsqqqdddsBBdqdd", Q(0),
		      comm, "", 0u, Q(tid), Q(tid), Q(1), "/", Q(1024), Q(0), Q(0), 100u, 50u, 0u,
		      comm, cg, (unsigned)cglen, "", 0u, 0u, Q(tid), 0u, 0u);
}

static int procexit(struct t_ctx *t, int64_t tid)
{
	int rc = t_emit(t, PPME_PROCEXIT_1_E, (uint64_t)tid, "qqbb", Q(0), Q(0), 0u, 0u);

	/* the thread leaves at the next event */
	t_emit(t, PPME_GENERIC_E, 1, "ww", 1u, 2u);
	return rc;
}

static uint64_t ncontainers(struct t_ctx *t)
{
	struct container_counters n;

	container_table__counters(inspector__containers(t->in), &n);
	return n.n_containers;
}

static uint64_t nlookups(struct t_ctx *t)
{
	struct container_counters n;

	container_table__counters(inspector__containers(t->in), &n);
	return n.n_lookups;
}

static void test_events(void)
{
	static const char host_cg[] = "cpu=/\0memory=/user.slice";
	static const char ctr_cg[] = "cpu=/docker/" DID "\0memory=/docker/" DID;
	static const char ctr2_cg[] = "cpu=/docker/" DID2 "\0memory=/docker/" DID2;
	struct t_ctx *t = calloc(1, sizeof(*t));
	char *root = t_tmpdir();
	struct thread_info *sh, *a, *b;

	t_puts(root, "var/lib/docker/containers/" DID "/config.v2.json", docker_cfg);
	t->in = t_inspector(root, 0);
	t->ts = 1700000000000000000ULL;

	/* a host shell, then a child that runc moved into the container: the
	 * exec's cgroups say so */
	CHECK(fork_child(t, 100, 1, host_cg, sizeof(host_cg)) == 0);
	sh = find(t, 100);
	CHECK(sh && sh->container == NULL);
	CHECK(fork_child(t, 200, 100, host_cg, sizeof(host_cg)) == 0);
	a = find(t, 200);
	CHECK(a && a->container == NULL);
	CHECK(execve_x(t, 200, "postgres", ctr_cg, sizeof(ctr_cg)) == 0);
	CHECK(a->container != NULL);
	if (a->container) {
		CHECK_STR(a->container->id, "7c8f2a1b3d4e");
		CHECK_STR(a->container->name, "shop-db-1");
		CHECK_STR(a->container->image, "postgres:16");
		CHECK_INT(a->container->type, CT_DOCKER);
	}
	CHECK(sh->container == NULL);
	CHECK_INT(nlookups(t), 1);

	/* children and threads share the entry: no second lookup, the same names */
	CHECK(fork_child(t, 201, 200, ctr_cg, sizeof(ctr_cg)) == 0);
	b = find(t, 201);
	CHECK(b && b->container == a->container);
	/* a thread, made by the caller's side of clone */
	CHECK(t_emit(t, PPME_SYSCALL_CLONE_20_X, 200, "qsBqqqsqqqdddsBdddqq", Q(202), "postgres",
		     "", 0u, Q(200), Q(200), Q(100), "/", Q(1024), Q(0), Q(0), 100u, 50u, 0u,
		     "postgres", ctr_cg, (unsigned)sizeof(ctr_cg),
		     (unsigned)(PPM_CLONE_FLAGS_CLONE_THREAD | PPM_CLONE_FLAGS_CLONE_VM |
				PPM_CLONE_FLAGS_CLONE_FILES), 0u, 0u, Q(200), Q(200)) == 0);
	CHECK(find(t, 202) && find(t, 202)->container == a->container);
	/* an exec that stays in its cgroups keeps the entry */
	CHECK(execve_x(t, 201, "psql", ctr_cg, sizeof(ctr_cg)) == 0);
	CHECK(b->container == a->container);
	CHECK_INT(nlookups(t), 1);
	CHECK_INT(ncontainers(t), 1);

	/* another container (no runtime file): its identity, no names */
	CHECK(fork_child(t, 300, 100, ctr2_cg, sizeof(ctr2_cg)) == 0);
	CHECK(find(t, 300) && find(t, 300)->container &&
	      strcmp(find(t, 300)->container->id, "111111111111") == 0 &&
	      find(t, 300)->container->name == NULL);
	CHECK_INT(ncontainers(t), 2);

	/* a thread moved into a container by a write to cgroup.procs (runc's init):
	 * its next clone says so */
	CHECK(fork_child(t, 400, 100, host_cg, sizeof(host_cg)) == 0);
	CHECK(find(t, 400) && find(t, 400)->container == NULL);
	CHECK(t_emit(t, PPME_SYSCALL_CLONE_20_X, 400, "qsBqqqsqqqdddsBdddqq", Q(401), "runc",
		     "", 0u, Q(400), Q(400), Q(100), "/", Q(1024), Q(0), Q(0), 100u, 50u, 0u,
		     "runc:[2:INIT]", ctr_cg, (unsigned)sizeof(ctr_cg), 0u, 0u, 0u, Q(400),
		     Q(400)) == 0);
	CHECK(find(t, 400) && find(t, 400)->container == a->container);
	CHECK(find(t, 401) && find(t, 401)->container == a->container);
	CHECK_INT(nlookups(t), 2);
	CHECK(procexit(t, 401) == 0);
	CHECK(procexit(t, 400) == 0);

	/* the container is forgotten with its last thread */
	CHECK(procexit(t, 300) == 0);
	CHECK_INT(ncontainers(t), 1);
	CHECK(procexit(t, 201) == 0);
	CHECK(procexit(t, 202) == 0);
	CHECK_INT(ncontainers(t), 1);
	CHECK(procexit(t, 200) == 0);
	CHECK(find(t, 200) == NULL);
	CHECK_INT(ncontainers(t), 0);

	inspector__free(t->in);
	t_rmtree(root);
	free(t);
}

/* The /proc scan names the containers of processes running at start; threads of a
 * process share their main thread's entry. */
static void test_scan(void)
{
	static const char cgroup[] = "4:memory:/docker/" DID "\n1:cpu:/docker/" DID "\n0::/\n";
	struct inspector_opts o = { .no_proc_scan = true };
	char *root = t_tmpdir();
	struct inspector *in;
	struct thread_info *p, *th;
	struct container_counters n;

	t_puts(root, "proc/stat", "btime 1700000000\n");
	t_puts(root, "var/lib/docker/containers/" DID "/config.v2.json", docker_cfg);
	t_fake_task(root, 100, 100, 1, "postgres", 999, 500);
	t_fake_task(root, 100, 101, 1, "postgres", 999, 510);
	t_puts(root, "proc/100/cgroup", cgroup);
	t_fake_task(root, 50, 50, 1, "sshd", 0, 100);
	t_puts(root, "proc/50/cgroup", "0::/system.slice/ssh.service\n");
	o.host_root = root;
	in = inspector__new(&o);
	CHECK(inspector__scan_proc(in) == 0);
	p = thread_table__find(inspector__threads(in), 100);
	th = thread_table__find(inspector__threads(in), 101);
	CHECK(p && p->container && p->container->name &&
	      strcmp(p->container->name, "shop-db-1") == 0);
	CHECK(th && p && th->container == p->container);
	CHECK(thread_table__find(inspector__threads(in), 50) &&
	      thread_table__find(inspector__threads(in), 50)->container == NULL);
	container_table__counters(inspector__containers(in), &n);
	CHECK_INT(n.n_lookups, 1);
	CHECK_INT(n.n_containers, 1);
	inspector__free(in);
	t_rmtree(root);
}

/* Replaying a capture file: this host's runtime files are never read. */
static void test_no_lookup(void)
{
	static const char ctr_cg[] = "cpu=/docker/" DID;
	static const char json[] = "{\"container\":{\"id\":\"7c8f2a1b3d4e\",\"name\":\"from-file\","
				   "\"type\":0}}";
	struct t_ctx *t = calloc(1, sizeof(*t));
	struct inspector_opts o = { .no_proc_scan = true, .no_proc_lookup = true };
	char *root = t_tmpdir();

	t_puts(root, "var/lib/docker/containers/" DID "/config.v2.json", docker_cfg);
	o.host_root = root;
	t->in = inspector__new(&o);
	CHECK(fork_child(t, 200, 1, ctr_cg, sizeof(ctr_cg)) == 0);
	CHECK(find(t, 200) && find(t, 200)->container &&
	      find(t, 200)->container->name == NULL);
	CHECK_INT(nlookups(t), 0);
	/* the file's container event names it, and takes an event number */
	CHECK(inspector__container_event(t->in, json, strlen(json)) == 0);
	CHECK(find(t, 200)->container->name &&
	      strcmp(find(t, 200)->container->name, "from-file") == 0);
	CHECK(fork_child(t, 201, 1, "", 0) == 0);
	CHECK_INT(t->ev.num, 3);
	inspector__free(t->in);
	t_rmtree(root);
	free(t);
}

int main(void)
{
	test_events();
	test_scan();
	test_no_lookup();
	return t_report();
}
