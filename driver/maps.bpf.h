/* Maps and globals shared by every BPF file of the driver. Declared __weak so that
 * each file can include this and `bpftool gen object` keeps one copy. */
#ifndef MAPS_BPF_H
#define MAPS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "driver.h"
#include "schema_syscalls.h"

/* One per CPU (indexed by CPU id): the event under construction. The fields before
 * data carry the state of a filler across helper calls. */
/* resp.bpf.h's walk of a buffer's first RESP message, turn by turn; h2.bpf.h's
 * scan of a 101 for "h2c" takes p, end and more */
struct resp_walk {
	__u64 p;	/* the next byte's offset in the frame */
	__u64 end;	/* what was copied ends here */
	__u64 stop;	/* the buffer the call moved would end here */
	__s64 num;	/* the count or length being read */
	__u32 digits;
	__u32 left;	/* bulk strings left in the message */
	__u8 state;	/* enum resp_state */
	__u8 array;	/* the number read is an array's count */
	__u8 more;	/* the result: the message ends before the buffer */
	__u8 pad[5];
};

struct scratch {
	__u32 off;	/* next byte to write in data */
	__u32 curarg;	/* params written so far */
	__u32 nparams;	/* params the event must have */
	__u16 type;
	__u8 overflow;	/* a param did not fit: the event is dropped at submit */
	__u8 pad;
	/* pid_tgid of the task building the event. BPF programs can be preempted on
	 * PREEMPT kernels: another task on this CPU may take the frame over, and the
	 * first one must then drop its event instead of sending a mix of both. */
	__u64 owner;
	/* Exit-only capture: the sys_exit dispatcher runs the enter filler first and
	 * leaves here what comes next, the exit event's code + 1 (0: nothing) and
	 * the syscall's PPM_SC, for the task CHAIN_OWNER. */
	__u16 chain_ev;
	__u16 chain_sc;
	__u32 chain_pad;
	__u64 chain_owner;
	/* Exit-only capture: the time both events of STAMP_OWNER's syscall carry,
	 * read once by the dispatcher (one clock read per syscall, not two). The
	 * programs that start an event outside that chain clear it. */
	__u64 stamp;
	__u64 stamp_owner;
	/* Exit-only capture: PARK_OWNER's enter frame, PARK_LEN bytes ending where
	 * data begins, waits here for its exit frame: the two go out in one ring
	 * record, one write per syscall instead of two (ring_out.bpf.h, frame__send). */
	__u32 park_len;
	__u16 park_type;
	__u16 park_pad;
	__u64 park_owner;
	/* Compact socket I/O: the socket the dispatcher found for SOCK_OWNER's
	 * call, for the filler it hands the call to (no second fd walk) */
	__u64 sock;
	__u64 sock_owner;
	/* sendmmsg on the compact path: the next message's index
	 * (sockio_mmsg.bpf.c, for SOCK_OWNER) */
	__u32 mmsg_i;
	__u32 mmsg_pad;
	/* request mode: a cut buffer's first RESP message walked (resp.bpf.h) */
	struct resp_walk resp;
	__u8 park[PARK_SIZE];
	__u8 data[FRAME_SIZE];
};

_Static_assert(__builtin_offsetof(struct scratch, data) ==
	       __builtin_offsetof(struct scratch, park) + PARK_SIZE,
	       "the parked frame and the frame must be contiguous");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} events __weak SEC(".maps");

/* The BPF ring-buffer engine (settings.ringbuf): one BPF_MAP_TYPE_RINGBUF per
 * CPU, indexed by CPU id, created and put here by userspace with the size it
 * wants (a ring buffer's size is not part of its type). The template below only
 * gives the verifier the inner map's type. */
struct ring_template {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(key_size, sizeof(__u32));
	__uint(max_entries, 1);
	__array(values, struct ring_template);
} rings __weak SEC(".maps");

/* max_entries is set to the number of possible CPUs by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} frames __weak SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct driver_counters);
} counters __weak SEC(".maps");

/* Events dropped in the kernel, per event code (any reason but unreadable user
 * memory, which only empties a param): what users ask when drops happen is
 * "which events did I lose". Only touched on a drop. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PPM_EVENT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} drops_by_type __weak SEC(".maps");

/* A program array indexed by event code. */
#define FILLER_TABLE(name)                                      \
	struct {                                                \
		__uint(type, BPF_MAP_TYPE_PROG_ARRAY);          \
		__uint(max_entries, PPM_EVENT_MAX);             \
		__uint(key_size, sizeof(__u32));                \
		__uint(value_size, sizeof(__u32));              \
	} name __weak SEC(".maps")

/* Event code -> filler program, filled by the loader. Enter fillers are raw_tp
 * programs, exit fillers tp_btf/sys_exit ones, or tracepoint programs on the
 * syscalls' own exit tracepoints (syscall_tps); a program array holds one kind. */
FILLER_TABLE(fillers_enter);

FILLER_TABLE(fillers_exit);

/* Exit-only capture: event code -> exit filler, the same programs as
 * fillers_exit. Only enter fillers tail-call into it (the end of FILLER): in
 * exit-only mode they are loaded as the exit fillers are, otherwise it stays
 * empty. */
FILLER_TABLE(fillers_chain);
/* Continuation programs of exit fillers too big for one program: a filler for
 * event CODE tail-calls part N (1..3) at index CODE * 4 + N. Programs named
 * "<event id>_partN" in lower case are put here by the loader (exit side only). */

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, PPM_EVENT_MAX * FILLER_PARTS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} filler_parts __weak SEC(".maps");

/* Native syscall number -> its events and PPM_SC (sysdig's routing table). */
const struct syscall_route routes[SYSCALL_TABLE_SIZE] __weak = SCHEMA_SYSCALL_ROUTES;

/* Exit-only capture: 1 when the exit-side programs are tracepoint programs on
 * each wanted syscall's own sys_exit_* tracepoint (loader.c, "syscall_tps"),
 * so the others never run them; 0 when they are tp_btf programs on the raw
 * sys_exit tracepoint. Read-only: the verifier drops the other mode's code. */
const volatile __u8 syscall_tps __weak = 0;

/* Request mode's TLS probes (tls.bpf.c): the call each thread is in, and the
 * socket each session last used. LRU: a thread killed inside a call leaves
 * its entry behind. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TLS_CALLS);
	__type(key, __u64);
	__type(value, struct tls_call);
} tls_calls __weak SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TLS_SESSIONS);
	__type(key, struct tls_sess_key);
	__type(value, __s32);
} tls_fds __weak SEC(".maps");

/* Written by userspace through the mmapped .bss while the driver runs. */
struct driver_settings settings __weak;
/* Native syscall number -> nonzero when its events are wanted. */
__u8 interesting[SYSCALL_TABLE_SIZE] __weak;
/* Event code -> nonzero when the loader left its filler out (driver/plan.h):
 * the run never captures a syscall that needs it. */
__u8 filler_off[PPM_EVENT_MAX] __weak;
/* Exit-only capture: 1 for an enter event whose enter and exit fillers are
 * both loaded, whose enter frame the dispatcher may write itself
 * (park__simple_enter); set by the loader after the load. */
__u8 park_inline[PPM_EVENT_MAX] __weak;

#endif
