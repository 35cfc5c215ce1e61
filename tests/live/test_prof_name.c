/* Profiling's names of the files a followed thread waits on
 * (driver/prof_name.bpf.h, driver_config.profile_names; request mode keeps
 * file opens in the kernel, so the agent learns those files from these): a
 * worker followed from its first socket write opens a file on disk (its
 * open not sent: only write, read and recvfrom are loaded) and writes and
 * fsyncs it until it blocks in one (its voluntary switches say so), sends a
 * socket write, then does it again. Checked: each round's first file wait
 * brings one FD_NAME event, at that wait's very start (the switch out), with
 * the worker's tid, the fd and the file's real path; one per round however
 * many waits (named once between sent events), none for a wait not on a
 * file; every file wait's slice on an fd carries that fd. A run in which the
 * tracepoints hid one of the worker's switches (an unseen slice, checked as
 * such: its wait's kind, and so its name, cannot be known) is made again with
 * a new worker, up to five times. */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "procnet/pn_test.h"

static const int prof_calls[] = { SYS_write, SYS_read, SYS_recvfrom, -1 };

#define CHUNK (256 * 1024)
#define ROUNDS_MAX 50

static struct {
	int srv, cli, file;
	long worker;
	int blocked[2];		/* rounds until the worker blocked, each part */
	char path[PATH_MAX];
} x;

static long nvcsw(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nvcsw;
}

/* Writes and fsyncs the file until an fsync (or the write) blocked. */
static int write_until_blocked(void)
{
	static char buf[CHUNK];

	memset(buf, 'f', sizeof(buf));
	for (int i = 1; i <= ROUNDS_MAX; i++) {
		long before = nvcsw();

		if (pwrite(x.file, buf, sizeof(buf), (off_t)(i % 8) * CHUNK) != CHUNK ||
		    fsync(x.file))
			perror("write, fsync");
		if (nvcsw() > before)
			return i;
	}
	return 0;
}

static void *worker(void *arg)
{
	(void)arg;
	x.worker = pn_gettid();
	if (write(x.srv, "a", 1) != 1)			/* following begins */
		perror("write a");
	x.file = open(x.path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (x.file < 0)
		perror(x.path);
	x.blocked[0] = write_until_blocked();
	if (write(x.srv, "b", 1) != 1)			/* a sent event */
		perror("write b");
	x.blocked[1] = write_until_blocked();
	if (write(x.srv, "c", 1) != 1)
		perror("write c");
	close(x.file);
	return NULL;
}

/* The part of the worker's events from index *FROM (just past a socket
 * write's exit) to its next socket write's exit: its FD_NAME events and its
 * slices' file waits, checked. *FROM moves past that write. */
static void part__check(struct harness *h, int *from, int part)
{
	int end = *from, first = 1, names = 0;
	struct hevt *w = harness__find(h, PPME_SYSCALL_WRITE_X, &end);
	uint64_t named_at = 0;

	EXPECT(w != NULL);
	if (!w)
		return;
	for (int i = *from; i < end - 1; i++) {
		struct hevt *e = harness__get(h, i);

		if (e->hdr.type == PPME_FD_NAME_E) {
			hevt__expect_header(e, PPME_FD_NAME_E, x.worker);
			EXPECT_PARAM_INT(e, 0, x.worker);
			EXPECT_PARAM_INT(e, 1, x.file);
			EXPECT_PARAM_STR(e, 2, x.path);
			named_at = e->hdr.ts;
			names++;
			continue;
		}
		if (e->hdr.type != PPME_CPU_SLICES_E)
			continue;
		for (unsigned k = 0; k < e->p.len[2] / sizeof(struct prof_slice); k++) {
			struct prof_slice s;

			memcpy(&s, e->p.val[2] + k * sizeof(s), sizeof(s));
			/* the open's own wait (it may block) has no fd, so no name */
			if (s.kind != PROF_FILE || (s.nr == SYS_openat && !(s.flags & PROF_SLICE_FD)))
				continue;
			fprintf(stderr, "  part %d: file wait nr %u fd %llu at %llu, %llu ns\n", part,
				s.nr, (unsigned long long)s.obj, (unsigned long long)s.start,
				(unsigned long long)s.dur);
			EXPECT(s.flags == PROF_SLICE_FD && s.obj == (uint64_t)x.file);
			EXPECT(s.nr == SYS_fsync || s.nr == SYS_pwrite64);
			/* named as it went off CPU: before its first file wait's
			 * batch, at that wait's start */
			if (first)
				EXPECT(names == 1 && named_at == s.start);
			first = 0;
		}
	}
	EXPECT(!first);		/* it blocked on the file: a file wait seen */
	EXPECT(names == 1);	/* once, however many waits */
	*from = end;
}

int main(void)
{
	struct driver_config cfg = pn_capture_self;
	struct driver_counters dc;
	struct harness *h;
	pthread_t tw;
	int at, n, unseen, attempt = 0;
	char dir[PATH_MAX];

	/* on the disk the test runs from (a tmpfs fsync never blocks) */
	if (!getcwd(dir, sizeof(dir)) ||
	    snprintf(x.path, sizeof(x.path), "%s/prof_name.%d", dir, getpid()) >= (int)sizeof(x.path))
		return 1;
	pn_prof_sent(&cfg, prof_calls);
	cfg.profile_names = true;
	if (pn_tcp_pair4(&x.cli, &x.srv)) {
		perror("setup");
		return 1;
	}
	alarm(60);
	h = harness__open(64, &cfg);
again:
	attempt++;
	pthread_create(&tw, NULL, worker, NULL);
	pthread_join(tw, NULL);
	unlink(x.path);
	fprintf(stderr, "  blocked after %d and %d rounds of write and fsync\n", x.blocked[0],
		x.blocked[1]);
	EXPECT(x.blocked[0] > 0 && x.blocked[1] > 0);
	n = harness__drain(h, x.worker);
	EXPECT(n > 0);
	unseen = 0;
	for (int i = 0; i < n; i++)
		if (harness__get(h, i)->hdr.type == PPME_CPU_SLICES_E)
			unseen += pn_prof_unseen(harness__get(h, i));
	if (unseen && attempt < 5) {
		fprintf(stderr, "  attempt %d: %d of the worker's switches hidden from the "
			"tracepoints; again\n", attempt, unseen);
		goto again;
	}
	at = 0;
	/* from the first socket write ("a"), then "b", then "c" */
	EXPECT(harness__find(h, PPME_SYSCALL_WRITE_X, &at) != NULL);
	if (x.blocked[0] > 0 && x.blocked[1] > 0 && at < n) {
		part__check(h, &at, 0);
		part__check(h, &at, 1);
	}
	EXPECT(driver__counters(harness__driver(h), NULL, 0, &dc) > 0 && dc.n_prof_full == 0);
	EXPECT(dc.n_drops_bug == 0 && dc.n_drops_buffer == 0);
	harness__close(h);
	return harness__report("prof_name");
}
