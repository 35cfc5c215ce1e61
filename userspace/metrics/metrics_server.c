/* The HTTP side: libmicrohttpd with one internal polling thread serves the last
 * published snapshot. Requests take a reference to it, so a slow client holds
 * only its own snapshot, never the lock. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>

#include <microhttpd.h>

#include "metrics.h"
#include "metrics_addr.h"

#define CONNECTION_LIMIT 16
#define CONNECTION_TIMEOUT_S 5
#define LISTEN_BACKLOG 16

#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define TEXT_CONTENT_TYPE "text/plain; charset=utf-8"

/* One published text, freed by whoever drops the last reference. */
struct snapshot {
	unsigned long refs;
	size_t len;
	char text[];
};

struct metrics_server {
	struct MHD_Daemon *mhd;
	uint16_t port;
	pthread_mutex_t lock;
	/* under LOCK */
	struct snapshot *cur;
	struct timespec published_at;
	bool published;
	bool running;
	bool ever_running;
	unsigned int stale_ms;
};

static void snapshot__put(void *cls)
{
	struct snapshot *s = cls;

	if (s && __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(s);
}

static void set_err(char *err, size_t errlen, const char *fmt, const char *addr,
		    const char *what)
{
	if (err && errlen)
		snprintf(err, errlen, fmt, addr, what);
}

/* MHD only logs with MHD_USE_ERROR_LOG, which we do not set; this logger makes
 * sure nothing reaches stderr even so. */
static void mhd_log_nothing(void *cls, const char *fmt, va_list ap)
{
}

static int64_t elapsed_ms(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)(now.tv_sec - since->tv_sec) * 1000 +
	       (now.tv_nsec - since->tv_nsec) / 1000000;
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int status,
			     struct MHD_Response *resp, const char *type)
{
	enum MHD_Result ret;

	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *conn, unsigned int status,
				  const char *text)
{
	struct MHD_Response *resp;

	resp = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
	return reply(conn, status, resp, TEXT_CONTENT_TYPE);
}

static enum MHD_Result serve_metrics(struct metrics_server *m, struct MHD_Connection *conn)
{
	struct MHD_Response *resp;
	struct snapshot *s;

	pthread_mutex_lock(&m->lock);
	s = m->cur;
	if (s)
		__atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&m->lock);
	if (!s)
		return reply(conn, MHD_HTTP_OK,
			     MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT),
			     PROM_CONTENT_TYPE);
	resp = MHD_create_response_from_buffer_with_free_callback_cls(s->len, s->text,
								      snapshot__put, s);
	if (!resp)
		snapshot__put(s);
	return reply(conn, MHD_HTTP_OK, resp, PROM_CONTENT_TYPE);
}

static enum MHD_Result serve_health(struct metrics_server *m, struct MHD_Connection *conn)
{
	char reason[64] = "ok\n";
	unsigned int status = MHD_HTTP_SERVICE_UNAVAILABLE;
	int64_t age;

	pthread_mutex_lock(&m->lock);
	age = m->published ? elapsed_ms(&m->published_at) : -1;
	if (!m->running)
		snprintf(reason, sizeof(reason), "capture %s\n",
			 m->ever_running ? "stopped" : "not started");
	else if (age < 0)
		snprintf(reason, sizeof(reason), "no metrics published yet\n");
	else if (m->stale_ms && age >= m->stale_ms)
		snprintf(reason, sizeof(reason), "no update for %lld s\n", (long long)(age / 1000));
	else
		status = MHD_HTTP_OK;
	pthread_mutex_unlock(&m->lock);
	return reply_text(conn, status, reason);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size,
				  void **con_cls)
{
	struct metrics_server *m = cls;

	/* Answered on the first call, before any body: none is needed. */
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n");
	if (strcmp(url, "/metrics") == 0)
		return serve_metrics(m, conn);
	if (strcmp(url, "/healthz") == 0)
		return serve_health(m, conn);
	return reply_text(conn, MHD_HTTP_NOT_FOUND, "not found: try /metrics or /healthz\n");
}

/* A listening socket on A; returns the fd or a negative errno. */
static int listen_on(const struct metrics_addr *a)
{
	const struct sockaddr *sa = (const struct sockaddr *)&a->ss;
	int one = 1, zero = 0, fd, err;

	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (a->any && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero))) ||
	    bind(fd, sa, a->len) || listen(fd, LISTEN_BACKLOG)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

