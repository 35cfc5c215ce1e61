/* Output URLs: "stdout", "file:PATH", "tcp://HOST:PORT", ... split into parts. */
#ifndef OUTPUT_URL_H
#define OUTPUT_URL_H

#include <stddef.h>

#include "output.h"

struct output_url {
	enum output_kind kind;
	char *path;	/* file:, unix:, syslog (/dev/log), syslog:PATH */
	char *host;	/* tcp://, syslog://: without IPv6 brackets */
	char *port;	/* tcp://, syslog:// */
};

/* 0, or -EINVAL with ERR saying what is wrong with URL, or -ENOMEM. U is
 * to be given to output_url__fini either way. */
int output_url__parse(struct output_url *u, const char *url, char *err, size_t errlen);
void output_url__fini(struct output_url *u);

#endif
