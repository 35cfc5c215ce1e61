/* Filter and output throughput on one core: a few hundred thousand pre-built
 * synthetic events of several types (openat, read, write, connect, close, mmap,
 * a generic syscall) go through a compiled filter and the JSON formatter, as
 * the agent's loop does after parsing. Prints events/s for: filter alone, JSON
 * alone, filter + JSON of the matches, and the default text line.
 *
 *   filter_bench [EVENTS] [ROUNDS]     (defaults 300000 and 5) */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "filter.h"
#include "format.h"
#include "world.h"

#define FRAME_MAX 256

static const char *bench_filter =
	"proc.name in (curl, nginx) and (evt.type in (openat, read, write, connect, close) "
	"or fd.sport = 80) and not fd.name startswith /proc";

static uint8_t *arena;
static struct ievt *events;
static size_t n_events;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint16_t sc_code(const char *name)
{
	for (unsigned i = 0; i < PPM_SC_MAX; i++)
		if (schema_ppm_sc[i].name && strcmp(schema_ppm_sc[i].name, name) == 0)
			return (uint16_t)i;
	return 0;
}

/* Builds event I in its slot of the arena and parses it into events[i]. */
static void build(size_t i, uint16_t clock_sc)
{
	static const char *paths[] = { "/etc/passwd", "/usr/lib/x86_64-linux-gnu/libc.so.6",
				       "/proc/self/stat", "relative/file.txt" };
	static const uint8_t data[80] = "GET /index.html HTTP/1.1\r\nHost: example.com\r\n"
					"User-Agent: bench\r\n\r\n";
	struct tevt t;
	struct frame_builder *fb;
	uint8_t tup[13] = { PPM_AF_INET, 10, 0, 0, 2, 0xb3, 0x15, 10, 0, 0, 1, 80, 0 };
	int64_t tid = (i % 7 == 0) ? 100 : 200;
	uint64_t ts = WORLD_TS + i * 1000;
	int64_t fdnum = -1;

	switch (i % 7) {
	case 0:
		fb = tevt__begin(&t, PPME_SYSCALL_OPENAT_2_X, tid, ts);
		fb__u64(fb, 3);
		fb__u64(fb, (uint64_t)-100);
		fb__str(fb, paths[(i / 7) % 4]);
		fb__u32(fb, PPM_FILE_FLAGS_O_RDONLY | PPM_FILE_FLAGS_O_CLOEXEC);
		fb__u32(fb, 0);
		fb__u32(fb, 0x803);
		break;
	case 1:
		fb = tevt__begin(&t, PPME_SYSCALL_READ_X, tid, ts);
		fb__u64(fb, 832);
		fb__param(fb, data, sizeof(data));
		fdnum = 4;
		break;
	case 2:
		fb = tevt__begin(&t, PPME_SYSCALL_WRITE_E, tid, ts);
		fb__u64(fb, 3);
		fb__u32(fb, 4096);
		break;
	case 3:
		fb = tevt__begin(&t, PPME_SOCKET_CONNECT_X, tid, ts);
		fb__u64(fb, 0);
		fb__param(fb, tup, sizeof(tup));
		fdnum = 4;
		break;
	case 4:
		fb = tevt__begin(&t, PPME_SYSCALL_CLOSE_E, tid, ts);
		fb__u64(fb, 7);
		break;
	case 5:
		fb = tevt__begin(&t, PPME_SYSCALL_MMAP_X, tid, ts);
		fb__u64(fb, 0x7fa69774e000ULL);
		fb__u32(fb, 536);
		fb__u32(fb, 4);
		fb__u32(fb, 0);
		break;
	default:
		fb = tevt__begin(&t, PPME_GENERIC_E, tid, ts);
		fb__u16(fb, clock_sc);
		fb__u16(fb, 228);
		break;
	}
	tevt__end(&t, fdnum);
	if (t.ev.hdr->len > FRAME_MAX) {
		fprintf(stderr, "frame too big\n");
		exit(1);
	}
	/* move the frame into the arena and point the parsed view at it */
	memcpy(arena + i * FRAME_MAX, t.buf, t.ev.hdr->len);
	events[i] = t.ev;
	events[i].hdr = (const void *)(arena + i * FRAME_MAX);
	for (uint32_t p = 0; p < t.ev.params.n; p++)
		events[i].params.val[p] = arena + i * FRAME_MAX + (t.ev.params.val[p] - t.buf);
}

enum mode { M_FILTER, M_JSON, M_FILTER_JSON, M_TEXT };

static double run(enum mode mode, const struct filter *f, const struct format *fmt,
		  struct field_ctx *ctx, struct sbuf *out, unsigned rounds, size_t *matched,
		  size_t *bytes)
{
	double t0 = now();

	*matched = *bytes = 0;
	for (unsigned r = 0; r < rounds; r++) {
		for (size_t i = 0; i < n_events; i++) {
			const struct ievt *ev = &events[i];
			bool m = true;

			if (mode == M_FILTER || mode == M_FILTER_JSON)
				m = filter__match(f, ev, ctx);
			*matched += m;
			if (!m || mode == M_FILTER)
				continue;
			if (mode == M_TEXT)
				format__text(fmt, ev, ctx, out);
			else
				format__json(fmt, ev, ctx, out);
			/* the agent writes the buffer out in batches */
			if (out->len > 65536) {
				*bytes += out->len;
				sbuf__reset(out);
			}
		}
	}
	*bytes += out->len;
	sbuf__reset(out);
	return now() - t0;
}

int main(int argc, char **argv)
{
	unsigned rounds = argc > 2 ? (unsigned)atoi(argv[2]) : 5;
	static const char *names[] = { "filter only", "JSON only (every event)",
				       "filter + JSON of matches", "default text line" };
	struct filter_error err;
	struct field_ctx ctx;
	struct sbuf out;
	struct filter *f;
	struct format *fmt;
	uint16_t clock_sc = sc_code("clock_gettime");
	cpu_set_t cpus;

	n_events = argc > 1 ? strtoul(argv[1], NULL, 10) : 300000;
	if (!n_events || !rounds)
		return 2;
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);	/* one core; fine if refused */
	setenv("TZ", "UTC", 1);

	world__init();
	arena = malloc(n_events * FRAME_MAX);
	events = calloc(n_events, sizeof(*events));
	if (!arena || !events)
		return 1;
	for (size_t i = 0; i < n_events; i++)
		build(i, clock_sc);

	f = filter__compile(bench_filter, &err);
	fmt = format__compile(FORMAT_DEFAULT, &err);
	if (!f || !fmt) {
		fprintf(stderr, "compile: %s\n", err.msg);
		return 1;
	}
	field_ctx__init(&ctx, &world_threads);
	sbuf__init(&out);
	printf("filter_bench: %zu events x %u rounds, filter: %s\n", n_events, rounds, bench_filter);
	for (int m = M_FILTER; m <= M_TEXT; m++) {
		size_t matched, bytes;
		double secs;

		run(m, f, fmt, &ctx, &out, 1, &matched, &bytes);	/* warm-up */
		secs = run(m, f, fmt, &ctx, &out, rounds, &matched, &bytes);
		printf("%-26s %8.2f M events/s  %6.1f ns/event  matched %.0f%%  %.1f MB out\n",
		       names[m], (double)n_events * rounds / secs / 1e6,
		       secs * 1e9 / ((double)n_events * rounds),
		       100.0 * (double)matched / ((double)n_events * rounds), (double)bytes / 1e6);
	}
	filter__free(f);
	format__free(fmt);
	field_ctx__fini(&ctx);
	sbuf__free(&out);
	free(arena);
	free(events);
	return 0;
}
