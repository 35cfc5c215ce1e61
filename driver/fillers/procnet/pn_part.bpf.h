/* Fillers split into parts: a part picks up the event where the previous one left
 * it in the per-CPU scratch frame (same CPU: tail calls do not migrate). */
#ifndef PN_PART_BPF_H
#define PN_PART_BPF_H

#include "../../frame.bpf.h"
#include "schema_flags.h"

/* filler__resume and filler__next_part now live in frame.bpf.h. */

#endif
