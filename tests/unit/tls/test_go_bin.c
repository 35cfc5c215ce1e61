/* go_bin: a Go program's crypto/tls read from its ELF file, on programs
 * built with Debian's golang (argv: the default executable, a PIE, a
 * stripped one; meson.build). The functions' RETs are checked against
 * binutils' objdump, an independent decoder; the symbols against nm. Bad
 * files (a cut copy, random bytes, a program that is not Go) are refused
 * with an error, never a crash. Then tls_libs hands out a Go program from a
 * /proc tree made here: once, by device and inode; a stripped one counted,
 * not handed out; a program that is not Go read once. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "go_bin.h"
#include "t_check.h"
#include "tls_libs.h"

static char root[64];

static int read_path(const char *path, struct go_bin *g)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = go_bin__read(fd, g);
	close(fd);
	return err;
}

/* A command's first line of output as a number, -1 for none. */
static long long cmd_num(const char *cmd)
{
	long long v = -1;
	FILE *p = popen(cmd, "r");

	if (!p)
		return -1;
	if (fscanf(p, "%lli", &v) != 1)
		v = -1;
	pclose(p);
	return v;
}

/* FN (symbol NAME of PROG) as objdump sees it: the RETs' count and that
 * each offset found is one of objdump's; its address as nm's. */
static void check_fn(const char *prog, const char *name, const struct go_bin_fn *fn)
{
	char cmd[1024];
	long long n;

	snprintf(cmd, sizeof(cmd), "nm '%s' | awk '$3 == \"%s\" {print \"0x\" $1}'", prog, name);
	CHECK_INT(cmd_num(cmd), (long long)fn->vaddr);
	/* objdump over the function's bytes: its size from nm -S */
	snprintf(cmd, sizeof(cmd),
		 "a=0x%" PRIx64 "; s=$(nm -S '%s' | awk '$4 == \"%s\" {print \"0x\" $2}');"
		 " objdump -d --no-show-raw-insn '%s' --start-address=$a"
		 " --stop-address=$(printf 0x%%x $((a + s))) | grep -cE '^ *[0-9a-f]+:\\s+ret'",
		 fn->vaddr, prog, name, prog);
	n = cmd_num(cmd);
	CHECK(n > 0);
	CHECK_INT(fn->nrets, n);
	for (uint32_t i = 0; i < fn->nrets; i++) {
		snprintf(cmd, sizeof(cmd),
			 "objdump -d --no-show-raw-insn '%s' --start-address=0x%" PRIx64
			 " --stop-address=0x%" PRIx64 " | grep -cE '^ *%" PRIx64 ":\\s+ret'",
			 prog, fn->vaddr + fn->rets[i], fn->vaddr + fn->rets[i] + 1,
			 fn->vaddr + fn->rets[i]);
		CHECK_INT(cmd_num(cmd), 1);
	}
}

static void check_prog(const char *prog, bool pie)
{
	struct go_bin g;
	char cmd[512];

	CHECK_INT(read_path(prog, &g), 0);
	CHECK(!strncmp(g.version, "go1.", 4));
	CHECK_INT(g.major, 1);
	CHECK(g.minor >= GO_BIN_MIN_MINOR);
	snprintf(cmd, sizeof(cmd), "go version '%s' | sed -n 's/.*: go1\\.\\([0-9]*\\).*/\\1/p'",
		 prog);
	CHECK_INT(cmd_num(cmd), g.minor);
	check_fn(prog, "crypto/tls.(*Conn).Read", &g.read);
	check_fn(prog, "crypto/tls.(*Conn).Write", &g.write);
	/* file offsets in the same text segment (Go links even a PIE at
	 * 0x400000: the load bias is the probe's business) */
	CHECK(g.read.off && g.read.off < g.read.vaddr);
	CHECK_INT(g.read.vaddr - g.read.off, g.write.vaddr - g.write.off);
	snprintf(cmd, sizeof(cmd), "readelf -h '%s' | grep -c 'Type: *%s'", prog, pie ? "DYN" : "EXEC");
	CHECK_INT(cmd_num(cmd), 1);
	/* the program dials TCP: its itab is there */
	CHECK(g.itab_tcp != 0);
	snprintf(cmd, sizeof(cmd), "nm '%s' | awk '$3 ~ /^go[.:]itab\\.\\*net\\.TCPConn,net\\.Conn$/"
		 " {print \"0x\" $1}'", prog);
	CHECK_INT(cmd_num(cmd), (long long)g.itab_tcp);
}

