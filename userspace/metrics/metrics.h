/* The --metrics HTTP server: Prometheus text at /metrics, liveness at /healthz.
 * The agent publishes a whole text snapshot now and then; requests are served
 * from libmicrohttpd's own thread, so nothing here is on the per-event path. */
#ifndef METRICS_H
#define METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define METRICS_DEFAULT_ADDR "127.0.0.1:9376"
#define METRICS_DEFAULT_STALE_MS 5000

struct metrics_server;

/* Listens on ADDR, "HOST:PORT", "[IPV6]:PORT" or ":PORT" (all addresses, IPv6
 * and IPv4 when the host has IPv6). HOST is a numeric IPv4 address or
 * "localhost" (127.0.0.1); port 0 picks a free port (see metrics_server__port).
 * Returns NULL with errno set and a one-line message in ERR (ERRLEN bytes, may be
 * NULL) on failure: EINVAL for a bad address, the socket's errno (EADDRINUSE,
 * EACCES, ...) when it cannot listen. */
struct metrics_server *metrics_server__start(const char *addr, char *err, size_t errlen);

/* Stops serving and frees M; requests in flight are dropped. NULL accepted. */
void metrics_server__stop(struct metrics_server *m);

/* Replaces the text served at /metrics with a copy of TEXT (LEN bytes) and marks
 * the metrics fresh for /healthz. Safe from any thread; never waits for a client.
 * Returns 0, -EINVAL or -ENOMEM (the previous text stays). */
int metrics_server__publish(struct metrics_server *m, const char *text, size_t len);

/* Whether capture runs: /healthz is 503 while it does not (the default). */
void metrics_server__set_running(struct metrics_server *m, bool running);

/* /healthz is 503 when the last publish is older than MS milliseconds (default
 * METRICS_DEFAULT_STALE_MS); 0 turns the check off. */
void metrics_server__set_stale_ms(struct metrics_server *m, unsigned int ms);

/* The port M listens on. */
uint16_t metrics_server__port(const struct metrics_server *m);

#endif
