/* Request mode's TLS probes kept on every TLS library processes map: a scan
 * of /proc at start, then one every TLS_WATCH_MS on a thread of its own
 * (off the event path), each new library file given to the driver. */
#ifndef AGENT_TLS_WATCH_H
#define AGENT_TLS_WATCH_H

#include <stdint.h>

#include "tls_libs.h"

struct driver;
struct tls_watch;

/* How often processes' maps are read again: a library a new process or
 * container maps is probed within this. */
#define TLS_WATCH_MS 1000

struct tls_watch_counters {
	struct tls_libs_counters libs;
	uint64_t attach_failed;	/* files the driver could not probe */
	int last_error;		/* the last failure's negative errno */
};

/* Scans once (so that the caller can say what is probed), then starts the
 * thread. NULL and errno (ENOMEM, or the thread's error). */
struct tls_watch *tls_watch__start(struct driver *d, const char *proc);
/* Stops the thread (before the driver detaches) and frees W. */
void tls_watch__stop(struct tls_watch *w);
void tls_watch__counters(struct tls_watch *w, struct tls_watch_counters *out);

#endif
