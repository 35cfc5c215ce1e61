/* Types shared by the BPF driver and its userspace loader. No libc here. */
#ifndef DRIVER_H
#define DRIVER_H

#include "ppm_wire.h"

/* Each CPU's scratch frame: the event is built here, then sent in one piece. Writes
 * go to offsets masked into the first half, so a write of at most half a frame
 * never leaves the buffer (the verifier can see that). */
#define FRAME_HALF 65536
#define FRAME_SIZE (2 * FRAME_HALF)
/* Longest path or string param the driver copies. */
#define DRIVER_MAX_STR 4096
#define DRIVER_DEFAULT_SNAPLEN 80
/* Fillers too big for one program continue in up to FILLER_PARTS - 1 parts. */
#define FILLER_PARTS 4

/* Settings userspace may change while the driver runs (in .bss, mmapped). */
struct driver_settings {
	__u64 boot_time;	/* ns since the epoch at boot: ts = boot_time + boot ns */
	__u32 snaplen;		/* bytes of I/O buffers captured */
	__u32 own_tgid;		/* the agent's own process: never captured */
	__u8 capture;		/* 0: send nothing */
	__u8 drop_failed;	/* no exit events for syscalls that failed */
	__u8 procexit;		/* send procexit events (sched_process_exit) */
	__u8 pad[5];
};

/* Per-CPU counters, in a BPF_MAP_TYPE_PERCPU_ARRAY of one entry. */
struct driver_counters {
	__u64 n_evts;		/* events sent */
	__u64 n_drops_buffer;	/* perf ring full (bpf_perf_event_output failed) */
	__u64 n_drops_pf;	/* user memory unreadable: param sent empty */
	__u64 n_drops_bug;	/* internal errors, no scratch frame, bad sizes */
	__u64 n_drops_scratch;	/* event larger than the frame: not sent */
};

#endif
