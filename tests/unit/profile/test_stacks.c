/* On-CPU stacks counted and named (stacks.h): stacks of this test's own
 * functions, as a CPU_SAMPLE event carries them, named by the real
 * symbolizer; counts per distinct stack (the same addresses, or a frame moved
 * from the user stack to the kernel's, differ), samples with no stack, the
 * bound, the collapsed files read back, and the event params' decoding (an
 * older agent's ids among them). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stacks.h"
#include "symbolizer.h"
#include "t_check.h"

static volatile int spin;
__attribute__((noinline)) void stacks_leaf(void) { for (int i = 0; i < 3; i++) spin += i; }
__attribute__((noinline)) void stacks_outer(void) { stacks_leaf(); spin++; }

int main(void)
{
	struct symbolizer_opts so = { .proc = "/proc" };
	struct symbolizer *sym = symbolizer__new(&so);
	struct prof_stacks *s = sym ? prof_stacks__new(sym) : NULL;
	/* stacks_leaf called from stacks_outer (innermost first); an address no
	 * mapping holds */
	uint64_t st1[2] = { (uint64_t)(uintptr_t)stacks_leaf, (uint64_t)(uintptr_t)stacks_outer + 1 };
	uint64_t st2[1] = { 0x10 }, ips[4];
	int64_t id = 17;
	uint8_t raw[24];
	struct prof_stacks_counters c;
	char dir[] = "/tmp/test_stacks.XXXXXX", path[256], line[512];
	int pid = (int)getpid(), k, k2, k3;
	FILE *f;

	CHECK(s != NULL);
	if (!s)
		return t_report();
	k = prof_stacks__add(s, pid, "srv", "", st1, 2, NULL, 0);
	CHECK(k >= 0);
	CHECK_STR(prof_stacks__folded(s, k), "srv;stacks_outer;stacks_leaf");
	/* the same stack again: counted on the same key */
	CHECK_INT(prof_stacks__add(s, pid, "srv", "", st1, 2, NULL, 0), k);
	/* an address nothing maps: its address, in brackets */
	k2 = prof_stacks__add(s, pid, "srv", "", st2, 1, NULL, 0);
	CHECK(k2 >= 0 && k2 != k);
	CHECK_STR(prof_stacks__folded(s, k2), "srv;[0x10]");
	/* the same address as a kernel frame: another stack */
	k3 = prof_stacks__add(s, pid, "srv", "", NULL, 0, st2, 1);
	CHECK(k3 >= 0 && k3 != k2);
	CHECK_STR(prof_stacks__folded(s, k3), "srv;[0x10]_[k]");
	/* no stack walked: lost */
	CHECK_INT(prof_stacks__add(s, pid, "srv", "", NULL, 0, NULL, 0), -ENOENT);
	CHECK_INT(prof_stacks__add(s, pid, "srv", "", st1, -1, st2, -1), -ENOENT);
	/* the params: addresses, an older agent's id, a bad length, the cap */
	memcpy(raw, st1, 16);
	CHECK_INT(prof_stacks__decode(raw, 16, ips, 4), 2);
	CHECK(ips[0] == st1[0] && ips[1] == st1[1]);
	CHECK_INT(prof_stacks__decode(raw, 16, ips, 1), 1);
	memcpy(raw, &id, 8);
	CHECK_INT(prof_stacks__decode(raw, 8, ips, 4), 0);
	id = -17;
	memcpy(raw, &id, 8);
	CHECK_INT(prof_stacks__decode(raw, 8, ips, 4), 0);
	CHECK_INT(prof_stacks__decode(st2, 8, ips, 4), 0);	/* 0x10: below any code */
	CHECK_INT(prof_stacks__decode(st1, 8, ips, 4), 1);
	CHECK_INT(prof_stacks__decode(raw, 12, ips, 4), 0);
	CHECK_INT(prof_stacks__decode(raw, 0, ips, 4), 0);
	/* another process of that name in a container (a child of ours, so its
	 * mappings are ours): its own file */
	pid_t child = fork();

	if (child == 0) {
		pause();
		_exit(0);
	}
	CHECK(prof_stacks__add(s, child, "srv", "abc/def", st1, 2, NULL, 0) >= 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	prof_stacks__counters(s, &c);
	CHECK_INT(c.n_samples, 5);
	CHECK_INT(c.n_keys, 4);
	CHECK_INT(c.n_lost, 2);
	CHECK(mkdtemp(dir) != NULL);
	CHECK_INT(prof_stacks__write(s, dir), 0);
	snprintf(path, sizeof(path), "%s/stacks-host-srv.folded", dir);
	f = fopen(path, "r");
	CHECK(f != NULL);
	if (f) {
		CHECK(fgets(line, sizeof(line), f) != NULL);
		CHECK_STR(line, "srv;[0x10] 1\n");
		CHECK(fgets(line, sizeof(line), f) != NULL);
		CHECK_STR(line, "srv;[0x10]_[k] 1\n");
		CHECK(fgets(line, sizeof(line), f) != NULL);
		CHECK_STR(line, "srv;stacks_outer;stacks_leaf 2\n");
		CHECK(fgets(line, sizeof(line), f) == NULL);
		fclose(f);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/stacks-abc_def-srv.folded", dir);	/* '/' made safe */
	f = fopen(path, "r");
	CHECK(f != NULL);
	if (f) {
		CHECK(fgets(line, sizeof(line), f) != NULL);
		CHECK_STR(line, "srv;stacks_outer;stacks_leaf 1\n");
		fclose(f);
		unlink(path);
	}
	rmdir(dir);
	/* the bound: new stacks past it are counted, not kept */
	for (int i = 0; i < PROF_STACKS_KEYS; i++)
		prof_stacks__add(s, 100000 + i, "x", "", st2, 1, NULL, 0);
	prof_stacks__counters(s, &c);
	CHECK_INT(c.n_keys, PROF_STACKS_KEYS);
	CHECK_INT(c.n_full, 4);
	prof_stacks__free(s);
	symbolizer__free(sym);
	return t_report();
}
