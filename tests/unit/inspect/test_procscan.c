/* The /proc scan: a fake HOST_ROOT tree (every field, cgroup v1 and v2 lines,
 * each kind of fd link, the net tables, unreadable entries, passwd/group), then
 * the real /proc, where the test finds itself, its thread and its open fds. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "test_util.h"

static struct thread_info *find(struct inspector *in, int64_t tid)
{
	return thread_table__find(inspector__threads(in), tid);
}

static void fd_link(const char *root, int pid, int fd, const char *target)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "proc/%d/fd/%d", pid, fd);
	t_link(root, rel, target);
}

static void make_tree(const char *root)
{
	static const char cmdline[] = "/usr/bin/app\0--port\0008080";
	static const char cgroup[] = "3:pids:/p\n2:cpu,cpuacct:/c\n1:name=systemd:/s\n0::/unified\n";
	char target[512];

	t_puts(root, "proc/stat", "cpu  1 2 3 4\nintr 0\nbtime 1700000000\nprocesses 9\n");
	t_puts(root, "proc/cgroups", "#subsys_name\thierarchy\tnum_cgroups\tenabled\n"
	       "cpu\t2\t1\t1\ncpuacct\t2\t1\t1\nmemory\t0\t5\t1\nio\t0\t1\t1\n"
	       "pids\t3\t1\t1\nrdma\t0\t1\t0\n");
	t_puts(root, "etc/passwd", "root:x:0:0:root:/root:/bin/sh\napp:x:1000:1000::/home/app:/bin/sh\n"
	       "shadowed:x:1000:1000::/:/bin/sh\nbroken line\nnoshell:x:7:7::/var/empty\n");
	t_puts(root, "etc/group", "root:x:0:\napp:x:1001:app\n");

	t_fake_task(root, 100, 100, 1, "app (x)", 1000, 500);
	t_put(root, "proc/100/cmdline", cmdline, sizeof(cmdline));
	t_link(root, "proc/100/cwd", "/srv/app");
	t_link(root, "proc/100/exe", "/usr/bin/app");
	t_puts(root, "proc/100/loginuid", "1000");
	t_puts(root, "proc/100/cgroup", cgroup);
	t_fake_task(root, 100, 101, 1, "worker", 1000, 510);

	fd_link(root, 100, 0, "/dev/null");
	t_puts(root, "proc/100/fdinfo/0", "pos:\t0\nflags:\t02100002\nmnt_id:\t25\n");
	snprintf(target, sizeof(target), "%s/etc", root);
	fd_link(root, 100, 1, target);
	fd_link(root, 100, 3, "socket:[1001]");
	fd_link(root, 100, 4, "socket:[1002]");
	fd_link(root, 100, 5, "socket:[1003]");
	fd_link(root, 100, 6, "socket:[1004]");
	fd_link(root, 100, 7, "socket:[9999]");
	fd_link(root, 100, 8, "pipe:[77]");
	fd_link(root, 100, 9, "anon_inode:[eventfd]");
	fd_link(root, 100, 10, "anon_inode:[eventpoll]");
	fd_link(root, 100, 11, "anon_inode:inotify");
	fd_link(root, 100, 12, "anon_inode:bpf-map");
	fd_link(root, 100, 13, "/memfd:jit (deleted)");
	fd_link(root, 100, 14, "anon_inode:[timerfd]");
	fd_link(root, 100, 15, "anon_inode:[signalfd]");
	fd_link(root, 100, 16, "socket:[1005]");
	fd_link(root, 100, 17, "socket:[1006]");
	fd_link(root, 100, 18, "anon_inode:[pidfd]");
	t_puts(root, "proc/100/fdinfo/18", "pos:\t0\nflags:\t02000002\nmnt_id:\t4\n"
	       "ino:\t1500932\nPid:\t8280\nNSpid:\t8280\n");

	t_puts(root, "proc/100/net/tcp",
	       "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	       "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1001 1 0000000000000000 100 0 0 10 0\n"
	       "   1: 0100007F:D431 0200007F:0050 01 00000000:00000000 00:00000000 00000000  1000        0 1002 1 0000000000000000 20 4 30 10 -1\n");
	t_puts(root, "proc/100/net/tcp6",
	       "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	       "   0: 0000000000000000FFFF00000100007F:1F91 B80D0120000000000000000004000000:C350 01 00000000:00000000 00:00000000 00000000  1000        0 1003 1 0000000000000000 100 0 0 10 0\n");
	t_puts(root, "proc/100/net/udp",
	       "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n"
	       "  100: 00000000:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 1006 2 0000000000000000 0\n");
	t_puts(root, "proc/100/net/unix",
	       "Num       RefCount Protocol Flags    Type St Inode Path\n"
	       "0000000000000000: 00000002 00000000 00010000 0001 01 1004 /run/app.sock\n"
	       "0000000000000000: 00000002 00000000 00010000 0001 01 1007\n");
	t_puts(root, "proc/100/net/netlink",
	       "sk               Eth Pid        Groups   Rmem     Wmem     Dump  Locks    Drops    Inode\n"
	       "0000000000000000 0   100        00000000 0        0        0     2        0        1005\n");

	/* gone while we looked: a directory without status */
	t_puts(root, "proc/200/comm", "ghost\n");
	/* an fd link that is not a link */
	t_puts(root, "proc/100/fd/19", "junk");
	/* not processes */
	t_puts(root, "proc/self/comm", "x\n");
	t_puts(root, "proc/net/tcp", "");
}

