/* The driver's core paths on the real kernel: a dedicated filler (close), the
 * generic event, procexit, timestamps, the interesting-syscalls bitmap, skipping the
 * agent's own process, and drops counted when the ring is full. */
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

static const struct driver_config capture_self = { .own_tgid = UINT32_MAX };

/* Each test loads only the syscalls its checks look for, found or not found
 * (harness__only): close, and getppid for the generic event. */
static const int close_generic_calls[] = { SYS_close, SYS_getppid, -1 };
/* procexit comes with no syscall loaded. */
static const int no_calls[] = { -1 };
/* getppid; bpf, which the test's own driver__counters calls while every
 * syscall but getppid is off: checked to send nothing; and the calls other
 * processes make all the time, so that "only getppid events arrive" is
 * checked against a busy bitmap, not only against what was not loaded. */
static const int bitmap_calls[] = { SYS_getppid, SYS_bpf, SYS_read, SYS_write, SYS_close,
				    SYS_openat, SYS_futex, SYS_epoll_wait, SYS_nanosleep,
				    SYS_clock_nanosleep, SYS_poll, SYS_ppoll, -1 };
/* close, checked absent for the test's own process; and write, the harness's
 * stderr line after attach. */
static const int own_calls[] = { SYS_close, SYS_write, -1 };
static const int getppid_calls[] = { SYS_getppid, -1 };
/* The four calls whose records are checked. */
static const int records_calls[] = { SYS_close, SYS_getppid, SYS_open, SYS_getuid, -1 };
/* close, and msync, whose generic exit event is checked absent. */
static const int drop_failed_calls[] = { SYS_close, SYS_msync, -1 };

/* harness__open with CFG (capture_self when NULL) and only the syscalls NRS. */
static struct harness *open_only(uint32_t ring_pages, const struct driver_config *cfg,
				 const int *nrs)
{
	struct driver_config c = cfg ? *cfg : capture_self;

	c.syscalls = harness__only(nrs);
	return harness__open(ring_pages, &c);
}

/* Now, on the driver's clock: it stamps CLOCK_BOOTTIME (bpf_ktime_get_boot_ns)
 * plus the epoch offset it was loaded with, so CLOCK_BOOTTIME read here plus
 * that offset is the same clock, and an event the kernel stamps between two
 * readings lies between them (CLOCK_REALTIME would be a second clock, and the
 * offset was read from two clocks one after the other). */
static uint64_t driver_now(struct harness *h)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return driver__boot_time(harness__driver(h)) + (uint64_t)ts.tv_sec * 1000000000ull +
	       (uint64_t)ts.tv_nsec;
}

/* Every program run that began before this call has ended: the kernel runs
 * BPF programs inside RCU read-side sections, and MEMBARRIER_CMD_GLOBAL waits
 * for an RCU grace period (synchronize_rcu). A sleep would only make it likely. */
static void programs_settle(void)
{
	EXPECT(syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0);
}

