/* Table-driven: every event of the schema that the x86_64 syscall table routes a
 * syscall to has a filler loaded in both directions on this kernel, so no routed
 * syscall arrives as an event without its params. */
#include <stdio.h>

#include "harness.h"

/* Every filler: drop_failed makes exit-only load the enter fillers it would
 * otherwise leave to the reader's rebuild too (driver/plan.h). */
static const struct driver_config all = { .own_tgid = UINT32_MAX, .drop_failed = true };

int main(void)
{
	struct harness *h = harness__open(16, &all);
	struct driver *d = harness__driver(h);
	int routed = 0;

	for (unsigned nr = 0; nr < SYSCALL_TABLE_SIZE; nr++) {
		const struct syscall_route *r = &schema_syscall_routes[nr];
		uint16_t ev[2] = { r->enter_event, r->exit_event };

		if (r->enter_event == PPME_GENERIC_E)
			continue;
		routed++;
		for (int i = 0; i < 2; i++) {
			bool ok = driver__has_filler(d, ev[i]);

			EXPECT(ok);
			if (!ok)
				fprintf(stderr, "  %s (%u): no filler for %s\n",
					schema_syscall_names[nr], nr, schema_event_ids[ev[i]]);
		}
	}
	/* the generic pair is built by the dispatchers themselves */
	EXPECT(routed >= 130);
	printf("%d routed syscalls\n", routed);
	harness__close(h);
	return harness__report("driver_coverage");
}
