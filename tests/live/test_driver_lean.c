/* Lean loading on the real kernel. For a filter's syscalls (as the agent
 * derives them, filter__syscalls_needed) the kernel holds exactly the programs
 * driver/plan.h names: each looked up by id in the kernel, and no other program
 * loaded in between. Events of the syscalls left out never arrive; one turned
 * on by hand without its fillers has its events counted as driver-bug drops,
 * by type, and never sent as anything else. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "filter.h"
#include "harness.h"
#include "plan.h"

#define MAX_PROGS 512

struct progs {
	int n;
	char name[MAX_PROGS][64];	/* libbpf's full name; the kernel keeps 15 characters */
	uint32_t id[MAX_PROGS];
};

static int collect(const char *name, int fd, void *arg)
{
	struct progs *p = arg;
	struct bpf_prog_info info = { 0 };
	uint32_t len = sizeof(info);

	if (p->n == MAX_PROGS)
		return -E2BIG;
	/* the kernel's own view of the program behind our fd */
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	/* the kernel keeps BPF_OBJ_NAME_LEN - 1 characters of a name */
	EXPECT(!strncmp(info.name, name, BPF_OBJ_NAME_LEN - 1));
	snprintf(p->name[p->n], sizeof(p->name[0]), "%s", name);
	p->id[p->n++] = info.id;
	return 0;
}

static bool has(const struct progs *p, const char *name)
{
	for (int i = 0; i < p->n; i++)
		if (!strcmp(p->name[i], name))
			return true;
	return false;
}

/* Programs the kernel holds with ids between LO and HI, ours or not. */
static int kernel_progs_between(uint32_t lo, uint32_t hi)
{
	uint32_t id = lo - 1;
	int n = 0;

	while (!bpf_prog_get_next_id(id, &id) && id <= hi)
		n++;
	return n;
}

/* The lower-case program name of event CODE's filler. */
static void filler_name(uint32_t code, char *out, size_t size)
{
	size_t i;

	for (i = 0; schema_event_ids[code][i] && i < size - 1; i++)
		out[i] = tolower((unsigned char)schema_event_ids[code][i]);
	out[i] = 0;
}

/* Event codes with continuation parts (procnet's clone and execve fillers). */
static bool has_parts(uint32_t code)
{
	return code == PPME_SYSCALL_EXECVE_19_X || code == PPME_SYSCALL_EXECVEAT_X ||
	       code == PPME_SYSCALL_CLONE_20_X || code == PPME_SYSCALL_FORK_20_X ||
	       code == PPME_SYSCALL_VFORK_20_X || code == PPME_SYSCALL_CLONE3_X;
}

