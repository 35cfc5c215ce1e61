/* The parser itself: the fields of struct ievt, enter/exit pairing and latency,
 * malformed frames (counted, state untouched), generic and compact event
 * names, threads first seen in an event read from a fake HOST_ROOT/proc, and
 * without /proc made placeholders that their clone fills. */
#include <netinet/in.h>
#include "test_util.h"

#define Q(x) ((uint64_t)(int64_t)(x))

static struct thread_info *find(struct t_ctx *t, int64_t tid)
{
	return thread_table__find(inspector__threads(t->in), tid);
}

static void test_fields_and_pairing(void)
{
	struct t_ctx *t = calloc(1, sizeof(*t));
	char *root = t_tmpdir();
	struct inspector_counters c;
	struct ppm_evt_hdr eh;
	uint64_t first_ts, unpaired;

	t->in = t_inspector(root, 0);
	CHECK(t_spawn(t, 10, 1, "cat", "/") == 0);
	CHECK(t->ev.num == 1);

	t->ts = 1000000;
	t->cpu = 3;
	CHECK(t_emit(t, PPME_SYSCALL_READ_E, 10, "qd", Q(0), 4096u) == 0);
	CHECK(t->ev.num == 2 && t->ev.cpu == 3 && t->ev.type == PPME_SYSCALL_READ_E);
	CHECK(t->ev.ts == 1001000 && t->ev.tid == 10 && t->ev.hdr == (void *)t->buf);
	CHECK(t->ev.info == &schema_events[PPME_SYSCALL_READ_E]);
	CHECK_STR(t->ev.name, "read");
	CHECK(t->ev.params.n == 2 && t->ev.params.len[1] == 4);
	CHECK(t->ev.thread == find(t, 10) && t->ev.thread->last_ts == 1001000);
	CHECK(!t->ev.has_res && t->ev.enter == NULL && t->ev.latency == 0);
	CHECK(t->ev.thread->lastenter_len == t->len);
	CHECK(t->ev.first_ts && t->ev.first_ts < t->ev.ts);	/* evt.reltime's base */
	first_ts = t->ev.first_ts;

	t->ts += 4000;	/* the exit comes 5 us after the enter */
	CHECK(t_emit(t, PPME_SYSCALL_READ_X, 10, "qB", Q(5), "hello", 5u) == 0);
	CHECK(t->ev.enter != NULL && t->ev.latency == 5000);
	CHECK(t->ev.first_ts == first_ts);
	memcpy(&eh, t->ev.enter, sizeof(eh));
	CHECK(eh.type == PPME_SYSCALL_READ_E && eh.ts == 1001000);
	CHECK(t->ev.has_res && t->ev.res == 5);
	CHECK(t->ev.thread->lastenter_len == 0);
	/* a context switch shows the last syscall's latency until the next
	 * syscall starts, as sysdig's evt.latency does */
	CHECK(t_emit(t, PPME_SCHEDSWITCH_6_E, 10, "qqqddd", Q(11), Q(0), Q(0), 0u, 0u, 0u) == 0);
	CHECK_INT(t->ev.latency, 5000);
	CHECK(t_emit(t, PPME_SYSCALL_READ_E, 10, "qd", Q(0), 4096u) == 0);
	CHECK_INT(t->ev.latency, 0);
	CHECK(t_emit(t, PPME_SCHEDSWITCH_6_E, 10, "qqqddd", Q(11), Q(0), Q(0), 0u, 0u, 0u) == 0);
	CHECK_INT(t->ev.latency, 0);

	/* an exit of another syscall does not pair with a stale enter */
	CHECK(t_emit(t, PPME_SYSCALL_WRITE_E, 10, "qd", Q(1), 5u) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_READ_X, 10, "qB", Q(5), "hello", 5u) == 0);
	CHECK(t->ev.enter == NULL && t->ev.latency == 0);
	/* and the write's enter is gone with it */
	CHECK(t_emit(t, PPME_SYSCALL_WRITE_X, 10, "qB", Q(5), "hello", 5u) == 0);
	CHECK(t->ev.enter == NULL);
	inspector__counters(t->in, &c);
	CHECK_INT(c.n_unpaired_exits, 2);

	/* enters of other threads do not pair */
	CHECK(t_spawn(t, 11, 1, "cat", "/") == 0);
	CHECK(t_emit(t, PPME_SYSCALL_READ_E, 11, "qd", Q(0), 10u) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_READ_X, 10, "qB", Q(1), "x", 1u) == 0);
	CHECK(t->ev.enter == NULL);
	CHECK(t_emit(t, PPME_SYSCALL_READ_X, 11, "qB", Q(1), "x", 1u) == 0);
	CHECK(t->ev.enter != NULL);

	/* a one-shot event (signal delivery) between enter and exit keeps the pair */
	CHECK(t_emit(t, PPME_SYSCALL_READ_E, 10, "qd", Q(0), 10u) == 0);
	CHECK(t_emit(t, PPME_SIGNALDELIVER_E, 10, "qqb", Q(1), Q(10), 17u) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_READ_X, 10, "qB", Q(-4), "", 0u) == 0);
	CHECK(t->ev.enter != NULL && t->ev.res == -4);

	/* res: only from a first param of type ERRNO/FD/PID */
	CHECK(t_emit(t, PPME_SYSCALL_BRK_4_X, 10, "qddd", Q(0x5000), 1u, 2u, 3u) == 0);
	CHECK(!t->ev.has_res);
	CHECK(t_emit(t, PPME_SYSCALL_CLOSE_X, 10, "q", Q(-9)) == 0);
	CHECK(t->ev.has_res && t->ev.res == -9);

	/* enter events too big to keep: counted, not paired */
	{
		static char big[600];

		memset(big, 'a', sizeof(big) - 1);
		CHECK(t_emit(t, PPME_SYSCALL_OPEN_E, 10, "sdd", big, 0u, 0u) == 0);
		CHECK(t->ev.thread->lastenter_len == 0);
		CHECK(t_emit(t, PPME_SYSCALL_OPEN_X, 10, "qsddd", Q(3), big, 0u, 0u, 0u) == 0);
		CHECK(t->ev.enter == NULL);
		inspector__counters(t->in, &c);
		CHECK_INT(c.n_enter_too_big, 1);
	}

	/* generic events: the syscall's name from the ID param */
	CHECK(t_emit(t, PPME_GENERIC_E, 10, "ww", schema_syscall_routes[110].ppm_sc, 110u) == 0);
	CHECK_STR(t->ev.name, "getppid");
	CHECK(t_emit(t, PPME_GENERIC_X, 10, "w", schema_syscall_routes[110].ppm_sc) == 0);
	CHECK_STR(t->ev.name, "getppid");
	CHECK(t->ev.enter != NULL && !t->ev.has_res);
	CHECK_INT(t->ev.native_nr, 110);
	/* the kernel's name by number: newer calls, rt_sigreturn (sysdig: sigreturn) */
	CHECK(t_emit(t, PPME_GENERIC_E, 10, "ww", 0u, 334u) == 0);
	CHECK_STR(t->ev.name, "rseq");
	CHECK(t_emit(t, PPME_GENERIC_X, 10, "w", 0u) == 0);
	CHECK_STR(t->ev.name, "rseq");	/* from its enter */
	CHECK_INT(t->ev.native_nr, 334);
	CHECK(t_emit(t, PPME_GENERIC_X, 11, "w", 0u) == 0);
	CHECK_STR(t->ev.name, "<unknown>");	/* no enter, no number */
	CHECK_INT(t->ev.native_nr, -1);
	CHECK(t_emit(t, PPME_GENERIC_X, 11, "w", schema_syscall_routes[15].ppm_sc) == 0);
	CHECK_STR(t->ev.name, "rt_sigreturn");
	CHECK(t_emit(t, PPME_GENERIC_E, 10, "ww", 60000u, 1u) == 0);
	CHECK_STR(t->ev.name, "write");
	CHECK(t_emit(t, PPME_GENERIC_E, 10, "ww", 60000u, 60000u) == 0);
	CHECK_STR(t->ev.name, "syscall");

	/* compact socket I/O (request mode): one exit event with no enter,
	 * named by its syscall's number, its fd the second param */
	inspector__counters(t->in, &c);
	unpaired = c.n_unpaired_exits;
	CHECK(t_emit(t, PPME_SYSCALL_READ_E, 10, "qd", Q(3), 10u) == 0);
	CHECK(t_emit(t, PPME_SOCK_RECV_X, 10, "qqwBdde", Q(5), Q(7), 45u, "hello", 5u, 0u, 30u) == 0);
	CHECK_STR(t->ev.name, "recvfrom");
	CHECK_INT(t->ev.native_nr, 45);
	CHECK(t->ev.has_res && t->ev.res == 5 && t->ev.fdnum == 7 && t->ev.enter == NULL);
	CHECK(t->ev.thread->lastenter_len == 0);	/* the read it cut short is over */
	CHECK(t_emit(t, PPME_SOCK_SEND_X, 10, "qqwBdde", Q(600), Q(8), 40u, "", 0u, 2u, 41u) == 0);
	CHECK_STR(t->ev.name, "sendfile");
	CHECK(t->ev.has_res && t->ev.res == 600 && t->ev.fdnum == 8);
	CHECK(t_emit(t, PPME_SOCK_SEND_X, 10, "qqwBdde", Q(1), Q(8), 60000u, "x", 1u, 0u, 0u) == 0);
	CHECK_STR(t->ev.name, "sock_send");	/* no such number: the event's own */
	CHECK_INT(t->ev.native_nr, -1);
	inspector__counters(t->in, &c);
	CHECK_INT(c.n_unpaired_exits, unpaired);

	inspector__free(t->in);
	t_rmtree(root);
	free(t);
}

