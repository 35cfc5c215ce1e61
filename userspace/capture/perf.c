/* BPF output perf events and the online CPU list. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "perf.h"

int perf__open_bpf_output(int cpu, uint32_t wakeup_bytes)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_type = PERF_SAMPLE_RAW,
		.sample_period = 1,
		.disabled = 1,
		/* Wake a poller per batch of bytes, not per sample. */
		.watermark = 1,
		.wakeup_watermark = wakeup_bytes,
	};
	int fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* The sysfs cpu list format: "0-3,6". */
int perf__online_cpus(bool *online, int max)
{
	char buf[4096], *p, *end;
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	for (p = buf; *p && *p != '\n';) {
		long a = strtol(p, &end, 10), b = a;

		if (end == p || a < 0)
			return -EINVAL;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a)
				return -EINVAL;
			p = end;
		}
		for (long c = a; c <= b && c < max; c++)
			online[c] = true;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	return 0;
}
