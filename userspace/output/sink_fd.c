/* stdout and file: outputs: many records per writev, blocking writes (fd 1 is
 * shared with other processes: it is not made non-blocking; output__close
 * interrupts a blocked write with OUTPUT_SIGNAL).
 * A file that fails (ENOSPC...) keeps its lines queued and is retried with
 * backoff from the exact byte where the last write stopped. stdout that fails
 * is fatal: the agent stops, what is queued is dropped as an output error.
 * On a pipe, no write can be left with part of a line when the deadline's
 * signal interrupts it (fd__pipe_cap). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output_int.h"

enum { FD_OK = 1, FD_FAILING, FD_OPEN_FAILING, FD_FATAL };

#define FD_PIPE_WAIT_MS 10	/* a long line's wait for its pipe to empty */

struct fd_sink {
	int fd;
	bool pipe;	/* a pipe or FIFO: writes sized by fd__pipe_cap */
	struct gather g;
};

/* The bytes the next write to the pipe FD may take. When the deadline's signal
 * interrupts a write waiting for room in a full pipe, the write returns what
 * went in, which may end inside a line, and the rest never follows. Two writes
 * cannot be cut so: one of at most PIPE_BUF bytes, which the kernel puts in
 * whole or not at all, and one into an empty pipe of at most its size, which
 * finds a free page for every byte and never waits. Bytes alone cannot say how
 * much more a pipe that holds some takes (each write may leave its last page
 * part empty), so then it is PIPE_BUF. */
static size_t fd__pipe_cap(int fd)
{
	int queued, size;

	if (ioctl(fd, FIONREAD, &queued) == 0 && queued == 0 &&
	    (size = fcntl(fd, F_GETPIPE_SZ)) > PIPE_BUF)
		return (size_t)size;
	return PIPE_BUF;
}

static bool fd__is_pipe(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

static int fd__open_file(const struct output *o)
{
	int fd = open(o->u.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);

	return fd < 0 ? -errno : fd;
}

static int fd__init(struct output *o, char *err, size_t errlen)
{
	struct fd_sink *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	o->sink = s;
	if (o->u.kind == OUTPUT_STDOUT) {
		s->fd = STDOUT_FILENO;
	} else {
		s->fd = fd__open_file(o);
		if (s->fd < 0) {
			snprintf(err, errlen, "cannot open %s: %s", o->u.path, strerror(-s->fd));
			return s->fd;
		}
		STAT_ADD(o, connects, 1);
	}
	s->pipe = fd__is_pipe(s->fd);
	o->state = FD_OK;
	STAT_SET(o, connected, true);
	return 0;
}

static enum step fd__stdout_failed(struct output *o, int e)
{
	STAT_SET(o, error, -e);
	STAT_SET(o, fatal, true);
	STAT_SET(o, connected, false);
	writer__state(o, FD_FATAL, 1, "writing to stdout failed: %s", strerror(e));
	writer__discard(o);
	return STEP_AGAIN;
}

/* Idle on stdout: has the reader gone (a pipe's POLLERR, a tty's POLLHUP)? */
static enum step fd__idle(struct output *o, struct fd_sink *s)
{
	struct pollfd p = { .fd = s->fd };

	if (o->u.kind == OUTPUT_STDOUT && poll(&p, 1, 0) == 1 &&
	    (p.revents & (POLLERR | POLLHUP)))
		return fd__stdout_failed(o, EPIPE);
	return STEP_IDLE;
}

/* file: reopen wanted (logrotate) and no record half written to the old one. */
static enum step fd__reopen(struct output *o, struct fd_sink *s)
{
	int fd;

	if (atomic_exchange(&o->reopen, false) && s->fd >= 0) {
		close(s->fd);
		s->fd = -1;
		STAT_SET(o, connected, false);
	}
	if (s->fd >= 0)
		return STEP_AGAIN;
	fd = fd__open_file(o);
	if (fd < 0) {
		STAT_ADD(o, connect_failures, 1);
		STAT_SET(o, error, fd);
		writer__state(o, FD_OPEN_FAILING, 1, "cannot open %s: %s; retrying with backoff",
			      o->u.path, strerror(-fd));
		return STEP_BACKOFF;
	}
	s->fd = fd;
	s->pipe = fd__is_pipe(fd);
	STAT_ADD(o, connects, 1);
	STAT_SET(o, connected, true);
	return STEP_AGAIN;
}

static enum step fd__step(struct output *o)
{
	struct fd_sink *s = o->sink;
	size_t cap = SIZE_MAX;
	bool rotating;
	ssize_t n;

	if (STAT_GET(o, fatal)) {
		writer__discard(o);
		return STEP_IDLE;
	}
	rotating = o->u.kind == OUTPUT_FILE && atomic_load(&o->reopen);
	if (s->fd < 0 || (rotating && !o->partial)) {
		if (fd__reopen(o, s) == STEP_BACKOFF)
			return STEP_BACKOFF;
		rotating = false;
	}
	/* (nothing queued: no syscall to size a write that will not be) */
	if (s->pipe && queue__bytes(&o->q))
		cap = fd__pipe_cap(s->fd);
	/* while rotating, only the half-written record goes to the old file */
	if (!gather__fill(o, &s->g, rotating ? 1 : GATHER_MAX, cap))
		return fd__idle(o, s);
	if (s->g.total > cap && cap == PIPE_BUF && !o->partial) {
		/* a line longer than PIPE_BUF waits for the pipe to empty (one
		 * longer than the pipe is written as it comes, and may be cut) */
		int ms = writer__slice_ms(o);

		poll(NULL, 0, ms < FD_PIPE_WAIT_MS ? ms : FD_PIPE_WAIT_MS);
		return STEP_AGAIN;
	}
	n = writev(s->fd, s->g.iov, s->g.iovcnt);
	if (n < 0) {
		int e = errno;

		if (e == EINTR)
			return STEP_AGAIN;
		if (e == EAGAIN) {
			/* someone else made fd 1 non-blocking */
			struct pollfd p = { .fd = s->fd, .events = POLLOUT };

			poll(&p, 1, writer__slice_ms(o));
			return STEP_AGAIN;
		}
		STAT_ADD(o, write_errors, 1);
		if (o->u.kind == OUTPUT_STDOUT)
			return fd__stdout_failed(o, e);
		STAT_SET(o, error, -e);
		writer__state(o, FD_FAILING, 1, "cannot write to %s: %s; retrying with backoff",
			      o->u.path, strerror(e));
		return STEP_BACKOFF;
	}
	if ((size_t)n < s->g.total)
		STAT_ADD(o, write_errors, 1);
	gather__advance(o, &s->g, (size_t)n);
	if (STAT_GET(o, error)) {
		STAT_SET(o, error, 0);
		writer__backoff_reset(o);
	}
	writer__state(o, FD_OK, 0, "writing to %s again", o->url);
	return STEP_AGAIN;
}

static void fd__fini(struct output *o)
{
	struct fd_sink *s = o->sink;

	if (!s)
		return;
	if (o->u.kind == OUTPUT_FILE && s->fd >= 0)
		close(s->fd);
	free(s);
	o->sink = NULL;
}

const struct sink_ops sink_fd_ops = {
	.init = fd__init,
	.step = fd__step,
	.fini = fd__fini,
};