static int feed_raw(struct t_ctx *t, const void *frame, uint32_t len)
{
	struct capture_event cev = { .frame = frame, .len = len };

	return inspector__process(t->in, &cev, &t->ev);
}

static void test_malformed(void)
{
	struct t_ctx *t = calloc(1, sizeof(*t));
	char *root = t_tmpdir();
	struct inspector_counters c;
	struct ppm_evt_hdr h;
	uint8_t frame[256];
	uint32_t len;
	uint64_t num;

	t->in = t_inspector(root, 0);
	CHECK(t_spawn(t, 10, 1, "cat", "/") == 0);
	CHECK(t_emit(t, PPME_SYSCALL_OPEN_X, 10, "qsddd", Q(3), "/a", 1u, 0u, 0u) == 0);
	num = t->ev.num;
	len = t->len;
	memcpy(frame, t->buf, len);

	/* truncated: the buffer ends before the frame does */
	CHECK(feed_raw(t, frame, len - 1) == -EINVAL);
	CHECK(feed_raw(t, frame, 10) == -EINVAL);
	/* a header saying the frame is shorter than its params */
	memcpy(&h, frame, sizeof(h));
	h.len = PPM_HDR_LEN + 4;
	memcpy(t->buf, &h, sizeof(h));
	memcpy(t->buf + sizeof(h), frame + sizeof(h), len - sizeof(h));
	CHECK(feed_raw(t, t->buf, len) == -EINVAL);
	/* unknown type */
	memcpy(&h, frame, sizeof(h));
	h.type = PPM_EVENT_MAX + 7;
	memcpy(t->buf, frame, len);
	memcpy(t->buf, &h, sizeof(h));
	CHECK(feed_raw(t, t->buf, len) == -EINVAL);
	/* more params than the event has */
	memcpy(&h, frame, sizeof(h));
	h.nparams = 6;
	memcpy(t->buf, frame, len);
	memcpy(t->buf, &h, sizeof(h));
	CHECK(feed_raw(t, t->buf, len) == -EINVAL);
	/* a param length running past the end */
	memcpy(t->buf, frame, len);
	t->buf[PPM_HDR_LEN + 2] = 0xff;
	CHECK(feed_raw(t, t->buf, len) == -EINVAL);
	/* no frame at all */
	CHECK(inspector__process(t->in, NULL, &t->ev) == -EINVAL);
	CHECK(feed_raw(t, NULL, 0) == -EINVAL);

	inspector__counters(t->in, &c);
	CHECK_INT(c.n_malformed, 8);
	CHECK_INT(c.n_events, 2);
	/* state untouched: fd 3 is still the first open, numbering goes on */
	CHECK(fd_table__find(find(t, 10)->fds, 3) &&
	      strcmp(fd_table__find(find(t, 10)->fds, 3)->name, "/a") == 0);
	CHECK(feed_raw(t, frame, len) == 0);
	CHECK(t->ev.num == num + 1);

	/* an older frame with fewer params is fine: missing params read as absent */
	CHECK(t_emit(t, PPME_SYSCALL_OPEN_E, 10, "sdd", "/b", 1u, 0u) == 0);
	{
		struct frame_builder fb;
		struct capture_event cev;

		fb__begin(&fb, t->buf, sizeof(t->buf), PPME_SYSCALL_OPEN_X, 10, 99999);
		fb__u64(&fb, 4);
		fb__str(&fb, "/b");
		len = fb__end(&fb, 1);
		cev.frame = (const struct ppm_evt_hdr *)t->buf;
		cev.len = len;
		cev.cpu = 0;
		cev.flags = 0;
		CHECK(len > 0 && inspector__process(t->in, &cev, &t->ev) == 0);
		CHECK(t->ev.params.n == 2 && t->ev.enter != NULL);
		CHECK(fd_table__find(find(t, 10)->fds, 4) &&
		      strcmp(fd_table__find(find(t, 10)->fds, 4)->name, "/b") == 0);
	}

	inspector__free(t->in);
	t_rmtree(root);
	free(t);
}

