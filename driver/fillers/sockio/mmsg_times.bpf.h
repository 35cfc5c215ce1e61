/* When each message of a sendmmsg was sent, for the events its exit sends
 * (sockio_mmsg.bpf.c). The call sleeps between messages (cond_resched): a
 * server woken by the first may read and answer it before the call returns,
 * so the call's exit is no time for its messages; a client's request would
 * look shorter than the server's. The socket's send tracepoint fires inside
 * each message's send, so where those programs are loaded (sock_tps) it
 * notes the times here; elsewhere the messages carry the exit's time. */
#ifndef MMSG_TIMES_BPF_H
#define MMSG_TIMES_BPF_H

#include "../../maps.bpf.h"

struct mmsg_times {
	__u64 ts[DRIVER_MMSG_MAX];	/* epoch ns, as frames */
	__u32 n;	/* messages noted in the call begun when ENDED was CALL */
	__u32 call;
	__u32 ended;	/* the thread's sendmmsg exits so far */
	__u32 pad;
};

_Static_assert((DRIVER_MMSG_MAX & (DRIVER_MMSG_MAX - 1)) == 0, "a mask bounds the index");

/* Per thread: freed with it, no key to hash. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct mmsg_times);
} mmsg_times __weak SEC(".maps");

/* At the socket's send tracepoint, inside a sendmmsg: the message's time.
 * The first note after an exit begins the call's list. */
static __always_inline void mmsg_times__note(void)
{
	struct mmsg_times *t = bpf_task_storage_get(&mmsg_times, bpf_get_current_task_btf(), 0,
						    BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (!t)
		return;
	if (t->call != t->ended) {
		t->call = t->ended;
		t->n = 0;
	}
	if (t->n < DRIVER_MMSG_MAX)
		t->ts[t->n++ & (DRIVER_MMSG_MAX - 1)] = settings.boot_time + bpf_ktime_get_boot_ns();
}

/* At every sendmmsg exit, before any filter: the call is over, and what
 * the next one notes is its own. */
static __always_inline void mmsg_times__end(void)
{
	struct mmsg_times *t = bpf_task_storage_get(&mmsg_times, bpf_get_current_task_btf(), 0, 0);

	if (t)
		t->ended++;
}

/* In the call's exit (after mmsg_times__end): message I's time, or 0 when
 * none was noted in this call. */
static __always_inline __u64 mmsg_times__of(__u32 i)
{
	struct mmsg_times *t = bpf_task_storage_get(&mmsg_times, bpf_get_current_task_btf(), 0, 0);

	if (!t || t->call + 1 != t->ended || i >= t->n || i >= DRIVER_MMSG_MAX)
		return 0;
	return t->ts[i & (DRIVER_MMSG_MAX - 1)];
}

#endif
