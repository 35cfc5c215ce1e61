/* The agent's command line, sysdig's flags where they exist. */
#ifndef AGENT_OPTIONS_H
#define AGENT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AGENT_MAX_OUTPUTS 16
#define AGENT_DEFAULT_FLUSH_MS 2000
#define AGENT_DEFAULT_METRICS "127.0.0.1:9376"

struct agent_opts {
	const char *filter;	/* NULL: everything */
	char *filter_owned;	/* joined positional words, freed by options__free */
	const char *format;	/* -p (-pc and -pk: sysdig's container and pod lines) */
	bool print_format;	/* -pp: print the format and exit */
	bool json;		/* -j */
	uint64_t max_events;	/* -n, 0: no limit */
	uint64_t max_seconds;	/* -M, 0: no limit */
	uint32_t snaplen;	/* -s */
	bool snaplen_given;	/* -s was given (-s 0 captures no buffer bytes) */
	uint32_t ring_pages;	/* --ring-size, 0: default */
	bool list_fields;	/* -l */
	bool list_events;	/* -L */
	bool quiet;		/* -q: no events on stdout */
	bool verbose;		/* -v: also prints buffers in full */
	char buf_format;	/* 0, or 'A' 'x' 'X' 'b' as in sysdig */
	bool unbuffered;	/* --unbuffered */
	bool drop_failed;	/* --drop-failed */
	bool no_kernel_filter;	/* --no-kernel-filter */
	int exit_only;		/* --exit-only 1, --no-exit-only 0, -1: by the outputs */
	int engine;		/* --engine: enum capture_engine, 0: the default */
	const char *read_file;	/* -r: replay a capture file instead of capturing */
	const char *write_file;	/* -w: write matching events to a capture file */
	bool compress;		/* -z: gzip the -w file */
	uint32_t rollover_mb;	/* -C: a new -w file after this many 10^6 bytes */
	uint32_t rotate_secs;	/* -G: a new -w file every this many seconds */
	uint32_t file_limit;	/* -W: at most this many -w files (with -C/-G) */
	bool help;
	bool version;
	/* --output URL, in order; none given: stdout (unless -q). */
	const char *outputs[AGENT_MAX_OUTPUTS];
	int n_outputs;
	uint64_t queue_bytes;	/* --queue-size, 0: the output library's default */
	uint64_t flush_ms;	/* --flush-timeout in ms */
	uint32_t batch_bytes;	/* --batch-bytes (http), 0: default */
	uint32_t batch_ms;	/* --batch-ms (http), 0: default */
	const char *metrics;	/* --metrics ADDR:PORT, NULL: off */
	bool requests;		/* --requests: request records instead of events */
	bool tcp;		/* --tcp: TCP connection records instead of events */
	bool no_tcp;		/* --no-tcp: --requests --metrics without TCP health */
	bool no_tls;		/* --no-tls: request mode without its TLS probes */
	bool profile;		/* --profile: requests' CPU breakdown */
	const char *profile_out;	/* --profile-out DIR: slow requests' timelines */
	const char *profile_threshold;	/* --profile-threshold SPEC (profile_out.h) */
	int profile_hz;			/* --profile-hz, -1: not given (99) */
	const char *service_map; /* --service-map FILE (with --requests) */
	uint64_t request_timeout_ns; /* --request-timeout, 0: the default */
};

/* Parses argv. On a bad flag returns -EINVAL with a one-line message in ERR. */
int options__parse(int argc, char **argv, struct agent_opts *o, char *err, size_t errlen);
void options__free(struct agent_opts *o);
/* The --help text. */
extern const char options_usage[];

#endif
