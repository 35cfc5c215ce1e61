/* agent: capture system calls with eBPF, filter them, print text or JSON lines. */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capfile.h"
#include "capture.h"
#include "filter.h"
#include "format.h"
#include "inspect.h"
#include "loader.h"
#include "options.h"
#include "preflight.h"
#include "sbuf.h"
#include "summary.h"

#define EXIT_USAGE 2
/* How long one wait for events may last, so -M deadlines are kept. */
#define WAIT_MS 100

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	stop_requested = sig;
}

static void fail(const char *fmt, const char *arg)
{
	fputs("agent: ", stderr);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
}

static uint64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* SIGINT/SIGTERM are blocked except while the capture waits, so a signal can
 * never slip in between a check of stop_requested and the wait. A capture file
 * never waits, so there (BLOCK false) they stay deliverable at any time. */
static void signals__setup(sigset_t *wait_mask, bool block_them)
{
	struct sigaction sa = { .sa_handler = on_stop };
	sigset_t block;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);	/* a closed pipe shows up as EPIPE from write */
	if (!block_them) {
		sigprocmask(SIG_BLOCK, NULL, wait_mask);
		return;
	}
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, wait_mask);
	sigdelset(wait_mask, SIGINT);
	sigdelset(wait_mask, SIGTERM);
}

/* Narrows what the kernel sends to the syscalls the filter can match, plus those
 * that keep the thread and fd tables right. Returns how many syscalls stay on. */
static int pushdown(const struct filter *flt, struct capture *cap)
{
	struct filter_events evs;
	uint8_t sc[SYSCALL_TABLE_SIZE];
	struct driver *d = capture__driver(cap);

	if (!flt || !d || filter__events(flt, &evs) < 0 || evs.all)
		return SYSCALL_TABLE_SIZE;
	filter_events__add_state(&evs);
	int n = filter_events__syscalls(&evs, sc);
	driver__set_interesting(d, sc);
	return n;
}

struct agent {
	struct agent_opts o;
	struct filter *flt;
	struct format *fmt;
	struct capture *cap;
	struct inspector *in;
	struct field_ctx fctx;
	struct sbuf out;
	struct agent_tally tally;
	bool pipe_closed;
	uint64_t next_idle_ts;		/* event time at which agent__idle runs again */
	struct capfile_writer *writer;	/* -w */
	struct capfile_error ferr;	/* -r: why the file could not be read on */
	bool reported;			/* the error was already told to the user */
};

static int agent__emit(struct agent *a, const struct ievt *ev)
{
	int err;

	sbuf__reset(&a->out);
	err = a->o.json ? format__json(a->fmt, ev, &a->fctx, &a->out)
			: format__text(a->fmt, ev, &a->fctx, &a->out);
	if (err == -ENOENT)
		return 0;	/* a field the format needs is absent: sysdig skips it */
	if (err)
		return err;
	if (fwrite(a->out.buf, 1, a->out.len, stdout) != a->out.len ||
	    (a->o.unbuffered && fflush(stdout))) {
		if (errno == EPIPE) {
			a->pipe_closed = true;
			return 0;
		}
		return -errno;
	}
	a->tally.printed++;
	return 0;
}

/* Nothing came for WAIT_MS: hand what is buffered to the reader (a collector on a
 * narrow filter should not wait for 4 KiB of lines), and notice a reader that went
 * away, which a write would only tell at the next matching event. */
static void agent__idle(struct agent *a)
{
	struct pollfd p = { .fd = STDOUT_FILENO };

	if (a->o.quiet)
		return;
	if (fflush(stdout) && errno == EPIPE)
		a->pipe_closed = true;
	if (poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)))
		a->pipe_closed = true;
}

