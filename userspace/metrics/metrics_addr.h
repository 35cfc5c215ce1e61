/* The listen address of the metrics server, parsed (internal to the library and
 * its tests). */
#ifndef METRICS_ADDR_H
#define METRICS_ADDR_H

#include <stdbool.h>
#include <sys/socket.h>

struct metrics_addr {
	struct sockaddr_storage ss;
	socklen_t len;
	bool any;	/* ":PORT": IPv6 and IPv4 wildcard, SS holds [::] */
};

/* Parses "HOST:PORT", "[IPV6]:PORT" (a scope "%eth0" allowed) or ":PORT"; HOST is a
 * numeric IPv4 address or "localhost", PORT 0..65535 (0: any free port). Returns
 * 0, or -EINVAL with *WHY saying what is wrong. */
int metrics_addr__parse(const char *text, struct metrics_addr *out, const char **why);

#endif