static void test_fake_tree(void)
{
	char *root = t_tmpdir();
	struct inspector_opts o = { 0 };
	struct inspector_counters c;
	struct thread_info *p, *th;
	struct fd_info *f;
	struct inspector *in;
	long hz = sysconf(_SC_CLK_TCK);

	make_tree(root);
	o.host_root = root;
	in = inspector__new(&o);
	CHECK(in != NULL);
	if (!in)
		return;
	inspector__counters(in, &c);
	CHECK_INT(c.n_threads, 2);
	/* proc/200 and fd 19 */
	CHECK_INT(c.n_proc_unreadable, 2);

	p = find(in, 100);
	CHECK(p != NULL);
	if (!p)
		goto out;
	CHECK(p->pid == 100 && p->ptid == 1 && p->uid == 1000 && p->gid == 1001);
	CHECK(p->vtid == 0 && p->vpid == 0);	/* NSpid/NStgid: last value */
	CHECK(p->pgid == 100 && p->sid == 99 && p->tty == 34817);
	CHECK(p->loginuid == 1000);
	CHECK_STR(p->comm, "app (x)");
	CHECK_STR(p->exe, "/usr/bin/app");
	CHECK(p->args_len == 12 && memcmp(p->args, "--port\0008080\0", 12) == 0);
	CHECK_STR(p->exepath, "/usr/bin/app");
	CHECK_STR(p->cwd, "/srv/app/");
	CHECK(p->start_ts == 1700000000ULL * 1000000000ULL + 500ULL * (1000000000ULL / (uint64_t)hz));
	{
		static const char want[] = "pids=/p\0cpu=/c\0cpuacct=/c\0name=systemd=/s\0"
					   "memory=/unified\0io=/unified";

		CHECK(p->cgroups_len == sizeof(want) && memcmp(p->cgroups, want, sizeof(want)) == 0);
	}
	th = find(in, 101);
	CHECK(th && th->pid == 100 && th->fds == p->fds);
	CHECK(th && strcmp(th->comm, "worker") == 0 && strcmp(th->exe, "/usr/bin/app") == 0);
	CHECK(th && th->cwd && strcmp(th->cwd, "/srv/app/") == 0);
	CHECK(th && th->cgroups_len == p->cgroups_len);
	CHECK(th && thread_table__main(inspector__threads(in), th) == p);

	f = fd_table__find(p->fds, 0);
	CHECK(f && f->type == FDT_FILE && strcmp(f->name, "/dev/null") == 0);
	CHECK(f && f->open_flags == (PPM_FILE_FLAGS_O_RDWR | PPM_FILE_FLAGS_O_CLOEXEC |
				     PPM_FILE_FLAGS_O_LARGEFILE));
	f = fd_table__find(p->fds, 1);
	CHECK(f && f->type == FDT_DIRECTORY && f->ino != 0);
	f = fd_table__find(p->fds, 3);
	CHECK(f && f->type == FDT_IPV4_SOCK && f->is_server && f->l4proto == IPPROTO_TCP);
	CHECK(f && f->name && strcmp(f->name, "127.0.0.1:8080") == 0 && f->dport == 8080 &&
	      f->ino == 1001);
	f = fd_table__find(p->fds, 4);
	CHECK(f && f->name && strcmp(f->name, "127.0.0.1:54321->127.0.0.2:80") == 0);
	CHECK(f && f->sport == 54321 && f->dport == 80 && memcmp(f->dip, "\x7f\0\0\x02", 4) == 0);
	f = fd_table__find(p->fds, 5);
	CHECK(f && f->type == FDT_IPV6_SOCK && f->family == PPM_AF_INET6);
	CHECK_STR(f ? f->name : NULL, "::ffff:127.0.0.1:8081->2001:db8::4:50000");
	f = fd_table__find(p->fds, 6);
	CHECK(f && f->type == FDT_UNIX_SOCK && f->name && strcmp(f->name, "/run/app.sock") == 0);
	f = fd_table__find(p->fds, 7);
	CHECK(f && f->type == FDT_OTHER_SOCK && f->ino == 9999);
	f = fd_table__find(p->fds, 8);
	CHECK(f && f->type == FDT_PIPE && f->ino == 77 && strcmp(f->name, "pipe:[77]") == 0);
	CHECK(fd_table__find(p->fds, 9) && fd_table__find(p->fds, 9)->type == FDT_EVENT);
	CHECK(fd_table__find(p->fds, 10) && fd_table__find(p->fds, 10)->type == FDT_EVENTPOLL);
	CHECK(fd_table__find(p->fds, 11) && fd_table__find(p->fds, 11)->type == FDT_INOTIFY);
	CHECK(fd_table__find(p->fds, 12) && fd_table__find(p->fds, 12)->type == FDT_BPF);
	f = fd_table__find(p->fds, 13);
	CHECK(f && f->type == FDT_MEMFD && strcmp(f->name, "/memfd:jit (deleted)") == 0);
	CHECK(fd_table__find(p->fds, 14) && fd_table__find(p->fds, 14)->type == FDT_TIMERFD);
	CHECK(fd_table__find(p->fds, 15) && fd_table__find(p->fds, 15)->type == FDT_SIGNALFD);
	CHECK(fd_table__find(p->fds, 16) && fd_table__find(p->fds, 16)->type == FDT_NETLINK);
	f = fd_table__find(p->fds, 17);
	CHECK(f && f->type == FDT_IPV4_SOCK && f->l4proto == IPPROTO_UDP &&
	      strcmp(f->name, "0.0.0.0:53") == 0);
	CHECK(fd_table__find(p->fds, 18) && fd_table__find(p->fds, 18)->type == FDT_UNKNOWN);
	/* typed anon inodes have no name (as when made by an event), others
	 * their link text; bpf ones too (capture files list them by it) */
	CHECK(fd_table__find(p->fds, 9) && fd_table__find(p->fds, 9)->name == NULL);
	CHECK_STR(fd_table__find(p->fds, 12) ? fd_table__find(p->fds, 12)->name : NULL,
		  "anon_inode:bpf-map");
	CHECK_STR(fd_table__find(p->fds, 18) ? fd_table__find(p->fds, 18)->name : NULL,
		  "anon_inode:[pidfd]");
	/* a pidfd's process, from its fdinfo */
	CHECK(fd_table__find(p->fds, 18) && fd_table__find(p->fds, 18)->pidfd_pid == 8280 &&
	      fd_table__find(p->fds, 18)->open_flags ==
	      (PPM_FILE_FLAGS_O_RDWR | PPM_FILE_FLAGS_O_CLOEXEC));
	CHECK(fd_table__find(p->fds, 0) && fd_table__find(p->fds, 0)->pidfd_pid == 0);
	CHECK(fd_table__find(p->fds, 19) == NULL);
	CHECK_INT(fd_table__count(p->fds), 18);

	CHECK_STR(users__name(0), "root");
	CHECK_STR(users__name(1000), "app");
	CHECK(users__name(4242) == NULL);
	CHECK_STR(users__home(0), "/root");
	CHECK_STR(users__shell(0), "/bin/sh");
	CHECK_STR(users__home(1000), "/home/app");	/* the first line of uid 1000 */
	CHECK_STR(users__shell(7), "");			/* a line without a shell */
	CHECK_STR(users__home(7), "/var/empty");
	CHECK(users__home(4242) == NULL && users__shell(4242) == NULL);
	CHECK_STR(groups__name(1001), "app");
	CHECK(groups__name(1000) == NULL);
out:
	inspector__free(in);
	t_rmtree(root);

	/* no /proc at all under the root: an error, not a crash */
	o.host_root = "/nonexistent-root";
	errno = 0;
	CHECK(inspector__new(&o) == NULL && errno == ENOENT);
}

