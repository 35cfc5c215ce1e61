/* Privilege, BTF and kernel checks, so users get a clear line instead of a
 * verifier or libbpf error. */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
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

static int has_cap(const struct __user_cap_data_struct *d, int cap)
{
	return (d[cap / 32].effective >> (cap % 32)) & 1;
}

int preflight__check(char *msg, size_t len)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { { 0 } };
	struct utsname u;
	int major = 0, minor = 0;

	if (syscall(SYS_capget, &hdr, data) == 0) {
		int admin = has_cap(data, CAP_SYS_ADMIN);

		if (!admin && !(has_cap(data, CAP_BPF) && has_cap(data, CAP_PERFMON))) {
			snprintf(msg, len, "agent needs root, or CAP_BPF and CAP_PERFMON "
				 "(or CAP_SYS_ADMIN): run it with sudo, or in a privileged container");
			return -EPERM;
		}
	}
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
	return 0;
}

void preflight__explain_load(int err, char *msg, size_t len)
{
	switch (-err) {
	case EPERM:
	case EACCES:
		snprintf(msg, len, "the kernel refused to load the BPF driver (%s): run as root "
			 "with CAP_BPF and CAP_PERFMON, and check kernel.unprivileged_bpf_disabled "
			 "or a seccomp/LSM policy", strerror(-err));
		break;
	case ENOENT:
		snprintf(msg, len, "a tracepoint or kernel type the driver needs is missing (%s): "
			 "the kernel needs raw syscall tracepoints and BTF", strerror(-err));
		break;
	default:
		snprintf(msg, len, "loading the BPF driver failed: %s "
			 "(set AGENT_LIBBPF_DEBUG=1 to see libbpf's log)", strerror(-err));
	}
}
