/* Command-line parsing: getopt_long with sysdig's short flags. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "format.h"
#include "options.h"
#include "profile_out.h"

const char options_usage[] =
"Usage: agent [options] [filter]\n"
"Captures system calls with eBPF (or reads a capture file) and prints them as\n"
"text or JSON lines.\n"
"\n"
"Options:\n"
"  --filter EXPR      only events matching EXPR (sysdig filter syntax); the\n"
"                     filter may also be given as the trailing arguments\n"
"  -j, --json         one JSON object per event\n"
"  -p, --print FMT    output format with %field tokens, e.g. '%proc.name %fd.name';\n"
"                     -pc (or -pcontainer) and -pk (-pkubernetes) print sysdig's\n"
"                     line with the container's (the pod's) name and id; -pp\n"
"                     prints the format in use and exits\n"
"  -n, --numevents N  stop after N events\n"
"  -M SECS            stop after SECS seconds\n"
"  -s, --snaplen LEN  bytes of I/O buffers captured (default 80)\n"
"  --ring-size SIZE   ring per CPU (either engine), e.g. 8M (default), 512K; a\n"
"                     power of two\n"
"  -l, --list         list the fields filters and formats can use\n"
"  -L, --list-events  list the events and their parameters\n"
"  -q, --quiet        do not print events (summary only)\n"
"  -v, --verbose      print buffers in full (not cut at 80 characters), and\n"
"                     report capture mode and kernel filtering on stderr\n"
"  -A, --print-ascii  print buffers as ASCII, keeping newlines and tabs\n"
"  -x, --print-hex    print buffers in hex\n"
"  -X, --print-hex-ascii  print buffers in hex and ASCII\n"
"  -b, --print-base64 print buffers in base64\n"
"  --unbuffered       hand every event to the outputs as soon as it is formatted\n"
"  --output URL       where event lines go; repeat for several (default stdout):\n"
"                     stdout, file:PATH (reopened on SIGHUP), tcp://HOST:PORT,\n"
"                     unix:PATH, http://HOST[:PORT]/PATH or https://... (batched\n"
"                     POSTs), syslog (/dev/log), syslog:PATH, syslog://HOST:PORT\n"
"                     (RFC 5424 over TCP). Each has its own queue and thread: a\n"
"                     slow one drops (and counts) its own lines, never stalls\n"
"  --queue-size SIZE  queue of each output, e.g. 8M (default), 512K\n"
"  --flush-timeout S  seconds the outputs get to send what is queued on exit\n"
"                     (default 2; at most 0.5 after SIGINT/SIGTERM)\n"
"  --batch-bytes N    http outputs: most bytes per POST (default 1M)\n"
"  --batch-ms N       http outputs: most milliseconds a line waits (default 1000)\n"
"  --metrics[=ADDR:PORT]  serve Prometheus metrics at /metrics and liveness at\n"
"                     /healthz (default address 127.0.0.1:9376)\n"
"  --requests         pair each connection's reads and writes into requests\n"
"                     (HTTP/1.x, DNS, Redis, MySQL, PostgreSQL, also over\n"
"                     OpenSSL's and GnuTLS's TLS, read by uprobes; others as\n"
"                     bytes) and print one record per request instead of\n"
"                     events; the filter and -p take req.* fields (README,\n"
"                     \"Requests\"). Only socket I/O leaves the kernel; the\n"
"                     snaplen defaults to 2048. -w writes the events the\n"
"                     records come from; -r FILE --requests makes them again\n"
"  --tcp              print one record per TCP connection of this host that\n"
"                     ended (outcome, connect time, retransmits, srtt,\n"
"                     resets, bytes), kept in the kernel from its SYN to its\n"
"                     close; the filter and -p take tcp.* fields (README,\n"
"                     \"TCP health\"); with --metrics, the agent_tcp_* metrics\n"
"  --no-tcp           with --requests: no TCP health (agent_tcp_* metrics)\n"
"  --no-tls           with --requests: no uprobes on the TLS libraries (TLS\n"
"                     connections are then paired as bytes, labelled tls)\n"
"  --service-map FILE with --requests: write the service map to FILE.json\n"
"                     and FILE.dot at exit and on SIGUSR1\n"
"  --request-timeout S  with --requests: a request unanswered for S seconds\n"
"                     is reported timed out (default 10)\n"
"  --profile          with --requests: each server request's thread time, on\n"
"                     CPU, waiting for one and off it by reason (req.oncpu,\n"
"                     req.runq, req.offcpu.*; README, \"Profiling\"); alone:\n"
"                     every thread's (the filter's threads') such times over\n"
"                     the run, one line per thread at the end (-j: JSON);\n"
"                     with -w, -r FILE --profile replays them\n"
"  --profile-out DIR  with --requests --profile: each slow server request's\n"
"                     timeline (its thread's waits, what each waited on, the\n"
"                     calls it made meanwhile) as DIR/req-ID.json and .svg\n"
"  --profile-hz N     with --profile-out: the followed threads' on-CPU stacks,\n"
"                     sampled N times a second per CPU (default 99, 0: none),\n"
"                     in the timelines and DIR/stacks-GROUP-PROCESS.folded;\n"
"                     live only: a -w file keeps samples, not their stacks\n"
"  --profile-threshold D  slow for --profile-out: over D (100ms), or PROTO=D\n"
"                     pairs (http=100ms,redis=5ms); default 200ms, redis and\n"
"                     dns 20ms\n"
"  --drop-failed      skip the exit events of failed system calls\n"
"  --exit-only        one BPF program per syscall, on its exit: the enter event\n"
"                     is built then, from the registers the call left, and is\n"
"                     timed with its exit (README, \"Capture modes\"). The\n"
"                     default when no event leaves the agent (-q, no -w or\n"
"                     --output); --no-exit-only turns it off\n"
"  --engine NAME      where the driver's events go: ringbuf (a BPF ring buffer\n"
"                     per CPU, 5.8+) or perf (a perf ring per CPU)\n"
"  --no-kernel-filter filter in userspace only: the kernel sends every event\n"
"                     (by default it skips the syscalls and, per thread, the\n"
"                     processes, users and containers the filter cannot match)\n"
"  -r, --read FILE    read events from a capture file (.scap, plain or gzip,\n"
"                     e.g. written by sysdig -w or agent -w); no root needed\n"
"  -w, --write FILE   also write the matching events to a capture file that\n"
"                     sysdig -r and agent -r read (with -q: only write)\n"
"  -z, --compress     gzip the -w file\n"
"  -C, --file-size MB with -w: before writing an event, start a new file once\n"
"                     the current one holds more than MB million bytes; files\n"
"                     are named FILE0, FILE1, ... (as sysdig)\n"
"  -G, --seconds SECS with -w: start a new file every SECS seconds; FILE may hold\n"
"                     a strftime(3) pattern (e.g. cap-%H%M%S.scap), else files\n"
"                     are named FILE0, FILE1, ...\n"
"  -W, --limit N      with -C or -G: keep N files, reusing the oldest name\n"
"                     (FILE0..FILE2 for -C 10 -W 3)\n"
"  -h, --help         this help\n"
"  --version          the version\n"
"\n"
"Examples:\n"
"  agent --filter 'evt.type=openat and proc.name=cat'\n"
"  agent -j evt.type=connect | jq .\n"
"  agent -p '%evt.time %proc.name %fd.name' 'fd.type=file and evt.is_io_write=true'\n"
"  agent -q -z -w trace.scap -M 10 'proc.name=nginx'; agent -r trace.scap -j\n"
"\n"
"On exit (Ctrl-C, SIGTERM, -n, -M) a summary of events and drops goes to stderr;\n"
"SIGUSR1 prints the counters so far, SIGHUP reopens file: outputs.\n";

enum { OPT_FILTER = 256, OPT_RING, OPT_UNBUF, OPT_VERSION, OPT_DROP_FAILED, OPT_OUTPUT,
       OPT_QUEUE, OPT_FLUSH, OPT_BATCH_BYTES, OPT_BATCH_MS, OPT_METRICS, OPT_NO_KFILTER,
       OPT_EXIT_ONLY, OPT_NO_EXIT_ONLY, OPT_ENGINE, OPT_REQUESTS, OPT_TCP, OPT_NO_TCP, OPT_PROFILE, OPT_PROFILE_OUT,
       OPT_PROFILE_THRESHOLD, OPT_PROFILE_HZ, OPT_SERVICE_MAP,
       OPT_REQ_TIMEOUT, OPT_NO_TLS };

static const struct option longopts[] = {
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "json", no_argument, NULL, 'j' },
	{ "print", required_argument, NULL, 'p' },
	{ "numevents", required_argument, NULL, 'n' },
	{ "snaplen", required_argument, NULL, 's' },
	{ "ring-size", required_argument, NULL, OPT_RING },
	{ "list", no_argument, NULL, 'l' },
	{ "list-events", no_argument, NULL, 'L' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "print-ascii", no_argument, NULL, 'A' },
	{ "print-hex", no_argument, NULL, 'x' },
	{ "print-hex-ascii", no_argument, NULL, 'X' },
	{ "print-base64", no_argument, NULL, 'b' },
	{ "unbuffered", no_argument, NULL, OPT_UNBUF },
	{ "drop-failed", no_argument, NULL, OPT_DROP_FAILED },
	{ "no-kernel-filter", no_argument, NULL, OPT_NO_KFILTER },
	{ "exit-only", no_argument, NULL, OPT_EXIT_ONLY },
	{ "no-exit-only", no_argument, NULL, OPT_NO_EXIT_ONLY },
	{ "no-tls", no_argument, NULL, OPT_NO_TLS },
	{ "engine", required_argument, NULL, OPT_ENGINE },
	{ "requests", no_argument, NULL, OPT_REQUESTS },
	{ "tcp", no_argument, NULL, OPT_TCP },
	{ "no-tcp", no_argument, NULL, OPT_NO_TCP },
	{ "profile", no_argument, NULL, OPT_PROFILE },
	{ "profile-out", required_argument, NULL, OPT_PROFILE_OUT },
	{ "profile-threshold", required_argument, NULL, OPT_PROFILE_THRESHOLD },
	{ "profile-hz", required_argument, NULL, OPT_PROFILE_HZ },
	{ "service-map", required_argument, NULL, OPT_SERVICE_MAP },
	{ "request-timeout", required_argument, NULL, OPT_REQ_TIMEOUT },
	{ "read", required_argument, NULL, 'r' },
	{ "write", required_argument, NULL, 'w' },
	{ "compress", no_argument, NULL, 'z' },
	{ "file-size", required_argument, NULL, 'C' },
	{ "seconds", required_argument, NULL, 'G' },
	{ "limit", required_argument, NULL, 'W' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "queue-size", required_argument, NULL, OPT_QUEUE },
	{ "flush-timeout", required_argument, NULL, OPT_FLUSH },
	{ "batch-bytes", required_argument, NULL, OPT_BATCH_BYTES },
	{ "batch-ms", required_argument, NULL, OPT_BATCH_MS },
	{ "metrics", optional_argument, NULL, OPT_METRICS },
	{ NULL, 0, NULL, 0 },
};

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

/* "8M", "512K", "4096": bytes. */
static int parse_size(const char *s, uint64_t *out)
{
	uint64_t mult = 1, v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -EINVAL;
	if (*end == 'K' || *end == 'k')
		mult = 1024, end++;
	else if (*end == 'M' || *end == 'm')
		mult = 1024 * 1024, end++;
	else if (*end == 'G' || *end == 'g')
		mult = 1024ull * 1024 * 1024, end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v > (1ull << 40) / mult)
		return -EINVAL;
	*out = v * mult;
	return 0;
}

