/* Socket outputs: tcp://, unix:, syslog:// (streams of lines, framed or not)
 * and syslog / syslog:PATH (one datagram per line, or a stream with newline
 * framing when the socket is SOCK_STREAM: connect says EPROTOTYPE).
 * Local syslog is written here rather than with syslog(3), which reports no
 * errors: a line it could not send would be counted as emitted.
 *
 * Connecting: in the background, again after a loss, with capped exponential
 * backoff. Writing: non-blocking, waiting in ticks so a stop is seen. A record
 * cut by a lost connection is dropped (drop_error), never resent in part at
 * the start of the next connection. Lines the kernel accepted are emitted:
 * those still in its socket buffer when the peer dies are lost uncounted. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "output_int.h"

#define DGRAMS_PER_STEP 64

enum { ST_CONNECTED = 1, ST_FAILING, ST_LOST };

struct stream_sink {
	int fd;
	bool dgram;
	bool syslog_stream;	/* syslog:PATH turned out to be SOCK_STREAM */
	bool told_msgsize;
	struct gather g;
};

static int stream__init(struct output *o, char *err, size_t errlen)
{
	struct stream_sink *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->fd = -1;
	o->sink = s;
	if (o->u.kind == OUTPUT_SYSLOG_TCP)
		o->framing = FRAME_5424;
	else if (o->u.kind == OUTPUT_SYSLOG)
		o->framing = FRAME_3164;
	return 0;
}

static enum step stream__connect(struct output *o, struct stream_sink *s)
{
	int type = o->u.kind == OUTPUT_SYSLOG && !s->syslog_stream ? SOCK_DGRAM : SOCK_STREAM;
	char why[256] = "";
	int fd;

	fd = sock__connect(o, type, why, sizeof(why));
	if (fd == -EPROTOTYPE && type == SOCK_DGRAM) {
		s->syslog_stream = true;
		o->framing = FRAME_3164_NL;
		type = SOCK_STREAM;
		fd = sock__connect(o, type, why, sizeof(why));
	}
	if (fd == -ECANCELED)
		return STEP_AGAIN;	/* the writer loop sees the deadline */
	if (fd < 0) {
		STAT_ADD(o, connect_failures, 1);
		STAT_SET(o, error, fd);
		STAT_SET(o, connected, false);
		writer__state(o, ST_FAILING, 1, "cannot connect to %s: %s; retrying with backoff",
			      o->url, why);
		return STEP_BACKOFF;
	}
	s->fd = fd;
	s->dgram = type == SOCK_DGRAM;
	STAT_ADD(o, connects, 1);
	STAT_SET(o, connected, true);
	STAT_SET(o, error, 0);
	writer__state(o, ST_CONNECTED, 0, "connected to %s", o->url);
	return STEP_AGAIN;
}

static enum step stream__lost(struct output *o, struct stream_sink *s, int e)
{
	close(s->fd);
	s->fd = -1;
	STAT_SET(o, connected, false);
	STAT_SET(o, error, -e);
	if (o->partial)
		writer__drop_first(o);
	writer__state(o, ST_LOST, 1, "connection to %s lost: %s", o->url,
		      e == EPIPE ? "closed by the peer" : strerror(e));
	return STEP_BACKOFF;
}

/* Has the peer closed or reset the connection? Errno, or 0. Data it sent is
 * read and ignored. */
static int stream__peer_gone(struct stream_sink *s)
{
	struct pollfd p = { .fd = s->fd, .events = POLLIN | POLLRDHUP };
	char buf[512];
	ssize_t n;

	if (poll(&p, 1, 0) <= 0)
		return 0;
	if (p.revents & (POLLERR | POLLHUP)) {
		int err = 0;
		socklen_t len = sizeof(err);

		getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &len);
		return err ? err : EPIPE;
	}
	n = recv(s->fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n == 0)
		return EPIPE;
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		return errno;
	return 0;
}

/* Not sent now (EINTR, EAGAIN): wait for room, at most a tick. */
static enum step stream__wait(struct output *o, struct stream_sink *s, int e)
{
	struct pollfd p = { .fd = s->fd, .events = POLLOUT };

	if (e == EAGAIN)
		poll(&p, 1, writer__slice_ms(o));
	return STEP_AGAIN;
}

static enum step stream__step_dgram(struct output *o, struct stream_sink *s)
{
	for (int i = 0; i < DGRAMS_PER_STEP; i++) {
		struct msghdr mh = { .msg_iov = s->g.iov };
		int e;

		if (!gather__fill(o, &s->g, 1, SIZE_MAX))
			return i ? STEP_AGAIN : STEP_IDLE;
		mh.msg_iovlen = (size_t)s->g.iovcnt;
		if (sendmsg(s->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) >= 0) {
			gather__advance(o, &s->g, s->g.total);
			writer__backoff_reset(o);
			continue;
		}
		e = errno;
		if (e == EINTR || e == EAGAIN)
			return stream__wait(o, s, e);
		STAT_ADD(o, write_errors, 1);
		if (e != EMSGSIZE)
			return stream__lost(o, s, e);
		/* this line can never go: drop it, the next ones can */
		writer__drop_first(o);
		if (!s->told_msgsize)
			writer__notice(o, 1, "a line of %zu bytes is too long for a datagram to %s: "
				       "dropped (and any later such line)", s->g.total, o->url);
		s->told_msgsize = true;
	}
	return STEP_AGAIN;
}

static enum step stream__step(struct output *o)
{
	struct stream_sink *s = o->sink;
	struct msghdr mh = { .msg_iov = s->g.iov };
	enum step r;
	ssize_t n;
	int e;

	if (s->fd < 0 && (r = stream__connect(o, s)) != STEP_AGAIN)
		return r;
	if (s->fd < 0)
		return STEP_AGAIN;
	if (s->dgram)
		return stream__step_dgram(o, s);
	/* before writing too: lines sent to a closed peer would be lost */
	e = stream__peer_gone(s);
	if (e)
		return stream__lost(o, s, e);
	if (!gather__fill(o, &s->g, GATHER_MAX, SIZE_MAX))
		return STEP_IDLE;
	mh.msg_iovlen = (size_t)s->g.iovcnt;
	n = sendmsg(s->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n >= 0) {
		gather__advance(o, &s->g, (size_t)n);
		writer__backoff_reset(o);
		return STEP_AGAIN;
	}
	e = errno;
	if (e == EINTR || e == EAGAIN)
		return stream__wait(o, s, e);
	STAT_ADD(o, write_errors, 1);
	return stream__lost(o, s, e);
}

static void stream__fini(struct output *o)
{
	struct stream_sink *s = o->sink;

	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	free(s);
	o->sink = NULL;
}

const struct sink_ops sink_stream_ops = {
	.init = stream__init,
	.step = stream__step,
	.fini = stream__fini,
};