static void test_close_and_generic(void)
{
	struct harness *h = open_only(64, NULL, close_generic_calls);
	int64_t tid = syscall(SYS_gettid);
	uint64_t t0, t1;
	struct hevt *e;
	int at = 0;

	harness__drain(h, -1);
	t0 = driver_now(h);
	close(-12345);
	syscall(SYS_getppid);
	t1 = driver_now(h);
	harness__drain(h, tid);

	e = harness__find(h, PPME_SYSCALL_CLOSE_E, &at);
	while (e && hevt__int(e, 0) != -12345)
		e = harness__find(h, PPME_SYSCALL_CLOSE_E, &at);
	EXPECT(e != NULL);
	if (e) {
		hevt__expect_header(e, PPME_SYSCALL_CLOSE_E, tid);
		EXPECT_PARAM_INT(e, 0, -12345);
		EXPECT(e->hdr.ts >= t0 && e->hdr.ts <= t1);
	}
	e = harness__find(h, PPME_SYSCALL_CLOSE_X, &at);
	EXPECT(e != NULL);
	if (e) {
		hevt__expect_header(e, PPME_SYSCALL_CLOSE_X, tid);
		EXPECT_PARAM_INT(e, 0, -EBADF);
	}
	/* getppid has no dedicated event: the generic one names it. */
	e = harness__find(h, PPME_GENERIC_E, &at);
	EXPECT(e != NULL);
	if (e) {
		hevt__expect_header(e, PPME_GENERIC_E, tid);
		EXPECT_PARAM_INT(e, 0, schema_syscall_routes[SYS_getppid].ppm_sc);
		EXPECT(strcmp(schema__ppm_sc_name(hevt__int(e, 0)), "getppid") == 0);
		EXPECT_PARAM_INT(e, 1, SYS_getppid);
		EXPECT(e->hdr.ts >= t0 && e->hdr.ts <= t1);
	}
	e = harness__find(h, PPME_GENERIC_X, &at);
	EXPECT(e != NULL);
	if (e) {
		hevt__expect_header(e, PPME_GENERIC_X, tid);
		EXPECT_PARAM_INT(e, 0, schema_syscall_routes[SYS_getppid].ppm_sc);
	}
	harness__close(h);
}

static void test_procexit(void)
{
	struct harness *h = open_only(64, NULL, no_calls);
	pid_t child;
	struct hevt *e = NULL;
	int at = 0;

	child = fork();
	if (child == 0)
		_exit(3);
	waitpid(child, NULL, 0);
	harness__drain(h, child);
	e = harness__find(h, PPME_PROCEXIT_1_E, &at);
	EXPECT(e != NULL);
	if (e) {
		hevt__expect_header(e, PPME_PROCEXIT_1_E, child);
		EXPECT_PARAM_INT(e, 0, 3 << 8);
		EXPECT_PARAM_INT(e, 1, 3);
		EXPECT_PARAM_INT(e, 2, 0);
		EXPECT_PARAM_INT(e, 3, 0);
	}
	harness__close(h);
}

static uint64_t sent(struct harness *h)
{
	struct driver_counters t;

	driver__counters(harness__driver(h), NULL, 0, &t);
	return t.n_evts + t.n_drops_buffer + t.n_drops_pf + t.n_drops_bug + t.n_drops_scratch;
}

static void test_bitmap(void)
{
	struct harness *h = open_only(64, NULL, bitmap_calls);
	struct driver *d = harness__driver(h);
	uint8_t none[SYSCALL_TABLE_SIZE] = { 0 };
	uint64_t before;

	/* Nothing interesting and no procexit: the kernel sends nothing at all. */
	driver__set_interesting(d, none);
	driver__set_procexit(d, false);
	/* a program that passed the old bitmap may still be running (preempted
	 * under load): it has ended before counting */
	programs_settle();
	before = sent(h);
	for (int i = 0; i < 1000; i++)
		syscall(SYS_getppid);
	EXPECT(sent(h) == before);
	/* getppid alone: at least our 2000 events, and only getppid events arrive. */
	driver__set_syscall(d, SYS_getppid, true);
	harness__drain(h, -1);
	before = sent(h);
	for (int i = 0; i < 1000; i++)
		syscall(SYS_getppid);
	EXPECT(sent(h) - before >= 2000);
	harness__drain(h, -1);
	int others = 0;
	for (int i = 0; i < harness__count(h); i++) {
		struct hevt *e = harness__get(h, i);
		if (e->hdr.type > PPME_GENERIC_X || hevt__int(e, 0) != schema_syscall_routes[SYS_getppid].ppm_sc)
			others++;
	}
	EXPECT(others == 0);
	EXPECT(harness__count(h) >= 2000);
	harness__close(h);
}

static void test_own_process_skipped(void)
{
	/* own_tgid 0, the default: skip getpid() */
	struct harness *h = open_only(64, &(struct driver_config){ 0 }, own_calls);

	for (int i = 0; i < 100; i++)
		close(-777);
	harness__drain(h, -1);
	for (int i = 0; i < harness__count(h); i++)
		EXPECT(harness__get(h, i)->hdr.tid != (uint64_t)syscall(SYS_gettid));
	harness__close(h);
}

