/* uprobe_cost.sh: the do-nothing library's SSL_write, N times a run, after
 * WAIT seconds (the agent's next scan of processes' maps); prints the best
 * of 5 runs in ns a call. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int SSL_write(void *s, const void *buf, int n);

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	double wait = argc > 2 ? atof(argv[2]) : 0, best = 1e18;
	char buf[16] = { 0 };

	if (n <= 0)
		return 2;
	usleep((useconds_t)(wait * 1e6));
	for (int r = 0; r < 5; r++) {
		double t0 = now_s(), ns;

		for (long i = 0; i < n; i++)
			SSL_write(NULL, buf, sizeof(buf));
		ns = (now_s() - t0) / n * 1e9;
		if (ns < best)
			best = ns;
	}
	printf("%.1f\n", best);
	return 0;
}
