/* The whole userspace path on one core: frames from a capture engine -> parser and
 * state -> filter -> JSON, as the agent runs it. Frames are built as the driver
 * writes them (openat, read, close, connect-free mix and generic events) and served
 * by the memory engine, so the figure excludes only the kernel. Target: at least
 * 1 million events/s. The threads run in NCONTAINERS Docker containers whose files
 * sit in a scratch HOST_ROOT: the same stream is timed with filters and formats
 * that use the container fields and with ones that do not, to show what those
 * fields cost per event (a pointer lookup), and the lookups are counted and timed
 * (once per container). The last two configurations match every event and
 * write the default JSON lines to /dev/null, through stdio as the agent did
 * before it had outputs, and through an output's queue and writer thread as it
 * does now: the queue's cost per event. Usage: pipeline_bench [EVENTS] [ROUNDS] */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "capture.h"
#include "container.h"
#include "filter.h"
#include "format.h"
#include "frame_builder.h"
#include "inspect.h"
#include "output.h"
#include "sbuf.h"

#define NTHREADS 16
#define NCONTAINERS 8

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

/* Container K's id: 64 hex digits. */
static void container_id(int k, char *out)
{
	snprintf(out, 65, "%012x%052x", 0xc0ffee00u + (unsigned)k, 0u);
}

/* A scratch HOST_ROOT with Docker's files for the containers. */
static int make_root(char *root)
{
	char path[512], id[65];
	FILE *f;

	if (!mkdtemp(root))
		return -errno;
	for (int k = 0; k < NCONTAINERS; k++) {
		container_id(k, id);
		snprintf(path, sizeof(path), "%s/var/lib/docker/containers/%s", root, id);
		for (char *p = path + strlen(root) + 1; *p; p++)
			if (*p == '/') {
				*p = '\0';
				mkdir(path, 0755);
				*p = '/';
			}
		mkdir(path, 0755);
		strcat(path, "/config.v2.json");
		f = fopen(path, "w");
		if (!f)
			return -errno;
		fprintf(f, "{\"ID\":\"%s\",\"Name\":\"/web-%d\",\"Image\":\"sha256:ab\","
			"\"Config\":{\"Image\":\"nginx:1.25\",\"Labels\":{}}}", id, k);
		fclose(f);
	}
	return 0;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	return remove(p);
}

/* The threads, each in container t % NCONTAINERS (named when first seen), or all
 * on the host. */
static void add_threads(struct inspector *in, bool in_containers)
{
	for (int t = 0; t < NTHREADS; t++) {
		struct thread_info *ti = inspector__add_thread(in, 1000 + t, 1000);
		char id[65], cg[200];
		int n;

		if (!ti)
			continue;
		strcpy(ti->comm, t % 2 ? "nginx" : "bench");
		ti->exe = strdup(ti->comm);
		ti->cwd = strdup("/srv/");
		if (!in_containers)
			continue;
		container_id(t % NCONTAINERS, id);
		n = snprintf(cg, sizeof(cg), "cpu=/docker/%s%cmemory=/docker/%s", id, 0, id);
		ti->cgroups = malloc((size_t)n + 1);
		memcpy(ti->cgroups, cg, (size_t)n + 1);
		ti->cgroups_len = (size_t)n + 1;
		inspector__update_container(in, ti);
	}
}

/* sysdig's -pc line, with two other thread fields where the container's are. */
#define FORMAT_PROC "*%evt.num %evt.outputtime %evt.cpu %proc.exe (%proc.cwd) %proc.name " \
		    "(%thread.tid:%thread.vtid) %evt.dir %evt.type %evt.info"
#define IO_TYPES "evt.type in (openat, read, close)"

enum sink { SINK_NONE, SINK_STDIO, SINK_OUTPUT };

/* Pairs that differ only in container fields against other thread fields. */
struct config {
	const char *what, *filter, *format;
	bool in_containers;
	enum sink sink;
};

