/* Exit-only capture on each syscall's own exit tracepoint (syscall_tps.h,
 * driver/README.md "Each syscall's own tracepoint"). With a set of syscalls
 * the dispatcher goes on their syscalls:sys_exit_* tracepoints:
 * - the load says so (driver_load_info.syscall_tps: the set's size), the
 *   calls whose tracepoints are named otherwise than the calls (fstat's is
 *   sys_exit_newfstat, sendfile's sys_exit_sendfile64, uname's
 *   sys_exit_newuname, ...) among them;
 * - the kernel runs it only for those: getppid calls add no runs of it
 *   (bpf_stats), where on the raw sys_exit tracepoint each adds one;
 * - the set's events arrive, every param checked: read, fstat, sendfile,
 *   uname (the generic pair), close;
 * - a syscall turned on later gets its tracepoint then (its events are the
 *   driver's bugs without a filler: counted, as on the raw tracepoint); one
 *   without a tracepoint is refused and stays off;
 * - a set with a syscall that has no tracepoint here loads on the raw one,
 *   and so does one where perf_event_open is refused (a seccomp filter in a
 *   child; ring buffers only, perf rings being perf events themselves);
 * - with no tracefs mounted (a fresh host, a container's own /sys: here a
 *   child in a mount namespace of its own, tracefs and debugfs unmounted
 *   there), the driver reads the ids from a tracefs it mounts for a moment:
 *   the set is on its own tracepoints, its events come, and neither that
 *   mount nor its directory is left.
 * Without exit-only capture, or with AGENT_TEST_RAW_EXIT=1, the dispatcher
 * is on the raw tracepoint: every getppid runs it. */
#include <bpf/bpf.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <glob.h>
#include <sched.h>
#include <stddef.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/utsname.h>

#include "procnet/pn_test.h"
#include "syscall_tps.h"

#define STORM 200000	/* getppid calls */
#define DATA "0123456789abcdef"	/* the file read and sent */

static const int calls[] = {
	SYS_read, SYS_close, SYS_fstat, SYS_stat, SYS_lstat, SYS_sendfile, SYS_uname,
	SYS_umount2, -1,
};

static int find_eo(const char *name, int fd, void *arg)
{
	if (strcmp(name, "sys_exit_eo"))
		return 0;
	*(int *)arg = fd;
	return 1;
}

/* The exit-only dispatcher's run count (bpf_stats on), or 0 without it. */
static uint64_t eo_runs(struct driver *d)
{
	struct bpf_prog_info info = { 0 };
	uint32_t len = sizeof(info);
	int fd = -1;

	driver__for_each_program(d, find_eo, &fd);
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.run_cnt;
}

/* A syscall of the table without an exit tracepoint here, or -1. */
static int untraced_syscall(void)
{
	char ev[96];

	for (int nr = 0; nr < 400; nr++)
		if (!syscall_tps__event(nr, ev, sizeof(ev)) && syscall_tps__id(nr) == -ENOENT)
			return nr;
	return -1;
}

