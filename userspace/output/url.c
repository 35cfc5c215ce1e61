/* Output URL parsing. Only the form is checked here; whether a host resolves
 * or a peer listens is the writer's business (it retries). */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "url.h"

#define USAGE "use stdout, file:PATH, tcp://HOST:PORT, unix:PATH, " \
	"http(s)://HOST[:PORT]/PATH, syslog, syslog:PATH or syslog://HOST:PORT"

static int url__bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static bool url__prefixed(const char *url, const char *prefix, const char **rest)
{
	size_t n = strlen(prefix);

	if (strncmp(url, prefix, n))
		return false;
	*rest = url + n;
	return true;
}

/* "1".."65535", digits only */
static bool url__port_ok(const char *s)
{
	unsigned long v = 0;

	if (!*s || strlen(s) > 5)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (unsigned long)(*s - '0');
	}
	return v >= 1 && v <= 65535;
}

/* HOST:PORT or [V6]:PORT (up to END) into U->host and U->port. */
static int url__host_port(struct output_url *u, const char *url, const char *s,
			  size_t n, const char *scheme, char *err, size_t errlen)
{
	const char *colon, *host = s;
	size_t hlen;

	if (s[0] == '[') {
		const char *close = memchr(s, ']', n);

		if (!close || close + 1 >= s + n || close[1] != ':')
			return url__bad(err, errlen, "%s needs HOST:PORT, IPv6 as [ADDR]:PORT ('%s')",
					scheme, url);
		host = s + 1;
		hlen = (size_t)(close - host);
		colon = close + 1;
	} else {
		colon = memchr(s, ':', n);
		if (!colon)
			return url__bad(err, errlen, "%s needs HOST:PORT ('%s')", scheme, url);
		if (memchr(colon + 1, ':', (size_t)(s + n - colon - 1)))
			return url__bad(err, errlen, "%s: put an IPv6 address in brackets, "
					"%s[ADDR]:PORT ('%s')", scheme, scheme, url);
		hlen = (size_t)(colon - s);
	}
	if (!hlen)
		return url__bad(err, errlen, "%s needs HOST:PORT, the host is empty ('%s')",
				scheme, url);
	u->host = strndup(host, hlen);
	u->port = strndup(colon + 1, (size_t)(s + n - colon - 1));
	if (!u->host || !u->port)
		return -ENOMEM;
	if (!url__port_ok(u->port))
		return url__bad(err, errlen, "%s: port '%s' is not a number from 1 to 65535 ('%s')",
				scheme, u->port, url);
	return 0;
}

static int url__path(struct output_url *u, const char *url, const char *path,
		     const char *example, char *err, size_t errlen)
{
	if (!*path)
		return url__bad(err, errlen, "'%s' needs a path, e.g. %s", url, example);
	u->path = strdup(path);
	return u->path ? 0 : -ENOMEM;
}

static int url__socket_path(struct output_url *u, const char *url, const char *path,
			    const char *example, char *err, size_t errlen)
{
	struct sockaddr_un sun;

	if (strlen(path) >= sizeof(sun.sun_path))
		return url__bad(err, errlen, "'%s': a socket path has at most %zu bytes",
				url, sizeof(sun.sun_path) - 1);
	return url__path(u, url, path, example, err, errlen);
}

static int url__http(struct output_url *u, const char *url, const char *rest,
		     char *err, size_t errlen)
{
	size_t n = strcspn(rest, "/?#");
	const char *at = memchr(rest, '@', n);
	const char *hp = at ? at + 1 : rest;
	const char *colon;

	n -= (size_t)(hp - rest);
	if (!n)
		return url__bad(err, errlen, "'%s' needs a host: http(s)://HOST[:PORT]/PATH", url);
	/* the port, if any, after the host (or after an IPv6 address's bracket) */
	colon = hp[0] == '[' ? memchr(hp, ']', n) : hp;
	if (!colon)
		return url__bad(err, errlen, "'%s': IPv6 address without its ']'", url);
	colon = memchr(colon, ':', n - (size_t)(colon - hp));
	if (colon) {
		char port[8] = "";
		size_t plen = (size_t)(hp + n - colon - 1);

		if (plen < sizeof(port))
			memcpy(port, colon + 1, plen);
		if (plen >= sizeof(port) || !url__port_ok(port))
			return url__bad(err, errlen, "'%s': port is not a number from 1 to 65535", url);
		if (colon == hp)
			return url__bad(err, errlen, "'%s' needs a host: http(s)://HOST[:PORT]/PATH", url);
	}
	u->kind = OUTPUT_HTTP;
	return 0;
}

int output_url__parse(struct output_url *u, const char *url, char *err, size_t errlen)
{
	const char *rest;
	int ret;

	memset(u, 0, sizeof(*u));
	if (!strcmp(url, "stdout") || !strcmp(url, "-")) {
		u->kind = OUTPUT_STDOUT;
		return 0;
	}
	if (url__prefixed(url, "file:", &rest)) {
		u->kind = OUTPUT_FILE;
		ret = url__path(u, url, rest, "file:/var/log/agent.log", err, errlen);
	} else if (url__prefixed(url, "tcp://", &rest)) {
		u->kind = OUTPUT_TCP;
		if (strchr(rest, '/'))
			return url__bad(err, errlen, "tcp:// takes HOST:PORT and no path ('%s')", url);
		ret = url__host_port(u, url, rest, strlen(rest), "tcp://", err, errlen);
	} else if (url__prefixed(url, "unix:", &rest)) {
		u->kind = OUTPUT_UNIX;
		ret = url__socket_path(u, url, rest, "unix:/run/collector.sock", err, errlen);
	} else if (url__prefixed(url, "http://", &rest) || url__prefixed(url, "https://", &rest)) {
		ret = url__http(u, url, rest, err, errlen);
	} else if (url__prefixed(url, "syslog://", &rest)) {
		u->kind = OUTPUT_SYSLOG_TCP;
		if (strchr(rest, '/'))
			return url__bad(err, errlen, "syslog:// takes HOST:PORT and no path ('%s')", url);
		ret = url__host_port(u, url, rest, strlen(rest), "syslog://", err, errlen);
	} else if (!strcmp(url, "syslog")) {
		u->kind = OUTPUT_SYSLOG;
		ret = url__socket_path(u, url, "/dev/log", "syslog", err, errlen);
	} else if (url__prefixed(url, "syslog:", &rest)) {
		u->kind = OUTPUT_SYSLOG;
		ret = url__socket_path(u, url, rest, "syslog:/run/systemd/journal/syslog", err, errlen);
	} else {
		return url__bad(err, errlen, "unknown output '%s': " USAGE, url);
	}
	if (ret == -ENOMEM && errlen)
		snprintf(err, errlen, "out of memory");
	return ret;
}

void output_url__fini(struct output_url *u)
{
	free(u->path);
	free(u->host);
	free(u->port);
	memset(u, 0, sizeof(*u));
}
