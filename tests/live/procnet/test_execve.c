/* execve and execveat: enter params, and every param of the exit event for a
 * successful exec (the new image), a failed one (the unchanged task with the
 * argv/envp it tried), an exec that drops root (exe not writable), and execveat
 * with a dirfd, with AT_EMPTY_PATH and with a bad dirfd. */
#include "pn_test.h"

static char dir[PATH_MAX], bin[PATH_MAX + 16];
static int bin_fd;	/* O_PATH fd of bin, inherited by the children */
static char *const argv_ok[] = { "pn_true", "alpha", "beta gamma", NULL };
static char *const envp_ok[] = { "PN_A=1", "PN_B=two", NULL };
static const char args_ok[] = "alpha\0beta gamma";	/* with its final NUL: 17 bytes */
static const char env_ok[] = "PN_A=1\0PN_B=two";	/* 16 bytes */

/* The children's calls checked; execveat's exit event is also checked absent
 * after a successful execveat. */
static const int execve_calls[] = { SYS_execve, SYS_execveat, -1 };

enum { MODE_EXECVE, MODE_FAIL, MODE_NOBODY, MODE_AT_DIRFD, MODE_AT_EMPTY, MODE_AT_EBADF };

/* The child: chdir to the temp dir, then exec as MODE says. */
static pid_t spawn(int mode)
{
	pid_t child = fork();

	if (child)
		return child;
	if (chdir(dir))
		_exit(100);
	switch (mode) {
	case MODE_EXECVE:
		syscall(SYS_execve, bin, argv_ok, envp_ok);
		break;
	case MODE_FAIL: {
		char *const argv[] = { "pn_missing", "x", NULL };
		char *const envp[] = { "PN_C=3", NULL };

		syscall(SYS_execve, "/nonexistent/pn_missing", argv, envp);
		_exit(7);
	}
	case MODE_NOBODY:
		if (setgid(65534) || setuid(65534))
			_exit(101);
		syscall(SYS_execve, bin, argv_ok, envp_ok);
		break;
	case MODE_AT_DIRFD: {
		int dfd = open(dir, O_PATH | O_DIRECTORY);

		syscall(SYS_execveat, dfd, "pn_true", argv_ok, envp_ok, 0);
		break;
	}
	case MODE_AT_EMPTY:
		syscall(SYS_execveat, bin_fd, "", argv_ok, envp_ok, AT_EMPTY_PATH);
		break;
	case MODE_AT_EBADF: {
		char *const argv[] = { "pn_badfd", NULL };
		char *const envp[] = { NULL };

		syscall(SYS_execveat, -1, "pn_true", argv, envp, AT_SYMLINK_NOFOLLOW);
		_exit(8);
	}
	}
	_exit(103);
}

static int run(struct harness *h, int mode)
{
	int status = -1;
	pid_t child;

	harness__drain(h, -1);
	child = spawn(mode);
	waitpid(child, &status, 0);
	harness__drain(h, child);
	if (getenv("PN_DEBUG"))
		for (int i = 0; i < harness__count(h); i++)
			fprintf(stderr, "mode %d: evt %d type %u len %u\n", mode, i,
				harness__get(h, i)->hdr.type, harness__get(h, i)->hdr.len);
	return child;
}

/* The params every exec exit event has, for a task CHILD whose cwd is the temp
 * dir, from tid on (3..15), and tty..loginuid (16..18). */
