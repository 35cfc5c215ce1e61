/* The symbolizer's parts on crafted text (maps lines, kallsyms) and on real
 * mappings: the test's own function in its PIE executable, libc's through
 * dladdr (glibc's own reader of .dynsym) as the oracle, a library dlopen'd
 * after the maps were read, and the same library in a second process (one
 * file read) and as a copy (shared by build id). ARGV[1]: victim.so. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "elfsyms.h"
#include "ksyms.h"
#include "procmaps.h"
#include "symbolizer.h"
#include "t_check.h"



/* static: only .symtab names it, not .dynsym */
static __attribute__((noinline)) int t_symbols_own_fn(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 7;
}

static void test_maps_lines(void)
{
	struct procmap m;
	const char *l;
	char longl[1200];

	l = "7f1c2a400000-7f1c2a428000 r-xp 00028000 fe:01 1837263                    /usr/lib/x86_64-linux-gnu/libc.so.6";
	CHECK_INT(procmaps__parse_line(l, strlen(l), &m), 0);
	CHECK(m.start == 0x7f1c2a400000ull && m.end == 0x7f1c2a428000ull);
	CHECK(m.pgoff == 0x28000 && m.dev_major == 0xfe && m.dev_minor == 1);
	CHECK(m.inode == 1837263 && m.exec && !m.deleted);
	CHECK_STR(m.path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	l = "7ffd1b3f0000-7ffd1b3f2000 r-xp 00000000 00:00 0                          [vdso]";
	CHECK_INT(procmaps__parse_line(l, strlen(l), &m), 0);
	CHECK_STR(m.path, "[vdso]");
	l = "55c7e0a00000-55c7e0a21000 rw-p 00000000 00:00 0";
	CHECK_INT(procmaps__parse_line(l, strlen(l), &m), 0);
	CHECK(!m.exec && m.path[0] == 0);
	l = "7f00-7f10 r-xp 00001000 103:02 42 /tmp/a b (deleted)";
	CHECK_INT(procmaps__parse_line(l, strlen(l), &m), 0);
	CHECK(m.deleted && m.dev_major == 0x103 && m.dev_minor == 2);
	CHECK_STR(m.path, "/tmp/a b");
	/* not maps lines */
	const char *bad[] = { "", "7f00", "7f00-", "7f00-7f10", "7f10-7f00 r-xp 0 00:00 0",
			      "7f00-7f10 r-x 0 00:00 0", "7f00-7f10 r-xp 0 0000 0",
			      "7f00-7f10 r-xp 0 00:00 x", "7g00-7f10 r-xp 0 00:00 0",
			      "11111111111111111-2 r-xp 0 00:00 0" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_INT(procmaps__parse_line(bad[i], strlen(bad[i]), &m), -EINVAL);
	/* the line's length counts, not a NUL */
	l = "7f00-7f10 r-xp 00000000 00:00 0 /usr/bin/true";
	CHECK_INT(procmaps__parse_line(l, strlen(l) - 5, &m), 0);
	CHECK_STR(m.path, "/usr/bin");
	snprintf(longl, sizeof(longl), "7f00-7f10 r-xp 0 00:00 0 /%0900d", 0);
	CHECK_INT(procmaps__parse_line(longl, strlen(longl), &m), -ENAMETOOLONG);
}

static void test_kallsyms_text(void)
{
	/* out of order, a module, aliases, data, a malformed line, zeros */
	static const char text[] =
		"ffffffff81000200 T second\n"
		"ffffffff81000000 T _stext\n"
		"ffffffff81000000 t startup_64\n"
		"ffffffff82000000 D some_data\n"
		"garbage line\n"
		"ffffffffc0001000 t mod_fn\t[nf_tables]\n"
		"ffffffffc0002000 W weak_fn\n"
		"0000000000000000 T hidden\n"
		"ffffffff81000100 T first";	/* no final newline */
	struct ksyms *k = ksyms__parse(text, sizeof(text) - 1);
	const char *mod, *n;
	uint64_t off;

	CHECK(k != NULL);
	if (!k)
		return;
	CHECK_INT(ksyms__count(k), 6);
	CHECK_INT(ksyms__skipped(k), 1);
	CHECK_NULL(ksyms__lookup(k, 0xffffffff80ffffffull, &off, &mod));
	n = ksyms__lookup(k, 0xffffffff81000010ull, &off, &mod);
	CHECK_STR(n, "_stext");
	CHECK_INT(off, 0x10);
	CHECK_STR(mod, "");
	n = ksyms__lookup(k, 0xffffffff81000100ull, &off, &mod);
	CHECK_STR(n, "first");
	CHECK_INT(off, 0);
	n = ksyms__lookup(k, 0xffffffff81000250ull, &off, &mod);
	CHECK_STR(n, "second");
	n = ksyms__lookup(k, 0xffffffffc0001004ull, &off, &mod);
	CHECK_STR(n, "mod_fn");
	CHECK_STR(mod, "nf_tables");
	CHECK_INT(off, 4);
	ksyms__free(k);
	/* a reader without CAP_SYSLOG: every address 0, no symbols */
	k = ksyms__parse("0000000000000000 T _stext\n0000000000000000 T first\n", 52);
	CHECK(k && ksyms__count(k) == 0);
	ksyms__free(k);
}

/* Not ELF, or cut short: a clear error or a table, never a crash. */
static void test_bad_elf(void)
{
	static const char junk[] = "not an ELF file at all";
	char head[4096];
	struct elfsyms *es;
	ssize_t n;
	int fd;

	CHECK_NULL(elfsyms__from_mem(junk, sizeof(junk)));
	CHECK_INT(errno, ENOEXEC);
	fd = open("/proc/self/exe", O_RDONLY);
	n = pread(fd, head, sizeof(head), 0);
	close(fd);
	CHECK(n == (ssize_t)sizeof(head));
	for (size_t cut = 0; cut <= sizeof(head); cut += 7) {
		es = elfsyms__from_mem(head, cut);
		if (es)
			CHECK(elfsyms__count(es) == 0);	/* the symbols lie past 4 KiB */
		elfsyms__free(es);
	}
}

/* ADDR symbolized in PID as dladdr names it: the same address (a name
 * dlsym finds there, of aliases) and offset, from the same file. */
static void check_as_dladdr(struct symbolizer *s, void *addr)
{
	struct sym out;
	Dl_info di;

	CHECK(dladdr(addr, &di) && di.dli_sname && di.dli_saddr);
	CHECK_INT(symbolizer__user(s, getpid(), (uintptr_t)addr, &out), 0);
	CHECK(out.name != NULL);
	if (!out.name || !di.dli_saddr)
		return;
	if (strcmp(out.name, di.dli_sname))
		CHECK(dlsym(RTLD_DEFAULT, out.name) == di.dli_saddr);
	CHECK_EQ(out.off, (uintptr_t)addr - (uintptr_t)di.dli_saddr);
	CHECK_STR(strrchr(out.file, '/'), strrchr(di.dli_fname, '/'));
}

/* How a child gets its own view of a file before mapping it. */
enum child_view { VIEW_HOST, VIEW_OWN_MOUNT, VIEW_DELETED };

/* A child that maps SO and waits; its pid, or -1. VIEW_OWN_MOUNT: SO is
 * copied into a tmpfs mounted over SO's (empty) folder in a mount namespace
 * of the child's own, as a container's files are; VIEW_DELETED: SO is
 * removed once mapped. */
static pid_t child_view(const char *so, enum child_view view, int (**fn)(int))
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		void *h;

		if (view == VIEW_OWN_MOUNT) {
			char dir[512], cmd[1200];

			snprintf(dir, sizeof(dir), "%s", so);
			*strrchr(dir, '/') = 0;
			if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
			    mount("t", dir, "tmpfs", 0, NULL))
				_exit(1);
			snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", getenv("T_VICTIM"), so);
			if (system(cmd))
				_exit(1);
		}
		h = dlopen(so, RTLD_NOW);
		if (view == VIEW_DELETED)
			unlink(so);

		c = h ? 'y' : 'n';
		if (h)
			*fn = (int (*)(int))dlsym(h, "profile_victim_fn");
		if (write(p[1], &c, 1) != 1 || write(p[1], fn, sizeof(*fn)) != sizeof(*fn))
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1 || c != 'y' || read(p[0], fn, sizeof(*fn)) != sizeof(*fn)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

static pid_t child_with(const char *so, int (**fn)(int))
{
	return child_view(so, VIEW_HOST, fn);
}

/* The symbolizer's clock in test_processes, moved by hand: no check here
 * depends on how fast the test runs (valgrind's runs are slow). */
static uint64_t fake_now = 1000000000ull;

static uint64_t fake_clock(void)
{
	return fake_now;
}

static void test_processes(const char *so)
{
	struct symbolizer_opts sopts = { .reread_ms = 50, .clock_ns = fake_clock };
	struct symbolizer *s = symbolizer__new(&sopts);
	struct symbolizer_counters c;
	int (*fn)(int) = NULL, (*fn2)(int) = NULL;
	char copy[] = "/tmp/t_symbols_XXXXXX", cmd[600];
	struct sym out;
	pid_t a, b;
	void *h;

	CHECK(s != NULL);
	if (!s)
		return;
	/* the test's own function, in its PIE executable's .symtab */
	CHECK_INT(symbolizer__user(s, getpid(), (uintptr_t)&t_symbols_own_fn + 3, &out), 0);
	CHECK_STR(out.name, "t_symbols_own_fn");
	CHECK_INT(out.off, 3);
	CHECK(t_symbols_own_fn(1) == 8);
	/* libc's, from .dynsym: dladdr agrees */
	check_as_dladdr(s, (void *)&getppid);
	check_as_dladdr(s, (char *)&qsort + 1);
	/* not code: within reread_ms of the maps' read, not read again (a stray
	 * address of a stack walked without frame pointers); after it, read
	 * again once, in case it was mapped since */
	CHECK_INT(symbolizer__user(s, getpid(), (uintptr_t)&out, &out), -ENOENT);
	symbolizer__counters(s, &c);
	CHECK_INT(c.maps_reread, 0);
	CHECK_INT(c.reread_held, 1);
	fake_now += 60 * 1000000ull;
	CHECK_INT(symbolizer__user(s, getpid(), (uintptr_t)&out, &out), -ENOENT);
	symbolizer__counters(s, &c);
	CHECK_INT(c.maps_reread, 1);
	CHECK_INT(c.reread_held, 1);
	CHECK_INT(symbolizer__user(s, 0x7fffffff, 16, &out), -ESRCH);
	/* dlopen'd after the maps were read: read again once (reread_ms on) */
	h = dlopen(so, RTLD_NOW);
	fake_now += 60 * 1000000ull;
	CHECK(h != NULL);
	if (h) {
		fn = (int (*)(int))dlsym(h, "profile_victim_fn");
		CHECK_INT(symbolizer__user(s, getpid(), (uintptr_t)fn + 1, &out), 0);
		CHECK_STR(out.name, "profile_victim_fn");
		CHECK_INT(out.off, 1);
		CHECK_STR(strrchr(out.file, '/'), strrchr(so, '/'));
		symbolizer__counters(s, &c);
		CHECK_INT(c.maps_reread, 2);
		CHECK_INT(c.files_read, 3);	/* the executable, libc, victim.so */
	}
	/* the same file in another process: not read again */
	a = child_with(so, &fn2);
	CHECK(a > 0);
	if (a > 0) {
		CHECK_INT(symbolizer__user(s, a, (uintptr_t)fn2, &out), 0);
		CHECK_STR(out.name, "profile_victim_fn");
		symbolizer__counters(s, &c);
		CHECK_INT(c.files_read, 3);
		CHECK_INT(c.procs_read, 4);	/* this one thrice, the child */
		kill(a, SIGKILL);
		waitpid(a, NULL, 0);
	}
	/* a copy (another inode, the same build id): shared, not read */
	CHECK(mkdtemp(copy) != NULL);
	snprintf(cmd, sizeof(cmd), "cp '%s' %s/copy.so", so, copy);
	CHECK(system(cmd) == 0);
	snprintf(cmd, sizeof(cmd), "%s/copy.so", copy);
	b = child_with(cmd, &fn2);
	CHECK(b > 0);
	if (b > 0) {
		CHECK_INT(symbolizer__user(s, b, (uintptr_t)fn2 + 2, &out), 0);
		CHECK_STR(out.name, "profile_victim_fn");
		CHECK_INT(out.off, 2);
		CHECK_STR(out.file, cmd);
		symbolizer__counters(s, &c);
		CHECK_INT(c.files_read, 3);
		CHECK_INT(c.files_shared, 1);
		/* forgotten: read again when asked */
		symbolizer__forget(s, b);
		CHECK_INT(symbolizer__user(s, b, (uintptr_t)fn2, &out), 0);
		symbolizer__counters(s, &c);
		CHECK_INT(c.procs_read, 6);
		kill(b, SIGKILL);
		waitpid(b, NULL, 0);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", copy);
	CHECK(system(cmd) == 0);
	if (h)
		dlclose(h);
	symbolizer__free(s);
}

/* Bounded: one process and one file kept; the second process evicts the
 * first, a second file finds every kept one mapped and is not cached. */
static void test_bounds(const char *so)
{
	struct symbolizer_opts o = { .max_procs = 1, .max_files = 1 };
	struct symbolizer *s = symbolizer__new(&o);
	struct symbolizer_counters c;
	int (*fn)(int) = NULL;
	struct sym out;
	pid_t a;

	CHECK(s != NULL);
	if (!s)
		return;
	CHECK_INT(symbolizer__user(s, getpid(), (uintptr_t)&t_symbols_own_fn, &out), 0);
	CHECK_INT(symbolizer__user(s, getpid(), (uintptr_t)&getppid, &out), -ENOSPC);
	symbolizer__counters(s, &c);
	CHECK_INT(c.files_uncached, 1);
	a = child_with(so, &fn);
	CHECK(a > 0);
	if (a > 0) {
		CHECK_INT(symbolizer__user(s, a, (uintptr_t)fn, &out), 0);
		CHECK_STR(out.name, "profile_victim_fn");
		symbolizer__counters(s, &c);
		CHECK_INT(c.procs_evicted, 1);
		CHECK_INT(c.files_evicted, 1);
		kill(a, SIGKILL);
		waitpid(a, NULL, 0);
	}
	symbolizer__free(s);
}

/* As root: a file only the process's own mount namespace shows (read
 * through /proc/PID/root), a deleted one (through map_files), and kernel
 * addresses, the oracle a plain scan of kallsyms. */
static void test_root(const char *so)
{
	struct symbolizer *s = symbolizer__new(NULL);
	char dir[] = "/tmp/t_symbols_ns_XXXXXX", path[300], line[700], name[256];
	int (*fn)(int) = NULL;
	unsigned long long addr = 0, a;
	struct sym out;
	char type;
	FILE *f;
	pid_t c;

	CHECK(s != NULL && mkdtemp(dir) != NULL);
	if (!s)
		return;
	setenv("T_VICTIM", so, 1);
	snprintf(path, sizeof(path), "%s/in_container.so", dir);
	c = child_view(path, VIEW_OWN_MOUNT, &fn);
	CHECK(c > 0);
	if (c > 0) {
		/* the host's folder is empty: only the child's root has it */
		CHECK(access(path, F_OK) != 0);
		CHECK_INT(symbolizer__user(s, c, (uintptr_t)fn + 2, &out), 0);
		CHECK_STR(out.name, "profile_victim_fn");
		CHECK_INT(out.off, 2);
		CHECK_STR(out.file, path);
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
	}
	snprintf(path, sizeof(path), "%s/deleted.so", dir);
	snprintf(line, sizeof(line), "cp '%s' '%s'", so, path);
	CHECK(system(line) == 0);
	/* symbolizer__new anew: the copy's build id is known to the first */
	symbolizer__free(s);
	s = symbolizer__new(NULL);
	c = child_view(path, VIEW_DELETED, &fn);
	CHECK(c > 0);
	if (c > 0) {
		CHECK(access(path, F_OK) != 0);
		CHECK_INT(symbolizer__user(s, c, (uintptr_t)fn, &out), 0);
		CHECK_STR(out.name, "profile_victim_fn");
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
	}
	/* the kernel's schedule() */
	f = fopen("/proc/kallsyms", "r");
	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 &&
		    (type == 'T' || type == 't') && !strcmp(name, "schedule"))
			addr = a;
	if (f)
		fclose(f);
	CHECK(addr != 0);
	CHECK_INT(symbolizer__kernel(s, addr + 4, &out), 0);
	CHECK_STR(out.name, "schedule");
	CHECK_INT(out.off, 4);
	CHECK_STR(out.file, "");
	symbolizer__free(s);
	snprintf(line, sizeof(line), "rm -rf %s", dir);
	CHECK(system(line) == 0);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s VICTIM.so [root]\n", argv[0]);
		return 2;
	}
	if (argc > 2 && !strcmp(argv[2], "root")) {
		if (geteuid()) {
			printf("skipped: needs root (a mount namespace, map_files, kallsyms)\n");
			return 77;
		}
		test_root(argv[1]);
		return t_report();
	}
	test_maps_lines();
	test_kallsyms_text();
	test_bad_elf();
	test_processes(argv[1]);
	test_bounds(argv[1]);
	return t_report();
}