/* ---- the real /proc ---- */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int thread_state;	/* 1: started, 2: may exit */
static pid_t thread_tid;

/* A second scan (the agent's, once events flow) adds the processes and the
 * threads born since the first, and keeps what the first made: the events
 * since then have been updating those entries. */
static void test_second_scan(void)
{
	char *root = t_tmpdir();
	struct inspector_opts o = { .host_root = root };
	struct thread_info *p, *th, *q;
	struct inspector_counters c;
	struct inspector *in;

	t_fake_task(root, 100, 100, 1, "app", 1000, 500);
	fd_link(root, 100, 0, "/dev/null");
	in = inspector__new(&o);
	CHECK(in != NULL);
	if (!in)
		return;
	p = find(in, 100);
	CHECK(p && strcmp(p->comm, "app") == 0 && !find(in, 101) && !find(in, 300));
	/* since: the process renamed in /proc, a new thread of it, a new process */
	t_fake_task(root, 100, 100, 1, "renamed", 1000, 500);
	t_fake_task(root, 100, 101, 1, "worker", 1000, 510);
	t_fake_task(root, 300, 300, 100, "child", 1000, 600);
	fd_link(root, 300, 5, "/dev/zero");
	CHECK(inspector__scan_proc(in) == 0);
	inspector__counters(in, &c);
	CHECK_INT(c.n_threads, 3);
	CHECK(find(in, 100) == p && strcmp(p->comm, "app") == 0);
	th = find(in, 101);
	CHECK(th && th->pid == 100 && th->fds == p->fds && strcmp(th->comm, "worker") == 0);
	q = find(in, 300);
	CHECK(q && q->pid == 300 && q->ptid == 100 && strcmp(q->comm, "child") == 0 &&
	      q->fds && fd_table__find(q->fds, 5) && !fd_table__find(q->fds, 0));
	inspector__free(in);
}