/* The loaded set of H is what plan P names, no more. */
static void check_loaded(struct harness *h, const struct driver_plan *p, const char *what)
{
	static const struct { const char *name; size_t off; } disp[] = {
		{ "sys_enter", offsetof(struct driver_plan, sys_enter) },
		{ "sys_exit", offsetof(struct driver_plan, sys_exit) },
		{ "sys_exit_eo", offsetof(struct driver_plan, sys_exit_eo) },
		{ "close_enter", offsetof(struct driver_plan, close_enter) },
		{ "sched_process_exit", offsetof(struct driver_plan, sched_exit) },
		{ "sched_process_exit_eo", offsetof(struct driver_plan, sched_exit_eo) },
		{ "sched_process_exec", offsetof(struct driver_plan, sched_exec) },
		{ "sched_switch", offsetof(struct driver_plan, sched_switch) },
	};
	static struct progs got;
	struct driver_load_info li;
	int want = 0, missing = 0;
	uint32_t lo = UINT32_MAX, hi = 0;
	char name[64], part[80];

	got.n = 0;
	EXPECT(driver__for_each_program(harness__driver(h), collect, &got) == 0);
	for (size_t i = 0; i < sizeof(disp) / sizeof(disp[0]); i++) {
		bool on = *(const bool *)((const char *)p + disp[i].off);

		want += on;
		if (on != has(&got, disp[i].name)) {
			fprintf(stderr, "%s: %s is %s\n", what, disp[i].name,
				on ? "not loaded" : "loaded, not planned");
			missing++;
		}
	}
	for (uint32_t c = 0; c < PPM_EVENT_MAX; c++) {
		if (!p->fillers[c])
			continue;
		filler_name(c, name, sizeof(name));
		want++;
		if (!has(&got, name)) {
			fprintf(stderr, "%s: filler %s not loaded\n", what, name);
			missing++;
		}
		for (int k = 1; has_parts(c) && k <= 3; k++) {
			snprintf(part, sizeof(part), "%s_part%d", name, k);
			want++;
			if (!has(&got, part)) {
				fprintf(stderr, "%s: part %s not loaded\n", what, part);
				missing++;
			}
		}
	}
	EXPECT(missing == 0);
	/* nothing else: as many programs as planned */
	if (got.n != want)
		fprintf(stderr, "%s: %d programs loaded, %d planned\n", what, got.n, want);
	EXPECT(got.n == want);
	EXPECT(!driver__load_info(harness__driver(h), &li, true));
	EXPECT(li.programs == (uint32_t)got.n && li.memlock > 0);
	EXPECT(li.fillers == p->nfillers);
	/* and the kernel holds no other program loaded among ours */
	for (int i = 0; i < got.n; i++) {
		lo = got.id[i] < lo ? got.id[i] : lo;
		hi = got.id[i] > hi ? got.id[i] : hi;
	}
	EXPECT(kernel_progs_between(lo, hi) == got.n);
	fprintf(stderr, "%s: %d programs (%u fillers), %llu bytes of kernel memory\n", what, got.n,
		p->nfillers, (unsigned long long)li.memlock);
}

/* Syscalls of many kinds, most left out by the filters below. */
static void workload(const char *dir)
{
	char path[256], buf[64];
	struct stat st;
	int fd, p[2];
	void *m;

	snprintf(path, sizeof(path), "%s/f", dir);
	fd = openat(AT_FDCWD, path, O_CREAT | O_RDWR, 0600);
	if (write(fd, "lean", 4) < 0 || pread(fd, buf, 4, 0) < 0 || read(fd, buf, 4) < 0)
		EXPECT(0);
	fstat(fd, &st);
	stat(path, &st);
	lseek(fd, 0, SEEK_SET);
	m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m != MAP_FAILED)
		munmap(m, 4096);
	if (pipe(p) == 0) {
		close(p[0]);
		close(p[1]);
	}
	close(fd);
	unlink(path);
	for (int i = 0; i < 50; i++)
		syscall(SYS_getppid);
}

/* FILTER's syscalls loaded: the plan's programs, and no event of any thread
 * that is not one of those syscalls' (or procexit). */
static void test_filter(const char *filter, const char *dir)
{
	struct filter_error ferr = { 0 };
	struct filter *f = filter__compile(filter, &ferr);
	uint8_t sc[SYSCALL_TABLE_SIZE], allowed[PPM_EVENT_MAX] = { 0 };
	struct driver_config cfg = { .own_tgid = UINT32_MAX, .syscalls = sc };
	struct driver_plan plan;
	struct harness *h;
	int n, bad = 0, openat = 0;

	EXPECT(f != NULL);
	if (!f)
		return;
	n = filter__syscalls_needed(f, sc);
	filter__free(f);
	EXPECT(n > 0 && n < SYSCALL_TABLE_SIZE);
	h = harness__open(256, &cfg);
	driver_plan__build(&plan, &(struct driver_plan_in){ .syscalls = sc,
		.exit_only = harness__exit_only(), .drop_failed = cfg.drop_failed });
	check_loaded(h, &plan, filter);
	for (int i = 0; i < SYSCALL_TABLE_SIZE; i++)
		if (sc[i]) {
			allowed[schema_syscall_routes[i].enter_event] = 1;
			allowed[schema_syscall_routes[i].exit_event] = 1;
		}
	allowed[PPME_PROCEXIT_1_E] = 1;
	harness__drain(h, -1);
	workload(dir);
	harness__drain(h, -1);
	for (int i = 0; i < harness__count(h); i++) {
		struct hevt *e = harness__get(h, i);

		openat += e->hdr.type == PPME_SYSCALL_OPENAT_2_X;
		if (e->hdr.type >= PPM_EVENT_MAX || !allowed[e->hdr.type]) {
			if (bad++ < 5)
				fprintf(stderr, "%s: event %s of tid %llu arrived\n", filter,
					schema_event_ids[e->hdr.type], (unsigned long long)e->hdr.tid);
		}
	}
	EXPECT(bad == 0);
	EXPECT(openat >= 1);
	harness__close(h);
}