static void test_full_ring_counts_drops(void)
{
	struct harness *h = open_only(1, NULL, getppid_calls);	/* a one-page ring */
	struct driver *d = harness__driver(h);
	uint8_t none[SYSCALL_TABLE_SIZE] = { 0 };
	struct driver_counters t0, t1;
	int got;

	driver__set_interesting(d, none);
	driver__set_procexit(d, false);
	driver__set_syscall(d, SYS_getppid, true);
	harness__drain(h, -1);
	driver__counters(d, NULL, 0, &t0);
	for (int i = 0; i < 10000; i++)
		syscall(SYS_getppid);
	/* capture off, and programs still running finished: other processes'
	 * getppid calls cannot land between the counters and the drain */
	driver__set_capture(d, false);
	programs_settle();
	driver__counters(d, NULL, 0, &t1);
	got = harness__drain(h, -1);
	EXPECT(t1.n_drops_buffer - t0.n_drops_buffer > 0);
	/* Every event made is either delivered or counted as dropped. */
	EXPECT((uint64_t)got + (t1.n_drops_buffer - t0.n_drops_buffer) >= 20000);
	EXPECT(t1.n_evts - t0.n_evts == (uint64_t)got);
	printf("full ring: %d delivered, %llu counted as dropped\n", got,
	       (unsigned long long)(t1.n_drops_buffer - t0.n_drops_buffer));
	harness__close(h);
}

/* Exit-only mode sends a syscall's enter and exit frames in one ring record
 * (one ring write per syscall); an enter frame too big to park before the
 * exit frame goes in a record of its own. With sys_enter attached each frame
 * is a record. */
