/* A slow request's timeline (agent --profile-out): its serving thread's
 * slices between the request's first read and last write, with what each
 * waited on named, and the downstream calls the thread made meanwhile; as
 * JSON (json-c) and as an SVG picture. The caller resolves the names (fd
 * paths, waker threads): this file only lays them out. */
#ifndef PROFILE_TIMELINE_H
#define PROFILE_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "slices.h"

struct json_object;

struct prof_tl_slice {
	uint64_t start, dur;	/* ns since the epoch, ns */
	uint8_t kind;		/* enum prof_slice_kind */
	uint8_t flags;		/* PROF_SLICE_F_* */
	const char *syscall;	/* the call blocked in, NULL none */
	int64_t fd;		/* -1 none */
	const char *fd_name;	/* NULL: not known */
	uint64_t futex;		/* lock: the futex's address, else 0 */
	int64_t waker;		/* lock: the thread that released it, 0 unknown */
	const char *waker_name;	/* NULL: not known */
};

struct prof_tl_call {
	uint64_t id;
	uint64_t start, dur;	/* ns since the epoch, ns */
	const char *proto;	/* "redis", "http", ... */
	const char *what;	/* "GET /x", "PING": may be "" */
	const char *peer;	/* "127.0.0.1:6379" */
	int32_t status;		/* -1 none */
	bool error;
};

struct prof_timeline {
	uint64_t id;
	const char *title;	/* "http GET /work 200" */
	const char *thread;	/* "phase_server[1234/1240]" and its container */
	uint64_t start, end;	/* the request's first byte and last */
	bool whole;		/* every slice of the span is here */
	uint64_t oncpu, t[PROF_SLICE__KINDS];	/* the record's breakdown (ns) */
	const struct prof_tl_slice *s;
	size_t n;
	const struct prof_tl_call *calls;
	size_t ncalls;
};

/* The timeline as a JSON object: start, end, whole, slices (each with its
 * offset from the start, length, state, reason and what it waited on) and
 * calls. NULL: ENOMEM. The caller adds the request's own fields. */
struct json_object *prof_timeline__json(const struct prof_timeline *t);

/* The picture: the thread's time as one bar (on CPU, and each slice by its
 * reason), the calls under it on the same time axis, a legend; every shape
 * with a tooltip. 0 or -EIO. */
int prof_timeline__svg(const struct prof_timeline *t, FILE *f);

#endif
