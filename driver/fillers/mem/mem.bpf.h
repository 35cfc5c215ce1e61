/* Helpers shared by the memory fillers: native prot and mmap flags to sysdig's
 * PPM_* bits, and the task's memory counters that the exit events carry. */
#ifndef MEM_BPF_H
#define MEM_BPF_H

#include "fillers/procnet/pn_compat.bpf.h"
#include "schema_flags.h"

/* x86_64 native values (include/uapi/asm-generic/mman-common.h, asm/mman.h):
 * vmlinux.h has no macros. PROT_SAO, MAP_RENAME and MAP_INHERIT do not exist on
 * x86_64 and MAP_FILE is 0 there, so sysdig never set those bits. */
#define NAT_PROT_READ	   0x1
#define NAT_PROT_WRITE	   0x2
#define NAT_PROT_EXEC	   0x4
#define NAT_PROT_SEM	   0x8
#define NAT_PROT_GROWSDOWN 0x01000000
#define NAT_PROT_GROWSUP   0x02000000

#define NAT_MAP_SHARED	   0x01
#define NAT_MAP_PRIVATE	   0x02
#define NAT_MAP_FIXED	   0x10
#define NAT_MAP_ANONYMOUS  0x20
#define NAT_MAP_32BIT	   0x40
#define NAT_MAP_GROWSDOWN  0x0100
#define NAT_MAP_DENYWRITE  0x0800
#define NAT_MAP_EXECUTABLE 0x1000
#define NAT_MAP_LOCKED	   0x2000
#define NAT_MAP_NORESERVE  0x4000
#define NAT_MAP_POPULATE   0x8000
#define NAT_MAP_NONBLOCK   0x10000

static __always_inline __u32 mem__prot_flags(unsigned long prot)
{
	__u32 r = 0;

	if (prot & NAT_PROT_READ)
		r |= PPM_PROT_FLAGS_PROT_READ;
	if (prot & NAT_PROT_WRITE)
		r |= PPM_PROT_FLAGS_PROT_WRITE;
	if (prot & NAT_PROT_EXEC)
		r |= PPM_PROT_FLAGS_PROT_EXEC;
	if (prot & NAT_PROT_SEM)
		r |= PPM_PROT_FLAGS_PROT_SEM;
	if (prot & NAT_PROT_GROWSDOWN)
		r |= PPM_PROT_FLAGS_PROT_GROWSDOWN;
	if (prot & NAT_PROT_GROWSUP)
		r |= PPM_PROT_FLAGS_PROT_GROWSUP;
	return r;
}

static __always_inline __u32 mem__mmap_flags(unsigned long fl)
{
	__u32 r = 0;

	if (fl & NAT_MAP_SHARED)
		r |= PPM_MMAP_FLAGS_MAP_SHARED;
	if (fl & NAT_MAP_PRIVATE)
		r |= PPM_MMAP_FLAGS_MAP_PRIVATE;
	if (fl & NAT_MAP_FIXED)
		r |= PPM_MMAP_FLAGS_MAP_FIXED;
	if (fl & NAT_MAP_ANONYMOUS)
		r |= PPM_MMAP_FLAGS_MAP_ANONYMOUS;
	if (fl & NAT_MAP_32BIT)
		r |= PPM_MMAP_FLAGS_MAP_32BIT;
	if (fl & NAT_MAP_NORESERVE)
		r |= PPM_MMAP_FLAGS_MAP_NORESERVE;
	if (fl & NAT_MAP_POPULATE)
		r |= PPM_MMAP_FLAGS_MAP_POPULATE;
	if (fl & NAT_MAP_NONBLOCK)
		r |= PPM_MMAP_FLAGS_MAP_NONBLOCK;
	if (fl & NAT_MAP_GROWSDOWN)
		r |= PPM_MMAP_FLAGS_MAP_GROWSDOWN;
	if (fl & NAT_MAP_DENYWRITE)
		r |= PPM_MMAP_FLAGS_MAP_DENYWRITE;
	if (fl & NAT_MAP_EXECUTABLE)
		r |= PPM_MMAP_FLAGS_MAP_EXECUTABLE;
	if (fl & NAT_MAP_LOCKED)
		r |= PPM_MMAP_FLAGS_MAP_LOCKED;
	return r;
}

#endif
