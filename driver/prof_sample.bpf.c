/* Profiling's on-CPU stacks: a perf_event program on each CPU's cpu-clock
 * software event (driver_config.profile_hz a second) that, when the thread it
 * interrupts is followed (prof_threads), keeps its user and kernel stacks in
 * prof_stacks and sends a CPU_SAMPLE event naming them. The event is built on
 * the stack: this runs in an interrupt, which may have cut into a program
 * using the per-CPU frames. */
#include "prof.bpf.h"
#include "ring_out.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, PROF_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, PROF_STACK_DEPTH * sizeof(__u64));
} prof_stacks SEC(".maps");

#define SAMPLE_PARAMS_OFF (PPM_HDR_LEN + 3 * 2)
#define SAMPLE_LEN (SAMPLE_PARAMS_OFF + 3 * 8)

SEC("perf_event")
int prof_sample(struct bpf_perf_event_data *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), buf[(SAMPLE_LEN + 7) / 8] = {};
	__u8 *b = (__u8 *)buf;
	struct ppm_evt_hdr *h = (struct ppm_evt_hdr *)b;
	__u16 *lens = (__u16 *)&b[PPM_HDR_LEN];
	__u32 tid = (__u32)pid_tgid;
	__s64 ids[3];
	long err;

	if (!settings.profile || !settings.capture || !tid ||
	    !bpf_map_lookup_elem(&prof_threads, &tid))
		return 0;
	ids[0] = tid;
	ids[1] = bpf_get_stackid(ctx, &prof_stacks, BPF_F_USER_STACK);
	ids[2] = bpf_get_stackid(ctx, &prof_stacks, 0);
	h->ts = prof__now();
	h->tid = tid;
	h->len = SAMPLE_LEN;
	h->type = PPME_CPU_SAMPLE_E;
	h->nparams = PPME_CPU_SAMPLE_E_NPARAMS;
	lens[0] = lens[1] = lens[2] = 8;
	__builtin_memcpy(&b[SAMPLE_PARAMS_OFF], ids, sizeof(ids));
	err = frame__output(ctx, b, SAMPLE_LEN);
	frame__account(err, PPME_CPU_SAMPLE_E, 0, 1);
	return 0;
}
