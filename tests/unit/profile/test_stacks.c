/* On-CPU stacks counted and named (stacks.h): stacks of this test's own
 * functions, fetched through a callback as the driver's table would give
 * them, named by the real symbolizer; counts per distinct stack, lost and
 * unreadable stacks, the bound, and the collapsed files read back. */
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

static int fetches;

/* Stack 1: stacks_leaf called from stacks_outer (innermost first); 2: an
 * address no mapping holds; others: none. */
static int fetch(void *ctx, int64_t id, uint64_t *ips, int max)
{
	(void)ctx;
	fetches++;
	if (max < 2)
		return -EINVAL;
	if (id == 1) {
		ips[0] = (uint64_t)(uintptr_t)stacks_leaf;
		ips[1] = (uint64_t)(uintptr_t)stacks_outer + 1;
		return 2;
	}
	if (id == 2) {
		ips[0] = 0x10;
		return 1;
	}
	return -ENOENT;
}

int main(void)
{
	struct symbolizer_opts so = { .proc = "/proc" };
	struct symbolizer *sym = symbolizer__new(&so);
	struct prof_stacks *s = sym ? prof_stacks__new(sym, fetch, NULL) : NULL;
	struct prof_stacks_counters c;
	char dir[] = "/tmp/test_stacks.XXXXXX", path[256], line[512];
	int pid = (int)getpid(), k, k2;
	FILE *f;

	CHECK(s != NULL);
	if (!s)
		return t_report();
	k = prof_stacks__add(s, pid, "srv", "", 1, -1);
	CHECK(k >= 0);
	CHECK_STR(prof_stacks__folded(s, k), "srv;stacks_outer;stacks_leaf");
	/* the same stack again: counted, not fetched again */
	CHECK_INT(prof_stacks__add(s, pid, "srv", "", 1, -1), k);
	CHECK_INT(fetches, 1);
	/* an address nothing maps: its address, in brackets */
	k2 = prof_stacks__add(s, pid, "srv", "", 2, -1);
	CHECK(k2 >= 0 && k2 != k);
	CHECK_STR(prof_stacks__folded(s, k2), "srv;[0x10]");
	/* no stack kept by the driver, or none readable any more: lost */
	CHECK_INT(prof_stacks__add(s, pid, "srv", "", -17, -17), -ENOENT);
	CHECK_INT(prof_stacks__add(s, pid, "srv", "", 3, -1), -ENOENT);
	/* another process of that name in a container (a child of ours, so its
	 * mappings are ours): its own file */
	pid_t child = fork();

	if (child == 0) {
		pause();
		_exit(0);
	}
	CHECK(prof_stacks__add(s, child, "srv", "abc/def", 1, -1) >= 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	prof_stacks__counters(s, &c);
	CHECK_INT(c.n_samples, 4);
	CHECK_INT(c.n_keys, 3);
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
		prof_stacks__add(s, 100000 + i, "x", "", 2, -1);
	prof_stacks__counters(s, &c);
	CHECK_INT(c.n_keys, PROF_STACKS_KEYS);
	CHECK_INT(c.n_full, 3);
	prof_stacks__free(s);
	symbolizer__free(sym);
	return t_report();
}