static void *worker(void *arg)
{
	pthread_mutex_lock(&mu);
	thread_tid = (pid_t)syscall(SYS_gettid);
	thread_state = 1;
	pthread_cond_broadcast(&cv);
	while (thread_state != 2)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void test_real_proc(void)
{
	char tmpl[] = "/tmp/inspect-real-XXXXXX", cwd[4096], want[4200], exe[4096];
	char comm[16] = "";
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	socklen_t slen = sizeof(sin);
	int file, dirfd, pfd[2], efd, lsock, csock, asock, usock;
	struct inspector_opts o = { 0 };
	struct inspector *in;
	struct thread_info *me, *th;
	struct fd_info *f;
	pthread_t thr;
	ssize_t n;

	file = mkostemp(tmpl, O_CLOEXEC);
	dirfd = open("/tmp", O_RDONLY | O_DIRECTORY);
	CHECK(file >= 0 && dirfd >= 0 && pipe(pfd) == 0);
	efd = eventfd(0, 0);
	lsock = socket(AF_INET, SOCK_STREAM, 0);
	CHECK(lsock >= 0 && bind(lsock, (struct sockaddr *)&sin, sizeof(sin)) == 0 &&
	      listen(lsock, 4) == 0 && getsockname(lsock, (struct sockaddr *)&sin, &slen) == 0);
	csock = socket(AF_INET, SOCK_STREAM, 0);
	CHECK(csock >= 0 && connect(csock, (struct sockaddr *)&sin, sizeof(sin)) == 0);
	asock = accept(lsock, NULL, NULL);
	CHECK(asock >= 0);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s.sock", tmpl);
	usock = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(usock >= 0 && bind(usock, (struct sockaddr *)&sun, sizeof(sun)) == 0);
	prctl(PR_GET_NAME, comm);
	CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	CHECK(pthread_create(&thr, NULL, worker, NULL) == 0);
	pthread_mutex_lock(&mu);
	while (thread_state != 1)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);

	in = inspector__new(&o);
	CHECK(in != NULL);
	me = in ? find(in, getpid()) : NULL;
	CHECK(me != NULL);
	if (!me)
		goto out;
	CHECK_STR(me->comm, comm);
	CHECK(me->pid == getpid() && me->ptid == getppid());
	CHECK(me->uid == getuid() && me->gid == getgid());
	snprintf(want, sizeof(want), "%s%s", cwd, strcmp(cwd, "/") ? "/" : "");
	CHECK_STR(me->cwd, want);
	CHECK_STR(me->exepath, exe);
	CHECK(me->start_ts > 1500000000ULL * 1000000000ULL);
	th = find(in, thread_tid);
	CHECK(th && th->pid == getpid() && th->fds == me->fds);
	CHECK(thread_table__count(inspector__threads(in)) > 2);

	f = fd_table__find(me->fds, file);
	CHECK(f && f->type == FDT_FILE && f->name && strcmp(f->name, tmpl) == 0);
	CHECK(f && (f->open_flags & PPM_FILE_FLAGS_O_CLOEXEC) && (f->open_flags & PPM_FILE_FLAGS_O_RDWR));
	f = fd_table__find(me->fds, dirfd);
	CHECK(f && f->type == FDT_DIRECTORY && strcmp(f->name, "/tmp") == 0 &&
	      !(f->open_flags & PPM_FILE_FLAGS_O_CLOEXEC));
	CHECK(fd_table__find(me->fds, pfd[0]) && fd_table__find(me->fds, pfd[0])->type == FDT_PIPE);
	CHECK(fd_table__find(me->fds, efd) && fd_table__find(me->fds, efd)->type == FDT_EVENT);
	f = fd_table__find(me->fds, lsock);
	snprintf(want, sizeof(want), "127.0.0.1:%u", ntohs(sin.sin_port));
	CHECK(f && f->type == FDT_IPV4_SOCK && f->is_server);
	CHECK_STR(f ? f->name : NULL, want);
	f = fd_table__find(me->fds, asock);
	CHECK(f && f->type == FDT_IPV4_SOCK && f->l4proto == IPPROTO_TCP);
	CHECK(f && f->sport == ntohs(sin.sin_port));	/* local -> remote, as /proc lists it */
	f = fd_table__find(me->fds, csock);
	CHECK(f && f->type == FDT_IPV4_SOCK && f->dport == ntohs(sin.sin_port));
	f = fd_table__find(me->fds, usock);
	CHECK(f && f->type == FDT_UNIX_SOCK);
	CHECK_STR(f ? f->name : NULL, sun.sun_path);
out:
	inspector__free(in);
	pthread_mutex_lock(&mu);
	thread_state = 2;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(thr, NULL);
	close(file);
	close(dirfd);
	close(pfd[0]);
	close(pfd[1]);
	close(efd);
	close(lsock);
	close(csock);
	close(asock);
	close(usock);
	unlink(tmpl);
	unlink(sun.sun_path);
}

int main(void)
{
	unsetenv("HOST_ROOT");
	test_fake_tree();
	test_second_scan();
	test_real_proc();
	return t_report();
}
