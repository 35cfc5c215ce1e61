/* Profiling's kernel side (driver/prof.bpf.*, driver_config.profile =
 * PROF_FOLLOW_SENT, request mode's socket filter on): a worker thread that is
 * followed from its first socket write, then blocks four ways, each until a
 * helper thread ends it once /proc shows the worker asleep in that very call:
 * nanosleep (sleep), a futex wait (lock, with its address, woken by the
 * helper), a read of an empty pipe (other, with the fd) and a recvfrom on a
 * TCP socket (net, with the fd). Its next socket write brings its batch
 * before the write's own events. Every param and slice is checked: the first
 * batch has no slices and begins when it is sent, the second begins where the
 * first ended and holds the four waits in order, each followed by its run
 * queue wait (but for a wakeup the tracepoints hid), all inside the batch's
 * span; the sleep lasts at least what was
 * asked, the futex's waker is the helper; nothing past the table. A run in
 * which the tracepoints hid one of the worker's switches (an unseen slice,
 * checked as such) or its futex's wakeup (no waker) is made again with a new
 * worker, up to five times. */
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <time.h>

#include "procnet/pn_test.h"

static const int prof_calls[] = { SYS_write, SYS_read, SYS_recvfrom, -1 };

static struct {
	int cli, srv, pipe[2];
	atomic_uint word;
	atomic_long worker;		/* its tid, once it runs */
	atomic_int phase;		/* what the worker is about to block in */
} x;

enum { PH_SLEEP = 1, PH_FUTEX, PH_PIPE, PH_NET, PH_DONE };

/* The worker's state: asleep ('S') in syscall NR (/proc/self/task/TID/syscall
 * names the call a blocked thread is in). */
static int asleep_in(long tid, long nr)
{
	char path[64], buf[128];
	FILE *f;
	long n = -1;
	char st = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/syscall", tid);
	if (!(f = fopen(path, "r")))
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	n = strtol(buf, NULL, 10);
	snprintf(path, sizeof(path), "/proc/self/task/%ld/stat", tid);
	if (!(f = fopen(path, "r")))
		return 0;
	if (fgets(buf, sizeof(buf), f)) {
		char *p = strrchr(buf, ')');

		if (p && p[1] == ' ')
			st = p[2];
	}
	fclose(f);
	return n == nr && st == 'S' && buf[0] != 'r';
}

static void wait_asleep(long nr)
{
	for (int i = 0; i < 5000 && !asleep_in(x.worker, nr); i++)
		usleep(1000);
}

static long helper_tid;