static void test_records(void)
{
	struct harness *h = open_only(64, NULL, records_calls);
	int64_t tid = syscall(SYS_gettid);
	char path[PARK_SIZE + 200];
	struct hevt *ce, *cx, *oe, *ox, *ge, *gx, *ue, *ux;
	struct driver_load_info li;
	int at = 0;

	memset(path, 'p', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	harness__drain(h, -1);
	close(-5151);
	syscall(SYS_getppid);
	EXPECT(syscall(SYS_open, path, O_RDONLY) == -1);	/* no such file */
	syscall(SYS_getuid);
	harness__drain(h, tid);
	ce = harness__find(h, PPME_SYSCALL_CLOSE_E, &at);
	cx = harness__find(h, PPME_SYSCALL_CLOSE_X, &at);
	ge = harness__find(h, PPME_GENERIC_E, &at);
	gx = harness__find(h, PPME_GENERIC_X, &at);
	oe = harness__find(h, PPME_SYSCALL_OPEN_E, &at);
	ox = harness__find(h, PPME_SYSCALL_OPEN_X, &at);
	ue = harness__find(h, PPME_SYSCALL_GETUID_E, &at);
	ux = harness__find(h, PPME_SYSCALL_GETUID_X, &at);
	EXPECT(ce && cx && ge && gx && oe && ox && ue && ux);
	if (!(ce && cx && ge && gx && oe && ox && ue && ux)) {
		harness__close(h);
		return;
	}
	EXPECT_PARAM_INT(ce, 0, -5151);
	EXPECT(oe->hdr.len > PARK_SIZE);
	EXPECT(cx->rec != ge->rec && gx->rec != oe->rec && oe->rec != ox->rec && ox->rec != ue->rec);
	/* Only exits are ever read from the ring with a rebuilt enter before them. */
	EXPECT(!cx->rebuilt && !gx->rebuilt && !ox->rebuilt && !ux->rebuilt && !ce->rebuilt &&
	       !oe->rebuilt);
	if (harness__exit_only()) {
		EXPECT(ce->rec == cx->rec && ge->rec == gx->rec && ue->rec == ux->rec);
		EXPECT(ge->hdr.ts == gx->hdr.ts && ue->hdr.ts == ux->hdr.ts);
		/* close's enter event is stamped when the close began
		 * (close_enter.bpf.h): not after its exit's stamp (one clock,
		 * which never goes back) */
		EXPECT(!driver__load_info(harness__driver(h), &li, false) && li.close_began == 1 &&
		       ce->hdr.ts <= cx->hdr.ts);
		/* getppid (a generic pair whose ID names one call) and getuid (an
		 * enter event without params) cost one frame: their enter events
		 * are rebuilt from it. close's enter event carries the fd, which
		 * its exit does not: both frames are sent. */
		EXPECT(ge->rebuilt && ue->rebuilt && !(ce->rebuilt));
		EXPECT(schema_syscall_routes[SYS_getppid].flags & UF_EO_SYNTH);
		EXPECT(schema_syscall_routes[SYS_getuid].flags & UF_EO_SYNTH);
		EXPECT(!(schema_syscall_routes[SYS_close].flags & UF_EO_SYNTH));
	} else {
		EXPECT(ce->rec != cx->rec && ge->rec != gx->rec && ue->rec != ux->rec);
		EXPECT(!ge->rebuilt && !ue->rebuilt);
	}
	hevt__expect_header(ue, PPME_SYSCALL_GETUID_E, tid);
	hevt__expect_header(ge, PPME_GENERIC_E, tid);
	EXPECT_PARAM_INT(ge, 0, schema_syscall_routes[SYS_getppid].ppm_sc);
	EXPECT_PARAM_INT(ge, 1, SYS_getppid);
	harness__close(h);
}

/* drop_failed: a failing syscall sends its enter event but no exit event; a
 * succeeding one sends both. */
static void test_drop_failed(void)
{
	struct driver_config cfg = { .own_tgid = UINT32_MAX, .drop_failed = true };
	struct harness *h = open_only(64, &cfg, drop_failed_calls);
	int64_t tid = syscall(SYS_gettid);
	int fd = dup(1);
	struct hevt *e;
	int at = 0, enters = 0, exits = 0, msyncs = 0;

	harness__drain(h, -1);
	close(-4242);		/* EBADF */
	close(fd);		/* succeeds */
	/* A failing call whose enter event exit-only capture would leave out
	 * (a generic pair): its enter event is sent, as the driver's own. */
	EXPECT(syscall(SYS_msync, (void *)1, 1, 0) == -1);
	harness__drain(h, tid);
	while ((e = harness__find(h, PPME_GENERIC_E, &at))) {
		if (hevt__int(e, 1) != SYS_msync)
			continue;
		msyncs++;
		EXPECT(!e->rebuilt);
		EXPECT_PARAM_INT(e, 0, schema_syscall_routes[SYS_msync].ppm_sc);
	}
	EXPECT(msyncs == 1);
	EXPECT(schema_syscall_routes[SYS_msync].flags & UF_EO_SYNTH);
	at = 0;
	while ((e = harness__find(h, PPME_GENERIC_X, &at)))
		EXPECT(hevt__int(e, 0) != schema_syscall_routes[SYS_msync].ppm_sc);
	at = 0;
	while ((e = harness__find(h, PPME_SYSCALL_CLOSE_E, &at)))
		enters += hevt__int(e, 0) == -4242 || hevt__int(e, 0) == fd;
	at = 0;
	while ((e = harness__find(h, PPME_SYSCALL_CLOSE_X, &at))) {
		exits++;
		EXPECT_PARAM_INT(e, 0, 0);	/* only the successful close */
	}
	EXPECT(enters == 2);
	EXPECT(exits == 1);
	harness__close(h);
}

int main(void)
{
	test_drop_failed();
	test_close_and_generic();
	test_records();
	test_procexit();
	test_bitmap();
	test_own_process_skipped();
	test_full_ring_counts_drops();
	return harness__report("driver_core");
}
