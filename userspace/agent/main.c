/* agent: capture system calls with eBPF, filter them, print text or JSON lines. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
 * never slip in between a check of stop_requested and the wait. */
static void signals__setup(sigset_t *wait_mask)
{
	struct sigaction sa = { .sa_handler = on_stop };
	sigset_t block;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);	/* a closed pipe shows up as EPIPE from write */
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
		if (err == -EAGAIN || err == -EINTR)
			continue;
		if (err == -ENODATA)
			break;
		if (err)
			return err;
		if (inspector__process(a->in, &cev, &ev)) {
			a->tally.malformed++;
			continue;
		}
		if (a->flt && !filter__match(a->flt, &ev, &a->fctx))
			continue;
		a->tally.matched++;
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

	if ((err = preflight__check(msg, sizeof(msg)))) {
		fail("%s", msg);
		return err;
	}
	a->in = inspector__new(&io);
	if (!a->in) {
		fail("cannot set up the process tables: %s", strerror(errno));
		return -errno;
	}
	/* Scan /proc before capturing so every thread the first events name is known. */
	inspector__scan_proc(a->in);
	field_ctx__init(&a->fctx, inspector__threads(a->in));
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

static void agent__finish(struct agent *a)
{
	static struct capture_stats st;

	if (fflush(stdout) && errno == EPIPE)
		a->pipe_closed = true;
	if (a->cap) {
		memset(&st, 0, sizeof(st));
		capture__stats(a->cap, &st);
		capture__close(a->cap);	/* detaches every BPF program */
		a->cap = NULL;
		summary__print(stderr, &st, &a->tally);
	}
	field_ctx__fini(&a->fctx);
	inspector__free(a->in);
	filter__free(a->flt);
	format__free(a->fmt);
	sbuf__free(&a->out);
	options__free(&a->o);
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
	signals__setup(&wait_mask);
	if (agent__start(&a)) {
		agent__finish(&a);
		return 1;
	}
	rc = agent__run(&a, &wait_mask);
	if (rc)
		fail("capture stopped: %s", strerror(-rc));
	agent__finish(&a);
	return rc ? 1 : 0;
}