static void expect_task(struct hevt *e, pid_t child, const char *comm)
{
	if (getenv("PN_DEBUG"))
		fprintf(stderr, "pgft %lld/%lld vm %lld rss %lld swap %lld\n",
			(long long)hevt__int(e, 8), (long long)hevt__int(e, 9),
			(long long)hevt__int(e, 10), (long long)hevt__int(e, 11),
			(long long)hevt__int(e, 12));
	EXPECT_PARAM_INT(e, 3, child);
	EXPECT_PARAM_INT(e, 4, child);
	EXPECT_PARAM_INT(e, 5, getpid());
	EXPECT_PARAM_STR(e, 6, dir);
	EXPECT_PARAM_INT(e, 7, pn_fdlimit());
	EXPECT(hevt__int(e, 8) >= 0);				/* pgft_maj */
	EXPECT(hevt__int(e, 9) > 0);				/* pgft_min */
	EXPECT(hevt__int(e, 10) > 0);				/* vm_size KiB */
	/* vm_rss: a fresh image's pages may all sit in per-CPU deltas the driver
	 * cannot read (see pn_compat.bpf.h), so only an upper bound holds. */
	EXPECT(hevt__int(e, 11) >= 0 && hevt__int(e, 11) <= hevt__int(e, 10));
	EXPECT(hevt__int(e, 12) >= 0 && hevt__int(e, 12) <= hevt__int(e, 10));
	if (comm)
		EXPECT_PARAM_STR(e, 13, comm);
	EXPECT(pn_cgroups_match(e, 14));
	EXPECT_PARAM_INT(e, 16, pn_tty_nr());
	EXPECT_PARAM_INT(e, 17, getpgid(0));
	EXPECT_PARAM_INT(e, 18, pn_loginuid());
}

static void test_execve_ok(struct harness *h)
{
	pid_t child = run(h, MODE_EXECVE);
	struct hevt *e;
	int at = 0;

	e = harness__find(h, PPME_SYSCALL_EXECVE_19_E, &at);
	EXPECT(e != NULL);
	if (e) {
		hevt__expect_header(e, PPME_SYSCALL_EXECVE_19_E, child);
		EXPECT_PARAM_STR(e, 0, bin);
	}
	e = harness__find(h, PPME_SYSCALL_EXECVE_19_X, &at);
	EXPECT(e != NULL);
	if (!e)
		return;
	hevt__expect_header(e, PPME_SYSCALL_EXECVE_19_X, child);
	EXPECT_PARAM_INT(e, 0, 0);
	EXPECT_PARAM_STR(e, 1, "pn_true");
	EXPECT_PARAM_BYTES(e, 2, args_ok, sizeof(args_ok));
	expect_task(e, child, "pn_true");
	EXPECT_PARAM_BYTES(e, 15, env_ok, sizeof(env_ok));
	/* Root runs a root-owned 0755 file: writable by it. */
	EXPECT_PARAM_INT(e, 19, PPM_EXECVE_FLAGS_EXE_WRITABLE);
}

static void test_execve_enoent(struct harness *h)
{
	pid_t child = run(h, MODE_FAIL);
	char comm[64], want_comm[16];
	struct hevt *e;
	int at = 0;

	pn_read_file("/proc/self/comm", comm, sizeof(comm));
	comm[strcspn(comm, "\n")] = 0;
	memcpy(want_comm, comm, 15);
	want_comm[15] = 0;
	e = harness__find(h, PPME_SYSCALL_EXECVE_19_E, &at);
	EXPECT(e != NULL);
	if (e) {
		hevt__expect_header(e, PPME_SYSCALL_EXECVE_19_E, child);
		EXPECT_PARAM_STR(e, 0, "/nonexistent/pn_missing");
	}
	e = harness__find(h, PPME_SYSCALL_EXECVE_19_X, &at);
	EXPECT(e != NULL);
	if (!e)
		return;
	hevt__expect_header(e, PPME_SYSCALL_EXECVE_19_X, child);
	EXPECT_PARAM_INT(e, 0, -ENOENT);
	EXPECT_PARAM_STR(e, 1, "pn_missing");
	EXPECT_PARAM_BYTES(e, 2, "x", 2);
	/* The task is still the forked test program. */
	expect_task(e, child, want_comm);
	EXPECT_PARAM_BYTES(e, 15, "PN_C=3", 7);
	/* The test binary, run by root: writable by it. */
	EXPECT_PARAM_INT(e, 19, PPM_EXECVE_FLAGS_EXE_WRITABLE);
}

static void test_execve_nobody(struct harness *h)
{
	pid_t child = run(h, MODE_NOBODY);
	struct hevt *e;
	int at = 0;

	e = harness__find(h, PPME_SYSCALL_EXECVE_19_X, &at);
	EXPECT(e != NULL);
	if (!e)
		return;
	hevt__expect_header(e, PPME_SYSCALL_EXECVE_19_X, child);
	EXPECT_PARAM_INT(e, 0, 0);
	EXPECT_PARAM_STR(e, 1, "pn_true");
	EXPECT_PARAM_STR(e, 13, "pn_true");
	/* nobody may not write the root-owned 0755 binary. */
	EXPECT_PARAM_INT(e, 19, 0);
}

