/* A deliberately simple ring reader for driver tests: one mapping, records copied. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness.h"
#include "load_watch.h"

int harness_failures, harness_checks;

struct ring {
	int fd;
	void *base;		/* perf: header page + data; BPF ring: producer page + data twice */
	void *cons;		/* BPF ring: its consumer page */
	size_t data_size;
};

struct harness {
	struct driver *d;
	int ncpus;
	struct ring *rings;
	size_t page;
	struct hevt *evts;
	int n, cap;
	uint64_t lost;
	uint32_t nrec;		/* ring records walked in this drain */
	bool exit_only;		/* the driver runs in exit-only mode */
};

/* Skips the test, unless CI said live tests must run (AGENT_REQUIRE_LIVE=1). */
static void skip(const char *why)
{
	if (getenv("AGENT_REQUIRE_LIVE")) {
		fprintf(stderr, "harness: %s, but AGENT_REQUIRE_LIVE is set: failing\n", why);
		exit(1);
	}
	fprintf(stderr, "skip: %s\n", why);
	exit(SKIP);
}

static void die(const char *what, int err)
{
	fprintf(stderr, "harness: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

bool harness__exit_only(void)
{
	const char *v = getenv("AGENT_TEST_EXIT_ONLY");

	return v && !strcmp(v, "1");
}

bool harness__raw_exit(void)
{
	const char *v = getenv("AGENT_TEST_RAW_EXIT");

	return v && !strcmp(v, "1");
}

bool harness__ringbuf(void)
{
	const char *v = getenv("AGENT_TEST_ENGINE");

	return v && !strcmp(v, "ringbuf");
}

/* CPU C's BPF ring buffer (the ring-buffer engine), mapped as the kernel lays
 * it out: the consumer page, then the producer page and the data twice. */
static void ring_bpf(struct harness *h, struct ring *r, int c, uint32_t ring_pages)
{
	r->data_size = (size_t)ring_pages * h->page;
	r->fd = driver__ring_create(h->d, c, r->data_size);
	if (r->fd < 0)
		die("driver__ring_create", r->fd);
	r->cons = mmap(NULL, h->page, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	r->base = mmap(NULL, h->page + 2 * r->data_size, PROT_READ, MAP_SHARED, r->fd, h->page);
	if (r->cons == MAP_FAILED || r->base == MAP_FAILED)
		die("mmap ring buffer", errno);
}

struct harness *harness__open(uint32_t ring_pages, const struct driver_config *cfg)
{
	struct harness *h = calloc(1, sizeof(*h));
	int err;

	if (geteuid() != 0)
		skip("live driver tests need root");
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		skip("the kernel has no BTF (/sys/kernel/btf/vmlinux)");
	if (load_watch__hung_before())
		exit(1);
	h->page = sysconf(_SC_PAGESIZE);
	h->d = driver__open();
	if (!h->d)
		die("driver__open", errno);
	/* AGENT_TEST_EXIT_ONLY=1: the same tests in exit-only mode (meson's
	 * live-exit-only suite); AGENT_TEST_ENGINE=ringbuf: into BPF ring
	 * buffers (live-ringbuf). */
	if (harness__exit_only() || harness__ringbuf() || harness__raw_exit()) {
		struct driver_config mode = cfg ? *cfg : (struct driver_config){ 0 };

		mode.exit_only |= harness__exit_only();
		mode.ringbuf = harness__ringbuf();
		mode.no_syscall_tps |= harness__raw_exit();
		if ((err = driver__configure(h->d, &mode)))
			die("driver__configure", err);
	} else if (cfg && (err = driver__configure(h->d, cfg))) {
		die("driver__configure", err);
	}
	h->exit_only = harness__exit_only() || (cfg && cfg->exit_only);
	err = load_watch__load(h->d);
	if (err == -EPERM || err == -ENOSYS)
		skip("BPF is not permitted here");
	if (err)
		die("driver__load", err);
	h->ncpus = sysconf(_SC_NPROCESSORS_CONF);
	h->rings = calloc(h->ncpus, sizeof(*h->rings));
	for (int c = 0; c < h->ncpus; c++) {
		struct perf_event_attr a = {
			.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
			.config = PERF_COUNT_SW_BPF_OUTPUT, .sample_type = PERF_SAMPLE_RAW,
			.sample_period = 1, .wakeup_events = 1,
		};
		struct ring *r = &h->rings[c];

		if (harness__ringbuf()) {
			ring_bpf(h, r, c, ring_pages);
			continue;
		}
		r->fd = syscall(SYS_perf_event_open, &a, -1, c, -1, PERF_FLAG_FD_CLOEXEC);
		if (r->fd < 0) {
			r->fd = -1;	/* offline CPU */
			continue;
		}
		r->data_size = (size_t)ring_pages * h->page;
		r->base = mmap(NULL, h->page + r->data_size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
		if (r->base == MAP_FAILED)
			die("mmap ring", errno);
		if ((err = driver__set_perf_fd(h->d, c, r->fd)))
			die("driver__set_perf_fd", err);
		ioctl(r->fd, PERF_EVENT_IOC_ENABLE, 0);
	}
	if ((err = driver__attach(h->d)))
		die("driver__attach", err);
	{
		struct driver_load_info li;

		if (!driver__load_info(h->d, &li, false))
			fprintf(stderr, "harness: %u of %u programs loaded in %.0f ms\n", li.programs,
				li.programs_total, li.load_ns / 1e6);
	}
	return h;
}

const uint8_t *harness__only(const int *nrs)
{
	uint8_t *sc = calloc(1, SYSCALL_TABLE_SIZE);

	if (!sc)
		die("harness__only", ENOMEM);
	for (; *nrs >= 0; nrs++) {
		if (*nrs >= SYSCALL_TABLE_SIZE)
			die("harness__only: syscall number", ERANGE);
		sc[*nrs] = 1;
	}
	return sc;
}

struct driver *harness__driver(struct harness *h)
{
	return h->d;
}

static void keep_frame(struct harness *h, const uint8_t *raw, uint32_t size, int cpu,
		       bool rebuilt)
{
	struct hevt *e;

	if (size < PPM_HDR_LEN || schema__validate(raw, size)) {
		fprintf(stderr, "harness: malformed frame on cpu %d\n", cpu);
		harness_failures++;
		return;
	}
	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 1024;
		h->evts = realloc(h->evts, h->cap * sizeof(*h->evts));
	}
	e = &h->evts[h->n++];
	e->frame = malloc(size);
	memcpy(e->frame, raw, size);
	memcpy(&e->hdr, raw, sizeof(e->hdr));
	schema__params(e->frame, &e->p);
	e->cpu = cpu;
	e->rec = h->nrec;
	e->rebuilt = rebuilt;
}

/* Keeps a frame of the ring, after the enter event rebuilt for it when
 * exit-only capture left that out. */
static void keep(struct harness *h, const uint8_t *raw, uint32_t size, int cpu)
{
	uint8_t enter[SCHEMA_EO_ENTER_MAX];
	int n = h->exit_only ? schema__eo_enter(raw, size, enter, sizeof(enter)) : 0;

	if (n > 0)
		keep_frame(h, enter, n, cpu, true);
	keep_frame(h, raw, size, cpu, false);
}

/* Keeps the frames of one ring record (LEN bytes at REC) of thread TID (all
 * when < 0): exit-only capture sends a syscall's enter and exit frames back to
 * back in one record. What is left after the last frame must be a perf
 * sample's padding (PAD_OK) or nothing. */
static void keep_record(struct harness *h, const uint8_t *rec, uint32_t len, int cpu,
			int64_t tid, int pad_ok)
{
	uint32_t off = 0;

	h->nrec++;
	while (len - off >= PPM_HDR_LEN) {
		struct ppm_evt_hdr hd;

		memcpy(&hd, rec + off, sizeof(hd));
		if (hd.len < PPM_HDR_LEN || hd.len > len - off) {
			fprintf(stderr, "harness: frame of %u bytes in a record of %u on cpu %d\n",
				hd.len, len - off, cpu);
			harness_failures++;
			return;
		}
		if (tid < 0 || (int64_t)hd.tid == tid)
			keep(h, rec + off, hd.len, cpu);
		off += hd.len;
	}
	if (off != len && !(pad_ok && len - off < 8)) {
		fprintf(stderr, "harness: %u stray bytes after a record's frames on cpu %d\n",
			len - off, cpu);
		harness_failures++;
	}
}

static int by_ts(const void *a, const void *b)
{
	const struct hevt *x = a, *y = b;

	return x->hdr.ts < y->hdr.ts ? -1 : x->hdr.ts > y->hdr.ts;
}

/* A BPF ring buffer's records: an 8-byte header (length with a busy bit 31 and
 * a discard bit 30), the data, padding to 8; its data is mapped twice, so a
 * record that wraps still reads in one piece. */
static void drain_bpf(struct harness *h, struct ring *r, int c, int64_t tid)
{
	uint64_t *consp = r->cons, prod, cons;
	uint8_t *data = (uint8_t *)r->base + h->page;

	prod = __atomic_load_n((uint64_t *)r->base, __ATOMIC_ACQUIRE);
	cons = *consp;
	while (cons < prod) {
		uint8_t *rec = data + (cons & (r->data_size - 1));
		uint32_t word = __atomic_load_n((uint32_t *)rec, __ATOMIC_ACQUIRE);
		uint32_t len = word & ~(3u << 30);

		if (word & (1u << 31))
			break;	/* not committed yet */
		if (cons + 8 + len > prod)
			die("corrupt ring buffer record", EIO);
		if (!(word & (1u << 30)))
			keep_record(h, rec + 8, len, c, tid, 0);
		cons += (8 + len + 7) & ~7ull;
	}
	__atomic_store_n(consp, cons, __ATOMIC_RELEASE);
}

int harness__drain(struct harness *h, int64_t tid)
{
	static uint8_t rec[1 << 17];

	for (int i = 0; i < h->n; i++)
		free(h->evts[i].frame);
	h->n = 0;
	h->nrec = 0;
	for (int c = 0; c < h->ncpus; c++) {
		struct ring *r = &h->rings[c];
		struct perf_event_mmap_page *mp = r->base;

		if (r->cons) {
			drain_bpf(h, r, c, tid);
			continue;
		}
		uint8_t *data;
		uint64_t head, tail;

		if (r->fd < 0)
			continue;
		data = (uint8_t *)r->base + h->page;
		head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
		tail = mp->data_tail;
		while (tail < head) {
			struct perf_event_header eh;
			size_t off = tail % r->data_size;

			/* Copy the record out piecewise: it may wrap. */
			for (size_t k = 0; k < sizeof(eh); k++)
				((uint8_t *)&eh)[k] = data[(off + k) % r->data_size];
			if (eh.size < sizeof(eh) || tail + eh.size > head)
				die("corrupt ring record", EIO);
			for (size_t k = 0; k < eh.size; k++)
				rec[k] = data[(off + k) % r->data_size];
			if (eh.type == PERF_RECORD_SAMPLE) {
				uint32_t raw;

				memcpy(&raw, rec + sizeof(eh), 4);
				if (raw > eh.size - sizeof(eh) - 4)
					die("corrupt perf sample", EIO);
				keep_record(h, rec + sizeof(eh) + 4, raw, c, tid, 1);
			} else if (eh.type == PERF_RECORD_LOST) {
				uint64_t lost;

				memcpy(&lost, rec + sizeof(eh) + 8, 8);
				h->lost += lost;
			}
			tail += eh.size;
		}
		__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	}
	qsort(h->evts, h->n, sizeof(*h->evts), by_ts);
	return h->n;
}

int harness__count(struct harness *h)
{
	return h->n;
}

struct hevt *harness__get(struct harness *h, int i)
{
	return i >= 0 && i < h->n ? &h->evts[i] : NULL;
}

struct hevt *harness__find(struct harness *h, uint16_t type, int *from)
{
	for (int i = from ? *from : 0; i < h->n; i++) {
		if (h->evts[i].hdr.type == type) {
			if (from)
				*from = i + 1;
			return &h->evts[i];
		}
	}
	return NULL;
}

uint64_t harness__lost(struct harness *h)
{
	return h->lost;
}

void harness__close(struct harness *h)
{
	if (!h)
		return;
	driver__close(h->d);
	for (int c = 0; c < h->ncpus; c++) {
		struct ring *r = &h->rings[c];

		if (r->fd < 0)
			continue;
		if (r->cons) {
			munmap(r->cons, h->page);
			munmap(r->base, h->page + 2 * r->data_size);
		} else {
			munmap(r->base, h->page + r->data_size);
		}
		close(r->fd);
	}
	for (int i = 0; i < h->n; i++)
		free(h->evts[i].frame);
	free(h->evts);
	free(h->rings);
	free(h);
}

int64_t hevt__int(const struct hevt *e, uint32_t i)
{
	int64_t v = INT64_MIN;

	if (i < e->p.n)
		schema__param_int(schema_events[e->hdr.type].params[i].type, e->p.val[i], e->p.len[i], &v);
	return v;
}

int hevt__str_eq(const struct hevt *e, uint32_t i, const char *s)
{
	size_t n = strlen(s) + 1;

	if (i >= e->p.n || e->p.len[i] != n || memcmp(e->p.val[i], s, n) != 0) {
		fprintf(stderr, "  param %u: want \"%s\", got \"%.*s\" (len %u)\n", i, s,
			i < e->p.n ? e->p.len[i] : 0, i < e->p.n ? (const char *)e->p.val[i] : "",
			i < e->p.n ? e->p.len[i] : 0);
		return 0;
	}
	return 1;
}

void hevt__expect_header(const struct hevt *e, uint16_t type, int64_t tid)
{
	uint32_t sum = PPM_HDR_LEN + 2 * e->hdr.nparams;

	for (uint32_t i = 0; i < e->p.n; i++)
		sum += e->p.len[i];
	EXPECT(e->hdr.type == type);
	EXPECT((int64_t)e->hdr.tid == tid);
	EXPECT(e->hdr.len == sum);
	EXPECT(e->hdr.nparams == schema_events[type].nparams);
}

int harness__report(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, harness_checks, harness_failures);
	printf("%d passed, %d failed\n", harness_checks - harness_failures, harness_failures);
	return harness_failures ? 1 : 0;
}