static int agent__run(struct agent *a, const sigset_t *wait_mask)
{
	uint64_t deadline = a->o.max_seconds ? monotonic_ms() + a->o.max_seconds * 1000 : 0;
	struct capture_event cev;
	struct ievt ev;
	int err;

	capture__set_sigmask(a->cap, wait_mask);
	while (!stop_requested && !a->pipe_closed) {
		if (deadline && monotonic_ms() >= deadline)
			break;
		err = capture__next(a->cap, &cev, WAIT_MS);
		if (err == -EAGAIN) {
			agent__idle(a);
			continue;
		}
		if (err == -EINTR)
			continue;
		if (err == -ENODATA)
			break;
		if (err) {
			if (a->o.read_file && a->ferr.msg[0]) {
				fail("%s", a->ferr.msg);
				a->reported = true;
			}
			return err;
		}
		if (inspector__process(a->in, &cev, &ev)) {
			a->tally.malformed++;
			continue;
		}
		/* Also on a busy system, where events that never match keep the wait
		 * from running dry: every 100 ms of event time (no clock read). */
		if (ev.ts >= a->next_idle_ts) {
			if (a->next_idle_ts)
				agent__idle(a);
			a->next_idle_ts = ev.ts + WAIT_MS * 1000000ull;
		}
		/* Old drivers' per-process CPU samples: internal, sysdig never shows them. */
		if (ev.type == PPME_PROCINFO_E)
			continue;
		if (a->flt && !filter__match(a->flt, &ev, &a->fctx))
			continue;
		a->tally.matched++;
		/* the file names a container before its first event, as sysdig's do */
		if (a->writer && ((err = capfile_writer__container(a->writer, ev.thread, ev.ts)) ||
				  (err = capfile_writer__write(a->writer, cev.cpu, cev.frame)))) {
			fprintf(stderr, "agent: cannot write %s: %s\n", a->o.write_file,
				strerror(-err));
			a->reported = true;
			return err;
		}
		if (!a->o.quiet && (err = agent__emit(a, &ev)))
			return err;
		if (a->o.max_events && a->tally.matched >= a->o.max_events)
			break;
	}
	return 0;
}

static int agent__compile(struct agent *a)
{
	struct filter_error ferr = { 0 };

	if (a->o.filter) {
		a->flt = filter__compile(a->o.filter, &ferr);
		if (!a->flt) {
			fail("bad filter: %s", ferr.msg);
			return -EINVAL;
		}
		if (filter__names_open_without_openat(a->flt))
			fail("%s", "warning: the filter names 'open' but not 'openat'; glibc opens "
			     "files with openat, so use 'evt.type in (open, openat)' to see them");
	}
	a->fmt = format__compile(a->o.format ? a->o.format : FORMAT_DEFAULT, &ferr);
	if (!a->fmt) {
		fail("bad output format: %s", ferr.msg);
		return -EINVAL;
	}
	return 0;
}

/* sysdig's buffer printing: cut at 80 characters unless -v or JSON output, in
 * one of the -A/-x/-X/-b forms. */
static void agent__buffer_options(struct agent *a)
{
	if (a->o.verbose || a->o.json)
		a->fctx.buf_limit = 0;
	switch (a->o.buf_format) {
	case 'A': a->fctx.buf_format = BUF_ASCII; break;
	case 'x': a->fctx.buf_format = BUF_HEX; break;
	case 'X': a->fctx.buf_format = BUF_HEXASCII; break;
	case 'b': a->fctx.buf_format = BUF_BASE64; break;
	}
}

/* -r: replay a capture file. Its tids are not this host's, so /proc is never read. */
static int agent__start_file(struct agent *a)
{
	struct inspector_opts io = { .no_proc_scan = true, .no_proc_lookup = true };
	struct capfile_import imp;

	a->in = inspector__new(&io);
	if (!a->in) {
		fail("cannot set up the process tables: %s", strerror(errno));
		return -errno;
	}
	field_ctx__init(&a->fctx, inspector__threads(a->in));
	agent__buffer_options(a);
	a->cap = capture__open_file_state(a->o.read_file, &a->ferr, a->in, &imp);
	if (!a->cap) {
		int err = -errno;

		fail("%s", a->ferr.msg);
		return err;
	}
	if (a->o.verbose)
		fprintf(stderr, "agent: reading %s: %" PRIu64 " threads and %" PRIu64 " fds "
			"from its lists (%" PRIu64 " malformed list blocks skipped), %" PRIu64
			" containers\n", a->o.read_file, imp.n_threads, imp.n_fds, imp.n_bad_lists,
			imp.n_containers);
	return 0;
}

static int agent__open_writer(struct agent *a)
{
	if (!a->o.write_file)
		return 0;
	a->writer = capfile_writer__open(a->o.write_file, a->o.compress);
	if (!a->writer) {
		int err = -errno;

		fprintf(stderr, "agent: cannot create %s: %s\n", a->o.write_file, strerror(-err));
		return err;
	}
	return 0;
}

/* -w: the processes and fds known now, so the file names them from its first
 * event on (sysdig's files start the same way). */
static int agent__write_state(struct agent *a)
{
	struct capfile_state_counts n;
	int err;

	if (!a->writer)
		return 0;
	if ((err = capfile_writer__state(a->writer, a->in, &n))) {
		fprintf(stderr, "agent: cannot write %s: %s\n", a->o.write_file, strerror(-err));
		a->reported = true;
		return err;
	}
	if (a->o.verbose)
		fprintf(stderr, "agent: %s starts with %" PRIu64 " threads, %" PRIu64 " fds and %"
			PRIu64 " containers\n", a->o.write_file, n.n_threads, n.n_fds,
			n.n_containers);
	return 0;
}