static void check_bad(const char *prog)
{
	char path[128], cmd[512];
	struct go_bin g;
	FILE *f;

	CHECK_INT(read_path("/bin/sh", &g), -ENOENT);
	CHECK_INT(read_path("/nonexistent", &g), -ENOENT);
	snprintf(path, sizeof(path), "%s/random", root);
	snprintf(cmd, sizeof(cmd), "head -c 65536 /dev/urandom > '%s'", path);
	CHECK_INT(system(cmd), 0);
	CHECK_INT(read_path(path, &g), -ENOENT);
	f = fopen(path, "w");
	CHECK(f && fclose(f) == 0);	/* empty */
	CHECK_INT(read_path(path, &g), -ENOENT);
	/* cut copies: the ELF header only, a third, all but the tail (the
	 * section headers); each refused, no crash */
	for (int i = 0; i < 3; i++) {
		static const char *const sizes[] = { "64", "$(( $(stat -c %%s '%s') / 3 ))",
						     "$(( $(stat -c %%s '%s') - 4096 ))" };
		char size[128];
		int err;

		snprintf(size, sizeof(size), sizes[i], prog);
		snprintf(cmd, sizeof(cmd), "head -c %s '%s' > '%s'", size, prog, path);
		CHECK_INT(system(cmd), 0);
		err = read_path(path, &g);
		CHECK(err == -ENOENT || err == -EIO);
	}
}

static int on_found(void *ctx, const struct tls_lib_found *f)
{
	int *n = ctx;

	CHECK_INT(f->kind, TLS_LIB_GO);
	CHECK(f->go && f->go->read.nrets && f->go->write.nrets);
	CHECK(strstr(f->path, "/exe") != NULL);
	(*n)++;
	return 0;
}

static void put_exe(const char *pid, const char *target)
{
	char path[160], *abs = realpath(target, NULL);

	snprintf(path, sizeof(path), "%s/%s", root, pid);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%s/exe", root, pid);
	/* meson gives paths from the build directory */
	CHECK_INT(symlink(abs ? abs : target, path), 0);
	free(abs);
}

static void check_scan(const char *prog, const char *stripped)
{
	struct tls_libs_counters c;
	struct tls_libs *t = tls_libs__new(root);
	int n = 0;

	put_exe("400", prog);
	put_exe("401", prog);	/* the same file: handed out once */
	put_exe("402", stripped);
	put_exe("403", "/bin/sh");
	put_exe("404", "/nonexistent");	/* gone */
	CHECK_INT(tls_libs__scan(t, on_found, &n), 1);
	CHECK_INT(tls_libs__scan(t, on_found, &n), 0);
	CHECK_INT(n, 1);
	tls_libs__counters(t, &c);
	CHECK_INT(c.files, 1);
	CHECK_INT(c.go_files, 1);
	CHECK_INT(c.go_unprobed, 1);	/* each once, not at every scan */
	CHECK_INT(c.refused, 0);
	tls_libs__free(t);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: test_go_bin GOPROG GOPROG_PIE GOPROG_STRIPPED\n");
		return 1;
	}
	snprintf(root, sizeof(root), "/tmp/go_bin.XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	check_prog(argv[1], false);
	check_prog(argv[2], true);
	{
		struct go_bin g;

		CHECK_INT(read_path(argv[3], &g), -ENOTSUP);	/* stripped */
	}
	check_bad(argv[1]);
	check_scan(argv[1], argv[3]);
	if (system("rm -rf /tmp/go_bin.??????") == -1)
		perror("rm");
	return t_report();
}