static void fake_process(const char *root, int pid)
{
	char rel[128], target[256];
	static const char cmdline[] = "/usr/bin/daemon\0--foreground\0-v";

	t_fake_task(root, pid, pid, 1, "daemon", 1000, 500);
	snprintf(rel, sizeof(rel), "proc/%d/cmdline", pid);
	t_put(root, rel, cmdline, sizeof(cmdline));
	snprintf(rel, sizeof(rel), "proc/%d/cwd", pid);
	t_link(root, rel, "/var/daemon");
	snprintf(rel, sizeof(rel), "proc/%d/exe", pid);
	t_link(root, rel, "/usr/bin/daemon");
	snprintf(rel, sizeof(rel), "proc/%d/fd/5", pid);
	snprintf(target, sizeof(target), "%s/etc", root);
	t_link(root, rel, target);
	snprintf(rel, sizeof(rel), "proc/%d/fd/6", pid);
	t_link(root, rel, "pipe:[4242]");
}

static void test_unknown_tid(void)
{
	struct t_ctx *t = calloc(1, sizeof(*t));
	char *root = t_tmpdir();
	struct inspector_counters c;
	struct thread_info *ti, *th;
	char buf[512];

	/* process 700 with a thread 702: /proc/702 exists (hidden) as well */
	fake_process(root, 700);
	t_fake_task(root, 700, 702, 1, "worker", 1000, 600);
	snprintf(buf, sizeof(buf), "Name:\tworker\nTgid:\t700\nPid:\t702\nPPid:\t1\n");
	t_puts(root, "proc/702/status", buf);
	t_puts(root, "etc/placeholder", "");

	t->in = t_inspector(root, 0);
	CHECK(t_emit(t, PPME_SYSCALL_READ_E, 700, "qd", Q(6), 10u) == 0);
	ti = find(t, 700);
	CHECK(ti && t->ev.thread == ti);
	CHECK(ti && ti->pid == 700 && ti->ptid == 1 && ti->uid == 1000 && ti->gid == 1001);
	CHECK_STR(ti->comm, "daemon");
	CHECK_STR(ti->exe, "/usr/bin/daemon");
	CHECK_STR(ti->exepath, "/usr/bin/daemon");
	CHECK_STR(ti->cwd, "/var/daemon/");
	CHECK(ti && ti->args_len == 16 && memcmp(ti->args, "--foreground\0-v\0", 16) == 0);
	CHECK(ti && ti->vpid == 600 && ti->vtid == 600);
	/* the fds came along: the event found its fd */
	CHECK(t->ev.fd && t->ev.fd->type == FDT_PIPE && t->ev.fd->ino == 4242);
	CHECK(ti && fd_table__find(ti->fds, 5) && fd_table__find(ti->fds, 5)->type == FDT_DIRECTORY);

	/* a thread of a known process shares its fds */
	CHECK(t_emit(t, PPME_SYSCALL_READ_E, 702, "qd", Q(6), 10u) == 0);
	th = find(t, 702);
	CHECK(th && th->pid == 700 && th->fds == ti->fds);
	CHECK_STR(th->comm, "worker");
	CHECK_STR(th->exe, "/usr/bin/daemon");
	CHECK(thread_table__main(inspector__threads(t->in), th) == ti);

	/* a tid /proc does not have: a minimal entry, read once */
	CHECK(t_emit(t, PPME_SYSCALL_READ_E, 9999, "qd", Q(6), 10u) == 0);
	CHECK(t->ev.thread && t->ev.thread->tid == 9999 && t->ev.thread->pid == -1);
	CHECK(t->ev.thread && t->ev.thread->comm[0] == '\0' && t->ev.fd == NULL);
	CHECK(t_emit(t, PPME_SYSCALL_READ_X, 9999, "qB", Q(0), "", 0u) == 0);
	CHECK(t->ev.enter != NULL);
	inspector__counters(t->in, &c);
	CHECK_INT(c.n_lazy_threads, 3);
	CHECK_INT(c.n_lazy_unreadable, 1);
	CHECK_INT(c.n_threads, 3);
	/* its fork tells who it is */
	CHECK(t_clone(t, PPME_SYSCALL_FORK_20_X, 9999, 10000, "srv", "-x", 3, 9999, 9990, 1,
		      "/x", "srvcomm", 0, 33, 9999, 9990) == 0);
	ti = find(t, 9999);
	CHECK(ti && ti->pid == 9990 && ti->ptid == 1 && ti->uid == 33);
	CHECK_STR(ti->comm, "srvcomm");
	CHECK_STR(ti->exe, "srv");
	CHECK_STR(ti->cwd, "/x/");
	CHECK(find(t, 10000) && find(t, 10000)->pid == 10000 && find(t, 10000)->ptid == 9999);
	inspector__free(t->in);

	/* with no_proc_lookup (capture files) /proc is never read */
	{
		struct inspector_opts o = { .host_root = root, .no_proc_scan = true,
					    .no_proc_lookup = true };

		t->in = inspector__new(&o);
		CHECK(t_emit(t, PPME_SYSCALL_READ_E, 700, "qd", Q(6), 10u) == 0);
		CHECK(t->ev.thread && t->ev.thread->pid == -1 && t->ev.fd == NULL);
		/* unknown credentials are not root */
		CHECK(t->ev.thread && t->ev.thread->uid == UINT32_MAX && t->ev.thread->gid == UINT32_MAX);
		inspector__counters(t->in, &c);
		CHECK_INT(c.n_lazy_threads, 1);
		CHECK_INT(c.n_lazy_unreadable, 0);
		/* a new thread's first event before its clone (the driver's
		 * batch at its wake-up): a placeholder, which its parent's
		 * clone exit fills, and so does its own when it comes first */
		CHECK(t_spawn(t, 710, 1, "parent", "/p") == 0);
		CHECK(t_emit(t, PPME_SYSCALL_READ_E, 711, "qd", Q(6), 10u) == 0);
		CHECK(find(t, 711) && thread__placeholder(find(t, 711)));
		CHECK(t_clone(t, PPME_SYSCALL_CLONE_20_X, 710, 711, "parent", "a", 2, 710, 710, 1,
			      "/p", "parent", PPM_CLONE_FLAGS_CLONE_THREAD | PPM_CLONE_FLAGS_CLONE_FILES,
			      1000, 710, 710) == 0);
		ti = find(t, 711);
		CHECK(ti && ti->pid == 710 && !thread__placeholder(ti) && ti->fds == find(t, 710)->fds);
		CHECK_STR(ti->comm, "parent");
		CHECK(t_emit(t, PPME_SYSCALL_READ_E, 712, "qd", Q(6), 10u) == 0);
		CHECK(t_clone(t, PPME_SYSCALL_CLONE_20_X, 712, 0, "parent", "a", 2, 712, 710, 1,
			      "/p", "worker2", PPM_CLONE_FLAGS_CLONE_THREAD | PPM_CLONE_FLAGS_CLONE_FILES,
			      1000, 712, 710) == 0);
		ti = find(t, 712);
		CHECK(ti && ti->pid == 710 && ti->ptid == 1 && ti->fds == find(t, 710)->fds);
		CHECK_STR(ti->comm, "worker2");
		inspector__free(t->in);
		/* nor used to purge: a full table drops new threads */
		o.max_threads = 2;
		t->in = inspector__new(&o);
		CHECK(t_emit(t, PPME_SYSCALL_READ_E, 1, "qd", Q(6), 10u) == 0);
		CHECK(t_emit(t, PPME_SYSCALL_READ_E, 2, "qd", Q(6), 10u) == 0);
		t->ts += 100000000000ULL;
		CHECK(t_emit(t, PPME_SYSCALL_READ_E, 3, "qd", Q(6), 10u) == 0);
		CHECK(t->ev.thread == NULL && find(t, 1) && find(t, 2));
		inspector__counters(t->in, &c);
		CHECK_INT(c.n_threads_purged, 0);
		CHECK_INT(c.n_threads_dropped, 1);
		inspector__free(t->in);
	}

	/* the HOST_ROOT variable is the default root */
	setenv("HOST_ROOT", root, 1);
	t->in = t_inspector(NULL, 0);
	CHECK(t_emit(t, PPME_SYSCALL_READ_E, 700, "qd", Q(6), 10u) == 0);
	CHECK(t->ev.thread && strcmp(t->ev.thread->comm, "daemon") == 0);
	inspector__free(t->in);
	unsetenv("HOST_ROOT");

	t_rmtree(root);
	free(t);
}

