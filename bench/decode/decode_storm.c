/* decode_storm: one thread makes the calls sysdig's table routes to events this
 * agent now decodes (lseek, fstat, getuid, poll, mmap + munmap) in a tight loop
 * for SECS seconds and prints the ns each round took. CALL picks one of them
 * (mmap means mmap + munmap); without it, a round makes all six.
 * usage: decode_storm SECS [lseek|fstat|getuid|poll|mmap] */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 5, start = now(), t;
	int fd = open("/proc/self/stat", O_RDONLY);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	const char *only = argc > 2 ? argv[2] : "";
	unsigned long rounds = 0;
	struct stat st;
#define DO(name) (!*only || strcmp(only, name) == 0)

	if (fd < 0)
		return 1;
	do {
		for (int i = 0; i < 1000; i++) {
			void *p;

			if (DO("lseek"))
				syscall(SYS_lseek, fd, 0, SEEK_SET);
			if (DO("fstat"))
				syscall(SYS_fstat, fd, &st);
			if (DO("getuid"))
				syscall(SYS_getuid);
			if (DO("poll"))
				syscall(SYS_poll, &pfd, 1, 0);
			if (DO("mmap")) {
				p = (void *)syscall(SYS_mmap, NULL, 4096, PROT_READ,
						    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
				syscall(SYS_munmap, p, 4096);
			}
		}
		rounds += 1000;
		t = now();
	} while (t - start < secs);
	printf("%.1f ns per round\n", (t - start) * 1e9 / rounds);
	return 0;
}
