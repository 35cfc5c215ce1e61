/* The whole userspace path on one core: frames from a capture engine -> parser and
 * state -> filter -> JSON, as the agent runs it. Frames are built as the driver
 * writes them (openat, read, close, connect-free mix and generic events) and served
 * by the memory engine, so the figure excludes only the kernel. Target: at least
 * 1 million events/s. Usage: pipeline_bench [EVENTS] [ROUNDS] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture.h"
#include "filter.h"
#include "format.h"
#include "frame_builder.h"
#include "inspect.h"
#include "sbuf.h"

#define NTHREADS 16

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Appends one event of the mix (i-th) to BUF; returns its length. */
static uint32_t make_event(uint8_t *buf, uint32_t cap, long i, uint64_t ts)
{
	static const char *paths[] = { "/etc/passwd", "lib/x86_64-linux-gnu/libc.so.6",
				       "/proc/self/status", "data/input.json" };
	struct frame_builder fb;
	int64_t tid = 1000 + i % NTHREADS;
	int64_t fd = 3 + (i / 8) % 5;
	const char *path = paths[(i / 8) % 4];

	switch (i % 8) {
	case 0:
		fb__begin(&fb, buf, cap, PPME_SYSCALL_OPENAT_2_E, tid, ts);
		fb__u64(&fb, (uint64_t)-100);
		fb__str(&fb, path);
		fb__u32(&fb, PPM_FILE_FLAGS_O_RDONLY | PPM_FILE_FLAGS_O_CLOEXEC);
		fb__u32(&fb, 0);
		break;
	case 1:
		fb__begin(&fb, buf, cap, PPME_SYSCALL_OPENAT_2_X, tid, ts);
		fb__u64(&fb, fd);
		fb__u64(&fb, (uint64_t)-100);
		fb__str(&fb, path);
		fb__u32(&fb, PPM_FILE_FLAGS_O_RDONLY | PPM_FILE_FLAGS_O_CLOEXEC);
		fb__u32(&fb, 0);
		fb__u32(&fb, 0xfe00);
		break;
	case 2:
		fb__begin(&fb, buf, cap, PPME_SYSCALL_READ_E, tid, ts);
		fb__u64(&fb, fd);
		fb__u32(&fb, 4096);
		break;
	case 3:
		fb__begin(&fb, buf, cap, PPME_SYSCALL_READ_X, tid, ts);
		fb__u64(&fb, 80);
		fb__param(&fb, "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n", 80);
		break;
	case 4:
		fb__begin(&fb, buf, cap, PPME_SYSCALL_CLOSE_E, tid, ts);
		fb__u64(&fb, fd);
		break;
	case 5:
		fb__begin(&fb, buf, cap, PPME_SYSCALL_CLOSE_X, tid, ts);
		fb__u64(&fb, 0);
		break;
	case 6:
		fb__begin(&fb, buf, cap, PPME_GENERIC_E, tid, ts);
		fb__u16(&fb, schema_syscall_routes[110].ppm_sc);
		fb__u16(&fb, 110);
		break;
	default:
		fb__begin(&fb, buf, cap, PPME_GENERIC_X, tid, ts);
		fb__u16(&fb, schema_syscall_routes[110].ppm_sc);
		break;
	}
	return fb__end(&fb, 0);
}

static void add_threads(struct inspector *in)
{
	for (int t = 0; t < NTHREADS; t++) {
		struct thread_info *ti = inspector__add_thread(in, 1000 + t, 1000);

		if (!ti)
			continue;
		strcpy(ti->comm, t % 2 ? "nginx" : "bench");
		ti->exe = strdup(ti->comm);
		ti->cwd = strdup("/srv/");
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	size_t cap = (size_t)n * 200, len = 0;
	uint8_t *buf = malloc(cap);
	struct filter_error err;
	struct filter *flt = filter__compile("evt.type in (openat, read, close) and proc.name=nginx", &err);
	struct format *fmt = format__compile(FORMAT_DEFAULT, &err);
	double best = 1e30;
	uint64_t matched = 0;

	if (!buf || !flt || !fmt) {
		fprintf(stderr, "pipeline_bench: setup failed: %s\n", err.msg);
		return 1;
	}
	for (long i = 0; i < n; i++)
		len += make_event(buf + len, cap - len, i, 1700000000000000000ull + i * 100);
	for (int r = 0; r < rounds; r++) {
		struct inspector_opts io = { .no_proc_scan = true, .no_proc_lookup = true };
		struct inspector *in = inspector__new(&io);
		struct capture *c = capture__open_memory(buf, len);
		struct capture_event cev;
		struct field_ctx ctx;
		struct sbuf out;
		struct ievt ev;
		uint64_t bytes = 0;
		double t0;

		add_threads(in);
		field_ctx__init(&ctx, inspector__threads(in));
		sbuf__init(&out);
		matched = 0;
		t0 = now();
		while (capture__next(c, &cev, 0) == 0) {
			if (inspector__process(in, &cev, &ev))
				continue;
			if (!filter__match(flt, &ev, &ctx))
				continue;
			matched++;
			sbuf__reset(&out);
			format__json(fmt, &ev, &ctx, &out);
			bytes += out.len;
		}
		double dt = now() - t0;
		if (dt < best)
			best = dt;
		if (r == 0)
			printf("round 1: %lu JSON bytes for %llu matching events\n", (unsigned long)bytes,
			       (unsigned long long)matched);
		sbuf__free(&out);
		field_ctx__fini(&ctx);
		capture__close(c);
		inspector__free(in);
	}
	printf("parse + filter + JSON, one core, %ld events (%llu matched), best of %d:\n",
	       n, (unsigned long long)matched, rounds);
	printf("  %.2f M events/s (%.0f ns/event)  [target >= 1 M events/s]\n",
	       n / best / 1e6, best * 1e9 / n);
	filter__free(flt);
	format__free(fmt);
	free(buf);
	return 0;
}
