/* Each followed thread's most recent slices (the last PROF_RECENT_SLICES), for
 * the timeline of a slow request (agent --profile-out): when its record comes,
 * the slices of its thread between its first read and its last write are
 * still here. All memory is taken up front: PROF_RECENT_THREADS threads at
 * most (past that counted), so a batch costs a lookup and copies. */
#ifndef PROFILE_RECENT_H
#define PROFILE_RECENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slices.h"

#define PROF_RECENT_SLICES 256	/* per thread: 10 KiB */
#define PROF_RECENT_THREADS 2048	/* slots; 3/4 used: 1536 threads, 43 MiB virtual */
#define PROF_RECENT_NAME 48	/* bytes of a slice's name kept (its end, when longer) */
#define PROF_RECENT_SAMPLES 128	/* per thread: its last on-CPU stack samples */

struct prof_recent;

struct prof_recent_counters {
	uint64_t n_threads;	/* threads kept now */
	uint64_t n_full;	/* batches of threads not kept: table full */
};

struct prof_recent *prof_recent__new(void);	/* NULL: ENOMEM */
void prof_recent__free(struct prof_recent *r);
/* B's slices join its thread's (in event order, as the batches come), each
 * with NAMES[i] (what it waited on, named when it came; NAMES or an entry
 * may be NULL). */
void prof_recent__batch(struct prof_recent *r, const struct prof_batch *b,
			const char *const *names);
/* An on-CPU stack sample of thread TID at TS: KEY (prof_stacks__add's).
 * A thread not kept yet is kept from here (past the bound, counted). */
void prof_recent__sample(struct prof_recent *r, uint64_t tid, uint64_t ts, int32_t key);
/* Thread TID's samples in FROM..TO, oldest first: their keys into KEYS (at
 * most N); returns how many. */
size_t prof_recent__samples(const struct prof_recent *r, uint64_t tid, uint64_t from, uint64_t to,
			    int32_t *keys, size_t n);
/* Thread TID exited: its slices go. */
void prof_recent__forget(struct prof_recent *r, uint64_t tid);
/* Thread TID's slices that overlap FROM..TO, oldest first, into OUT (at most
 * N); returns how many. *WHOLE says whether every slice of that span is
 * there: false when the ring dropped one that ended after FROM, when more
 * than N overlap, or when the thread is not kept. NAMES (N of them, may be
 * NULL) gets each one's name, "" for none. */
size_t prof_recent__window(const struct prof_recent *r, uint64_t tid, uint64_t from, uint64_t to,
			   struct prof_slice_rec *out, char (*names)[PROF_RECENT_NAME], size_t n,
			   bool *whole);
void prof_recent__counters(const struct prof_recent *r, struct prof_recent_counters *out);

#endif