static void test_execveat(struct harness *h, int mode)
{
	pid_t child = run(h, mode);
	struct hevt *e;
	int at = 0;

	e = harness__find(h, PPME_SYSCALL_EXECVEAT_E, &at);
	EXPECT(e != NULL);
	if (e) {
		hevt__expect_header(e, PPME_SYSCALL_EXECVEAT_E, child);
		switch (mode) {
		case MODE_AT_DIRFD:
			EXPECT(hevt__int(e, 0) >= 3);
			EXPECT_PARAM_STR(e, 1, "pn_true");
			EXPECT_PARAM_INT(e, 2, 0);
			break;
		case MODE_AT_EMPTY:
			EXPECT_PARAM_INT(e, 0, bin_fd);
			EXPECT_PARAM_STR(e, 1, "");
			EXPECT_PARAM_INT(e, 2, PPM_EXECVEAT_FLAGS_AT_EMPTY_PATH);
			break;
		case MODE_AT_EBADF:
			EXPECT_PARAM_INT(e, 0, -1);
			EXPECT_PARAM_STR(e, 1, "pn_true");
			EXPECT_PARAM_INT(e, 2, PPM_EXECVEAT_FLAGS_AT_SYMLINK_NOFOLLOW);
			break;
		}
	}
	if (mode == MODE_AT_EBADF) {
		e = harness__find(h, PPME_SYSCALL_EXECVEAT_X, &at);
		EXPECT(e != NULL);
		if (!e)
			return;
		hevt__expect_header(e, PPME_SYSCALL_EXECVEAT_X, child);
		EXPECT_PARAM_INT(e, 0, -EBADF);
		EXPECT_PARAM_STR(e, 1, "pn_badfd");
		EXPECT_PARAM_EMPTY(e, 2);
		expect_task(e, child, NULL);
		EXPECT_PARAM_EMPTY(e, 15);
		return;
	}
	/* A successful execveat leaves the kernel reporting execve's number at
	 * sys_exit (the new image's registers), so its exit event is execve's, as in
	 * sysdig. */
	EXPECT(harness__find(h, PPME_SYSCALL_EXECVEAT_X, &(int){ at }) == NULL);
	e = harness__find(h, PPME_SYSCALL_EXECVE_19_X, &at);
	EXPECT(e != NULL);
	if (!e)
		return;
	hevt__expect_header(e, PPME_SYSCALL_EXECVE_19_X, child);
	EXPECT_PARAM_INT(e, 0, 0);
	EXPECT_PARAM_STR(e, 1, "pn_true");
	EXPECT_PARAM_BYTES(e, 2, args_ok, sizeof(args_ok));
	/* AT_EMPTY_PATH: comm is the fd's number or, on newer kernels, the file's name. */
	expect_task(e, child, mode == MODE_AT_DIRFD ? "pn_true" : NULL);
	if (mode == MODE_AT_EMPTY) {
		char fdname[16];

		snprintf(fdname, sizeof(fdname), "%d", bin_fd);
		EXPECT(hevt__str_eq(e, 13, "pn_true") || hevt__str_eq(e, 13, fdname));
	}
	EXPECT_PARAM_BYTES(e, 15, env_ok, sizeof(env_ok));
	EXPECT_PARAM_INT(e, 19, PPM_EXECVE_FLAGS_EXE_WRITABLE);
}

int main(void)
{
	struct harness *h;

	pn_tmpdir(dir, sizeof(dir));
	snprintf(bin, sizeof(bin), "%s/pn_true", dir);
	pn_copy("/bin/true", bin, 0755);
	bin_fd = open(bin, O_PATH);
	h = pn_open(256, execve_calls);
	test_execve_ok(h);
	test_execve_enoent(h);
	test_execve_nobody(h);
	test_execveat(h, MODE_AT_DIRFD);
	test_execveat(h, MODE_AT_EMPTY);
	test_execveat(h, MODE_AT_EBADF);
	harness__close(h);
	close(bin_fd);
	unlink(bin);
	rmdir(dir);
	return harness__report("procnet_execve");
}