static void test_add_by_hand(void)
{
	struct t_ctx *t = calloc(1, sizeof(*t));
	char *root = t_tmpdir();
	struct thread_info *p, *th;
	struct fd_info *f;

	t->in = t_inspector(root, 0);
	p = inspector__add_thread(t->in, 50, 50);
	CHECK(p && p->pid == 50);
	th = inspector__add_thread(t->in, 51, 50);
	CHECK(th && th->fds == p->fds);
	CHECK(inspector__add_thread(t->in, 51, 50) == NULL && errno == EEXIST);
	f = inspector__add_fd(t->in, p, 7);
	CHECK(f && f->fd == 7);
	f->type = FDT_FILE;
	f->name = strdup("/x");
	CHECK(t_emit(t, PPME_SYSCALL_READ_E, 51, "qd", Q(7), 1u) == 0);
	CHECK(t->ev.thread == th && t->ev.fd == f);
	inspector__free(t->in);
	t_rmtree(root);
	free(t);
}

static void open_as(struct t_ctx *t, int64_t tid, int64_t fd, const char *name)
{
	CHECK(t_emit(t, PPME_SYSCALL_OPENAT_2_X, tid, "qqsddd", Q(fd), Q(-100), name, 1u, 0u,
		     0x801u) == 0);
}

