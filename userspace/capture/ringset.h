/* Several rings (one per CPU) read as one stream ordered by event timestamp, with
 * batched waiting: poll on the ring fds with a doubling back-off instead of a
 * wakeup per event. */
#ifndef CAPTURE_RINGSET_H
#define CAPTURE_RINGSET_H

#include <signal.h>
#include <stdint.h>

#include "capture.h"
#include "ring.h"

struct ringset_opts {
	/* How long an event may take from taking its timestamp to being visible in
	 * its ring. An event is handed out only once every ring without pending
	 * events was read after the event's ts + this window, so that a later event
	 * of another CPU cannot be older. 0: no such check (synthetic input). */
	uint64_t order_window_ns;
	/* The clock of the event timestamps; NULL: CLOCK_BOOTTIME shifted to the
	 * epoch (what the driver uses). */
	uint64_t (*clock_ns)(void *ctx);
	void *clock_ctx;
	/* The default clock's boot-to-epoch offset: the driver's own (driver__boot_time)
	 * so both sides agree exactly; 0: computed here. */
	uint64_t boot_to_epoch_ns;
	/* Back-off of the wait when the rings are (nearly) empty; 0: 1 ms .. 30 ms. */
	uint32_t backoff_min_us;
	uint32_t backoff_max_us;
	/* The ring fds are ready whenever a ring is not empty (BPF ring buffers
	 * written without wakeups): polling them would wake us per event, so the
	 * wait sleeps its back-off instead. */
	bool sleep_wait;
};

struct ringset;

/* NULL and errno on failure. OPTS may be NULL. */
struct ringset *ringset__new(const struct ringset_opts *opts);
/* Adds R read as CPU; the set owns R from now on (even on failure). */
int ringset__add(struct ringset *s, struct ring *r, uint16_t cpu);
/* capture__next's contract: 0, -EAGAIN, -EINTR. */
int ringset__next(struct ringset *s, struct capture_event *ev, int timeout_ms);
/* Signal mask to wait with (ppoll), so that a signal blocked by the caller can
 * only arrive during the wait; NULL: keep the current mask. */
void ringset__set_sigmask(struct ringset *s, const sigset_t *mask);
/* No more events will be written: hand out what the rings hold in timestamp
 * order without the order window's wait. */
void ringset__final(struct ringset *s);
/* Per-CPU and total ring counters and the mode; drv_* left zero. */
int ringset__stats(const struct ringset *s, struct capture_stats *st);
/* Unmaps the rings (their fds stay open). Accepts NULL. */
void ringset__free(struct ringset *s);

/* The same as a capture engine (engine = the ringset; close frees it). */
extern const struct capture_engine_ops ringset_engine_ops;

#endif
