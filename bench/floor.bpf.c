/* The floor for the overhead benchmark: the least a capturing probe can do on the
 * raw syscall tracepoints, a 26-byte event header per enter and exit sent into a
 * perf ring, with no filtering, no arguments and no tail calls. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "ppm_wire.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Epoch ns at boot, as the driver stamps events (set before load). */
const volatile __u64 boot_time = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} floor_events SEC(".maps");

static __always_inline int emit(void *ctx, __u16 type)
{
	struct ppm_evt_hdr h = {
		.ts = boot_time + bpf_ktime_get_boot_ns(),
		.tid = (__u32)bpf_get_current_pid_tgid(),
		.len = sizeof(h),
		.type = type,
	};

	bpf_perf_event_output(ctx, &floor_events, BPF_F_CURRENT_CPU, &h, sizeof(h));
	return 0;
}

SEC("raw_tp/sys_enter")
int floor_enter(struct bpf_raw_tracepoint_args *ctx)
{
	return emit(ctx, PPME_GENERIC_E);
}

SEC("raw_tp/sys_exit")
int floor_exit(struct bpf_raw_tracepoint_args *ctx)
{
	return emit(ctx, PPME_GENERIC_X);
}
