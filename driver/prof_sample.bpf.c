/* Profiling's on-CPU stacks: a perf_event program on each CPU's cpu-clock
 * software event (driver_config.profile_hz a second) that, when the thread it
 * interrupts is followed (prof_threads), sends a CPU_SAMPLE event carrying
 * its user and kernel stacks' addresses. The stacks ride in the event, not in
 * a stack-trace map the agent reads later: a map's entry is shared by every
 * sample of the same stack and its bucket by every stack that hashes there,
 * so freeing entries once named lost the stacks of samples still in the
 * rings, and keeping them filled the map until new stacks found their
 * buckets taken. The event is built in a per-CPU frame of its own: this runs
 * in an interrupt, which may have cut into a program using the other per-CPU
 * frames, and nothing else uses this one. */
#include "prof.bpf.h"
#include "ring_out.bpf.h"

/* CPU_SAMPLE: header, three lengths, tid, the user stack, the kernel stack
 * (each PROF_STACK_DEPTH addresses at most, innermost first). */
#define SAMPLE_PARAMS_OFF (PPM_HDR_LEN + 3 * 2)
#define SAMPLE_USTACK_OFF (SAMPLE_PARAMS_OFF + 8)
#define SAMPLE_STACK_MAX (PROF_STACK_DEPTH * 8)
/* a stack's length is masked to this (>= SAMPLE_STACK_MAX) for the verifier */
#define SAMPLE_STACK_MASK 1023
#define SAMPLE_FRAME_MAX (SAMPLE_USTACK_OFF + SAMPLE_STACK_MASK + SAMPLE_STACK_MAX)

_Static_assert(SAMPLE_STACK_MAX <= SAMPLE_STACK_MASK, "the mask holds a whole stack");

struct sample_frame {
	__u8 data[SAMPLE_FRAME_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sample_frame);
} sample_frames SEC(".maps");

SEC("perf_event")
int prof_sample(struct bpf_perf_event_data *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid, zero = 0, len;
	struct sample_frame *f;
	struct ppm_evt_hdr *h;
	long u, k, err;
	__u16 *lens;
	__u8 *b;

	if (!settings.profile || !settings.capture || !tid ||
	    !bpf_map_lookup_elem(&prof_threads, &tid))
		return 0;
	f = bpf_map_lookup_elem(&sample_frames, &zero);
	if (!f)
		return 0;
	b = f->data;
	/* a stack that cannot be walked goes empty */
	u = bpf_get_stack(ctx, &b[SAMPLE_USTACK_OFF], SAMPLE_STACK_MAX, BPF_F_USER_STACK);
	if (u < 0)
		u = 0;
	u &= SAMPLE_STACK_MASK;
	k = bpf_get_stack(ctx, &b[SAMPLE_USTACK_OFF + u], SAMPLE_STACK_MAX, 0);
	if (k < 0)
		k = 0;
	k &= SAMPLE_STACK_MASK;
	len = SAMPLE_USTACK_OFF + u + k;
	h = (struct ppm_evt_hdr *)b;
	h->ts = prof__now();
	h->tid = tid;
	h->len = len;
	h->type = PPME_CPU_SAMPLE_E;
	h->nparams = PPME_CPU_SAMPLE_E_NPARAMS;
	lens = (__u16 *)&b[PPM_HDR_LEN];
	lens[0] = 8;
	lens[1] = (__u16)u;
	lens[2] = (__u16)k;
	*(__u64 *)&b[SAMPLE_PARAMS_OFF] = tid;
	if (len <= SAMPLE_FRAME_MAX)
		err = frame__output(ctx, b, len);
	else
		err = -1;	/* cannot be: counted as ours to fix */
	frame__account(err, PPME_CPU_SAMPLE_E, 0, 1);
	return 0;
}