static uint64_t drops_of(struct driver *d, uint16_t code)
{
	static uint64_t by[PPM_EVENT_MAX];

	EXPECT(driver__drops_by_type(d, by, PPM_EVENT_MAX) == 0);
	return by[code];
}

/* getcwd's fillers not loaded, its syscall turned on by hand: each call's two
 * events are counted as driver-bug drops and none is sent. */
static void test_unexpected(void)
{
	struct driver_config cfg = { .own_tgid = UINT32_MAX,
				     .syscalls = harness__only((int[]){ SYS_openat, -1 }) };
	struct harness *h = harness__open(256, &cfg);
	struct driver *d = harness__driver(h);
	struct driver_counters before, after;
	uint64_t e0, x0;
	char buf[256];
	int seen = 0;

	EXPECT(!driver__has_filler(d, PPME_SYSCALL_GETCWD_E));
	EXPECT(!driver__has_filler(d, PPME_SYSCALL_GETCWD_X));
	EXPECT(driver__has_filler(d, PPME_SYSCALL_OPENAT_2_X));
	harness__drain(h, -1);
	driver__counters(d, NULL, 0, &before);
	e0 = drops_of(d, PPME_SYSCALL_GETCWD_E);
	x0 = drops_of(d, PPME_SYSCALL_GETCWD_X);
	EXPECT(driver__set_syscall(d, SYS_getcwd, true) == 0);
	for (int i = 0; i < 20; i++)
		EXPECT(syscall(SYS_getcwd, buf, sizeof(buf)) > 0);
	EXPECT(driver__set_syscall(d, SYS_getcwd, false) == 0);
	driver__counters(d, NULL, 0, &after);
	harness__drain(h, -1);
	for (int i = 0; i < harness__count(h); i++) {
		uint16_t t = harness__get(h, i)->hdr.type;

		/* nothing of getcwd, not even as the generic event */
		seen += t == PPME_SYSCALL_GETCWD_E || t == PPME_SYSCALL_GETCWD_X ||
			(t <= PPME_GENERIC_X && hevt__int(harness__get(h, i), 0) ==
			 schema_syscall_routes[SYS_getcwd].ppm_sc);
	}
	EXPECT(seen == 0);
	/* other threads may call getcwd meanwhile: at least ours */
	EXPECT(drops_of(d, PPME_SYSCALL_GETCWD_E) - e0 >= 20);
	EXPECT(drops_of(d, PPME_SYSCALL_GETCWD_X) - x0 >= 20);
	EXPECT(after.n_drops_bug - before.n_drops_bug >= 40);
	fprintf(stderr, "unexpected getcwd: %llu driver-bug drops for 20 calls\n",
		(unsigned long long)(after.n_drops_bug - before.n_drops_bug));
	harness__close(h);
}

int main(void)
{
	char dir[] = "/tmp/live-lean.XXXXXX";

	if (!mkdtemp(dir))
		return 1;
	test_filter("evt.type=openat", dir);
	test_filter("evt.type in (read, write) and proc.name=cat", dir);
	test_unexpected();
	rmdir(dir);
	return harness__report("driver_lean");
}
