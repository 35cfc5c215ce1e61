/* The perf events that BPF programs write into (PERF_COUNT_SW_BPF_OUTPUT), and the
 * CPUs to open them on. Shared by the live engine and the benchmarks' probes. */
#ifndef CAPTURE_PERF_H
#define CAPTURE_PERF_H

#include <stdbool.h>
#include <stdint.h>

/* A BPF output event on CPU whose poll wakes up once WAKEUP_BYTES are unread (not
 * per sample). Returns the fd (close-on-exec, disabled until
 * PERF_EVENT_IOC_ENABLE) or a negative errno. */
int perf__open_bpf_output(int cpu, uint32_t wakeup_bytes);

/* Sets ONLINE[c] for every online CPU c < MAX. 0 or a negative errno. */
int perf__online_cpus(bool *online, int max);

#endif