/* Thread 11 closes fd 5 while thread 10 of its process gets number 5 (the
 * kernel freed it at the start of the close) and returns first: the close
 * names its own file and the new one stays. Then a close enter that comes
 * after the new file (exit-only capture, a close longer than the order
 * window): the new file was made after the close began, so it stays, and
 * the close names none. Then a plain close. */
static void test_close_reuse(void)
{
	struct t_ctx *t = calloc(1, sizeof(*t));
	char *root = t_tmpdir();
	struct inspector_counters c;
	struct thread_info *ti;

	t->in = t_inspector(root, 0);
	CHECK(t_spawn(t, 10, 1, "srv", "/") == 0);
	ti = inspector__add_thread(t->in, 11, 10);
	CHECK(ti && ti->fds == find(t, 10)->fds);
	open_as(t, 11, 5, "/old");
	CHECK(t_emit(t, PPME_SYSCALL_CLOSE_E, 11, "q", Q(5)) == 0);
	open_as(t, 10, 5, "/new");
	CHECK_STR(t_fdname(t, 10, 5), "/new");
	CHECK(t_emit(t, PPME_SYSCALL_CLOSE_X, 11, "q", Q(0)) == 0);
	CHECK(t->ev.fd_reused && t->ev.fdnum == 5 && t->ev.fd && t->ev.fd->name);
	CHECK_STR(t->ev.fd->name, "/old");
	CHECK_STR(t_fdname(t, 10, 5), "/new");
	CHECK(t_fd(t, 10, 5)->closer == 0);

	/* the late enter: stamped before the new file, read after it */
	t->ts = 5000000;
	open_as(t, 10, 6, "/late");
	t->ts = 4000000;
	CHECK(t_emit(t, PPME_SYSCALL_CLOSE_E, 11, "q", Q(6)) == 0);
	t->ts = 6000000;
	CHECK(t_emit(t, PPME_SYSCALL_CLOSE_X, 11, "q", Q(0)) == 0);
	CHECK(t->ev.fd_reused && t->ev.fdnum == 6 && !t->ev.fd);
	CHECK_STR(t_fdname(t, 10, 6), "/late");
	CHECK(t_fd(t, 10, 6)->closer == 0);

	/* a close of its own, and one of another thread's file: both close */
	CHECK(t_emit(t, PPME_SYSCALL_CLOSE_E, 10, "q", Q(6)) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_CLOSE_X, 10, "q", Q(0)) == 0);
	CHECK(!t->ev.fd_reused && t->ev.fd);
	CHECK_STR(t->ev.fd->name, "/late");
	CHECK(t_fd(t, 10, 6) == NULL);
	CHECK(t_emit(t, PPME_SYSCALL_CLOSE_E, 11, "q", Q(5)) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_CLOSE_X, 11, "q", Q(0)) == 0);
	CHECK(!t->ev.fd_reused && t->ev.fd && t_fd(t, 10, 5) == NULL);
	inspector__counters(t->in, &c);
	CHECK_INT(c.n_close_reused, 2);
	t_free(t, root);
}

