/* Each followed thread's clock: the ns it has spent waiting for a CPU and off
 * CPU by kind since the driver began following it, summed from its
 * CPU_SLICES batches in event order. A batch whose FROM is not the last
 * one's time means time was lost (a dropped batch): the count's generation
 * changes, so a reading from before does not subtract from one after. A
 * bounded table; threads past it are counted, not followed. */
#ifndef PROFILE_CLOCK_H
#define PROFILE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "slices.h"

#define PROF_CLOCK_SLOTS 16384	/* 3/4 used at most */

struct prof_clock_read {
	uint64_t gen;
	uint64_t since;		/* when its following began */
	uint64_t t[PROF_SLICE__KINDS];
};

/* A thread's whole account (prof_clock__each): whose it is (as the caller
 * named it, prof_clock__name), its clock, and until when it counts. */
struct prof_clock_thread {
	uint64_t tid;
	int64_t pid;
	char comm[16];
	char group[64];		/* the caller's (a container id), "" none */
	struct prof_clock_read r;
	uint64_t last_to;	/* its last batch's time */
	uint64_t end;		/* prof_clock__end's time, 0 while it runs */
	uint64_t gaps;		/* batches that did not begin where the last ended */
	uint64_t lost;		/* the time in those gaps: not known how spent */
	bool served;		/* it began serving a request (prof_clock__role) */
	bool let_go;		/* let go: no clock until the driver follows it again */
};

struct prof_clock_counters {
	uint64_t n_threads;	/* threads with a clock now */
	uint64_t n_full;	/* batches of threads not kept: table full */
	uint64_t n_gaps;	/* batches that did not begin where the last ended */
	uint64_t n_let_go;	/* threads let go: a client's requests only */
	uint64_t n_again;	/* of those, followed again: they served */
};

struct prof_clock;

/* NULL and errno ENOMEM. */
struct prof_clock *prof_clock__new(void);
void prof_clock__free(struct prof_clock *c);
/* One batch, in event order. */
void prof_clock__batch(struct prof_clock *c, const struct prof_batch *b);
/* Thread TID's clock into OUT; false when it has none. */
bool prof_clock__read(const struct prof_clock *c, uint64_t tid, struct prof_clock_read *out);
/* Whom following thread TID serves (request mode): it began a request as
 * its SERVER, or as a client. Only a server's requests get a breakdown, so a
 * followed thread that has served none is let go at a client's request:
 * PROF_CLOCK_LET_GO, and the caller tells the driver to follow it no more;
 * its clock reads nothing from then. A thread let go that serves:
 * PROF_CLOCK_AGAIN, the caller tells the driver to follow it again, and its
 * clock begins anew at the driver's batch of none for it (batches built
 * before the driver let it go are passed over). Else 0. */
enum { PROF_CLOCK_LET_GO = 1, PROF_CLOCK_AGAIN };
int prof_clock__role(struct prof_clock *c, uint64_t tid, bool server);
/* Thread TID exited: its clock goes. */
void prof_clock__forget(struct prof_clock *c, uint64_t tid);
/* Whose thread TID is, kept with its clock (a thread known to it only). */
void prof_clock__name(struct prof_clock *c, uint64_t tid, int64_t pid, const char *comm,
		      const char *group);
/* Thread TID's account ends at TS (it exited): kept, not forgotten. */
void prof_clock__end(struct prof_clock *c, uint64_t tid, uint64_t ts);
/* NS more of KIND for thread TID (what the driver held when it stopped). */
void prof_clock__add(struct prof_clock *c, uint64_t tid, unsigned kind, uint64_t ns);
/* FN for each thread with a clock, in table order; stops at FN's nonzero
 * return, which it returns. */
int prof_clock__each(const struct prof_clock *c,
		     int (*fn)(void *ctx, const struct prof_clock_thread *t), void *ctx);
void prof_clock__counters(const struct prof_clock *c, struct prof_clock_counters *out);

#endif