static const struct config configs[] = {
	{ "threads on the host, proc.name filter, proc fields   ",
	  IO_TYPES " and proc.name in (ngin1, ngin3, ngin5, nginx)", FORMAT_PROC, false, SINK_NONE },
	{ "threads in containers, the same                      ",
	  IO_TYPES " and proc.name in (ngin1, ngin3, ngin5, nginx)", FORMAT_PROC, true, SINK_NONE },
	{ "container.name filter instead of proc.name           ",
	  IO_TYPES " and container.name in (web-1, web-3, web-5, web-7)", FORMAT_PROC, true, SINK_NONE },
	{ "-pc line (container fields) instead of proc fields   ",
	  IO_TYPES " and proc.name in (ngin1, ngin3, ngin5, nginx)", FORMAT_CONTAINER, true, SINK_NONE },
	{ "both                                                 ",
	  IO_TYPES " and container.name in (web-1, web-3, web-5, web-7)", FORMAT_CONTAINER, true, SINK_NONE },
	{ "all match, JSON to /dev/null by stdio (before)       ",
	  NULL, FORMAT_DEFAULT, false, SINK_STDIO },
	{ "all match, JSON to /dev/null by an output queue (now)",
	  NULL, FORMAT_DEFAULT, false, SINK_OUTPUT },
};

static double cpu_now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Where the lines of a run go, and what the writer thread cost. */
struct sink_state {
	FILE *stdio;
	struct output *out;
	double cpu0;
};

static void sink__open(struct sink_state *k, enum sink sink)
{
	char err[256];

	memset(k, 0, sizeof(*k));
	if (sink == SINK_STDIO) {
		k->stdio = fopen("/dev/null", "w");
		if (k->stdio)
			setvbuf(k->stdio, NULL, _IOFBF, 1 << 16);
	} else if (sink == SINK_OUTPUT) {
		k->out = output__open("file:/dev/null", &(struct output_opts){ .json = true },
				      err, sizeof(err));
	}
	if ((sink == SINK_STDIO && !k->stdio) || (sink == SINK_OUTPUT && !k->out)) {
		fprintf(stderr, "pipeline_bench: cannot open /dev/null\n");
		exit(1);
	}
	k->cpu0 = cpu_now(CLOCK_PROCESS_CPUTIME_ID) - cpu_now(CLOCK_THREAD_CPUTIME_ID);
}

static void sink__write(struct sink_state *k, const struct sbuf *line, uint64_t ts)
{
	if (k->stdio)
		fwrite(line->buf, 1, line->len, k->stdio);
	else if (k->out)
		output__push(k->out, line->buf, line->len, ts);
}

/* Flushes and closes; the other threads' CPU seconds (the writer's) and the
 * lines the output dropped come back. */
static double sink__close(struct sink_state *k, uint64_t *dropped)
{
	struct output_stats st = { 0 };

	if (k->stdio)
		fclose(k->stdio);
	if (k->out)
		output__close(k->out, (uint64_t)(now() * 1000) + 60000, &st);
	*dropped = st.drop_queue_full + st.drop_error + st.drop_exit;
	return cpu_now(CLOCK_PROCESS_CPUTIME_ID) - cpu_now(CLOCK_THREAD_CPUTIME_ID) - k->cpu0;
}

/* One run of CFG over the stream: its time; the container counters and the time
 * the lookups took (making the threads) come back too. */
static double run(const struct config *cfg, const char *root, const uint8_t *buf, size_t len,
		  uint64_t *matched, struct container_counters *cc, double *lookup_s,
		  double *writer_s, uint64_t *dropped)
{
	struct filter_error err = { 0 };
	struct filter *flt = cfg->filter ? filter__compile(cfg->filter, &err) : NULL;
	struct format *fmt = format__compile(cfg->format, &err);
	struct inspector_opts io = { .no_proc_scan = true, .host_root = root };
	struct inspector *in = inspector__new(&io);
	struct capture *c = capture__open_memory(buf, len);
	struct capture_event cev;
	struct field_ctx ctx;
	struct sbuf out;
	struct ievt ev;
	double t0 = now(), dt;

	struct sink_state sink;

	if ((cfg->filter && !flt) || !fmt || !in || !c) {
		fprintf(stderr, "pipeline_bench: setup failed: %s\n", err.msg);
		exit(1);
	}
	add_threads(in, cfg->in_containers);
	*lookup_s = now() - t0;
	field_ctx__init(&ctx, inspector__threads(in));
	sbuf__init(&out);
	sink__open(&sink, cfg->sink);
	*matched = 0;
	t0 = now();
	while (capture__next(c, &cev, 0) == 0) {
		if (inspector__process(in, &cev, &ev))
			continue;
		if (flt && !filter__match(flt, &ev, &ctx))
			continue;
		(*matched)++;
		sbuf__reset(&out);
		format__json(fmt, &ev, &ctx, &out);
		sink__write(&sink, &out, ev.ts);
	}
	dt = now() - t0;
	*writer_s = sink__close(&sink, dropped);
	container_table__counters(inspector__containers(in), cc);
	sbuf__free(&out);
	field_ctx__fini(&ctx);
	capture__close(c);
	inspector__free(in);
	filter__free(flt);
	format__free(fmt);
	return dt;
}

