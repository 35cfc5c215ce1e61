/* Listen addresses. Only numeric hosts and "localhost": a metrics endpoint
 * bound to whatever a resolver returns at start-up would be a surprise. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metrics_addr.h"

#define WHY_FORM "expected HOST:PORT, [IPV6]:PORT or :PORT"
#define WHY_PORT "the port must be a number from 1 to 65535"
#define WHY_HOST "the host must be a numeric IPv4 address, an IPv6 address in " \
		 "brackets, or localhost"

static int parse_port(const char *s, unsigned *port)
{
	unsigned v = 0;
	size_t n;

	for (n = 0; s[n] >= '0' && s[n] <= '9'; n++) {
		if (n == 5)
			return -EINVAL;
		v = v * 10 + (unsigned)(s[n] - '0');
	}
	if (n == 0 || s[n] || v > 65535)
		return -EINVAL;
	*port = v;
	return 0;
}

/* HOST (LEN bytes) in brackets' contents: getaddrinfo reads scope ids too. */
static int parse_ipv6(const char *host, size_t len, unsigned port, struct metrics_addr *out)
{
	struct addrinfo hints = { .ai_family = AF_INET6, .ai_flags = AI_NUMERICHOST };
	struct addrinfo *res = NULL;
	char buf[INET6_ADDRSTRLEN + 64];
	struct sockaddr_in6 *s6;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, host, len);
	buf[len] = '\0';
	if (getaddrinfo(buf, NULL, &hints, &res) || !res ||
	    res->ai_addrlen > sizeof(out->ss)) {
		if (res)
			freeaddrinfo(res);
		return -EINVAL;
	}
	memcpy(&out->ss, res->ai_addr, res->ai_addrlen);
	out->len = res->ai_addrlen;
	freeaddrinfo(res);
	s6 = (struct sockaddr_in6 *)&out->ss;
	s6->sin6_port = htons((uint16_t)port);
	return 0;
}

static int parse_ipv4(const char *host, size_t len, unsigned port, struct metrics_addr *out)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)&out->ss;
	char buf[INET_ADDRSTRLEN];

	if (len == 9 && strncasecmp(host, "localhost", 9) == 0) {
		s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	} else {
		if (len == 0 || len >= sizeof(buf))
			return -EINVAL;
		memcpy(buf, host, len);
		buf[len] = '\0';
		if (inet_pton(AF_INET, buf, &s4->sin_addr) != 1)
			return -EINVAL;
	}
	s4->sin_family = AF_INET;
	s4->sin_port = htons((uint16_t)port);
	out->len = sizeof(*s4);
	return 0;
}

int metrics_addr__parse(const char *text, struct metrics_addr *out, const char **why)
{
	const char *colon, *host = text, *close;
	size_t hostlen;
	unsigned port;

	memset(out, 0, sizeof(*out));
	*why = WHY_FORM;
	if (!text)
		return -EINVAL;
	if (text[0] == '[') {
		close = strchr(text, ']');
		if (!close || close[1] != ':')
			return -EINVAL;
		host = text + 1;
		hostlen = (size_t)(close - host);
		colon = close + 1;
	} else {
		colon = strrchr(text, ':');
		if (!colon)
			return -EINVAL;
		hostlen = (size_t)(colon - text);
		if (memchr(text, ':', hostlen)) {
			*why = "an IPv6 address goes in brackets, e.g. [::1]:9376";
			return -EINVAL;
		}
	}
	*why = WHY_PORT;
	if (parse_port(colon + 1, &port))
		return -EINVAL;
	*why = WHY_HOST;
	if (text[0] == '[')
		return parse_ipv6(host, hostlen, port, out);
	if (hostlen == 0) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&out->ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_any;
		s6->sin6_port = htons((uint16_t)port);
		out->len = sizeof(*s6);
		out->any = true;
		return 0;
	}
	return parse_ipv4(host, hostlen, port, out);
}
