/* One perf ring (header page + 2^n data pages) or one BPF ring buffer, mapped so
 * that every record reads as one contiguous block, and a cursor that walks it one
 * snapshot at a time. Works on any fd that mmaps like either (a memfd in the unit
 * tests). */
#ifndef CAPTURE_RING_H
#define CAPTURE_RING_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"

/* Room after the data ring for the wrapped part of a record (a record's size is a
 * u16, so 64 KiB always suffices). */
#define RING_SLACK (64 * 1024)

enum ring_mode {
	RING_AUTO,	/* try the double mapping, fall back to slack */
	RING_DOUBLE,	/* data mapped twice back to back: no copies */
	RING_SLACK_COPY,	/* data mapped once; wrapped tails copied into slack */
	RING_BPF,	/* a BPF ring buffer (the kernel maps its data twice) */
};

struct ring;

/* Maps FD (1 header page + DATA_PAGES pages, a power of two). NULL and errno on
 * failure (EINVAL: bad size or a header page that disagrees with it). */
struct ring *ring__map(int fd, uint32_t data_pages, enum ring_mode mode);
/* Maps FD, a BPF_MAP_TYPE_RINGBUF of SIZE bytes (a power of two, in pages): its
 * consumer page, then its producer page and data mapped twice, as the kernel
 * lays them out from offset one page. NULL and errno on failure. */
struct ring *ring__map_bpf(int fd, uint64_t size);
/* Unmaps; does not close the fd. Accepts NULL. */
void ring__unmap(struct ring *r);

enum ring_mode ring__mode(const struct ring *r);
const char *ring__mode_name(enum ring_mode mode);
int ring__fd(const struct ring *r);
uint64_t ring__data_size(const struct ring *r);

/* The cursor. A snapshot is the bytes between data_tail and data_head at the time
 * of ring__refresh. ring__peek returns the next valid event of the snapshot
 * (skipping and counting lost and corrupt records) without consuming it, or false
 * once the snapshot is used up; ring__consume moves past it. Pointers stay valid
 * until the tail is released, which only ring__refresh does, and only once the
 * whole snapshot has been consumed. */
bool ring__peek(struct ring *r, struct capture_event *ev, uint64_t *ts);
void ring__consume(struct ring *r);
bool ring__exhausted(const struct ring *r);
/* Hands the consumed snapshot back to the writer (full barrier, store data_tail)
 * if it is used up; no-op otherwise. */
void ring__release(struct ring *r);
/* Releases, then takes a new snapshot if the old one is used up. Returns the
 * bytes in the current snapshot that are not yet consumed. */
uint64_t ring__refresh(struct ring *r);

/* Counters of this ring (events, bytes, lost, corrupt; drv_* untouched). */
void ring__stats(const struct ring *r, struct capture_cpu_stats *st);

#endif
