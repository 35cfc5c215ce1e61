/* Connecting an output's socket without blocking the writer past a tick:
 * non-blocking connect, then poll in slices so a stop is seen. */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "output_int.h"

#define CONNECT_TIMEOUT_MS 5000

/* 0 once FD is connected, or -errno. */
static int sock__wait(struct output *o, int fd)
{
	uint64_t end = output__now_ms() + CONNECT_TIMEOUT_MS;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		int n, err = 0;
		socklen_t len = sizeof(err);

		if (writer__expired(o))
			return -ECANCELED;
		n = poll(&p, 1, writer__slice_ms(o));
		if (n > 0) {
			if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
				return -errno;
			return -err;
		}
		if (n < 0 && errno != EINTR)
			return -errno;
		if (output__now_ms() >= end)
			return -ETIMEDOUT;
	}
}

/* FD or -errno. */
static int sock__try(struct output *o, int family, int type, const struct sockaddr *sa,
		     socklen_t salen)
{
	int fd = socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int ret;

	if (fd < 0)
		return -errno;
	ret = connect(fd, sa, salen) ? -errno : 0;
	if (ret == -EINPROGRESS)
		ret = sock__wait(o, fd);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

static int sock__unix(struct output *o, int type, char *why, size_t whylen)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	/* the URL parser checked that the path fits */
	strncpy(sun.sun_path, o->u.path, sizeof(sun.sun_path) - 1);
	fd = sock__try(o, AF_UNIX, type, (struct sockaddr *)&sun, sizeof(sun));
	if (fd < 0)
		snprintf(why, whylen, "%s", strerror(-fd));
	return fd;
}

static int sock__tcp(struct output *o, char *why, size_t whylen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *ai;
	int fd = -EHOSTUNREACH, gai;

	/* blocking DNS: a name that takes long to resolve delays the writer */
	gai = getaddrinfo(o->u.host, o->u.port, &hints, &res);
	if (gai) {
		int e = gai == EAI_SYSTEM ? errno : EHOSTUNREACH;

		snprintf(why, whylen, "cannot resolve %s: %s", o->u.host,
			 gai == EAI_SYSTEM ? strerror(e) : gai_strerror(gai));
		return -e;
	}
	/* every address in turn (IPv6 and IPv4 of one name), the first that
	 * connects wins */
	for (ai = res; ai; ai = ai->ai_next) {
		fd = sock__try(o, ai->ai_family, SOCK_STREAM, ai->ai_addr, ai->ai_addrlen);
		if (fd >= 0 || fd == -ECANCELED)
			break;
	}
	freeaddrinfo(res);
	if (fd < 0)
		snprintf(why, whylen, "%s", strerror(-fd));
	return fd;
}

int sock__connect(struct output *o, int type, char *why, size_t whylen)
{
	if (o->u.kind == OUTPUT_TCP || o->u.kind == OUTPUT_SYSLOG_TCP)
		return sock__tcp(o, why, whylen);
	return sock__unix(o, type, why, whylen);
}
