/* CPU_SLICES events (proto/events.def): one thread's off-CPU and run-queue
 * slices from FROM to the event's time, decoded and checked. The driver
 * writes them (driver.h, struct prof_slice); here they are bytes, which a
 * capture file or a bad ring may have spoilt, so every one is checked. */
#ifndef PROFILE_SLICES_H
#define PROFILE_SLICES_H

#include <stddef.h>
#include <stdint.h>

/* The kinds, as the driver's enum prof_kind (the agent checks they agree). */
enum prof_slice_kind {
	PROF_SLICE_RUNQ = 0,
	PROF_SLICE_FILE,
	PROF_SLICE_NET,
	PROF_SLICE_LOCK,
	PROF_SLICE_POLL,
	PROF_SLICE_SLEEP,
	PROF_SLICE_OTHER,
	PROF_SLICE__KINDS
};

#define PROF_SLICE_WIRE 32	/* bytes per slice */
#define PROF_SLICES_MAX 16	/* per event (the driver's PROF_BATCH) */
#define PROF_SLICE_NR_NONE 0xffff
#define PROF_SLICE_F_PREEMPTED 1
#define PROF_SLICE_F_FD 2
#define PROF_SLICE_F_UNSEEN 4	/* its use not known: the clock counts it lost */

struct prof_slice_rec {
	uint64_t start, dur;	/* ns since the epoch, ns */
	uint64_t obj;		/* fd (F_FD), futex address (LOCK), 0 */
	uint32_t waker;		/* LOCK: the thread that woke it, 0 unknown */
	uint16_t nr;		/* the syscall, PROF_SLICE_NR_NONE */
	uint8_t kind, flags;
};

struct prof_batch {
	uint64_t tid;
	uint64_t from, to;	/* to: the event's time */
	unsigned n;
	struct prof_slice_rec s[PROF_SLICES_MAX];
};

/* Decodes the params of a CPU_SLICES event at time TO: TID and FROM (8
 * bytes each, TID_LEN and FROM_LEN long) and SLICES (LEN bytes) into OUT.
 * 0, or -EINVAL when a param's size is wrong, a kind unknown, or the slices
 * are not in order within FROM..TO without overlap. */
int prof_batch__decode(struct prof_batch *out, uint64_t to, const uint8_t *tid, size_t tid_len,
		       const uint8_t *from, size_t from_len, const uint8_t *slices, size_t len);

/* The kind's name: runq, file, net, lock, poll, sleep, other. */
const char *prof_slice__kind_name(unsigned kind);

#endif