/* An IPv4 TCP tuple 10.0.0.1:SPORT -> 10.0.0.2:80 as connect's exit gives it. */
static void tcp_tuple(uint8_t t[13], uint16_t sport)
{
	uint16_t dport = 80;

	memset(t, 0, 13);
	t[0] = 2, t[1] = 10, t[4] = 1, t[5 + 2] = 10, t[5 + 2 + 3] = 2;
	memcpy(t + 5, &sport, 2);
	memcpy(t + 11, &dport, 2);
}

/* Request mode keeps a TCP socket's socket() in the kernel, so a connect
 * makes its entry. haproxy's thread 11 closes a server connection on fd 5
 * while thread 10 gets number 5 for a new one and connects; the close's
 * record (its enter stamped when it began) is read after the connect. The
 * connect finds the old connection's entry, not yet closed: a connected TCP
 * socket cannot connect, so the number is a new socket's, and the close,
 * begun before it, leaves it. */
static void test_close_after_connect(void)
{
	struct t_ctx *t = calloc(1, sizeof(*t));
	char *root = t_tmpdir();
	struct thread_info *ti;
	uint8_t old[13], new[13];

	t->in = t_inspector(root, 0);
	CHECK(t_spawn(t, 10, 1, "haproxy", "/") == 0);
	ti = inspector__add_thread(t->in, 11, 10);
	CHECK(ti && ti->fds == find(t, 10)->fds);
	tcp_tuple(old, 40001);
	tcp_tuple(new, 40002);
	t->ts = 1000000;
	CHECK(t_emit(t, PPME_SOCKET_CONNECT_E, 11, "qB", Q(5), "", 0u) == 0);
	CHECK(t_emit(t, PPME_SOCKET_CONNECT_X, 11, "qB", Q(-115), old, 13u) == 0);
	CHECK_STR(t_fdname(t, 10, 5), "10.0.0.1:40001->10.0.0.2:80");
	t->ts = 3000000;
	CHECK(t_emit(t, PPME_SOCKET_CONNECT_E, 10, "qB", Q(5), "", 0u) == 0);
	CHECK(t_emit(t, PPME_SOCKET_CONNECT_X, 10, "qB", Q(-115), new, 13u) == 0);
	CHECK_STR(t_fdname(t, 10, 5), "10.0.0.1:40002->10.0.0.2:80");
	t->ts = 2000000;
	CHECK(t_emit(t, PPME_SYSCALL_CLOSE_E, 11, "q", Q(5)) == 0);
	t->ts = 4000000;
	CHECK(t_emit(t, PPME_SYSCALL_CLOSE_X, 11, "q", Q(0)) == 0);
	CHECK(t->ev.fd_reused && t->ev.fdnum == 5);
	CHECK(t_fd(t, 10, 5) != NULL);
	CHECK_STR(t_fdname(t, 10, 5), "10.0.0.1:40002->10.0.0.2:80");
	/* a connect again that completes the one in progress (the same
	 * tuple): the same entry */
	{
		struct fd_info *f = t_fd(t, 10, 5);

		CHECK(t_emit(t, PPME_SOCKET_CONNECT_E, 10, "qB", Q(5), "", 0u) == 0);
		CHECK(t_emit(t, PPME_SOCKET_CONNECT_X, 10, "qB", Q(0), new, 13u) == 0);
		CHECK(t_fd(t, 10, 5) == f && t->ev.fd == f);
	}
	/* a UDP socket may connect again, to another peer: the same entry */
	{
		uint8_t u[13];
		struct fd_info *f;

		tcp_tuple(u, 40003);
		CHECK(t_emit(t, PPME_SOCKET_SOCKET_E, 10, "ddd", 2u, 2u, 0u) == 0);
		CHECK(t_emit(t, PPME_SOCKET_SOCKET_X, 10, "q", Q(6)) == 0);
		f = t_fd(t, 10, 6);
		CHECK(f && f->l4proto == IPPROTO_UDP);
		CHECK(t_emit(t, PPME_SOCKET_CONNECT_E, 10, "qB", Q(6), "", 0u) == 0);
		CHECK(t_emit(t, PPME_SOCKET_CONNECT_X, 10, "qB", Q(0), u, 13u) == 0);
		u[12] = 1;	/* port 80 + 256 */
		CHECK(t_emit(t, PPME_SOCKET_CONNECT_E, 10, "qB", Q(6), "", 0u) == 0);
		CHECK(t_emit(t, PPME_SOCKET_CONNECT_X, 10, "qB", Q(0), u, 13u) == 0);
		CHECK(t_fd(t, 10, 6) == f && f->l4proto == IPPROTO_UDP);
	}
	t_free(t, root);
}

