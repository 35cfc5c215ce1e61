/* Privilege, BTF and kernel checks, so users get a clear line instead of a
 * verifier or libbpf error. Each message names the one capability or limit
 * that is missing and what to do. */
#include <errno.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "preflight.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

#define KERNEL_MIN_MAJOR 5
#define KERNEL_MIN_MINOR 8
#define DEFAULT_RING_PAGES 2048	/* capture's default: 8 MiB */
#define FULL_SET "CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH and CAP_IPC_LOCK"

/* The effective set, or false when capget itself fails (then nothing is checked). */
static bool caps__read(uint64_t *eff)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { { 0 } };

	if (syscall(SYS_capget, &hdr, data))
		return false;
	*eff = data[0].effective | (uint64_t)data[1].effective << 32;
	return true;
}

static bool has(uint64_t eff, int cap)
{
	return (eff >> cap) & 1;
}

static long read_long(const char *path, long dflt)
{
	FILE *f = fopen(path, "re");
	long v;

	if (!f)
		return dflt;
	if (fscanf(f, "%ld", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

/* "8M", "512K", "4K": sizes as --ring-size takes them. */
static void size__fmt(uint64_t bytes, char *buf, size_t len)
{
	if (bytes >= (1ull << 30) && !(bytes & ((1ull << 30) - 1)))
		snprintf(buf, len, "%" PRIu64 "G", bytes >> 30);
	else if (bytes >= (1ull << 20) && !(bytes & ((1ull << 20) - 1)))
		snprintf(buf, len, "%" PRIu64 "M", bytes >> 20);
	else
		snprintf(buf, len, "%" PRIu64 "K", bytes >> 10);
}

/* The kernel's perf_mmap() accounting: each ring locks its data pages plus a
 * header page, charged first to the user's perf_event_mlock_kb (times the online
 * CPUs), the rest to RLIMIT_MEMLOCK; beyond both it needs CAP_IPC_LOCK, unless
 * perf_event_paranoid is -1. PAGES is the ring size, 0 when unknown (after a
 * mapping failed). 0 when the rings fit, else -EPERM with a message. */
static int rings__check(uint64_t eff, uint32_t pages, char *msg, size_t len)
{
	long page = sysconf(_SC_PAGESIZE), ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	long mlock_kb = read_long("/proc/sys/kernel/perf_event_mlock_kb", -1);
	uint64_t need, allow, rl_pages, fit;
	struct rlimit rl;
	char ring[24], best[24], todo[64];
	int n;

	if (has(eff, CAP_IPC_LOCK) || page < 1024 || ncpu <= 0 || mlock_kb < 0 ||
	    read_long("/proc/sys/kernel/perf_event_paranoid", 2) < 0)
		return 0;
	/* live.c raises RLIMIT_MEMLOCK to unlimited, which only CAP_SYS_RESOURCE allows. */
	if (has(eff, CAP_SYS_RESOURCE) || getrlimit(RLIMIT_MEMLOCK, &rl) ||
	    rl.rlim_cur == RLIM_INFINITY)
		return 0;
	rl_pages = rl.rlim_cur / page;
	need = (uint64_t)ncpu * (pages + 1);
	allow = (uint64_t)ncpu * (mlock_kb / (page / 1024)) + rl_pages;
	if (pages && need <= allow)
		return 0;
	for (fit = 1ull << 20; fit && (uint64_t)ncpu * (fit + 1) > allow; fit >>= 1)
		;
	size__fmt(fit * page, best, sizeof(best));
	snprintf(todo, sizeof(todo), fit ? "use --ring-size %s" : "raise kernel.perf_event_mlock_kb",
		 best);
	if (pages) {
		size__fmt((uint64_t)pages * page, ring, sizeof(ring));
		n = snprintf(msg, len, "the perf rings need %" PRIu64 " KiB of locked memory "
			     "(%ld CPUs x (%s ring + %ldK header))", need * page / 1024, ncpu, ring,
			     page / 1024);
	} else {
		n = snprintf(msg, len, "mapping the perf rings failed: they need more locked memory");
	}
	if (n >= 0 && (size_t)n < len)
		snprintf(msg + n, len - n, " but perf_event_mlock_kb (%ld KiB per CPU) and "
			 "RLIMIT_MEMLOCK (%" PRIu64 " KiB) allow %" PRIu64 " KiB: add CAP_IPC_LOCK or %s",
			 mlock_kb, rl_pages * page / 1024, allow * page / 1024, todo);
	return -EPERM;
}

/* CAP_SYS_ADMIN stands in for both in the kernel (bpf_capable(), perfmon_capable()). */
static int bpf_caps__check(uint64_t eff, char *msg, size_t len)
{
	bool bpf = has(eff, CAP_BPF), perfmon = has(eff, CAP_PERFMON);

	if (has(eff, CAP_SYS_ADMIN) || (bpf && perfmon))
		return 0;
	snprintf(msg, len, "missing %s, needed to %s: run agent as root, or add %s "
		 "(the full set: " FULL_SET ")",
		 !bpf && !perfmon ? "CAP_BPF and CAP_PERFMON" : !bpf ? "CAP_BPF" : "CAP_PERFMON",
		 !bpf && !perfmon ? "load its BPF programs and open the perf rings" :
		 !bpf ? "load its BPF programs" :
			"attach to the syscall tracepoints and open the perf rings",
		 !bpf && !perfmon ? "both" : "it");
	return -EPERM;
}

/* In a user namespace other than the host's (rootless containers) capabilities
 * do not count for BPF or perf. Only the host's has the identity map. */
static int userns__check(char *msg, size_t len)
{
	FILE *f = fopen("/proc/self/uid_map", "re");
	unsigned long inside, outside, count;
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "%lu %lu %lu", &inside, &outside, &count);
	fclose(f);
	if (n == 3 && inside == 0 && outside == 0 && count == 4294967295ul)
		return 0;
	snprintf(msg, len, "running in a user namespace (rootless container?), where "
		 "capabilities do not allow BPF: run it on the host or in a rootful container "
		 "with " FULL_SET);
	return -EPERM;
}

static bool seccomp__filtered(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	bool on = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Seccomp:", 8))
			on = atoi(line + 8) == 2;
	fclose(f);
	return on;
}

/* The kernel answers these invalid calls with EINVAL and EFAULT; a seccomp filter
 * or an LSM answers first. Debian 12's podman profile allows bpf() and
 * perf_event_open() only with CAP_SYS_ADMIN, whatever CAP_BPF and CAP_PERFMON say. */
static int syscalls__check(char *msg, size_t len)
{
	const char *call = NULL;
	int e = 0;

	if (syscall(SYS_bpf, -1, NULL, 0) < 0 && (errno == EPERM || errno == ENOSYS))
		call = "bpf()", e = errno;
	else if (syscall(SYS_perf_event_open, NULL, -1, 0, -1, 0) < 0 &&
		 (errno == EPERM || errno == ENOSYS))
		call = "perf_event_open()", e = errno;
	if (!call)
		return 0;
	if (seccomp__filtered())
		snprintf(msg, len, "%s is blocked by a seccomp filter (%s): run the container "
			 "with --security-opt seccomp=unconfined, or a profile that allows bpf and "
			 "perf_event_open with CAP_BPF and CAP_PERFMON", call, strerror(e));
	else
		snprintf(msg, len, "%s fails with %s although agent has the capabilities for it: "
			 "%s", call, strerror(e), e == ENOSYS ? "the kernel lacks CONFIG_BPF_SYSCALL "
			 "or CONFIG_PERF_EVENTS" : "an LSM policy (AppArmor, SELinux) forbids it: "
			 "allow it for agent");
	return -e;
}

/* /proc reads that only degrade enrichment: said once, capture goes on. */
static void proc_caps__warn(uint64_t eff)
{
	if (!has(eff, CAP_SYS_PTRACE))
		fputs("agent: warning: without CAP_SYS_PTRACE the agent cannot read /proc/PID/fd, "
		      "exe and cwd of other users' and privileged processes: for those already "
		      "running, fd.name of files opened before, proc.exepath and proc.cwd stay "
		      "empty: add CAP_SYS_PTRACE\n", stderr);
	/* CAP_DAC_OVERRIDE reads these as well. */
	if (!has(eff, CAP_DAC_READ_SEARCH) && !has(eff, CAP_DAC_OVERRIDE))
		fputs("agent: warning: without CAP_DAC_READ_SEARCH the agent cannot list "
		      "/proc/PID/fd of other users' processes nor read the container runtimes' "
		      "files: fd.name of files opened before it started stays empty and "
		      "containers have no names: add CAP_DAC_READ_SEARCH\n", stderr);
}

int preflight__check(uint32_t ring_pages, bool perf_rings, char *msg, size_t len)
{
	struct utsname u;
	int major = 0, minor = 0, err;
	uint64_t eff = 0;
	bool caps = caps__read(&eff);

	if (caps && (err = bpf_caps__check(eff, msg, len)))
		return err;
	if ((err = userns__check(msg, len)))
		return err;
	if (uname(&u) == 0 && sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
	    (major < KERNEL_MIN_MAJOR || (major == KERNEL_MIN_MAJOR && minor < KERNEL_MIN_MINOR))) {
		snprintf(msg, len, "kernel %s is too old: agent needs Linux %d.%d or newer with BTF",
			 u.release, KERNEL_MIN_MAJOR, KERNEL_MIN_MINOR);
		return -ENOTSUP;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		snprintf(msg, len, "this kernel has no BTF (/sys/kernel/btf/vmlinux is missing): "
			 "use a kernel built with CONFIG_DEBUG_INFO_BTF=y");
		return -ENOENT;
	}
	if (caps && (err = syscalls__check(msg, len)))
		return err;
	/* BPF ring buffers are charged to the memory cgroup, not to the mlock allowance */
	if (caps && perf_rings &&
	    (err = rings__check(eff, ring_pages ? ring_pages : DEFAULT_RING_PAGES, msg, len)))
		return err;
	if (caps)
		proc_caps__warn(eff);
	return 0;
}

void preflight__explain_load(int err, uint32_t ring_pages, bool perf_rings, char *msg,
			     size_t len)
{
	uint64_t eff = 0;
	bool caps = caps__read(&eff);

	switch (-err) {
	case EPERM:
	case EACCES:
		/* mmap of a perf ring fails with EPERM beyond the mlock allowance. */
		if (caps && (bpf_caps__check(eff, msg, len) ||
			     (perf_rings && rings__check(eff, ring_pages ? ring_pages : DEFAULT_RING_PAGES,
					  msg, len))))
			break;
		snprintf(msg, len, "the kernel refused to load or attach the BPF driver (%s) "
			 "although agent has CAP_BPF and CAP_PERFMON: check any seccomp or LSM "
			 "(AppArmor, SELinux) policy; AGENT_LIBBPF_DEBUG=1 shows libbpf's log",
			 strerror(-err));
		break;
	case ENOENT:
		snprintf(msg, len, "a tracepoint or kernel type the driver needs is missing (%s): "
			 "the kernel needs raw syscall tracepoints and BTF", strerror(-err));
		break;
	case EOPNOTSUPP:
		snprintf(msg, len, "--exit-only needs bpf_task_pt_regs (Linux 5.15 or later); "
			 "run without it");
		break;
	default:
		snprintf(msg, len, "loading the BPF driver failed: %s "
			 "(set AGENT_LIBBPF_DEBUG=1 to see libbpf's log)", strerror(-err));
	}
}
