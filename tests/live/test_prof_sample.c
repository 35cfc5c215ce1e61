/* Profiling's on-CPU stacks (driver/prof_sample.bpf.c, driver_config.profile_hz
 * 997, threads followed from their first socket write): a worker that is
 * followed, then spins 300 ms of its CPU time in sample_spin, then writes
 * again and exits. A bystander thread has an event of its own sent (getppid:
 * not I/O) and spins 50 ms: following begins at I/O only, so it is never
 * followed and no sample or batch names it. Every CPU_SAMPLE event is the
 * worker's (no other thread of ours is followed), after its first event (following begins as that event
 * goes out), with its header and params right; the worker stays followed
 * until it exits, so a sample may come after its second write, in the few
 * microseconds of CPU its exit takes: at most 2 such at 997 Hz. Each
 * carries its stacks: the user stack's addresses (innermost first), all in
 * user space, and in most samples holding sample_spin (named by dladdr: the
 * test is linked with -rdynamic and built with frame pointers); the kernel
 * stack's, all in the kernel's half, where there is one. At least half the
 * samples a 997 Hz clock gives in 300 ms of CPU time come. */
#include <dlfcn.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>

#include "procnet/pn_test.h"

static const int sample_calls[] = { SYS_write, SYS_getppid, -1 };

static int srv;
static long worker_tid, bystander_tid;
static volatile uint64_t sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) void sample_spin(uint64_t ns)
{
	uint64_t end = cpu_ns() + ns;

	while (cpu_ns() < end)
		for (int i = 0; i < 200000; i++)
			sink += (uint64_t)i * sink + 1;
}

static void *worker(void *arg)
{
	(void)arg;
	worker_tid = pn_gettid();
	if (write(srv, "a", 1) != 1)		/* following begins */
		perror("write a");
	sample_spin(300 * 1000000ull);
	if (write(srv, "b", 1) != 1)
		perror("write b");
	return NULL;
}

static void *bystander(void *arg)
{
	(void)arg;
	bystander_tid = pn_gettid();
	syscall(SYS_getppid);	/* an event sent, not I/O */
	sample_spin(50 * 1000000ull);
	return NULL;
}

/* Whether one of the N addresses is in sample_spin. */
static bool holds_spin(const uint64_t *ips, int n)
{
	for (int i = 0; i < n; i++) {
		Dl_info di;

		if (dladdr((void *)(uintptr_t)ips[i], &di) && di.dli_sname &&
		    !strcmp(di.dli_sname, "sample_spin"))
			return true;
	}
	return false;
}

int main(void)
{
	struct driver_config cfg = pn_capture_self;
	struct hevt *w0 = NULL, *wa = NULL, *wb = NULL, *e;
	struct harness *h;
	pthread_t tw, tb;
	int by_events = 0;
	int cli, n, samples = 0, with_spin = 0, read_back = 0, after = 0, hz, cap;
	FILE *f;

	pn_prof_sent(&cfg, sample_calls);
	cfg.profile_hz = 997;
	if (pn_tcp_pair4(&cli, &srv)) {
		perror("setup");
		return 1;
	}
	alarm(60);
	h = harness__open(64, &cfg);
	pthread_create(&tb, NULL, bystander, NULL);
	pthread_join(tb, NULL);
	pthread_create(&tw, NULL, worker, NULL);
	pthread_join(tw, NULL);
	n = harness__drain(h, -1);	/* every thread's: only the worker's may sample */
	EXPECT(n > 0);
	for (int i = 0; i < harness__count(h); i++) {
		e = harness__get(h, i);
		if (e->hdr.tid == (uint64_t)bystander_tid) {
			by_events++;
			EXPECT(e->hdr.type != PPME_CPU_SAMPLE_E && e->hdr.type != PPME_CPU_SLICES_E);
		}
		if (e->hdr.tid != (uint64_t)worker_tid || e->hdr.type == PPME_CPU_SAMPLE_E)
			continue;
		if (!w0)
			w0 = e;
		if (e->hdr.type == PPME_SYSCALL_WRITE_X)
			*(wa ? &wb : &wa) = e;
	}
	EXPECT(wa && wb);
	EXPECT(by_events > 0);	/* its getppid went: it had an event sent */
	if (!wa || !wb)
		goto out;
	for (int i = 0; i < harness__count(h); i++) {
		uint64_t ips[PROF_STACK_DEPTH];
		int nu, nk;

		e = harness__get(h, i);
		if (e->hdr.type != PPME_CPU_SAMPLE_E)
			continue;
		hevt__expect_header(e, PPME_CPU_SAMPLE_E, worker_tid);
		EXPECT(e->p.n == 3 && e->p.len[0] == 8);
		EXPECT_PARAM_INT(e, 0, worker_tid);
		EXPECT(e->hdr.ts > w0->hdr.ts);
		/* whole addresses, at most the kernel's depth each */
		EXPECT(e->p.len[1] % 8 == 0 && e->p.len[1] <= PROF_STACK_DEPTH * 8);
		EXPECT(e->p.len[2] % 8 == 0 && e->p.len[2] <= PROF_STACK_DEPTH * 8);
		nk = e->p.len[2] / 8;
		for (int j = 0; j < nk && j < PROF_STACK_DEPTH; j++) {
			memcpy(&ips[j], e->p.val[2] + j * 8, 8);
			EXPECT(ips[j] >= 0xffff800000000000ull);
		}
		if (e->hdr.ts < wa->hdr.ts || e->hdr.ts > wb->hdr.ts) {
			after += e->hdr.ts > wb->hdr.ts;
			continue;	/* in a write or the exit, not the spin */
		}
		samples++;
		nu = e->p.len[1] / 8;
		if (nu <= 0 || nu > PROF_STACK_DEPTH)
			continue;
		for (int j = 0; j < nu; j++) {
			memcpy(&ips[j], e->p.val[1] + j * 8, 8);
			EXPECT(ips[j] && ips[j] < 0x0000800000000000ull);
		}
		read_back++;
		with_spin += holds_spin(ips, nu);
	}
	/* half of what 300 ms at 997 Hz gives, or at the kernel's cap on the
	 * rate, which it lowers when sampling interrupts run long */
	hz = 997;
	if ((f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r"))) {
		if (fscanf(f, "%d", &cap) == 1 && cap > 0 && cap < hz)
			hz = cap;
		fclose(f);
	}
	fprintf(stderr, "  %d samples in 300 ms of CPU at %d Hz, %d with a user stack, %d in "
		"sample_spin, %d after its last write\n", samples, hz, read_back, with_spin, after);
	EXPECT(samples >= hz * 3 / 10 / 2);
	EXPECT(after <= 2);
	EXPECT(read_back >= samples * 9 / 10);
	EXPECT(with_spin >= read_back * 9 / 10);
out:
	harness__close(h);
	close(cli);
	close(srv);
	return harness__report("prof_sample");
}