/* Request mode keeps in the kernel the close of every fd that is no socket,
 * a file's from the /proc scan too, so its entry can outlive it: a connect
 * on that number (its socket() kept as well) finds a file's entry. A
 * connect is a socket's, so the entry is made anew as the connection's. */
static void test_connect_on_file(void)
{
	struct t_ctx *t = calloc(1, sizeof(*t));
	char *root = t_tmpdir();
	struct fd_info *f;
	uint8_t tu[13];

	t->in = t_inspector(root, 0);
	CHECK(t_spawn(t, 10, 1, "app", "/") == 0);
	open_as(t, 10, 5, "/etc/app.conf");
	f = t_fd(t, 10, 5);
	CHECK(f && f->type == FDT_FILE);
	tcp_tuple(tu, 40010);
	CHECK(t_emit(t, PPME_SOCKET_CONNECT_E, 10, "qB", Q(5), "", 0u) == 0);
	CHECK(t_emit(t, PPME_SOCKET_CONNECT_X, 10, "qB", Q(0), tu, 13u) == 0);
	f = t_fd(t, 10, 5);
	CHECK(f && f->type == FDT_IPV4_SOCK && f->l4proto == IPPROTO_TCP);
	CHECK_STR(t_fdname(t, 10, 5), "10.0.0.1:40010->10.0.0.2:80");
	/* nothing of the file's is left on it: its flags, device, birth */
	CHECK(f && f->open_flags == 0 && f->dev == 0 && f->born == t->ts);
	t_free(t, root);
}