/* Ends each of the worker's waits once it sleeps in it. */
static void *helper(void *arg)
{
	(void)arg;
	helper_tid = pn_gettid();
	while (atomic_load(&x.phase) < PH_FUTEX)
		usleep(500);
	wait_asleep(SYS_futex);
	atomic_store(&x.word, 1);
	syscall(SYS_futex, &x.word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	while (atomic_load(&x.phase) < PH_PIPE)
		usleep(500);
	wait_asleep(SYS_read);
	if (write(x.pipe[1], "p", 1) != 1)
		perror("pipe write");
	while (atomic_load(&x.phase) < PH_NET)
		usleep(500);
	wait_asleep(SYS_recvfrom);
	if (write(x.cli, "n", 1) != 1)
		perror("net write");
	return NULL;
}

static void *worker(void *arg)
{
	struct timespec nap = { 0, 30 * 1000000L };
	char c;

	(void)arg;
	atomic_store(&x.worker, pn_gettid());
	if (write(x.srv, "a", 1) != 1)			/* following begins */
		perror("write a");
	atomic_store(&x.phase, PH_SLEEP);
	syscall(SYS_nanosleep, &nap, NULL);
	atomic_store(&x.phase, PH_FUTEX);
	while (!atomic_load(&x.word))
		syscall(SYS_futex, &x.word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	atomic_store(&x.phase, PH_PIPE);
	if (read(x.pipe[0], &c, 1) != 1)
		perror("pipe read");
	atomic_store(&x.phase, PH_NET);
	if (recvfrom(x.srv, &c, 1, 0, NULL, NULL) != 1)
		perror("recvfrom");
	if (write(x.srv, "b", 1) != 1)			/* its batch goes first */
		perror("write b");
	atomic_store(&x.phase, PH_DONE);
	return NULL;
}

static void slice__get(const struct hevt *e, unsigned i, struct prof_slice *s)
{
	memcpy(s, e->p.val[2] + i * sizeof(*s), sizeof(*s));
}

int main(void)
{
	struct driver_config cfg = pn_capture_self;
	struct hevt *hello, *batch, *e;
	struct driver_counters dc;
	struct harness *h;
	pthread_t tw, th;
	int at, n, k, hidden = 0, unseen, attempt = 0;
	uint64_t prev_end;
	static const struct { uint8_t kind; uint16_t nr; } want[] = {
		{ PROF_SLEEP, SYS_nanosleep }, { PROF_LOCK, SYS_futex },
		{ PROF_OTHER, SYS_read }, { PROF_NET, SYS_recvfrom },
	};

	pn_prof_sent(&cfg, prof_calls);
	if (pn_tcp_pair4(&x.cli, &x.srv) || pipe(x.pipe)) {
		perror("setup");
		return 1;
	}
	alarm(60);	/* a wait that never ends fails the test, not the suite */
	h = harness__open(64, &cfg);
again:
	attempt++;
	atomic_store(&x.word, 0);
	atomic_store(&x.phase, 0);
	atomic_store(&x.worker, 0);
	pthread_create(&th, NULL, helper, NULL);
	pthread_create(&tw, NULL, worker, NULL);
	pthread_join(tw, NULL);
	pthread_join(th, NULL);
	n = harness__drain(h, x.worker);
	EXPECT(n > 0);
	at = 0;

	/* the first batch: no slices, from its own time, before the first write */
	hello = harness__find(h, PPME_CPU_SLICES_E, &at);
	EXPECT(hello != NULL);
	if (!hello)
		goto out;
	hevt__expect_header(hello, PPME_CPU_SLICES_E, x.worker);
	EXPECT_PARAM_INT(hello, 0, x.worker);
	EXPECT_PARAM_INT(hello, 1, hello->hdr.ts);
	EXPECT(hello->p.len[2] == 0);
	k = 0;
	e = harness__find(h, PPME_SYSCALL_WRITE_X, &k);
	EXPECT(e && k > at - 1 && e->hdr.ts >= hello->hdr.ts);

	/* the second: where the first ended, before the write of "b" */
	at++;
	batch = harness__find(h, PPME_CPU_SLICES_E, &at);
	EXPECT(batch != NULL);
	if (!batch)
		goto out;
	hevt__expect_header(batch, PPME_CPU_SLICES_E, x.worker);
	EXPECT_PARAM_INT(batch, 0, x.worker);
	EXPECT_PARAM_INT(batch, 1, hello->hdr.ts);
	EXPECT(batch->p.len[2] % sizeof(struct prof_slice) == 0 &&
	       batch->p.len[2] <= PROF_BATCH * sizeof(struct prof_slice));
	k = at + 1;
	e = harness__find(h, PPME_SYSCALL_WRITE_X, &k);
	EXPECT(e && hevt__int(e, 0) == 1 && e->hdr.ts >= batch->hdr.ts);
	/* A switch the tracepoints hid (driver/README.md, "Switches not seen":
	 * this machine's sandbox hides its own threads' switches, and so the
	 * worker's to and from them) makes the wait around it an unseen slice,
	 * whose kind cannot be known: the driver says so, and the four kinds are
	 * checked on another worker. */
	unseen = pn_prof_unseen(batch);
	/* the futex's waker comes from sched_waking, which misses a wakeup on a
	 * CPU coming out of idle now and then: no waker then, never a wrong one */
	for (unsigned i = 0; i < batch->p.len[2] / sizeof(struct prof_slice); i++) {
		struct prof_slice s;

		slice__get(batch, i, &s);
		if (s.kind == PROF_LOCK && s.nr == SYS_futex && s.waker == 0)
			unseen++;
	}
	if (unseen && attempt < 5) {
		fprintf(stderr, "  attempt %d: %d of the worker's switches or its futex's "
			"wakeup hidden from the tracepoints; again\n", attempt, unseen);
		goto again;
	}
	/* the slices: in order, inside the span; the four waits, each with its
	 * run-queue wait after it (other waits, a page fault, may come between) */
	prev_end = hello->hdr.ts;
	k = 0;
	for (unsigned i = 0; i < batch->p.len[2] / sizeof(struct prof_slice); i++) {
		struct prof_slice s;

		slice__get(batch, i, &s);
		EXPECT(s.start >= prev_end && s.start + s.dur <= batch->hdr.ts);
		EXPECT(s.kind < PROF__KINDS);
		prev_end = s.start + s.dur;
		fprintf(stderr, "  slice %u: kind %u nr %u dur %llu obj %#llx waker %u flags %u\n", i,
			s.kind, s.nr, (unsigned long long)s.dur, (unsigned long long)s.obj, s.waker,
			s.flags);
		if (k < 4 && s.kind == want[k].kind && s.nr == want[k].nr) {
			struct prof_slice r;

			switch (want[k].kind) {
			case PROF_SLEEP:
				EXPECT(s.waker == 0 && s.obj == 0 && s.flags == 0);
				break;
			case PROF_LOCK:
				EXPECT(s.obj == (uint64_t)(uintptr_t)&x.word);
				EXPECT(s.waker == (uint32_t)helper_tid);
				break;
			case PROF_OTHER:
				EXPECT(s.flags == PROF_SLICE_FD && s.obj == (uint64_t)x.pipe[0]);
				EXPECT(s.waker == 0);
				break;
			case PROF_NET:
				EXPECT(s.flags == PROF_SLICE_FD && s.obj == (uint64_t)x.srv);
				EXPECT(s.waker == 0);
				break;
			}
			/* its run-queue wait: next, from its end, not preempted;
			 * unless its wakeup was one the tracepoints hid (on these
			 * VMs, now and then, one on a CPU coming out of idle:
			 * driver/README.md, "Switches not seen"), when the wait
			 * lasted until it ran and the next slice is later */
			EXPECT(i + 1 < batch->p.len[2] / sizeof(struct prof_slice));
			if (i + 1 < batch->p.len[2] / sizeof(struct prof_slice)) {
				slice__get(batch, i + 1, &r);
				if (r.kind == PROF_RUNQ)
					EXPECT(r.start == s.start + s.dur && r.nr == PROF_NR_NONE &&
					       r.flags == 0);
				else {
					EXPECT(r.start > s.start + s.dur);
					hidden++;
				}
				/* the sleep: what was asked, with its run-queue wait
				 * (the split between the two comes from the
				 * scheduler's clock: seen 106 ns short of 30 ms on
				 * the sleep alone), less a millisecond for the timer
				 * armed inside the call before the switch out */
				if (want[k].kind == PROF_SLEEP)
					EXPECT(s.dur + (r.kind == PROF_RUNQ ? r.dur : 0) >=
					       29 * 1000000ull);
			}
			k++;
		}
	}
	EXPECT(k == 4);
	if (hidden)
		fprintf(stderr, "  %d of the 4 wakeups hidden from the tracepoints\n", hidden);
	EXPECT(driver__counters(harness__driver(h), NULL, 0, &dc) > 0 && dc.n_prof_full == 0);
out:
	harness__close(h);
	return harness__report("prof_slices");
}