#define NCONFIGS (sizeof(configs) / sizeof(configs[0]))

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	/* a third argument runs that configuration alone (for callgrind) */
	int only = argc > 3 ? atoi(argv[3]) : -1;
	size_t cap = (size_t)n * 200, len = 0;
	uint8_t *buf = malloc(cap);
	char root[] = "/tmp/pipeline-bench-XXXXXX";
	double best[NCONFIGS], lookup_s[NCONFIGS] = { 0 }, writer_s[NCONFIGS] = { 0 };
	uint64_t dropped[NCONFIGS] = { 0 };
	struct container_counters cc[NCONFIGS];
	uint64_t matched[NCONFIGS] = { 0 };

	if (!buf || make_root(root)) {
		fprintf(stderr, "pipeline_bench: setup failed\n");
		return 1;
	}
	for (long i = 0; i < n; i++)
		len += make_event(buf + len, cap - len, i, 1700000000000000000ull + i * 100);
	/* rounds interleave the configurations, so drift hits them all alike */
	for (size_t k = 0; k < NCONFIGS; k++)
		best[k] = 1e30;
	for (int r = 0; r < rounds; r++) {
		for (size_t k = 0; k < NCONFIGS; k++) {
			double l, t, w;
			uint64_t d;

			if (only >= 0 && (size_t)only != k)
				continue;
			t = run(&configs[k], root, buf, len, &matched[k], &cc[k], &l, &w, &d);
			if (t < best[k]) {
				best[k] = t;
				writer_s[k] = w;
			}
			dropped[k] += d;
			if (r == 0)
				lookup_s[k] = l;
		}
	}
	printf("parse + filter + JSON, one core, %ld events from %d threads in %d containers, "
	       "best of %d:\n", n, NTHREADS, NCONTAINERS, rounds);
	for (size_t k = 0; k < NCONFIGS; k++) {
		if (only >= 0 && (size_t)only != k)
			continue;
		printf("  %zu. %s %.2f M events/s (%.0f ns/event", k, configs[k].what,
		       n / best[k] / 1e6, best[k] * 1e9 / n);
		if (only < 0 && k)
			printf(", %+.1f ns vs 0", (best[k] - best[0]) * 1e9 / n);
		printf("), %llu matched\n", (unsigned long long)matched[k]);
		if (configs[k].sink == SINK_OUTPUT)
			printf("     writer thread: %.0f ns/event of another core; %llu lines dropped "
			       "in all rounds\n", writer_s[k] * 1e9 / n, (unsigned long long)dropped[k]);
		if (configs[k].sink == SINK_OUTPUT && only < 0)
			printf("     the queue costs the capture thread %+.1f%% against stdio "
			       "(target: at most +5%%)\n", (best[k] / best[k - 1] - 1) * 100);
		if (configs[k].in_containers && (only >= 0 || k == 1))
			printf("     container lookups: %llu for %ld events (%llu named), %.0f us each "
			       "(file read and JSON parse, once per container)\n",
			       (unsigned long long)cc[k].n_lookups, n,
			       (unsigned long long)cc[k].n_found,
			       lookup_s[k] * 1e6 / (cc[k].n_lookups ? cc[k].n_lookups : 1));
	}
	printf("  [target >= 1 M events/s]\n");
	nftw(root, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(buf);
	return 0;
}