/* A clone exit that names its caller as its child comes only from a damaged
 * file (the fuzzer's find: a placeholder caller had its fd table dropped, then
 * copied from). The event is shown; the caller keeps its fds. */
static void test_clone_self(void)
{
	struct inspector_opts o = { .no_proc_scan = true, .no_proc_lookup = true };
	struct t_ctx *t = calloc(1, sizeof(*t));
	struct inspector_counters c;
	struct thread_info *ti;

	t->in = inspector__new(&o);
	CHECK(t->in != NULL);
	open_as(t, 720, 3, "/kept");
	CHECK(find(t, 720) && thread__placeholder(find(t, 720)));
	CHECK(t_clone(t, PPME_SYSCALL_CLONE_20_X, 720, 720, "self", "a", 2, 720, 720, 1,
		      "/s", "self", 0, 1000, 720, 720) == 0);
	ti = find(t, 720);
	/* (its params still describe the caller, which they complete) */
	CHECK(t->ev.thread == ti && ti && ti->pid == 720);
	CHECK_STR(ti->comm, "self");
	CHECK_STR(t_fdname(t, 720, 3), "/kept");
	inspector__counters(t->in, &c);
	CHECK_INT(c.n_clone_self, 1);
	/* its fork of a real child still makes the child, with the fd */
	CHECK(t_clone(t, PPME_SYSCALL_CLONE_20_X, 720, 721, "self", "a", 2, 720, 720, 1,
		      "/s", "self", 0, 1000, 720, 720) == 0);
	CHECK(find(t, 721) && find(t, 721)->pid == 721);
	CHECK_STR(t_fdname(t, 721, 3), "/kept");
	inspector__counters(t->in, &c);
	CHECK_INT(c.n_clone_self, 1);
	inspector__free(t->in);
	free(t);
}

int main(void)
{
	unsetenv("HOST_ROOT");
	test_fields_and_pairing();
	test_malformed();
	test_unknown_tid();
	test_add_by_hand();
	test_close_reuse();
	test_close_after_connect();
	test_connect_on_file();
	test_clone_self();
	return t_report();
}
