/* An output's throughput end to end: JSON lines of the agent's usual size
 * pushed as fast as one thread can into a tcp:// output whose reader (another
 * thread) drains a loopback socket. Prints lines/s pushed, lines/s the reader
 * got, the queue's drops, and the producer's ns per push (what the capture
 * thread pays per event and output). Usage: output_bench [LINES] [QUEUE_MIB] */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "output.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct reader {
	int listen_fd;
	uint64_t bytes, lines;
};

/* Accepts one connection and counts what comes until it closes. */
static void *reader__run(void *arg)
{
	struct reader *r = arg;
	static char buf[1 << 16];
	int fd = accept(r->listen_fd, NULL, NULL);
	ssize_t n;

	if (fd < 0)
		return NULL;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		r->bytes += (uint64_t)n;
		for (ssize_t i = 0; i < n; i++)
			r->lines += buf[i] == '\n';
	}
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 5000000;
	size_t queue = (argc > 2 ? (size_t)atol(argv[2]) : 8) << 20;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t salen = sizeof(sa);
	struct reader r = { 0 };
	struct output_stats st;
	char url[64], err[256], line[512];
	struct output *o;
	pthread_t th;
	double t0, t_push, t_all;
	int len;

	r.listen_fd = socket(AF_INET, SOCK_STREAM, 0);
	if (r.listen_fd < 0 || bind(r.listen_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(r.listen_fd, 1) || getsockname(r.listen_fd, (struct sockaddr *)&sa, &salen)) {
		perror("output_bench: listen");
		return 1;
	}
	pthread_create(&th, NULL, reader__run, &r);
	snprintf(url, sizeof(url), "tcp://127.0.0.1:%u", ntohs(sa.sin_port));
	o = output__open(url, &(struct output_opts){ .json = true, .queue_bytes = queue },
			 err, sizeof(err));
	if (!o) {
		fprintf(stderr, "output_bench: %s\n", err);
		return 1;
	}
	/* the default JSON line of an openat exit: about 300 bytes */
	len = snprintf(line, sizeof(line), "{\"evt.cpu\":1,\"evt.dir\":\"<\",\"evt.info\":\"fd=3(<f>"
		       "/usr/lib/x86_64-linux-gnu/libc.so.6) dirfd=-100(AT_FDCWD) name=/usr/lib/"
		       "x86_64-linux-gnu/libc.so.6 flags=4097(O_RDONLY|O_CLOEXEC) mode=0 dev=FE00 \","
		       "\"evt.num\":%d,\"evt.outputtime\":1795347397447317357,\"evt.type\":\"openat\","
		       "\"proc.name\":\"nginx\",\"thread.tid\":16977}\n", 123456);
	usleep(200000);	/* connected */
	t0 = now();
	for (long i = 0; i < n; i++)
		output__push(o, line, (size_t)len, 0);
	t_push = now() - t0;
	output__close(o, (uint64_t)(now() * 1000) + 60000, &st);
	t_all = now() - t0;
	pthread_join(th, NULL);
	close(r.listen_fd);
	printf("tcp:// output, %d-byte lines, %zu MiB queue, %ld lines pushed by one thread:\n",
	       len, queue >> 20, n);
	printf("  push: %.1f ns per line on the capture thread (%.2f M lines/s offered)\n",
	       t_push * 1e9 / n, n / t_push / 1e6);
	printf("  delivered: %llu lines to the reader in %.2f s = %.2f M lines/s (%.0f MB/s)\n",
	       (unsigned long long)r.lines, t_all, r.lines / t_all / 1e6, r.bytes / t_all / 1e6);
	printf("  emitted %llu, dropped %llu (queue full %llu, output error %llu, exit %llu), "
	       "markers %llu\n", (unsigned long long)st.emitted,
	       (unsigned long long)(st.drop_queue_full + st.drop_error + st.drop_exit),
	       (unsigned long long)st.drop_queue_full, (unsigned long long)st.drop_error,
	       (unsigned long long)st.drop_exit, (unsigned long long)st.markers);
	return 0;
}