static void check_events(struct harness *h, int64_t tid, int file, int out)
{
	struct hevt *e, *x;
	int at = 0;

	harness__drain(h, tid);
	if (!pn_pair(h, &at, PPME_SYSCALL_READ_E, tid, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, file);
	EXPECT_PARAM_INT(e, 1, 16);
	EXPECT_PARAM_INT(x, 0, 16);
	EXPECT(pn_param_bytes(x, 1, DATA, 16));
	if (!pn_pair(h, &at, PPME_SYSCALL_FSTAT_E, tid, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, file);
	EXPECT_PARAM_INT(x, 0, 0);
	if (!pn_pair(h, &at, PPME_SYSCALL_SENDFILE_E, tid, &e, &x))
		return;
	/* the offset given, and where the kernel left it */
	EXPECT_PARAM_INT(e, 0, out);
	EXPECT_PARAM_INT(e, 1, file);
	EXPECT_PARAM_INT(e, 2, 0);
	EXPECT_PARAM_INT(e, 3, 8);
	EXPECT_PARAM_INT(x, 0, 8);
	EXPECT_PARAM_INT(x, 1, 8);
	if (!pn_pair(h, &at, PPME_GENERIC_E, tid, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, schema_syscall_routes[SYS_uname].ppm_sc);
	EXPECT_PARAM_INT(e, 1, SYS_uname);
	EXPECT_PARAM_INT(x, 0, schema_syscall_routes[SYS_uname].ppm_sc);
	if (!pn_pair(h, &at, PPME_SYSCALL_CLOSE_E, tid, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, file);
	EXPECT_PARAM_INT(x, 0, 0);
	if (!pn_pair(h, &at, PPME_SYSCALL_CLOSE_E, tid, &e, &x))
		return;
	EXPECT_PARAM_INT(e, 0, out);
	EXPECT_PARAM_INT(x, 0, 0);
}

static void test_own_tracepoints(bool tps, const char *path)
{
	struct driver_config cfg = pn_capture_self;
	struct driver_load_info li;
	struct harness *h;
	struct driver *d;
	int64_t tid = pn_gettid();
	uint64_t r0 = 0, r1 = 0;
	struct utsname u;
	char buf[16];
	int file, out, nr;
	off_t off = 0;

	cfg.syscalls = harness__only(calls);
	h = harness__open(512, &cfg);
	d = harness__driver(h);
	EXPECT(driver__load_info(d, &li, false) == 0);
	EXPECT(li.syscall_tps == (tps ? 8u : 0u));
	fprintf(stderr, "the dispatcher on %u syscalls' own exit tracepoints\n", li.syscall_tps);

	/* the program's runs while this thread makes syscalls outside the set;
	 * other processes' calls in the set may run it meanwhile, the more the
	 * slower the storm: the quietest of up to 3 storms counts */
	for (int k = 0; k < 3; k++) {
		uint64_t a = eo_runs(d), b;

		for (int i = 0; i < STORM; i++)
			syscall(SYS_getppid);
		b = eo_runs(d);
		if (!k || b - a < r1 - r0) {
			r0 = a;
			r1 = b;
		}
		if (!tps || r1 - r0 < STORM / 4)
			break;
	}
	fprintf(stderr, "%d getppid calls: %llu runs of sys_exit_eo\n", STORM,
		(unsigned long long)(r1 - r0));
	if (!harness__exit_only())
		;	/* no sys_exit_eo */
	else if (tps)
		EXPECT(r1 - r0 < STORM / 4);
	else
		EXPECT(r1 - r0 >= STORM);

	harness__drain(h, -1);
	file = open(path, O_RDONLY);
	out = open("/dev/null", O_WRONLY);
	EXPECT(read(file, buf, sizeof(buf)) == 16);
	{
		struct stat st;

		EXPECT(syscall(SYS_fstat, file, &st) == 0);
	}
	off = 0;
	EXPECT(sendfile(out, file, &off, 8) == 8 && off == 8);
	EXPECT(uname(&u) == 0);
	close(file);
	close(out);
	check_events(h, tid, file, out);

	if (tps) {
		/* a syscall turned on later: its tracepoint now; no filler
		 * loaded for it, so its events are counted the driver's bugs */
		struct driver_counters before, after;
		char cwd[256];

		driver__counters(d, NULL, 0, &before);
		EXPECT(driver__set_syscall(d, SYS_getcwd, true) == 0);
		for (int i = 0; i < 20; i++)
			EXPECT(syscall(SYS_getcwd, cwd, sizeof(cwd)) > 0);
		EXPECT(driver__set_syscall(d, SYS_getcwd, false) == 0);
		driver__counters(d, NULL, 0, &after);
		EXPECT(after.n_drops_bug - before.n_drops_bug >= 40);
		/* one with no tracepoint here is refused */
		if ((nr = untraced_syscall()) >= 0)
			EXPECT(driver__set_syscall(d, (uint32_t)nr, true) == -EOPNOTSUPP);
	}
	harness__close(h);
}

/* In a child: a read of PATH's 16 bytes comes as its read pair, every
 * param checked. */
static void check_read(struct harness *h, const char *path)
{
	struct hevt *e, *x;
	char buf[16];
	int fd, at = 0;

	harness__drain(h, -1);
	fd = open(path, O_RDONLY);
	EXPECT(read(fd, buf, sizeof(buf)) == 16);
	close(fd);
	harness__drain(h, pn_gettid());
	if (pn_pair(h, &at, PPME_SYSCALL_READ_E, pn_gettid(), &e, &x)) {
		EXPECT_PARAM_INT(e, 0, fd);
		EXPECT_PARAM_INT(e, 1, 16);
		EXPECT_PARAM_INT(x, 0, 16);
		EXPECT(pn_param_bytes(x, 1, DATA, 16));
	}
}

/* The child PID's checks passed (its exit status); WHAT says which. */
static void child__wait(pid_t pid, const char *what)
{
	int status = -1;

	EXPECT(pid > 0 && waitpid(pid, &status, 0) == pid);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	fprintf(stderr, "%s (child %s)\n", what,
		WIFEXITED(status) && !WEXITSTATUS(status) ? "passed" : "failed");
}

/* perf_event_open refused (a seccomp profile, as a container runtime's may
 * set): the raw tracepoint, and the events still come. Only with ring
 * buffers: perf rings are perf events too. In a child, whose filter goes
 * with it. */
static void test_refused(const char *path)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };
	pid_t pid = fork();

	if (pid == 0) {
		struct driver_config cfg = pn_capture_self;
		struct driver_load_info li;
		struct harness *h;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
			perror("seccomp");
			_exit(1);
		}
		EXPECT(syscall(__NR_perf_event_open, NULL, -1, 0, -1, 0) == -1 && errno == EPERM);
		cfg.syscalls = harness__only(calls);
		h = harness__open(64, &cfg);
		EXPECT(driver__load_info(harness__driver(h), &li, false) == 0);
		EXPECT(li.syscall_tps == 0);
		check_read(h, path);
		harness__close(h);
		_exit(harness__report("syscall_tps (perf_event_open refused)"));
	}
	child__wait(pid, "perf_event_open refused: the raw tracepoint, events came");
}

/* Whether a tracefs is mounted in this process's mount namespace. */
static bool tracefs_mounted(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[1024];
	bool found = false;

	if (!f)
		return true;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " - tracefs ") != NULL;
	fclose(f);
	return found;
}

