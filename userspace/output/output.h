/* Outputs: where event lines go (stdout, files, TCP/unix streams, HTTP batches,
 * syslog). Each output owns a bounded queue and a writer thread, so the capture
 * thread never blocks on a slow or dead collector: output__push copies the line
 * into the queue or, when the queue is full, drops and counts it. */
#ifndef OUTPUT_H
#define OUTPUT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct output;

enum output_kind {
	OUTPUT_STDOUT,		/* "stdout" (or "-"): file descriptor 1 */
	OUTPUT_FILE,		/* "file:PATH": appended, reopened after output__reopen */
	OUTPUT_TCP,		/* "tcp://HOST:PORT": lines over a TCP stream */
	OUTPUT_UNIX,		/* "unix:PATH": lines over a unix stream socket */
	OUTPUT_HTTP,		/* "http://HOST[:PORT]/PATH", "https://...": POSTed batches */
	OUTPUT_SYSLOG,		/* "syslog" (/dev/log) or "syslog:PATH": local datagrams */
	OUTPUT_SYSLOG_TCP,	/* "syslog://HOST:PORT": RFC 5424, octet-counted, over TCP */
};

struct output_opts {
	size_t queue_bytes;	/* queue capacity; 0 = OUTPUT_DEFAULT_QUEUE */
	bool json;		/* lines are JSON objects: drop markers are too */
	bool unbuffered;	/* hand every line to the writer at once */
	uint32_t batch_bytes;	/* http: a POST carries at most this; 0 = 1 MiB */
	uint32_t batch_ms;	/* http: a line waits at most this long; 0 = 1000 */
	/* A full queue makes output__push wait for room instead of dropping, as
	 * long as the writer makes progress (OUTPUT_BLOCK_STALL_MS) and *STOP (if
	 * set) stays 0: for a capture file's replay, where waiting loses nothing. */
	bool block;
	const volatile sig_atomic_t *stop;
	/* Called from the writer thread (or output__open) on a change of state
	 * (connected, connection lost, write failing, recovered): once per change,
	 * never per line. LEVEL 0 informational, 1 warning. May be NULL. */
	void (*notice)(void *arg, const struct output *o, int level, const char *msg);
	void *notice_arg;
};

#define OUTPUT_DEFAULT_QUEUE (8u << 20)
/* A blocking push gives up (drops, counted) after this long without progress. */
#define OUTPUT_BLOCK_STALL_MS 2000

/* output__close interrupts a writer blocked in write() (a stalled pipe reader,
 * a slow disk) with this signal. The first output__open installs a handler for
 * it that does nothing, without SA_RESTART, so the write returns EINTR. The
 * writer threads block every other signal: SIGINT, SIGTERM, SIGHUP, SIGUSR1...
 * go to the program's own threads. The program must leave this signal alone. */
#define OUTPUT_SIGNAL (SIGRTMIN + 2)

/* Counters of one output. Each is written by one thread (the capture thread
 * for queued/drop_queue_full, the writer for the rest) and may be read by any
 * thread at any time (relaxed loads): they are never on a lock. */
struct output_stats {
	uint64_t queued;		/* lines accepted into the queue */
	uint64_t emitted;		/* lines written in full (http: in 2xx-acknowledged batches) */
	uint64_t drop_queue_full;	/* lines refused because the queue was full */
	uint64_t drop_error;		/* lines lost to an output error (cut by a dropped
					 * connection, batch refused with 4xx) */
	uint64_t drop_exit;		/* lines still queued when the exit deadline passed */
	uint64_t markers;		/* drop markers written into the stream */
	uint64_t write_errors;		/* failed or short writes, failed POSTs */
	uint64_t connects;		/* successful (re)connects / (re)opens */
	uint64_t connect_failures;	/* failed connect or open attempts */
	uint64_t bytes;			/* bytes written (payload, framing included) */
	uint64_t queue_bytes;		/* bytes queued now */
	uint64_t queue_lines;		/* lines queued now */
	uint64_t queue_capacity;	/* bytes */
	int error;			/* last error (-errno), 0 when the last write worked */
	bool connected;			/* open / connected now */
	bool fatal;			/* stdout failed: the agent must stop (error says why) */
};

/* Parses URL, makes the queue and starts the writer thread. A network output
 * does not need its peer up now: it connects in the background and retries
 * with capped exponential backoff (0.1 s doubling to 10 s). Returns NULL with
 * errno set and ERR (ERRLEN bytes) saying what is wrong with URL (EINVAL), or
 * why the file cannot be opened. */
struct output *output__open(const char *url, const struct output_opts *opts,
			    char *err, size_t errlen);

/* Queues one event line (LEN bytes, newline included; TS_NS the event's time,
 * used by syslog headers). Never blocks, never allocates. 0, or -ENOBUFS when
 * the queue was full and the line was dropped (counted in drop_queue_full; a
 * marker with the count goes into the stream once there is room again). Only
 * ever called from one thread. */
int output__push(struct output *o, const char *line, size_t len, uint64_t ts_ns);

/* Nothing more is coming for a while: let the writer send what is queued now
 * (a lightly loaded output is otherwise written in batches). Cheap; call it at
 * idle times, not per line. */
void output__kick(struct output *o);

/* file: outputs close and reopen their file before the next write (SIGHUP,
 * logrotate). Safe from any thread, not from a signal handler. */
void output__reopen(struct output *o);

/* Stops the output: the writer sends what is queued until DEADLINE_MS
 * (CLOCK_MONOTONIC, in ms); what is left then is counted in drop_exit, a
 * blocked write is interrupted, and the thread is joined. FINAL (may be NULL)
 * receives the last counters. Frees O; NULL is accepted. Returns by the
 * deadline plus a few ms (a name still being resolved by DNS aside). Call it
 * once the capture thread pushes no more. */
void output__close(struct output *o, uint64_t deadline_ms, struct output_stats *final);

void output__stats(const struct output *o, struct output_stats *st);
const char *output__url(const struct output *o);
enum output_kind output__kind(const struct output *o);
/* "queue full", "output error", "exit deadline": the names reasons have in
 * markers, summaries and metrics. */

#endif
