/* --profile-out DIR (with --requests --profile): each slow server request's
 * timeline, as DIR/req-ID.json and DIR/req-ID.svg: its thread's slices from
 * its first read to its last write, with what each waited on named (the fd's
 * path or peer, the futex and the thread that released it), and the client
 * requests the thread made meanwhile (req.parent). Slow: over
 * --profile-threshold for its protocol (and taken by the filter). */
#ifndef AGENT_PROFILE_OUT_H
#define AGENT_PROFILE_OUT_H

#include <stdbool.h>
#include <stdint.h>

#include "req_head.h"

struct agent;
struct req_record;

/* The defaults: 200 ms; Redis and DNS, which answer in microseconds when
 * well, 20 ms. */
#define PROFILE_SLOW_NS 200000000ull
#define PROFILE_SLOW_FAST_NS 20000000ull
/* --profile-hz's default: samples a second per CPU (off the beat of 100 Hz
 * timers, as perf's default 4000 and 99 in the examples of profilers). */
#define PROFILE_HZ 99
/* At most this many timelines per second of event time (past it counted). */
#define PROFILE_OUT_PER_SEC 10
/* Client requests kept for their parents' timelines (the latest). */
#define PROFILE_OUT_CALLS 1024

struct profile_out_counters {
	uint64_t n_written;	/* timelines written */
	uint64_t n_partial;	/* ... with some of their slices not kept */
	uint64_t n_rate;	/* slow requests past PROFILE_OUT_PER_SEC */
	uint64_t n_errors;	/* timelines that could not be written */
	bool stacks;		/* stacks were sampled: */
	uint64_t n_samples;	/* ... samples counted */
	uint64_t n_stacks;	/* ... distinct stacks */
	uint64_t n_stacks_full;	/* ... samples of stacks past the bound */
	uint64_t n_stacks_lost;	/* ... samples with neither stack walked */
	int write_err;		/* the stack files: 0 or -errno */
};

/* SPEC: a duration for every protocol ("100ms"), or PROTO=DURATION pairs by
 * commas ("http=100ms,redis=5ms", the others keep their defaults), into
 * OUT[REQ_PROTO_MAX]. 0, or -EINVAL with the reason in ERR. */
int profile_out__thresholds(const char *spec, uint64_t *out, char *err, size_t errlen);

struct profile_out;
/* DIR is made when missing. NULL with errno. */
struct profile_out *profile_out__new(const char *dir, const uint64_t *thresholds);
void profile_out__free(struct profile_out *po);
/* Every record the pairing hands out (MATCHED: the filter took it). */
void profile_out__record(struct profile_out *po, struct agent *a, const struct req_record *r,
			 bool matched);
void profile_out__counters(const struct profile_out *po, struct profile_out_counters *out);
/* The on-CPU stacks (--profile-hz): a symbolizer and the stack table, which
 * CPU_SAMPLE events' addresses fill. 0 or -ENOMEM. */
int profile_out__stacks(struct profile_out *po, struct agent *a);
struct prof_stacks *profile_out__stack_table(struct profile_out *po);	/* NULL: none */
/* The end: DIR/stacks-GROUP-PROCESS.folded written. 0 or -errno. */
int profile_out__finish(struct profile_out *po);
const char *profile_out__dir(const struct profile_out *po);

#endif
