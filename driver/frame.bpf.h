/* Building an event in the per-CPU scratch frame and sending it. Every filler uses
 * these: filler__begin, one filler__* call per param in table order, filler__submit. */
#ifndef FRAME_BPF_H
#define FRAME_BPF_H

/* One header per job; fillers include this one for all of them. maps.bpf.h
 * first: it brings vmlinux.h, which libbpf's headers need. */
#include "maps.bpf.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "counters.bpf.h"
#include "scratch.bpf.h"
#include "args.bpf.h"
#include "params.bpf.h"
#include "exit_only.bpf.h"
#include "ring_out.bpf.h"
#include "filler_prog.bpf.h"

#endif