/* "2", "0.5": seconds, to ms. */
static int parse_seconds_ms(const char *s, uint64_t *ms)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0 && v <= 3600))
		return -EINVAL;
	*ms = (uint64_t)(v * 1000 + 0.5);
	return 0;
}

/* "127.0.0.1:9376", ":9376", "[::1]:9376": a word that ends in :DIGITS. */
static bool looks_like_address(const char *s)
{
	const char *colon = strrchr(s, ':');

	if (!colon || !colon[1] || strchr(s, ' '))
		return false;
	for (const char *p = colon + 1; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/* "8M", "512K", "4194304": bytes, turned into a power-of-two page count. */
static int parse_ring(const char *s, uint32_t *pages)
{
	uint64_t v, p;

	if (parse_size(s, &v) || v == 0)
		return -EINVAL;
	p = v / 4096;
	if (p == 0 || (p & (p - 1)) || p > (1u << 20))
		return -EINVAL;
	*pages = (uint32_t)p;
	return 0;
}

static int bad(char *err, size_t errlen, const char *fmt, const char *arg)
{
	snprintf(err, errlen, fmt, arg);
	return -EINVAL;
}

int options__parse(int argc, char **argv, struct agent_opts *o, char *err, size_t errlen)
{
	uint64_t v;
	int c;

	memset(o, 0, sizeof(*o));
	o->flush_ms = AGENT_DEFAULT_FLUSH_MS;
	o->exit_only = -1;
	o->profile_hz = -1;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":jp:n:M:s:lLqvhr:w:zC:G:W:AxXb", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_FILTER:
			o->filter = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'p':
			/* as sysdig: these words pick a line, they are not formats */
			if (!strcmp(optarg, "c") || !strcmp(optarg, "container"))
				o->format = FORMAT_CONTAINER;
			else if (!strcmp(optarg, "k") || !strcmp(optarg, "kubernetes"))
				o->format = FORMAT_K8S;
			else if (!strcmp(optarg, "p"))
				o->print_format = true;
			else
				o->format = optarg;
			break;
		case 'n':
			if (parse_u64(optarg, &o->max_events) || !o->max_events)
				return bad(err, errlen, "-n takes a positive number of events, not '%s'", optarg);
			break;
		case 'M':
			if (parse_u64(optarg, &o->max_seconds) || !o->max_seconds)
				return bad(err, errlen, "-M takes a positive number of seconds, not '%s'", optarg);
			break;
		case 's':
			if (parse_u64(optarg, &v) || v > 65000)
				return bad(err, errlen, "-s takes a snaplen from 0 to 65000 bytes, not '%s'", optarg);
			o->snaplen = (uint32_t)v;
			o->snaplen_given = true;
			break;
		case OPT_OUTPUT:
			if (o->n_outputs == AGENT_MAX_OUTPUTS)
				return bad(err, errlen, "at most 16 --output, not more ('%s')", optarg);
			o->outputs[o->n_outputs++] = optarg;
			break;
		case OPT_QUEUE:
			if (parse_size(optarg, &v) || v < 4096 || v > (1ull << 32))
				return bad(err, errlen, "--queue-size takes a size from 4K to 4G, e.g. 8M, not '%s'", optarg);
			o->queue_bytes = v;
			break;
		case OPT_FLUSH:
			if (parse_seconds_ms(optarg, &o->flush_ms))
				return bad(err, errlen, "--flush-timeout takes seconds from 0 to 3600, e.g. 2 or 0.5, not '%s'", optarg);
			break;
		case OPT_BATCH_BYTES:
			if (parse_size(optarg, &v) || v < 1 || v > (256u << 20))
				return bad(err, errlen, "--batch-bytes takes a size from 1 to 256M, not '%s'", optarg);
			o->batch_bytes = (uint32_t)v;
			break;
		case OPT_BATCH_MS:
			if (parse_u64(optarg, &v) || v < 1 || v > 3600000)
				return bad(err, errlen, "--batch-ms takes milliseconds from 1 to 3600000, not '%s'", optarg);
			o->batch_ms = (uint32_t)v;
			break;
		case OPT_METRICS:
			/* "--metrics ADDR:PORT" as two words too, which getopt's optional
			 * arguments do not allow: a next word ending in :PORT is taken. */
			if (!optarg && optind < argc && looks_like_address(argv[optind]))
				optarg = argv[optind++];
			o->metrics = optarg && *optarg ? optarg : AGENT_DEFAULT_METRICS;
			break;
		case OPT_RING:
			if (parse_ring(optarg, &o->ring_pages))
				return bad(err, errlen, "--ring-size takes a power of two from 4K to 4G, e.g. 8M, not '%s'", optarg);
			break;
		case 'l':
			o->list_fields = true;
			break;
		case 'L':
			o->list_events = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'A':
		case 'x':
		case 'X':
		case 'b':
			o->buf_format = (char)c;
			break;
		case OPT_UNBUF:
			o->unbuffered = true;
			break;
		case OPT_DROP_FAILED:
			o->drop_failed = true;
			break;
		case OPT_NO_KFILTER:
			o->no_kernel_filter = true;
			break;
		case OPT_EXIT_ONLY:
			o->exit_only = 1;
			break;
		case OPT_NO_EXIT_ONLY:
			o->exit_only = 0;
			break;
		case OPT_REQUESTS:
			o->requests = true;
			break;
		case OPT_TCP:
			o->tcp = true;
			break;
		case OPT_NO_TCP:
			o->no_tcp = true;
			break;
		case OPT_NO_TLS:
			o->no_tls = true;
			break;
		case OPT_PROFILE:
			o->profile = true;
			break;
		case OPT_PROFILE_OUT:
			if (!*optarg)
				return bad(err, errlen, "--profile-out takes a directory%s", "");
			o->profile_out = optarg;
			break;
		case OPT_PROFILE_HZ: {
			char *end;
			long hz = strtol(optarg, &end, 10);

			if (end == optarg || *end || hz < 0 || hz > 1000)
				return bad(err, errlen, "--profile-hz takes samples a second from 0 "
					   "to 1000, not '%s'", optarg);
			o->profile_hz = (int)hz;
			break;
		}
		case OPT_PROFILE_THRESHOLD: {
			uint64_t thr[REQ_PROTO_MAX];

			if (profile_out__thresholds(optarg, thr, err, errlen))
				return -EINVAL;
			o->profile_threshold = optarg;
			break;
		}
		case OPT_SERVICE_MAP:
			if (!*optarg)
				return bad(err, errlen, "--service-map takes a file name%s", "");
			o->service_map = optarg;
			break;
		case OPT_REQ_TIMEOUT: {
			char *end;
			double secs = strtod(optarg, &end);

			if (end == optarg || *end || !(secs >= 0.001 && secs <= 86400))
				return bad(err, errlen, "--request-timeout takes seconds from 0.001 "
					   "to 86400, not '%s'", optarg);
			o->request_timeout_ns = (uint64_t)(secs * 1e9);
			break;
		}
		case OPT_ENGINE:
			if (!strcmp(optarg, "perf"))
				o->engine = CAPTURE_ENGINE_PERF;
			else if (!strcmp(optarg, "ringbuf"))
				o->engine = CAPTURE_ENGINE_RINGBUF;
			else
				return bad(err, errlen, "--engine takes perf or ringbuf, not '%s'", optarg);
			break;
		case 'r':
			o->read_file = optarg;
			break;
		case 'w':
			o->write_file = optarg;
			break;
		case 'z':
			o->compress = true;
			break;
		case 'C':
			if (parse_u64(optarg, &v) || !v || v > 1000000)
				return bad(err, errlen, "-C takes a file size from 1 to 1000000 MB (millions of bytes), not '%s'", optarg);
			o->rollover_mb = (uint32_t)v;
			break;
		case 'G':
			if (parse_u64(optarg, &v) || !v || v > 31536000)
				return bad(err, errlen, "-G takes seconds from 1 to 31536000 (a year), not '%s'", optarg);
			o->rotate_secs = (uint32_t)v;
			break;
		case 'W':
			if (parse_u64(optarg, &v) || !v || v > 1000000)
				return bad(err, errlen, "-W takes a number of files from 1 to 1000000, not '%s'", optarg);
			o->file_limit = (uint32_t)v;
			break;
		case 'h':
			o->help = true;
			break;
		case OPT_VERSION:
			o->version = true;
			break;
		case ':':
			return bad(err, errlen, "option '%s' needs a value (see agent --help)", argv[optind - 1]);
		default:
			return bad(err, errlen, "unknown option '%s' (see agent --help)", argv[optind - 1]);
		}
	}
	for (int i = 0; i < o->n_outputs; i++) {
		bool out = !strcmp(o->outputs[i], "stdout") || !strcmp(o->outputs[i], "-");

		if (out && o->quiet)
			return bad(err, errlen, "-q means no events on stdout: drop it or '--output %s'", o->outputs[i]);
		for (int j = 0; j < i; j++)
			if (!strcmp(o->outputs[i], o->outputs[j]))
				return bad(err, errlen, "--output %s is given twice", o->outputs[i]);
	}
	if (o->compress && !o->write_file)
		return bad(err, errlen, "-z compresses the file of -w: give -w FILE too%s", "");
	if ((o->rollover_mb || o->rotate_secs) && !o->write_file)
		return bad(err, errlen, "%s starts new files of -w: give -w FILE too", o->rollover_mb ? "-C" : "-G");
	if (o->file_limit && !o->rollover_mb && !o->rotate_secs)
		return bad(err, errlen, "-W limits the files of -C or -G: give -C MB or -G SECS too%s", "");
	if (o->profile_hz >= 0 && !o->profile_out)
		return bad(err, errlen, "--profile-hz samples stacks for --profile-out: give "
			   "--requests --profile --profile-out DIR too%s", "");
	if ((o->profile_out || o->profile_threshold) && !(o->requests && o->profile))
		return bad(err, errlen, "%s writes slow requests' timelines: give --requests "
			   "--profile too", o->profile_out ? "--profile-out" : "--profile-threshold");
	if (o->tcp && (o->requests || o->profile))
		return bad(err, errlen, "--tcp prints TCP records, %s its own records: give one "
			   "(--requests --metrics counts TCP health too)",
			   o->requests ? "--requests" : "--profile");
	if (o->no_tcp && (!o->requests || o->tcp))
		return bad(err, errlen, "--no-tcp leaves TCP health out of --requests: give "
			   "--requests, without --tcp%s", "");
	if ((o->service_map || o->request_timeout_ns || o->no_tls) && !o->requests)
		return bad(err, errlen, "%s works on request records: give --requests too",
			   o->service_map ? "--service-map" : o->no_tls ? "--no-tls" :
			   "--request-timeout");
	/* a file keeps the samples, not the stacks (they are the kernel's) */
	if (o->profile_hz >= 0 && o->read_file)
		return bad(err, errlen, "--profile-hz samples live threads: -r's file keeps "
			   "no stacks to read%s", "");
	if (o->read_file && o->write_file && !strcmp(o->read_file, o->write_file))
		return bad(err, errlen, "-r and -w name the same file '%s'", o->read_file);
	if (optind < argc) {
		size_t len = 0;

		if (o->filter)
			return bad(err, errlen, "give the filter either with --filter or as arguments, not both%s", "");
		/* sysdig joins trailing words into one filter expression. */
		for (int i = optind; i < argc; i++)
			len += strlen(argv[i]) + 1;
		o->filter_owned = malloc(len);
		if (!o->filter_owned)
			return -ENOMEM;
		o->filter_owned[0] = 0;
		for (int i = optind; i < argc; i++) {
			if (i > optind)
				strcat(o->filter_owned, " ");
			strcat(o->filter_owned, argv[i]);
		}
		o->filter = o->filter_owned;
	}
	return 0;
}

void options__free(struct agent_opts *o)
{
	free(o->filter_owned);
	o->filter_owned = NULL;
}