static uint16_t bound_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return 0;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* MHD closes the socket it was given on some start failures and not on others;
 * it gets a duplicate, closed here only while it is still our socket (an fd
 * number MHD closed may already be another thread's). */
static void close_if_same(int dup_fd, int fd)
{
	struct stat a, b;

	if (fstat(dup_fd, &a) == 0 && fstat(fd, &b) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino)
		close(dup_fd);
}

static struct MHD_Daemon *start_mhd(struct metrics_server *m, int fd, bool ipv6)
{
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
	struct MHD_Daemon *d;
	sigset_t all, old;
	int mhd_fd, e;

	mhd_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (mhd_fd < 0)
		return NULL;
	if (ipv6)
		flags |= MHD_USE_IPv6;
	/* Its thread inherits our signal mask: block everything so that signals go
	 * to the agent's threads, which wait for them. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	errno = 0;
	d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, m,
			     MHD_OPTION_EXTERNAL_LOGGER, mhd_log_nothing, NULL,
			     MHD_OPTION_LISTEN_SOCKET, mhd_fd,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned int)CONNECTION_LIMIT,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)CONNECTION_TIMEOUT_S,
			     MHD_OPTION_END);
	e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!d)
		close_if_same(mhd_fd, fd);
	errno = e;
	return d;
}

struct metrics_server *metrics_server__start(const char *addr, char *err, size_t errlen)
{
	struct metrics_server *m = NULL;
	struct metrics_addr a;
	const char *why;
	int fd = -1, e;

	if (metrics_addr__parse(addr, &a, &why)) {
		set_err(err, errlen, "invalid listen address \"%s\": %s", addr ? addr : "", why);
		e = EINVAL;
		goto fail;
	}
	fd = listen_on(&a);
	/* ":PORT" on a host without IPv6: all IPv4 addresses then */
	if (fd == -EAFNOSUPPORT && a.any) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&a.ss;
		uint16_t port = ((struct sockaddr_in6 *)&a.ss)->sin6_port;

		memset(&a, 0, sizeof(a));
		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_ANY);
		s4->sin_port = port;
		a.len = sizeof(*s4);
		fd = listen_on(&a);
	}
	if (fd < 0) {
		set_err(err, errlen, "cannot listen on %s: %s", addr, strerror(-fd));
		e = -fd;
		goto fail;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		e = ENOMEM;
		set_err(err, errlen, "cannot serve metrics on %s: %s", addr, strerror(e));
		goto fail;
	}
	pthread_mutex_init(&m->lock, NULL);
	m->stale_ms = METRICS_DEFAULT_STALE_MS;
	m->port = bound_port(fd);
	m->mhd = start_mhd(m, fd, a.ss.ss_family == AF_INET6);
	if (!m->mhd) {
		e = errno ? errno : EIO;
		set_err(err, errlen, "cannot start the HTTP server on %s: %s", addr, strerror(e));
		pthread_mutex_destroy(&m->lock);
		goto fail;
	}
	close(fd);
	return m;
fail:
	free(m);
	if (fd >= 0)
		close(fd);
	errno = e;
	return NULL;
}

void metrics_server__stop(struct metrics_server *m)
{
	if (!m)
		return;
	/* closes every connection; their responses drop their snapshot references */
	MHD_stop_daemon(m->mhd);
	snapshot__put(m->cur);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

int metrics_server__publish(struct metrics_server *m, const char *text, size_t len)
{
	struct snapshot *s, *old;

	if (!m || (!text && len))
		return -EINVAL;
	s = malloc(sizeof(*s) + len + 1);
	if (!s)
		return -ENOMEM;
	s->refs = 1;
	s->len = len;
	if (len)
		memcpy(s->text, text, len);
	s->text[len] = '\0';
	pthread_mutex_lock(&m->lock);
	old = m->cur;
	m->cur = s;
	m->published = true;
	clock_gettime(CLOCK_MONOTONIC, &m->published_at);
	pthread_mutex_unlock(&m->lock);
	snapshot__put(old);
	return 0;
}

void metrics_server__set_running(struct metrics_server *m, bool running)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->running = running;
	m->ever_running |= running;
	pthread_mutex_unlock(&m->lock);
}

void metrics_server__set_stale_ms(struct metrics_server *m, unsigned int ms)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->stale_ms = ms;
	pthread_mutex_unlock(&m->lock);
}

uint16_t metrics_server__port(const struct metrics_server *m)
{
	return m ? m->port : 0;
}