static int agent__start(struct agent *a)
{
	struct capture_live_opts lo = {
		.ring_pages = a->o.ring_pages,
		.snaplen = a->o.snaplen,
		.drop_failed = a->o.drop_failed,
	};
	struct inspector_opts io = { 0 };
	char msg[512];
	int err;

	if (a->o.read_file)
		return agent__start_file(a) ?: agent__open_writer(a) ?: agent__write_state(a);
	if ((err = preflight__check(msg, sizeof(msg)))) {
		fail("%s", msg);
		return err;
	}
	if ((err = agent__open_writer(a)))
		return err;
	a->in = inspector__new(&io);
	if (!a->in) {
		fail("cannot set up the process tables: %s", strerror(errno));
		return -errno;
	}
	/* Scan /proc before capturing so every thread the first events name is known. */
	inspector__scan_proc(a->in);
	if ((err = agent__write_state(a)))
		return err;
	field_ctx__init(&a->fctx, inspector__threads(a->in));
	agent__buffer_options(a);
	a->cap = capture__open_live(&lo);
	if (!a->cap) {
		err = -errno;
		preflight__explain_load(err, msg, sizeof(msg));
		fail("%s", msg);
		return err;
	}
	int n = pushdown(a->flt, a->cap);
	if (a->o.verbose) {
		struct capture_stats st;

		capture__stats(a->cap, &st);
		fprintf(stderr, "agent: capturing on %u CPUs (ring mode %s), %d of %d syscalls "
			"sent by the kernel\n", st.ncpus, st.mode ? st.mode : "?", n,
			SYSCALL_TABLE_SIZE);
	}
	return 0;
}

/* Returns -errno if the -w file could not be completed. */
static int agent__finish(struct agent *a)
{
	static struct capture_stats st;
	int err = 0;

	if (fflush(stdout) && errno == EPIPE)
		a->pipe_closed = true;
	if (a->cap) {
		memset(&st, 0, sizeof(st));
		capture__stats(a->cap, &st);
		capture__close(a->cap);	/* detaches every BPF program */
		a->cap = NULL;
		summary__print(stderr, &st, &a->tally);
		if (a->in) {
			struct container_counters cc;

			container_table__counters(inspector__containers(a->in), &cc);
			summary__containers(stderr, &cc);
		}
	}
	if (a->writer) {
		uint64_t n = capfile_writer__count(a->writer);

		err = capfile_writer__close(a->writer);
		a->writer = NULL;
		if (err)
			fprintf(stderr, "agent: cannot write %s: %s\n", a->o.write_file,
				strerror(-err));
		else
			fprintf(stderr, "agent: %llu events written to %s\n",
				(unsigned long long)n, a->o.write_file);
	}
	field_ctx__fini(&a->fctx);
	inspector__free(a->in);
	filter__free(a->flt);
	format__free(a->fmt);
	sbuf__free(&a->out);
	options__free(&a->o);
	return err;
}

int main(int argc, char **argv)
{
	static struct agent a;
	sigset_t wait_mask;
	char err[256];
	int rc;

	if (options__parse(argc, argv, &a.o, err, sizeof(err))) {
		fail("%s", err);
		return EXIT_USAGE;
	}
	if (a.o.help) {
		fputs(options_usage, stdout);
		return 0;
	}
	if (a.o.version) {
		printf("agent %s\n", AGENT_VERSION);
		return 0;
	}
	if (a.o.print_format) {
		printf("%s\n", a.o.format ? a.o.format : FORMAT_DEFAULT);
		return 0;
	}
	if (a.o.list_fields || a.o.list_events) {
		if (a.o.list_fields)
			fields__list(stdout);
		if (a.o.list_events)
			events__list(stdout);
		return 0;
	}
	sbuf__init(&a.out);
	if (agent__compile(&a)) {
		agent__finish(&a);
		return 1;
	}
	if (!isatty(STDOUT_FILENO) && !a.o.unbuffered)
		setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	else
		setvbuf(stdout, NULL, _IOLBF, 0);
	signals__setup(&wait_mask, !a.o.read_file);
	if (agent__start(&a)) {
		agent__finish(&a);
		return 1;
	}
	rc = agent__run(&a, &wait_mask);
	if (rc && !a.reported)
		fail("capture stopped: %s", strerror(-rc));
	if (agent__finish(&a))
		rc = -EIO;
	return rc ? 1 : 0;
}
