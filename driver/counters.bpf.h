/* The driver's counters: events sent and dropped, per CPU, and drops by event
 * type. */
#ifndef COUNTERS_BPF_H
#define COUNTERS_BPF_H

#include "maps.bpf.h"

static __always_inline struct driver_counters *counters__get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&counters, &zero);
}

/* The drop counters are per CPU: a plain increment is enough. */
#define COUNT(field)                                            \
	do {                                                    \
		struct driver_counters *__c = counters__get();  \
		if (__c)                                        \
			__c->field++;                           \
	} while (0)

/* An event of type TYPE that will not be sent: counted once, by reason and type.
 * Atomic adds (a drop is rare): a program preempted mid-increment by another
 * on the same CPU would lose one, and the two counts would disagree. */
static __always_inline void drop__type(__u32 type)
{
	__u64 *n = bpf_map_lookup_elem(&drops_by_type, &type);

	if (n)
		__sync_fetch_and_add(n, 1);
}

#define DROP(field, evtype)                                             \
	do {                                                            \
		struct driver_counters *__c = counters__get();          \
		if (__c)                                                \
			__sync_fetch_and_add(&__c->field, 1);           \
		drop__type(evtype);                                     \
	} while (0)

#endif
