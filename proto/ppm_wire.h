/* The event frame and routing types shared by the BPF driver and userspace.
 * No libc here: the BPF side gets __u64 and friends from vmlinux.h. */
#ifndef PPM_WIRE_H
#define PPM_WIRE_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#include "schema_events.h"
#include "schema_flags.h"

/* Every event starts with this 26-byte packed header, then nparams u16 lengths,
 * then the parameter bytes back to back (docs/formats.md, "Event frame"). */
struct ppm_evt_hdr {
	__u64 ts;	/* ns since the Unix epoch */
	__u64 tid;
	__u32 len;	/* whole event, header included */
	__u16 type;	/* enum ppm_event_code */
	__u32 nparams;
} __attribute__((packed));

#define PPM_HDR_LEN 26
#define PPM_MAX_ARG_SIZE 65000
/* A perf sample size is a u16, so a whole event stays below this. */
#define PPM_MAX_EVENT_SIZE 65000
/* Event codes below this are sysdig 0.29.3's; from here on they are the agent's
 * own (events.def), written to capture files as the generic pair. */
#define PPM_SYSDIG_EVENT_MAX 336

#define PPME_IS_ENTER(code) (((code) & 1) == 0)
#define PPME_IS_EXIT(code) (((code) & 1) == 1)

/* Socket family bytes in SOCKADDR / SOCKTUPLE params. */
#define PPM_AF_UNIX 1
#define PPM_AF_INET 2
#define PPM_AF_INET6 10

/* A clone exit's flags bit that sysdig's table names nowhere (so it prints in
 * the number only): the calling task is not in the initial pid namespace, or
 * the children it makes go to another one (after unshare or setns). On the
 * child's own exit (res 0) that is: the child is not in the initial one. */
#define PPM_CLONE_FLAGS_CHILD_IN_PIDNS (1U << 29)

/* Flags of a syscall route (sysdig's UF_*). */
enum ppm_syscall_flags {
	UF_NONE = 0,
	UF_USED = 1 << 0,
	UF_NEVER_DROP = 1 << 1,
	UF_ALWAYS_DROP = 1 << 2,
	UF_SIMPLEDRIVER_KEEP = 1 << 3,
	UF_ATOMIC = 1 << 4,
	UF_UNINTERESTING = 1 << 5,
	/* The agent's own: in exit-only capture the call's enter event is left
	 * out, and userspace rebuilds it from the exit event (schema__eo_enter). */
	UF_EO_SYNTH = 1 << 8,
};

/* Where a native syscall number goes: its event pair and its PPM_SC code. */
struct syscall_route {
	__u16 enter_event;
	__u16 exit_event;
	__u16 ppm_sc;
	__u16 flags;
};

#endif
