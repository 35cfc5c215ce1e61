/* The cheapest possible programs on the raw syscall tracepoints: what any agent
 * hooking them costs before it does anything. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual MIT/GPL";

SEC("raw_tp/sys_enter")
int empty_enter(struct bpf_raw_tracepoint_args *ctx)
{
	return 0;
}

SEC("raw_tp/sys_exit")
int empty_exit(struct bpf_raw_tracepoint_args *ctx)
{
	return 0;
}
