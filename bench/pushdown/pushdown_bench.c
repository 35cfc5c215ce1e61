/* Kernel pushdown: what a getppid call costs while the real agent runs with
 * --filter 'evt.type=openat', against the same loop with an empty BPF program on
 * both raw syscall tracepoints. Prints ns per call and the ratio of added costs
 * (target: at most 1.2). Needs root. Usage: pushdown_bench AGENT [CALLS] */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "empty.skel.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The best of several rounds: noise only ever adds time. */
static double ns_per_call(long calls)
{
	double best = 1e30;

	for (int r = 0; r < 5; r++) {
		double t0 = now();

		for (long i = 0; i < calls; i++)
			syscall(SYS_getppid);
		double ns = (now() - t0) * 1e9 / calls;
		if (ns < best)
			best = ns;
	}
	return best;
}

static pid_t start_agent(const char *agent, int *errfd)
{
	int p[2];
	pid_t pid;
	char buf[4096];
	size_t got = 0;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 2);
		close(p[0]);
		execl(agent, agent, "-q", "-v", "--filter", "evt.type=openat", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	/* Wait until the agent says it is capturing. */
	while (got < sizeof(buf) - 1) {
		ssize_t n = read(p[0], buf + got, sizeof(buf) - 1 - got);

		if (n <= 0)
			break;
		got += n;
		buf[got] = 0;
		if (strstr(buf, "capturing"))
			break;
	}
	*errfd = p[0];
	return strstr(buf, "capturing") ? pid : -1;
}

int main(int argc, char **argv)
{
	long calls = argc > 2 ? atol(argv[2]) : 2000000;
	double base, empty, agent;
	struct empty *skel;
	int errfd = -1;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: %s AGENT [CALLS]\n", argv[0]);
		return 2;
	}
	base = ns_per_call(calls);

	skel = empty__open_and_load();
	if (!skel || empty__attach(skel)) {
		fprintf(stderr, "pushdown_bench: cannot load the empty program: %s\n", strerror(errno));
		return 1;
	}
	empty = ns_per_call(calls);
	empty__destroy(skel);

	pid = start_agent(argv[1], &errfd);
	if (pid < 0) {
		fprintf(stderr, "pushdown_bench: the agent did not start\n");
		return 1;
	}
	agent = ns_per_call(calls);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);

	printf("getppid, %ld calls, best of 5 rounds:\n", calls);
	printf("  no BPF                              %7.1f ns/call\n", base);
	printf("  empty program on sys_enter/sys_exit %7.1f ns/call (+%.1f)\n", empty, empty - base);
	printf("  agent --filter 'evt.type=openat'    %7.1f ns/call (+%.1f)\n", agent, agent - base);
	printf("  added-cost ratio agent/empty: %.2f (target <= 1.2)\n",
	       (agent - base) / (empty - base));
	return 0;
}