/* No tracefs mounted: the driver mounts its own for a moment. In a child
 * with a mount namespace of its own (private, so that nothing it unmounts
 * or mounts reaches the host), run before any load in this process, so the
 * child is the first to look for the ids. */
static void test_unmounted(const char *path)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct driver_config cfg = pn_capture_self;
		struct driver_load_info li;
		struct harness *h;
		glob_t g;

		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
			perror("mount namespace");
			_exit(1);
		}
		/* debugfs' tracing is an automount of tracefs: debugfs goes too */
		umount2("/sys/kernel/debug/tracing", MNT_DETACH);
		umount2("/sys/kernel/debug", MNT_DETACH);
		while (umount2("/sys/kernel/tracing", MNT_DETACH) == 0)
			;
		EXPECT(!tracefs_mounted());
		EXPECT(access("/sys/kernel/tracing/events", F_OK) != 0);
		cfg.syscalls = harness__only(calls);
		h = harness__open(64, &cfg);
		EXPECT(driver__load_info(harness__driver(h), &li, false) == 0);
		EXPECT(li.syscall_tps == 8u);
		fprintf(stderr, "no tracefs mounted: the dispatcher on %u syscalls' own exit "
			"tracepoints\n", li.syscall_tps);
		EXPECT(!tracefs_mounted());
		EXPECT(glob("/run/agent-tracefs.*", 0, NULL, &g) == GLOB_NOMATCH);
		EXPECT(glob("/tmp/agent-tracefs.*", 0, NULL, &g) == GLOB_NOMATCH);
		check_read(h, path);
		harness__close(h);
		_exit(harness__report("syscall_tps (no tracefs mounted)"));
	}
	child__wait(pid, "no tracefs mounted: its own for a moment, events came");
}

/* A set with a syscall this kernel has no exit tracepoint for: the raw one. */
static void test_uncovered(void)
{
	struct driver_config cfg = pn_capture_self;
	struct driver_load_info li;
	struct harness *h;
	int nr = untraced_syscall();

	if (nr < 0) {
		fprintf(stderr, "every syscall of the table has its tracepoint here\n");
		return;
	}
	cfg.syscalls = harness__only((int[]){ SYS_read, nr, -1 });
	h = harness__open(64, &cfg);
	EXPECT(driver__load_info(harness__driver(h), &li, false) == 0);
	EXPECT(li.syscall_tps == 0);
	fprintf(stderr, "syscall %d has no exit tracepoint: the raw one\n", nr);
	harness__close(h);
}

int main(void)
{
	int stats = bpf_enable_stats(BPF_STATS_RUN_TIME);
	bool tps = harness__exit_only() && !harness__raw_exit();
	char path[] = "/tmp/live-tps.XXXXXX";
	int fd;

	if (stats < 0 && geteuid() == 0) {
		fprintf(stderr, "bpf_enable_stats: %s\n", strerror(errno));
		return 1;
	}
	fd = mkstemp(path);
	if (fd < 0 || write(fd, DATA, 16) != 16) {
		perror(path);
		return 1;
	}
	close(fd);
	if (tps)
		test_unmounted(path);
	test_own_tracepoints(tps, path);
	if (tps)
		test_uncovered();
	if (tps && harness__ringbuf())
		test_refused(path);
	unlink(path);
	if (stats >= 0)
		close(stats);
	return harness__report("syscall_tps");
}
